import Foundation
import TestSupport
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

@Suite("karchive validate")
struct ValidateCommandTests {
    @Test(
        "validate rejects every malformed file with its ArchiveError", .needsPeerFixtures("bplist/invalid and peers/libplist"),
        arguments: KarchiveFixtures.invalidFiles)
    func invalidFileExitsOne(file: String) async throws {
        let path = KarchiveFixtures.path(file)
        let run = try await KarchiveProcess.run(["validate", path])
        #expect(run.exitedNormally, "killed by signal \(run.status)")
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.hasPrefix("\(path): ArchiveError."), "\(run.standardError)")
        #expect(run.standardError.hasSuffix("\n"))
        #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
    }

    @Test("validate accepts every well-formed fixture", arguments: KarchiveFixtures.filesWithJSONTwin)
    func validFileExitsZero(file: String) async throws {
        let path = KarchiveFixtures.path(file)
        let run = try await KarchiveProcess.run(["validate", path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.hasPrefix("\(path): valid (binary property list"))
        #expect(run.standardError.isEmpty)
        let isKeyedArchive = file.hasPrefix("keyed/") || file.hasPrefix("Fixtures/foundation/") || file.hasSuffix("/keyed-archive-darwin.bplist")
        #expect(run.standardOutput.contains("keyed archive: NSKeyedArchiver 100000") == isKeyedArchive)
    }

    @Test(
        "libplist fuzz inputs are rejected or read, never crash", .needsPeerFixtures("peers/libplist-fuzz"),
        arguments: KarchiveFixtures.fuzzFiles)
    func fuzzInputNeverCrashes(file: String) async throws {
        let path = KarchiveFixtures.path(file)
        for command in ["validate", "json", "dump", "stats"] {
            let run = try await KarchiveProcess.run([command, path], timeLimit: 30)
            #expect(!run.timedOut, "\(command) hung")
            #expect(run.exitedNormally, "\(command) was killed by signal \(run.status)")
            #expect(run.status == 0 || run.status == 1, "\(command) exited \(run.status)")
            if run.status == 1 {
                let prefix = command == "validate" ? "\(path): ArchiveError." : "karchive: \(path): ArchiveError."
                #expect(run.standardError.hasPrefix(prefix), "\(command): \(run.standardError)")
            }
        }
    }

    @Test func keyedArchiveNoteNamesArchiverVersionAndTopKeys() async throws {
        let path = KarchiveFixtures.path("Fixtures/foundation/k-person.archive")
        let person = try await KarchiveProcess.run(["validate", path])
        #expect(person.standardOutput == "\(path): valid (binary property list, keyed archive: NSKeyedArchiver 100000, top keys: root)\n")

        let multi = try await KarchiveProcess.run(["validate", KarchiveFixtures.path("Fixtures/foundation/k-multi-top.archive")])
        #expect(multi.status == 0)
        for key in ["user", "settings", "banners"] {
            #expect(multi.standardOutput.contains(key))
        }
    }

    @Test(.needsPeerFixtures("bplist/valid/nested.bplist"))
    func plainPropertyListHasNoKeyedNote() async throws {
        let path = KarchiveFixtures.path("bplist/valid/nested.bplist")
        let run = try await KarchiveProcess.run(["validate", path])
        #expect(run.standardOutput == "\(path): valid (binary property list)\n")
        #expect(run.standardError.isEmpty)
    }

    @Test(.needsPeerFixtures("bplist/valid/uids.bplist"))
    func halfKeyedArchiveSaysWhatIsMissing() async throws {
        // uids.bplist has a $top dictionary of UIDs but no $archiver.
        let path = KarchiveFixtures.path("bplist/valid/uids.bplist")
        let run = try await KarchiveProcess.run(["validate", path])
        #expect(run.standardOutput == "\(path): valid (binary property list; not a keyed archive: there is no $archiver)\n")
    }

    @Test(.needsPeerFixtures("peers/corelibs-keyed/NSKeyedUnarchiver-ArrayTest.plist"))
    func xmlKeyedArchiveOfApplesIsValid() async throws {
        let path = KarchiveFixtures.path("peers/corelibs-keyed/NSKeyedUnarchiver-ArrayTest.plist")
        let run = try await KarchiveProcess.run(["validate", path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == "\(path): valid (XML property list, keyed archive: NSKeyedArchiver 100000, top keys: root)\n")
    }
}
#endif
