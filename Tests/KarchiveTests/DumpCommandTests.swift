import Foundation
import PropertyList
import Testing

@Suite("karchive dump")
struct DumpCommandTests {
    @Test func keyedArchiveIsDumpedAsAPlainTreeInFileOrder() async throws {
        let run = try await KarchiveProcess.run(["dump", KarchiveFixtures.path("keyed/k-person.archive")])
        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "dict (4 entries)")
        #expect(lines.last == "")
        for expected in [
            "  \"$objects\": array (21 elements)",
            "    [0] string \"$null\"",
            "    [1] dict (11 entries)",
            "      \"age\": int 23",
            "      \"score\": real 3.75",
            "      \"isAdmin\": bool false",
            "      \"$class\": UID(20)",
            "    [2] string \"User 3\"",
            "    [9] string \"Berlin\"",
            "      \"NS.time\": real -99740800.0",
            "    [14] data (3 bytes) 03ff00",
            "      \"NS.uuidbytes\": data (16 bytes) 00000003000040008000000000000015",
            "  \"$top\": dict (1 entry)",
            "    \"root\": UID(1)",
            "  \"$archiver\": string \"NSKeyedArchiver\"",
            "  \"$version\": int 100000",
        ] {
            #expect(lines.contains(expected), "missing line: \(expected)")
        }
        // Dictionary keys appear in file order, not sorted.
        let keys = lines.filter { $0.hasPrefix("  \"") }.map { $0.split(separator: "\"")[1] }
        #expect(keys == ["$objects", "$top", "$archiver", "$version"])
    }

    @Test func datesAreISO8601UTC() async throws {
        let run = try await KarchiveProcess.run(["dump", KarchiveFixtures.path("bplist/valid/dates.bplist")])
        #expect(
            run.standardOutput == """
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

    @Test func setsAreShownWithTheirElements() async throws {
        let run = try await KarchiveProcess.run(["dump", KarchiveFixtures.path("bplist/valid/set.bplist")])
        #expect(run.standardOutput == "set (2 elements)\n  [0] string \"a\"\n  [1] string \"b\"\n")
    }

    @Test func invalidFileIsNotDumped() async throws {
        let path = KarchiveFixtures.path("bplist/invalid/cycle-2.bplist")
        let run = try await KarchiveProcess.run(["dump", path])
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.hasPrefix("karchive: \(path): ArchiveError.cycle: "))
    }
}
