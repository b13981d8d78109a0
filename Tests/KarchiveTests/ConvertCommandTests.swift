import Foundation
import PropertyList
import TestSupport
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

/// `karchive convert` and every command on XML input, standard input and several files.
@Suite("karchive convert and XML input")
struct ConvertCommandTests {
    /// Our XML and binary files made by other writers (always there).
    static let xmlFiles = ["Fixtures/xml/foundation-values.plist", "Fixtures/xml/foundation-keyed-archive.plist", "Fixtures/xml/plistlib-values.plist"]
    static let binaryFiles = ["Fixtures/foundation/k-person.archive", "Fixtures/plistlib/dates.bplist", "Fixtures/foundation/k-tree-cycle.archive"]

    static func write(_ bytes: [UInt8], _ name: String, in directory: TemporaryDirectory) throws -> URL {
        let url = directory.url.appending(path: name)
        try Data(bytes).write(to: url)
        return url
    }

    @Test("binary → XML → binary keeps the content, and XML karchive wrote → binary → XML keeps the bytes", arguments: binaryFiles)
    func roundTrips(file: String) async throws {
        let directory = try TemporaryDirectory()
        let original = try PlistReader().read(try Fixtures.bytes(at: Fixtures.file(file)))
        let toXML = try await KarchiveProcess.run(["convert", "-f", "xml1", "-o", directory.url.appending(path: "a.xml").path, KarchiveFixtures.path(file)])
        #expect(toXML.status == 0 && toXML.standardOutput.isEmpty, "\(toXML.standardError)")
        let xml = try Fixtures.bytes(at: directory.url.appending(path: "a.xml"))
        #expect(PlistFormat(of: xml) == .xml)
        #expect(try PlistReader().read(xml) == original.xmlRepresentable)

        let toBinary = try await KarchiveProcess.run(["convert", "-f", "binary1", "-o", directory.url.appending(path: "b.bplist").path, directory.url.appending(path: "a.xml").path])
        #expect(toBinary.status == 0, "\(toBinary.standardError)")
        let binary = try Fixtures.bytes(at: directory.url.appending(path: "b.bplist"))
        #expect(PlistFormat(of: binary) == .binary)
        #expect(try PlistReader().read(binary) == original.xmlRepresentable)

        // Back to XML on standard output: the very bytes written first.
        let back = try await KarchiveProcess.run(["convert", "-f", "xml1", directory.url.appending(path: "b.bplist").path])
        #expect(back.status == 0 && Array(back.standardOutput.utf8) == xml)
    }

    @Test("Every command reads XML as it reads binary, from a path and from standard input", arguments: xmlFiles)
    func everyCommandReadsXML(file: String) async throws {
        let path = KarchiveFixtures.path(file)
        let value = try XMLPlistReader().read(try Fixtures.bytes(at: Fixtures.file(file)))
        let directory = try TemporaryDirectory()
        let binary = try Self.write(try BPlistWriter().write(value), "same.bplist", in: directory)

        let json = try await KarchiveProcess.run(["json", path])
        #expect(json.status == 0 && json.standardOutput == value.plistJSON + "\n", "\(json.standardError)")
        let fromStdin = try await KarchiveProcess.run(["json", "-"], standardInput: URL(fileURLWithPath: path))
        #expect(fromStdin.standardOutput == json.standardOutput)

        let validate = try await KarchiveProcess.run(["validate", path])
        #expect(validate.status == 0 && validate.standardOutput.hasPrefix("\(path): valid (XML property list"), "\(validate.standardError)")

        let dump = try await KarchiveProcess.run(["dump", path])
        let binaryDump = try await KarchiveProcess.run(["dump", binary.path])
        #expect(dump.status == 0 && dump.standardOutput.hasPrefix("XML property list (xml1)\n"))
        #expect(binaryDump.standardOutput.hasPrefix("binary property list (binary1)\n"))
        #expect(dump.standardOutput.dropFirst("XML property list (xml1)\n".count) == binaryDump.standardOutput.dropFirst("binary property list (binary1)\n".count))

        let stats = try await KarchiveProcess.run(["stats", path])
        #expect(stats.status == 0 && stats.standardOutput.hasPrefix("XML property list (xml1), "), "\(stats.standardError)")
        #expect(stats.standardOutput.contains("objects:"))

        let converted = try await KarchiveProcess.run(["convert", "-f", "binary1", "-"], standardInput: URL(fileURLWithPath: path))
        #expect(converted.status == 0 && Array(converted.standardOutput.utf8).prefix(6) == Array("bplist".utf8)[...])
    }

    @Test("convert -f json prints plist-json, indented with --pretty; plist-json reads back as input")
    func jsonFormat() async throws {
        let path = KarchiveFixtures.path("Fixtures/xml/plistlib-unsorted.plist")
        let value = try XMLPlistReader().read(try Fixtures.bytes(at: Fixtures.file("Fixtures/xml/plistlib-unsorted.plist")))
        let compact = try await KarchiveProcess.run(["convert", "-f", "json", path])
        #expect(compact.status == 0 && compact.standardOutput == value.plistJSON + "\n")
        let pretty = try await KarchiveProcess.run(["json", "--pretty", path])
        #expect(pretty.status == 0 && pretty.standardOutput.hasPrefix("{\n  \"dict\": {\n    \"Mango\": {\n      \"string\": \"m\"\n    },"))
        #expect(try PlistValue(plistJSON: pretty.standardOutput) == value)
        let prettyConvert = try await KarchiveProcess.run(["convert", "-f", "json", "--pretty", path])
        #expect(prettyConvert.standardOutput == pretty.standardOutput)
        // plist-json in, XML out.
        let directory = try TemporaryDirectory()
        let jsonFile = try Self.write(Array(pretty.standardOutput.utf8), "v.json", in: directory)
        let xml = try await KarchiveProcess.run(["convert", "-f", "xml1", jsonFile.path])
        let expected = try XMLPlistWriter().write(value)
        #expect(xml.status == 0 && Array(xml.standardOutput.utf8) == expected)
    }

    @Test("convert -e writes each of several files beside itself; no input is replaced unless -o names it")
    func severalFiles() async throws {
        let directory = try TemporaryDirectory()
        var inputs: [URL] = []
        for (i, file) in Self.binaryFiles.enumerated() {
            inputs.append(try Self.write(try Fixtures.bytes(at: Fixtures.file(file)), "in\(i).bplist", in: directory))
        }
        let before = try inputs.map { try Fixtures.bytes(at: $0) }
        let run = try await KarchiveProcess.run(["convert", "-f", "xml1", "-e", "plist"] + inputs.map(\.path))
        #expect(run.status == 0 && run.standardOutput.isEmpty, "\(run.standardError)")
        for (i, input) in inputs.enumerated() {
            #expect(try Fixtures.bytes(at: input) == before[i], "the input was left as it was")
            let output = try Fixtures.bytes(at: directory.url.appending(path: "in\(i).plist"))
            #expect(try PlistReader().read(output) == (try PlistReader().read(before[i])).xmlRepresentable)
        }
        // To standard output, one after the other.
        let printed = try await KarchiveProcess.run(["convert", "-f", "json"] + inputs.map(\.path))
        #expect(printed.standardOutput.split(separator: "\n").count == inputs.count)
        // -o naming the input converts it in place, as asked.
        let inPlace = try await KarchiveProcess.run(["convert", "-f", "xml1", "-o", inputs[0].path, inputs[0].path])
        #expect(inPlace.status == 0)
        #expect(PlistFormat(of: try Fixtures.bytes(at: inputs[0])) == .xml)
    }

    @Test("Exit codes: 1 for a bad file among good ones (the others still converted) or a value XML cannot hold, 2 for usage")
    func exitCodes() async throws {
        let directory = try TemporaryDirectory()
        let good = try Self.write(try XMLPlistWriter().write(["a": 1]), "good.plist", in: directory)
        let bad = try Self.write(Array("<plist><dict><key>a</key></dict></plist>".utf8), "bad.plist", in: directory)
        let mixed = try await KarchiveProcess.run(["convert", "-f", "binary1", "-e", "bplist", good.path, bad.path])
        #expect(mixed.status == 1)
        #expect(mixed.standardError.hasPrefix("karchive: \(bad.path): ArchiveError.invalidKey: the key \"a\" has no value before </dict> (line 1, column 14"))
        #expect(FileManager.default.fileExists(atPath: directory.url.appending(path: "good.bplist").path))
        #expect(!FileManager.default.fileExists(atPath: directory.url.appending(path: "bad.bplist").path))

        // A binary set (which XML cannot hold) refused, and the target left untouched.
        let set = try Self.write(BPlistAssembler.assemble([BPlistAssembler.marker(0xC0, count: 1) + [1], BPlistAssembler.int(7)]), "set.bplist", in: directory)
        let target = try Self.write(Array("keep me".utf8), "target.xml", in: directory)
        let refused = try await KarchiveProcess.run(["convert", "-f", "xml1", "-o", target.path, set.path])
        #expect(refused.status == 1 && refused.standardError.contains("ArchiveError.unencodable"), "\(refused.standardError)")
        #expect(try String(contentsOf: target, encoding: .utf8) == "keep me")

        for arguments in [
            ["convert", good.path], ["convert", "-f", "raw", good.path], ["convert", "-f", "yaml", good.path],
            ["convert", "-f", "xml1", "-o", "x", good.path, bad.path], ["convert", "-f", "xml1", "-o", "x", "-e", "y", good.path],
            ["convert", "-f", "xml1", "-e", "y", "-"], ["json", "-f", "xml1", good.path], ["dump", "--pretty", good.path],
            ["extract", good.path], ["extract", "a", good.path, bad.path], ["convert", "-f", "xml1", "--pretty", good.path],
            ["convert", "-f"],
        ] {
            let run = try await KarchiveProcess.run(arguments)
            #expect(run.status == 2 && run.standardOutput.isEmpty, "\(arguments): \(run.standardError)")
            #expect(run.standardError.hasPrefix("karchive: ") && run.standardError.contains("\nusage: karchive "), "\(arguments): \(run.standardError)")
        }
    }
}
#endif
