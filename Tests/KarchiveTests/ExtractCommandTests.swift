import Foundation
import PropertyList
import TestSupport
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

/// `karchive extract KEYPATH FILE`: a value by key path, through plain property lists and the
/// object graphs of keyed archives, in every output format.
@Suite("karchive extract")
struct ExtractCommandTests {
    static let people = KarchiveFixtures.path("Fixtures/foundation/k-people-shared.archive")
    static let tree = KarchiveFixtures.path("Fixtures/foundation/k-tree-cycle.archive")
    static let xmlArchive = KarchiveFixtures.path("Fixtures/xml/foundation-keyed-archive.plist")
    static let xmlValues = KarchiveFixtures.path("Fixtures/xml/foundation-values.plist")

    static func extract(_ arguments: [String], stdin: URL? = nil) async throws -> KarchiveProcess.Outcome {
        try await KarchiveProcess.run(["extract"] + arguments, standardInput: stdin)
    }

    @Test("The path follows a keyed archive's object graph: a top key, fields, list indexes, dictionary keys", arguments: [
        (["root.0.name", people, "-f", "raw"], "User 1\n"),
        (["root.1.address.city", people, "-f", "raw"], "Zürich\n"),
        (["root.0.tags.1", people, "-f", "raw"], "group1\n"),
        (["root.0.age", people, "-f", "raw"], "21\n"),
        (["root.0.isAdmin", people, "-f", "raw"], "false\n"),
        (["root.0.id", people, "-f", "raw"], "00000001-0000-4000-8000-000000000007\n"),
        (["root.0.birthday", people, "-f", "raw"], "1997-11-01T14:13:20Z\n"),
        (["root.0.avatar", people, "-f", "raw"], "Af8A\n"),
        (["root.0.tags", people], #"{"array":[{"string":"t1"},{"string":"group1"}]}"# + "\n"),
        (["root.next.title", xmlArchive, "-f", "raw"], "second & <last>\n"),
        (["info.name", xmlArchive, "-f", "raw"], "notes\n"),
        (["letters.2", xmlArchive], #"{"string":"a"}"# + "\n"),
        (["root.children.0.children.0.name", tree, "-f", "raw"], "grand0\n"),
    ] as [([String], String)])
    func followsTheGraph(arguments: [String], expected: String) async throws {
        let run = try await Self.extract(arguments)
        #expect(run.status == 0 && run.standardError.isEmpty, "\(arguments): \(run.standardError)")
        #expect(run.standardOutput == expected, "\(arguments)")
    }

    @Test("An object is written out as a plain property list: fields, $class, values; a cycle as @UID")
    func objectsAreWrittenOut() async throws {
        let address = try await Self.extract(["root.0.address", Self.people, "-f", "xml1"])
        #expect(address.status == 0)
        let value = try XMLPlistReader().read(Array(address.standardOutput.utf8))
        #expect(value == ["$class": "keyedgen.Address", "street": "1 Main St", "city": "Berlin", "zip": "8001"])
        let node = try await Self.extract(["root.children.0", Self.tree])
        let tree = try PlistValue(plistJSON: node.standardOutput)
        #expect(tree.dictValue?["parent"]?.dictValue?["$class"] == "keyedgen.Node", "the parent is written out (not on the path)")
        #expect(tree.dictValue?["parent"]?.dictValue?["children"]?.arrayValue?[0] == "@4", "the node itself, met again inside its parent")
        let binary = try await Self.extract(["root", Self.tree, "-f", "binary1"])
        #expect(binary.status == 0 && binary.standardOutput.utf8.starts(with: "bplist00".utf8))
        let pretty = try await Self.extract(["root.0.tags", Self.people, "--pretty"])
        #expect(pretty.standardOutput == "{\n  \"array\": [\n    {\n      \"string\": \"t1\"\n    },\n    {\n      \"string\": \"group1\"\n    }\n  ]\n}\n")
    }

    @Test("Plain property lists: keys and indexes, a \\. in a key, from XML and from standard input")
    func plainPaths() async throws {
        let integers = try await Self.extract(["integers.4", Self.xmlValues, "-f", "raw"])
        #expect(integers.standardOutput == "65536\n", "\(integers.standardError)")
        let nested = try await Self.extract(["nested.level.deeper.deepest.1", "-", "-f", "raw"], stdin: URL(fileURLWithPath: Self.xmlValues))
        #expect(nested.standardOutput == "end\n", "\(nested.standardError)")
        let directory = try TemporaryDirectory()
        let file = directory.url.appending(path: "dots.plist")
        try Data(try XMLPlistWriter().write(["a.b": ["c": 1]])).write(to: file)
        let dotted = try await Self.extract([#"a\.b.c"#, file.path, "-f", "raw"])
        #expect(dotted.standardOutput == "1\n", "\(dotted.standardError)")
    }

    @Test("A path that leads nowhere, or raw of a container, exits 1 and says where it stopped", arguments: [
        (["root.7.name", people], "root has 3 elements; there is no element 7"),
        (["root.0.nope", people], "root.0 (keyedgen.Person) has no field \"nope\""),
        (["rot", people], "the archive has no top-level key \"rot\""),
        (["root.x", people], "root is a list; \"x\" is not an index"),
        (["root.0.homepage.host", people], "root.0.homepage is nil"),
        (["root.0", people, "-f", "raw"], "-f raw prints only single values"),
        (["root.0.homepage", people, "-f", "raw"], "the value is nil"),
        (["integers.99", xmlValues], "integers has 8 elements; there is no element 99"),
        (["string.x", xmlValues], "string is a string, which has no \"x\""),
        (["a..b", xmlValues], "has an empty component"),
    ] as [([String], String)])
    func failures(arguments: [String], message: String) async throws {
        let run = try await Self.extract(arguments)
        #expect(run.status == 1 && run.standardOutput.isEmpty, "\(arguments)")
        #expect(run.standardError.contains(message), "\(arguments): \(run.standardError)")
    }
}
#endif
