import Foundation
import Testing

/// Where the test data lives, found from this file's path (never `Bundle.module`).
///
/// Peer-made files (``sharedRoot``) sit beside the repository in CI and on developers' machines,
/// not in a user's clone: a test that reads them carries ``Testing/Trait/needsPeerFixtures(_:)``
/// and is skipped, saying so, when they are absent. Everything else lies under ``ownRoot``.
///
/// ```swift
/// @Test(.needsPeerFixtures("bplist/valid"))
/// func intsRead() throws {
///     let bytes = try Fixtures.bytes(at: Fixtures.shared("bplist/valid/ints.bplist"))
/// }
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

    /// Whether tests use the peer-made files of ``sharedRoot``: the folder is there and
    /// `KEYED_ARCHIVE_NO_PEER_FIXTURES=1` does not ask to act as if it were not.
    public static let peerFixturesAvailable: Bool = peerFixturesAbsence == nil

    /// Why the peer-made files are not used, or `nil` when they are.
    public static let peerFixturesAbsence: String? = {
        if ProcessInfo.processInfo.environment["KEYED_ARCHIVE_NO_PEER_FIXTURES"] == "1" {
            return "KEYED_ARCHIVE_NO_PEER_FIXTURES=1 is set"
        }
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: sharedRoot.path, isDirectory: &isDirectory) || !isDirectory.boolValue {
            return "there is no \(sharedRoot.path) (a clone of the repository alone has none)"
        }
        return nil
    }()

    /// `<package>/Fixtures`: golden files this library writes, and the Foundation-made archives of
    /// `Fixtures/foundation` (made by `Scripts/make-foundation-fixtures.sh`).
    public static let ownRoot: URL = packageRoot.appending(path: "Fixtures", directoryHint: .isDirectory)

    /// A file under ``sharedRoot``.
    public static func shared(_ relativePath: String) -> URL {
        sharedRoot.appending(path: relativePath)
    }

    /// A file under ``ownRoot``.
    public static func own(_ relativePath: String) -> URL {
        ownRoot.appending(path: relativePath)
    }

    /// A fixture named by a path that says whose it is: `Fixtures/…` lies in this package (``ownRoot``),
    /// any other path under ``sharedRoot`` (`bplist/valid/ints.bplist`). Lets one argument list
    /// hold files of both.
    public static func file(_ path: String) -> URL {
        path.hasPrefix("Fixtures/") ? packageRoot.appending(path: path) : shared(path)
    }

    /// ``fileNames(in:suffix:)`` of a folder of ``sharedRoot``, or none when peer fixtures are not
    /// used; a test that takes its arguments from it carries ``Testing/Trait/needsPeerFixtures(_:)``
    /// or also runs on files of its own, and a separate one asserts the count.
    public static func peerFileNames(in folder: String, suffix: String = "") -> [String] {
        peerFixturesAvailable ? fileNames(in: shared(folder), suffix: suffix) : []
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

extension Trait where Self == ConditionTrait {
    /// Runs the test only when the peer-made files of ``Fixtures/sharedRoot`` are used; otherwise
    /// skips it with one line naming what it reads (`what`) and why it is skipped.
    public static func needsPeerFixtures(_ what: String) -> Self {
        .enabled(
            if: Fixtures.peerFixturesAvailable,
            Comment(rawValue: "needs peer-made \(what) from ../shared/fixtures: \(Fixtures.peerFixturesAbsence ?? "")"))
    }
}
