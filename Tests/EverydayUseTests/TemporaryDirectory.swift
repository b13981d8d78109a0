import Foundation

/// A fresh directory under the system's temporary directory, removed when the value is released.
///
/// ```swift
/// let folder = try TemporaryDirectory()
/// let store = try ArchiveStore(directory: folder.url)
/// ```
final class TemporaryDirectory {
    let url: URL

    init(_ label: String = "everyday") throws {
        url = FileManager.default.temporaryDirectory
            .appending(path: "\(label)-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A path inside the directory.
    func file(_ name: String) -> URL {
        url.appending(path: name)
    }
}
