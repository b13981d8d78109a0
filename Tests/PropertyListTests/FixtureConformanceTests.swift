import Foundation
import PropertyList
import TestSupport
import Testing

/// Every file of ours made by another writer (`Fixtures/foundation`: Foundation's NSKeyedArchiver;
/// `Fixtures/plistlib`: Python's plistlib), and every peer-made file with a plist-json twin when
/// ../shared/fixtures is there, reads as exactly that twin.
@Suite("Fixture conformance")
struct FixtureConformanceTests {
    /// Folders of `../shared/fixtures` whose files have a `.json` twin, with the extension of the data files.
    static let peerFolders: [(folder: String, suffix: String)] = [
        ("bplist/valid", ".bplist"),
        ("peers/cpython-darwin", ".bplist"),
        ("peers/libplist", ".bplist"),
        ("keyed", ".archive"),
    ]

    /// libplist files that must be rejected (see `peers/README.md`); tested in `ReaderRejectionTests`.
    static let rejectedPeers: Set<String> = ["recursion.bplist", "malformed_dict.bplist"]

    /// Our files made by other writers, as `Fixtures/FOLDER/NAME` (always there).
    static let ownCases: [String] =
        Fixtures.fileNames(in: Fixtures.own("foundation"), suffix: ".archive").map { "Fixtures/foundation/\($0)" }
        + Fixtures.fileNames(in: Fixtures.own("plistlib"), suffix: ".bplist").map { "Fixtures/plistlib/\($0)" }

    /// Every conformance case: ours, then the peer files as `folder/name` when they are used.
    static let cases: [String] = ownCases + peerFolders.flatMap { folder, suffix in
        Fixtures.peerFileNames(in: folder, suffix: suffix)
            .filter { !rejectedPeers.contains($0) }
            .map { "\(folder)/\($0)" }
    }

    @Test("Fixtures/foundation and Fixtures/plistlib hold their 13 and 10 files")
    func ownFixtureFoldersAreComplete() {
        #expect(Self.ownCases.filter { $0.hasPrefix("Fixtures/foundation/") }.count == 13, "\(Self.ownCases)")
        #expect(Self.ownCases.filter { $0.hasPrefix("Fixtures/plistlib/") }.count == 10, "\(Self.ownCases)")
    }

    @Test(
        "Every peer fixture folder holds files, so the loop cannot silently test nothing",
        .needsPeerFixtures("bplist/valid, peers/cpython-darwin, peers/libplist and keyed (only our own files are read)"),
        arguments: peerFolders.map(\.folder))
    func fixtureFolderIsNotEmpty(folder: String) {
        let count = Self.cases.filter { $0.hasPrefix(folder + "/") }.count
        let minimum = ["bplist/valid": 26, "peers/cpython-darwin": 2, "peers/libplist": 22, "keyed": 13][folder] ?? 1
        #expect(count >= minimum, "\(folder) has \(count) files under \(Fixtures.sharedRoot.path)")
    }

    @Test("Each fixture reads as its plist-json twin", arguments: cases)
    func fixtureReadsAsItsJSONTwin(path: String) throws {
        let url = Fixtures.file(path)
        let jsonURL = url.deletingPathExtension().appendingPathExtension("json")
        let expected = try PlistValue(plistJSON: try Fixtures.text(at: jsonURL))
        let bytes = try Fixtures.bytes(at: url)
        // plist-json has one kind of real: compare 4-byte reals widened to Double.
        let actual = try BPlistReader().read(bytes).widenedFloats

        if path == "bplist/valid/reals.bplist" {
            try Self.checkKnownRealsDefect(actual: actual, expected: expected, bytes: bytes)
            return
        }
        #expect(actual == expected, "\(path): read \(actual.plistJSON.prefix(400))")
    }

    /// KNOWN FIXTURE DEFECT: `reals.json` says element 1 is `-0.0`, but Python's writer uniqued
    /// `0.0` and `-0.0` (they are `==` in Python), so the file's array references object 1 (`0.0`)
    /// twice. Accept the file only if that is the one and only difference.
    static func checkKnownRealsDefect(actual: PlistValue, expected: PlistValue, bytes: [UInt8]) throws {
        let elements = try #require(actual.arrayValue)
        let expectedElements = try #require(expected.arrayValue)
        try #require(elements.count == expectedElements.count)
        let differing = elements.indices.filter { elements[$0] != expectedElements[$0] }
        #expect(differing == [1], "only element 1 may differ, found \(differing)")
        #expect(elements[1] == .real(0.0) && expectedElements[1] == .real(-0.0))
        // The root array's first two references are the same object (one-byte refs after the 0xA9 marker).
        let trailer = bytes.count - 32
        #expect(bytes[trailer + 7] == 1, "one-byte references")
        let top = Int(bytes[trailer + 23])
        let tableOffset = Int(bytes[trailer + 31])
        let rootOffset = Int(bytes[tableOffset + top])
        #expect(bytes[rootOffset] == 0xA9)
        #expect(bytes[rootOffset + 1] == bytes[rootOffset + 2], "element 0 and element 1 reference one object")
        #expect(Set(bytes[(rootOffset + 1)...(rootOffset + 9)]).count == 8, "the other seven references are distinct")
        // With the sign fixed, the rest agrees.
        var repaired = elements
        repaired[1] = .real(-0.0)
        #expect(PlistValue.array(repaired) == expected)
    }

    @Test("Fixtures that read also write and read back equal")
    func peerFixturesSurviveARewrite() throws {
        var rewritten = 0
        for path in Self.cases {
            let value = try BPlistReader().read(try Fixtures.bytes(at: Fixtures.file(path)))
            let bytes: [UInt8]
            do {
                bytes = try BPlistWriter().write(value)
            } catch {
                // Null, sets and UIDs ≥ 2^32 are readable but never written.
                #expect(error.code == .unencodable, "\(path): \(error)")
                continue
            }
            #expect(try BPlistReader().read(bytes) == value, "\(path)")
            rewritten += 1
        }
        #expect(rewritten >= Self.cases.count - 4)
    }
}
