import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

/// `-insert`, `-replace` and `-remove`: every value type, written back in the file's own format;
/// and `--graph` edits of keyed archives, read back by `KeyedUnarchiver`.
@Suite("karchive -insert, -replace, -remove")
struct PlutilEditTests {
    static let start: PlistValue = ["name": "Ann", "tags": ["a", "b"], "friends": [["name": "Bo"]]]

    static func file(_ format: PlistFormat, in directory: TemporaryDirectory) throws -> String {
        let url = directory.url.appending(path: format == .binary ? "edit.bplist" : "edit.plist")
        try Data(format == .binary ? try BPlistWriter().write(start) : try XMLPlistWriter().write(start)).write(to: url)
        return url.path
    }

    @Test("Each -TYPE inserts its value, and the file keeps its format", arguments: [
        (["-bool", "YES"], PlistValue.bool(true)), (["-bool", "no"], .bool(false)), (["-integer", "-42"], .int(-42)),
        (["-integer", "12abc"], .int(12)), (["-float", "2.5e3"], .real(2500)), (["-string", "x y"], .string("x y")),
        (["-date", "2001-01-01T00:01:40Z"], .date(100)), (["-data", "AAEK/w=="], .data([0, 1, 0x0A, 0xFF])),
        (["-xml", "<array><integer>1</integer></array>"], [1]), (["-json", #"{"a":[1,2.5,true,"s"]}"#], ["a": [1, 2.5, true, "s"]]),
        (["-array"], .array([])), (["-dictionary"], .dict([:])),
    ] as [([String], PlistValue)])
    func eachType(type: [String], expected: PlistValue) async throws {
        let directory = try TemporaryDirectory()
        for format in [PlistFormat.binary, .xml] {
            let path = try Self.file(format, in: directory)
            let run = try await KarchiveProcess.run(["-insert", "new"] + type + [path])
            #expect(run.status == 0 && run.standardOutput.isEmpty && run.standardError.isEmpty, "\(type): \(run.standardError)")
            let bytes = try Fixtures.bytes(at: URL(fileURLWithPath: path))
            #expect(PlistFormat(of: bytes) == format, "\(type) in \(format)")
            let value = try PlistReader().read(bytes)
            #expect(value.dictValue?["new"] == expected, "\(type) in \(format)")
            #expect(value.dictValue?["name"] == "Ann", "the rest is kept")
        }
    }

    @Test("-replace, -append, array indexes and -remove edit in place; failures leave the file and say why")
    func editsAndFailures() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.file(.xml, in: directory)
        for edit in [["-replace", "name", "-string", "Anne"], ["-insert", "tags", "-string", "c", "-append"], ["-insert", "tags.0", "-string", "first"],
                     ["-replace", "friends.0.name", "-string", "Bea"], ["-remove", "tags.1"]] {
            let run = try await KarchiveProcess.run(edit + [path])
            #expect(run.status == 0, "\(edit): \(run.standardError)")
        }
        let edited = try PlistReader().read(try Fixtures.bytes(at: URL(fileURLWithPath: path)))
        #expect(edited == ["name": "Anne", "tags": ["first", "b", "c"], "friends": [["name": "Bea"]]])

        let before = try Fixtures.bytes(at: URL(fileURLWithPath: path))
        for (edit, message) in [
            (["-insert", "name", "-string", "x"], "Value already exists at key path name"),
            (["-remove", "no.such"], "No value to remove at key path no.such"),
            (["-insert", "tags.9", "-string", "x"], "Index 9 out of bounds in array at key path tags.9"),
            (["-insert", "x", "-date", "yesterday"], "Invalid date \"yesterday\""),
            (["-insert", "x", "-data", "!!!"], "Invalid base64 data in argument"),
        ] as [([String], String)] {
            let run = try await KarchiveProcess.run(edit + [path])
            #expect(run.status == 1 && run.standardError.hasPrefix(edit.count > 2 && ["-date", "-data"].contains(edit[2]) ? "Invalid" : "\(path): "), "\(edit): \(run.standardError)")
            #expect(run.standardError.contains(message), "\(edit): \(run.standardError)")
        }
        #expect(try Fixtures.bytes(at: URL(fileURLWithPath: path)) == before, "a failed edit writes nothing")
    }

    final class Member: Archivable {
        var name = ""
        var age = 0
        var tags: [String] = []
        var nickname: String?
        var friends: [Member] = []
        required init() {}
        static var archiveClassName: String? { "EditTests.Member" }
    }

    static func archive(in directory: TemporaryDirectory) throws -> String {
        let bo = Member()
        bo.name = "Bo"
        let ann = Member()
        ann.name = "Ann"
        ann.age = 40
        ann.tags = ["a", "b"]
        ann.nickname = "Annie"
        ann.friends = [bo]
        let url = directory.url.appending(path: "member.archive")
        try KeyedArchiver.archivedData(withRootObject: ann).write(to: url)
        return url.path
    }

    static func decode(_ path: String) throws -> Member {
        try KeyedUnarchiver.unarchivedObject(ofType: Member.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func objectCount(_ path: String) throws -> Int {
        try PlistReader().read(try Fixtures.bytes(at: URL(fileURLWithPath: path))).dictValue?["$objects"]?.arrayValue?.count ?? -1
    }

    @Test("--graph edits follow the object graph from $top, and KeyedUnarchiver reads the result")
    func graphEditsRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.archive(in: directory)
        let objects = try Self.objectCount(path)

        let reuse = try await KarchiveProcess.run(["-replace", "root.name", "-string", "Bo", "--graph", path])
        #expect(reuse.status == 0, "\(reuse.standardError)")
        #expect(try Self.objectCount(path) == objects, "an equal string already in $objects is reused")
        #expect(try Self.decode(path).name == "Bo")

        for edit in [["-replace", "root.name", "-string", "Anne"], ["-replace", "root.age", "-integer", "41"],
                     ["-replace", "root.friends.0.name", "-string", "Bea"], ["-insert", "root.tags", "-string", "z", "-append"],
                     ["-insert", "root.tags.0", "-string", "first"], ["-remove", "root.tags.1"], ["-remove", "root.nickname"]] {
            let run = try await KarchiveProcess.run(edit + ["--graph", path])
            #expect(run.status == 0 && run.standardError.isEmpty, "\(edit): \(run.standardError)")
        }
        #expect(try Self.objectCount(path) == objects + 4, "Anne, Bea, z and first are new objects")
        #expect(PlistFormat(of: try Fixtures.bytes(at: URL(fileURLWithPath: path))) == .binary)
        let member = try Self.decode(path)
        #expect(member.name == "Anne" && member.age == 41 && member.tags == ["first", "b", "z"] && member.nickname == nil)
        #expect(member.friends.map(\.name) == ["Bea"])

        let extracted = try await KarchiveProcess.run(["-extract", "root.friends.0.name", "raw", "--graph", path])
        #expect(extracted.status == 0 && extracted.standardOutput == "Bea\n", "\(extracted.standardError)")
        let type = try await KarchiveProcess.run(["-type", "root.friends", "--graph", path])
        #expect(type.standardOutput == "array\n")

        let exists = try await KarchiveProcess.run(["-insert", "root.name", "-string", "x", "--graph", path])
        #expect(exists.status == 1 && exists.standardError == "\(path): Value already exists at key path root.name\n")
        let missing = try await KarchiveProcess.run(["-remove", "root.friends.3", "--graph", path])
        #expect(missing.status == 1 && missing.standardError == "\(path): No value to remove at key path root.friends.3\n")
        let plain = try Self.file(.xml, in: directory)
        let notArchive = try await KarchiveProcess.run(["-remove", "name", "--graph", plain])
        #expect(notArchive.status == 1 && notArchive.standardError.contains("this is not a keyed archive; leave out --graph"))
    }

    @Test("Without --graph a keyed archive is a plain property list: $objects and UIDs, as plutil sees it")
    func rawPathsWithoutGraph() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.archive(in: directory)
        let top = try await KarchiveProcess.run(["-extract", "$top.root", "xml1", path])
        #expect(top.status == 0 && top.standardOutput.contains("<key>CF$UID</key>"), "\(top.standardError)")
        let type = try await KarchiveProcess.run(["-type", "$top.root", path])
        #expect(type.standardOutput == "uid\n")
    }
}
#endif
