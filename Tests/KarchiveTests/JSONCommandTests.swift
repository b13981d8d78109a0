import Foundation
import PropertyList
import TestSupport
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

@Suite("karchive json")
struct JSONCommandTests {
    @Test func ownFixtureListIsComplete() {
        #expect(KarchiveFixtures.ownFilesWithJSONTwin.filter { $0.hasPrefix("Fixtures/foundation/") }.count == 13)
        #expect(KarchiveFixtures.ownFilesWithJSONTwin.filter { $0.hasPrefix("Fixtures/plistlib/") }.count == 10)
    }

    @Test(.needsPeerFixtures("bplist, peers and keyed (the file-list tests run on our own files alone)"))
    func fixtureListsAreNotEmpty() {
        #expect(KarchiveFixtures.peerFilesWithJSONTwin.count >= 60)
        #expect(KarchiveFixtures.invalidFiles.count >= 30)
        #expect(KarchiveFixtures.fuzzFiles.count == 24)
    }

    @Test("json prints what the plist-json twin holds", arguments: KarchiveFixtures.filesWithJSONTwin)
    func jsonMatchesTwin(file: String) async throws {
        let run = try await KarchiveProcess.run(["json", KarchiveFixtures.path(file)])
        #expect(run.exitedNormally && run.status == 0, "\(run.standardError)")
        #expect(run.standardError.isEmpty)
        #expect(run.standardOutput.hasSuffix("}\n"))

        let printed = try PlistValue(plistJSON: run.standardOutput)
        let twin = try String(contentsOfFile: KarchiveFixtures.path(KarchiveFixtures.twin(of: file)), encoding: .utf8)
        var expected = try PlistValue(plistJSON: twin)
        if file == "bplist/valid/reals.bplist" {
            // Known defect of the twin: it says element 1 is -0.0, but plistlib uniqued 0.0 and -0.0
            // (equal as Python floats), so the file references the object 0.0 twice. Accept exactly that.
            guard case .array(var elements) = expected, elements.count > 1,
                elements[1] == .real(-0.0)
            else {
                Issue.record("reals.json no longer has the known -0.0 defect; drop this exception")
                return
            }
            elements[1] = .real(0.0)
            expected = .array(elements)
        }
        #expect(printed == expected)
    }

    @Test("json prints exactly PlistValue.plistJSON and a newline")
    func jsonIsPlistJSONPlusNewline() async throws {
        let peerFiles = ["bplist/valid/json-like.bplist", "bplist/valid/string-surrogates.bplist"]
        for file in ["Fixtures/foundation/k-person.archive"] + (Fixtures.peerFixturesAvailable ? peerFiles : []) {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: KarchiveFixtures.path(file))))
            let value = try BPlistReader().read(bytes)
            let run = try await KarchiveProcess.run(["json", KarchiveFixtures.path(file)])
            #expect(run.standardOutput == value.plistJSON + "\n")
        }
    }

    @Test("json reads standard input for -")
    func jsonReadsStandardInput() async throws {
        let file = KarchiveFixtures.path("Fixtures/foundation/k-string.archive")
        let fromStdin = try await KarchiveProcess.run(["json", "-"], standardInput: URL(fileURLWithPath: file))
        let fromPath = try await KarchiveProcess.run(["json", file])
        #expect(fromStdin.status == 0)
        #expect(fromStdin.standardOutput == fromPath.standardOutput)
        #expect(fromStdin.standardOutput.contains("héllo wörld"))
    }
}
#endif
