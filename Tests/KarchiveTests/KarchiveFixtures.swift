import Foundation

/// The peer fixtures in `../shared/fixtures`, found from the package root (never `Bundle.module`).
enum KarchiveFixtures {
    static let root: URL = KarchiveProcess.packageRoot.deletingLastPathComponent()
        .appending(path: "shared").appending(path: "fixtures")

    /// The path of a fixture, from its path under the fixtures root.
    static func path(_ relative: String) -> String {
        root.appending(path: relative).path
    }

    /// Paths (relative to the fixtures root) of the regular files in `directory`, sorted;
    /// empty when the directory is missing (tests assert the counts separately).
    static func files(in directory: String, suffix: String = "") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path(directory))) ?? []
        return names.filter { $0.hasSuffix(suffix) && !$0.hasPrefix(".") }.sorted().map { directory + "/" + $0 }
    }

    /// Files that have a plist-json twin (`NAME.json` beside `NAME.<ext>`) and must be read.
    static let filesWithJSONTwin: [String] =
        files(in: "bplist/valid", suffix: ".bplist")
        + files(in: "peers/libplist", suffix: ".bplist").filter { !mustBeRejectedLibplist.contains($0) }
        + files(in: "peers/cpython-darwin", suffix: ".bplist")
        + files(in: "keyed", suffix: ".archive")

    /// The two libplist test files that are malformed.
    static let mustBeRejectedLibplist = ["peers/libplist/malformed_dict.bplist", "peers/libplist/recursion.bplist"]

    /// Files that must be rejected with an `ArchiveError`.
    static let invalidFiles: [String] = files(in: "bplist/invalid", suffix: ".bplist") + mustBeRejectedLibplist

    /// Inputs that crashed libplist: each is rejected or read cleanly.
    static let fuzzFiles: [String] = files(in: "peers/libplist-fuzz")

    /// `NAME.json` for `NAME.bplist` / `NAME.archive`.
    static func twin(of file: String) -> String {
        guard let dot = file.lastIndex(of: ".") else { return file + ".json" }
        return file[..<dot] + ".json"
    }
}
