import Foundation
import PropertyList
import TestSupport
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

@Suite("karchive dump")
struct DumpCommandTests {
    @Test func keyedArchiveIsDumpedAsItsObjectGraph() async throws {
        let run = try await KarchiveProcess.run(["dump", KarchiveFixtures.path("Fixtures/foundation/k-person.archive")])
        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "binary property list (binary1)")
        #expect(lines[1] == "keyed archive (NSKeyedArchiver 100000), 21 objects")
        #expect(lines.last == "")
        // Fields in file order under their object, UIDs resolved, Foundation values on one line.
        for expected in [
            "root: @1 keyedgen.Person",
            "  age: 23",
            "  score: 3.75",
            "  isAdmin: false",
            "  name: \"User 3\"",
            "  birthday: NSDate 1997-11-03T14:13:20Z",
            "  address: @7 keyedgen.Address",
            "    city: \"Berlin\"",
            "  homepage: NSURL \"https://example.com/u/3\"",
            "  avatar: data (3 bytes) 03ff00",
            "  tags: @3 NSArray (2)",
            "    [0]: \"t0\"",
            "  id: NSUUID 00000003-0000-4000-8000-000000000015",
        ] {
            #expect(lines.contains(expected), "missing line: \(expected)")
        }
        #expect(!lines.contains { $0.contains("$class") || $0.contains("$objects") })
    }

    @Test func eachObjectShowsTheVersionItsTypeWasArchivedAt() async throws {
        let current = try await KarchiveProcess.run(["dump", KarchiveFixtures.path("Fixtures/versions/v2-team.archive")])
        #expect(current.status == 0, "\(current.standardError)")
        let lines = current.standardOutput.split(separator: "\n").map(String.init)
        for expected in [
            "root: @1 Kennel.Team", "    [0]: @4 Kennel.Member v2", "      address: @8 Kennel.Address v1",
            "      team: @1",
        ] {
            #expect(lines.contains(expected), "missing line: \(expected)")
        }
        #expect(lines.contains { $0.hasPrefix("    [1]: @") && $0.hasSuffix(" Kennel.Captain v2") })
        // Version 0 records nothing, and shows none.
        let old = try await KarchiveProcess.run(["dump", KarchiveFixtures.path("Fixtures/versions/v0-team.archive")])
        #expect(old.status == 0)
        #expect(old.standardOutput.contains("[0]: @4 Kennel.Member\n"))
        #expect(!old.standardOutput.contains(" v0") && !old.standardOutput.contains(" v1"))
    }

    @Test func sharedObjectsAreShownOnceAndCyclesAreCut() async throws {
        let shared = try await KarchiveProcess.run(["dump", KarchiveFixtures.path("Fixtures/foundation/k-people-shared.archive")])
        #expect(shared.status == 0)
        let sharedLines = shared.standardOutput.split(separator: "\n").map(String.init)
        #expect(sharedLines.contains("root: @1 NSArray (3)"))
        #expect(sharedLines.contains("  [0]: @2 keyedgen.Person"))
        #expect(sharedLines.contains("  [2]: @2"))
        #expect(sharedLines.filter { $0.contains("name: \"User 1\"") }.count == 1)

        let tree = try await KarchiveProcess.run(["dump", KarchiveFixtures.path("Fixtures/foundation/k-tree-cycle.archive")])
        #expect(tree.status == 0)
        let treeLines = tree.standardOutput.split(separator: "\n").map(String.init)
        #expect(treeLines.contains("root: @1 keyedgen.Node"))
        #expect(treeLines.contains("      parent: @1"))
        #expect(treeLines.contains("  parent: nil"))
        #expect(treeLines.filter { $0.hasSuffix("keyedgen.Node") }.count == 7)
    }

    @Test(.needsPeerFixtures("bplist/valid/dates.bplist"))
    func datesAreISO8601UTC() async throws {
        let run = try await KarchiveProcess.run(["dump", KarchiveFixtures.path("bplist/valid/dates.bplist")])
        #expect(
            run.standardOutput == """
                binary property list (binary1)
                array (4 elements)
                  [0] date 2001-01-01T00:00:00Z
                  [1] date 2001-01-01T00:00:10Z
                  [2] date 1970-01-01T00:00:00Z
                  [3] date 2038-01-19T03:14:08Z

                """)
    }

    @Test func everyKindHasItsOwnLine() async throws {
        var dict = PlistDictionary()
        dict["quote\"and\\slash"] = .string("line\nbreak\ttab\u{1}")
        dict["big"] = .uint(UInt64.max)
        dict["negative"] = .int(-5)
        dict["half"] = .float(0.5)
        dict["nan"] = .real(.nan)
        dict["fraction"] = .date(-1.5)
        dict["far"] = .date(1e300)
        dict["bytes"] = .data(Array(0..<20))
        dict["empty"] = .data([])
        dict["list"] = .array([.bool(true)])
        dict["none"] = .array([])
        dict["uid"] = .uid(70000)
        let directory = try TemporaryDirectory()
        let file = directory.url.appending(path: "kinds.bplist")
        try Data(BPlistWriter().write(.dict(dict))).write(to: file)

        let run = try await KarchiveProcess.run(["dump", file.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput == #"""
                binary property list (binary1)
                dict (12 entries)
                  "quote\"and\\slash": string "line\nbreak\ttab\u{1}"
                  "big": int 18446744073709551615
                  "negative": int -5
                  "half": real32 0.5
                  "nan": real nan
                  "fraction": date 2000-12-31T23:59:58.5Z
                  "far": date 1e+300 (seconds since 2001-01-01, outside years 0000-9999)
                  "bytes": data (20 bytes) 000102030405060708090a0b0c0d0e0f…
                  "empty": data (0 bytes)
                  "list": array (1 element)
                    [0] bool true
                  "none": array (0 elements)
                  "uid": UID(70000)

                """#)
    }

    @Test("dump reads every well-formed fixture, the same way twice", arguments: KarchiveFixtures.filesWithJSONTwin)
    func dumpIsDeterministic(file: String) async throws {
        let first = try await KarchiveProcess.run(["dump", KarchiveFixtures.path(file)])
        let second = try await KarchiveProcess.run(["dump", KarchiveFixtures.path(file)])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(!first.standardOutput.isEmpty)
        #expect(first.standardOutput == second.standardOutput)
    }

    @Test(.needsPeerFixtures("bplist/valid/set.bplist"))
    func setsAreShownWithTheirElements() async throws {
        let run = try await KarchiveProcess.run(["dump", KarchiveFixtures.path("bplist/valid/set.bplist")])
        #expect(run.standardOutput == "binary property list (binary1)\nset (2 elements)\n  [0] string \"a\"\n  [1] string \"b\"\n")
    }

    @Test(.needsPeerFixtures("bplist/invalid/cycle-2.bplist"))
    func invalidFileIsNotDumped() async throws {
        let path = KarchiveFixtures.path("bplist/invalid/cycle-2.bplist")
        let run = try await KarchiveProcess.run(["dump", path])
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.hasPrefix("karchive: \(path): ArchiveError.cycle: "))
    }
}
#endif
