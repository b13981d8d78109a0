import Foundation
import TestSupport

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

/// The fixtures the karchive tests run on, named by path: `Fixtures/…` lies in this package (the
/// Foundation- and plistlib-made files of `Fixtures/foundation` and `Fixtures/plistlib` are always
/// there), any other path in the peer data of ../shared/fixtures, which a user's clone lacks
/// (`Fixtures.peerFixturesAvailable`; tests that need it carry `.needsPeerFixtures`).
enum KarchiveFixtures {
    /// The path of a fixture, from its path under `Fixtures.file(_:)`'s two roots.
    static func path(_ relative: String) -> String {
        Fixtures.file(relative).path
    }

    /// Paths of the regular files in `directory`, sorted; none for a peer folder when peer fixtures
    /// are not used (tests assert the counts separately).
    static func files(in directory: String, suffix: String = "") -> [String] {
        let names =
            directory.hasPrefix("Fixtures/")
            ? Fixtures.fileNames(in: Fixtures.file(directory), suffix: suffix)
            : Fixtures.peerFileNames(in: directory, suffix: suffix)
        return names.map { directory + "/" + $0 }
    }

    /// Our files made by other writers (Foundation, plistlib), each with its plist-json twin.
    static let ownFilesWithJSONTwin: [String] =
        files(in: "Fixtures/foundation", suffix: ".archive") + files(in: "Fixtures/plistlib", suffix: ".bplist")

    /// Peer files that have a plist-json twin (`NAME.json` beside `NAME.<ext>`) and must be read.
    static let peerFilesWithJSONTwin: [String] =
        files(in: "bplist/valid", suffix: ".bplist")
        + files(in: "peers/libplist", suffix: ".bplist").filter { !mustBeRejectedLibplist.contains($0) }
        + files(in: "peers/cpython-darwin", suffix: ".bplist")
        + files(in: "keyed", suffix: ".archive")

    /// Files that have a plist-json twin and must be read: ours, then the peer files when used.
    static let filesWithJSONTwin: [String] = ownFilesWithJSONTwin + peerFilesWithJSONTwin

    /// The two libplist test files that are malformed.
    static let mustBeRejectedLibplist = ["peers/libplist/malformed_dict.bplist", "peers/libplist/recursion.bplist"]

    /// Files that must be rejected with an `ArchiveError` (all peer-made).
    static let invalidFiles: [String] =
        Fixtures.peerFixturesAvailable ? files(in: "bplist/invalid", suffix: ".bplist") + mustBeRejectedLibplist : []

    /// Inputs that crashed libplist: each is rejected or read cleanly.
    static let fuzzFiles: [String] = files(in: "peers/libplist-fuzz")

    /// `NAME.json` for `NAME.bplist` / `NAME.archive`.
    static func twin(of file: String) -> String {
        guard let dot = file.lastIndex(of: ".") else { return file + ".json" }
        return file[..<dot] + ".json"
    }
}
#endif
