import Foundation

/// Where the test data lives, found from this file's path (never `Bundle.module`).
///
/// ```swift
/// let bytes = try Fixtures.bytes(at: Fixtures.sharedRoot.appending(path: "bplist/valid/ints.bplist"))
/// ```
public enum Fixtures {
    /// The package root: three levels above `Tests/TestSupport/Fixtures.swift`.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package

    /// `../shared/fixtures`: read-only peer data (plistlib, Foundation, libplist files).
    public static let sharedRoot: URL = packageRoot.deletingLastPathComponent()
        .appending(path: "shared", directoryHint: .isDirectory)
        .appending(path: "fixtures", directoryHint: .isDirectory)

    /// `<package>/Fixtures`: golden files this library writes.
    public static let ownRoot: URL = packageRoot.appending(path: "Fixtures", directoryHint: .isDirectory)

    /// A file under ``sharedRoot``.
    public static func shared(_ relativePath: String) -> URL {
        sharedRoot.appending(path: relativePath)
    }

    /// A file under ``ownRoot``.
    public static func own(_ relativePath: String) -> URL {
        ownRoot.appending(path: relativePath)
    }

    /// The bytes of a file.
    public static func bytes(at url: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url))
    }

    /// The text of a UTF-8 file.
    public static func text(at url: URL) throws -> String {
        String(decoding: try Data(contentsOf: url), as: UTF8.self)
    }

    /// The names of the regular files in a directory whose names end with `suffix`, sorted.
    /// A missing directory gives an empty list (callers assert non-empty counts).
    public static func fileNames(in directory: URL, suffix: String = "") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { name in
            var isDirectory: ObjCBool = false
            let path = directory.appending(path: name).path
            return name.hasSuffix(suffix) && !name.hasPrefix(".")
                && FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.sorted()
    }

    /// `true` when `RECORD_FIXTURES=1`: golden-file helpers rewrite instead of comparing.
    public static var isRecording: Bool {
        ProcessInfo.processInfo.environment["RECORD_FIXTURES"] == "1"
    }
}
