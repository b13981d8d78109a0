import ArchiveStore
import Foundation
import KeyedArchive
import Testing

/// A fresh temporary directory for one test, with a store in a subdirectory `store` (so the
/// test can check that nothing appears next to it), removed when the test ends.
struct StoreFixture: ~Copyable {
    /// The test's own directory, the store directory's parent.
    let parent: URL
    /// The store's directory.
    let directory: URL
    let store: ArchiveStore

    init() throws {
        parent = FileManager.default.temporaryDirectory
            .appending(path: "archive-store-tests-\(UUID().uuidString)", directoryHint: .isDirectory)
        directory = parent.appending(path: "store", directoryHint: .isDirectory)
        store = try ArchiveStore(directory: directory)
    }

    deinit {
        makeWritable(parent)
        try? FileManager.default.removeItem(at: parent)
    }

    /// Every path under `url` (files and directories, relative), sorted.
    static func tree(at url: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: url.path) else { return [] }
        var paths: [String] = []
        while let path = enumerator.nextObject() as? String { paths.append(path) }
        return paths.sorted()
    }

    /// The tree under `parent`.
    var parentTree: [String] { Self.tree(at: parent) }

    /// Names in the store's directory that are temporary files.
    func temporaryFiles(in url: URL? = nil) -> [String] {
        Self.tree(at: url ?? directory).filter { ($0 as NSString).lastPathComponent.hasPrefix(".tmp-") }
    }

    /// The file holding `key` in `store` (a namespace of this fixture's store, or the store).
    func file(forKey key: String, in store: ArchiveStore? = nil) -> URL {
        (store ?? self.store).directory.appending(path: StoreFileName.keyFileName(for: key))
    }
}

/// Gives the owner write permission on every directory under `url`, so it can be deleted.
private func makeWritable(_ url: URL) {
    guard let enumerator = FileManager.default.enumerator(atPath: url.path) else { return }
    try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
    while let path = enumerator.nextObject() as? String {
        var isDirectory: ObjCBool = false
        let full = url.appending(path: path).path
        if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), isDirectory.boolValue {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: full)
        }
    }
}

/// Compares strings by their exact UTF-8 bytes (Swift's `==` equates NFC and NFD spellings).
func sameBytes(_ lhs: String?, _ rhs: String?) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil): true
    case (let lhs?, let rhs?): lhs.utf8.elementsEqual(rhs.utf8)
    default: false
    }
}

/// `strings` as lists of bytes, for comparisons that must not normalise.
func bytes(_ strings: [String]) -> [[UInt8]] { strings.map { Array($0.utf8) } }

/// Runs `body` expecting an ``ArchiveError``, and returns it.
@discardableResult
func expectArchiveError(
    _ code: ArchiveError.Code? = nil, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> ArchiveError? {
    do {
        try body()
        Issue.record(
            "expected an ArchiveError\(code.map { " .\($0)" } ?? ""), nothing was thrown",
            sourceLocation: sourceLocation)
        return nil
    } catch let error as ArchiveError {
        if let code {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        }
        return error
    } catch {
        Issue.record("expected an ArchiveError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
