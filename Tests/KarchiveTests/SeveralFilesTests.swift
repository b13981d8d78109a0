import Foundation
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

/// `karchive validate FILE...` reads each file in turn, as `plutil -lint` does; every command
/// reads `-` as standard input; a file cut short says it is truncated.
@Suite("karchive several files and standard input")
struct SeveralFilesTests {
    static let person = KarchiveFixtures.path("Fixtures/foundation/k-person.archive")
    static let nested = KarchiveFixtures.path("Fixtures/plistlib/nested.bplist")
    static let personNote = "valid (binary property list, keyed archive: NSKeyedArchiver 100000, top keys: root)"

    /// `keyed/k-person.archive` cut to its first 150 bytes, in `directory`.
    static func cutPerson(in directory: TemporaryDirectory) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: person))
        try #require(bytes.count > 150)
        let file = directory.url.appending(path: "person-150.archive")
        try bytes.prefix(150).write(to: file)
        return file.path
    }

    /// What the reader says about `cutPerson`: its last 32 bytes (from 118) are not a trailer.
    static let cutReason =
        "ArchiveError.truncated: the file is truncated or its trailer is damaged: the offset-table entry width is 115; it must be 1 to 8 bytes (at byte 124)"

    @Test func validateWritesOneLinePerFileInOrderAndExitsOneIfAnyFailed() async throws {
        let directory = try TemporaryDirectory()
        let cut = try Self.cutPerson(in: directory)
        let missing = directory.url.appending(path: "missing.archive").path
        let run = try await KarchiveProcess.run(["validate", Self.person, cut, Self.nested, missing])
        #expect(run.exitedNormally && run.status == 1)
        #expect(run.standardOutput == "\(Self.person): \(Self.personNote)\n\(Self.nested): valid (binary property list)\n")
        #expect(run.standardError == "\(cut): \(Self.cutReason)\n\(missing): cannot open: No such file or directory\n")
    }

    @Test func validateExitsZeroWhenEveryFileIsValid() async throws {
        let run = try await KarchiveProcess.run(["validate", Self.nested, Self.person, Self.nested])
        #expect(run.exitedNormally && run.status == 0)
        #expect(
            run.standardOutput
                == "\(Self.nested): valid (binary property list)\n\(Self.person): \(Self.personNote)\n\(Self.nested): valid (binary property list)\n")
        #expect(run.standardError.isEmpty)
    }

    @Test func validateReadsStandardInputAmongFiles() async throws {
        let run = try await KarchiveProcess.run(
            ["validate", Self.nested, "-"], standardInput: URL(fileURLWithPath: Self.person))
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == "\(Self.nested): valid (binary property list)\n<stdin>: \(Self.personNote)\n")
    }

    @Test func truncatedStandardInputSaysTruncated() async throws {
        let directory = try TemporaryDirectory()
        let cut = try Self.cutPerson(in: directory)
        let run = try await KarchiveProcess.run(["validate", "-"], standardInput: URL(fileURLWithPath: cut))
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "<stdin>: \(Self.cutReason)\n")
    }

    @Test("every command reads - as standard input, as it reads the file", arguments: ["json", "dump", "stats"])
    func commandReadsStandardInput(command: String) async throws {
        let fromFile = try await KarchiveProcess.run([command, Self.person])
        let fromInput = try await KarchiveProcess.run([command, "-"], standardInput: URL(fileURLWithPath: Self.person))
        #expect(fromFile.status == 0, "\(fromFile.standardError)")
        #expect(fromInput.status == 0, "\(fromInput.standardError)")
        #expect(!fromInput.standardOutput.isEmpty)
        #expect(fromInput.standardOutput == fromFile.standardOutput)
    }

    @Test("the other commands name a truncated file and exit 1", arguments: ["json", "dump", "stats"])
    func otherCommandsReportTruncation(command: String) async throws {
        let directory = try TemporaryDirectory()
        let cut = try Self.cutPerson(in: directory)
        let run = try await KarchiveProcess.run([command, cut])
        #expect(run.exitedNormally && run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "karchive: \(cut): \(Self.cutReason)\n")
    }
}
#endif
