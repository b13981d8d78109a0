import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

@Suite("karchive command line")
struct UsageTests {
    @Test("help prints the full help on stdout and exits 0", arguments: [["--help"], ["-h"], ["help"], ["help", "stats"], ["dump", "--help"]])
    func helpExitsZero(arguments: [String]) async throws {
        let run = try await KarchiveProcess.run(arguments)
        #expect(run.exitedNormally && run.status == 0)
        #expect(run.standardOutput.hasPrefix("OVERVIEW: "))
        for command in [
            "USAGE: karchive <command> [options] FILE...", "  validate FILE...  ", "  json [--pretty] FILE\n", "  dump FILE  ", "  stats FILE  ",
            "  convert -f xml1|binary1|json FILE... [-o OUT | -e EXT] [--pretty]\n", "  extract KEYPATH FILE [-f xml1|binary1|json|raw] [--pretty]\n", "  diff [--plist] A B\n",
            "EXIT STATUS",
        ] {
            #expect(run.standardOutput.contains(command), "missing: \(command)")
        }
        #expect(run.standardError.isEmpty)
    }

    static let generalUsage = "usage: karchive <dump|json|validate|stats|convert|extract|diff> FILE...  (karchive --help for more)"

    @Test(
        "usage errors print the reason and one usage line on stderr and exit 2",
        arguments: [
            ([], "missing command", generalUsage),
            (["bogus", "file"], "unknown command 'bogus'", generalUsage),
            (["json"], "missing FILE after 'json' (a path, or - for standard input)", "usage: karchive json [--pretty] FILE  (karchive --help for more)"),
            (
                ["stats", "a", "b"], "unexpected argument 'b': 'stats' takes exactly one FILE (only 'validate' and 'convert' take several)",
                "usage: karchive stats FILE  (karchive --help for more)"
            ),
            (
                ["dump", "--verbose", "x"], "unknown option '--verbose' (to read a file named like that, put -- before it)",
                generalUsage
            ),
            (["help", "nope"], "no help for unknown command 'nope'", generalUsage),
            (["validate", ""], "the FILE argument is empty", "usage: karchive validate FILE...  (karchive --help for more)"),
            (["validate", "a", ""], "FILE argument 2 of 2 is empty", "usage: karchive validate FILE...  (karchive --help for more)"),
            (
                ["validate", "-", "a", "-"], "standard input (-) is named more than once; it can be read only once",
                "usage: karchive validate FILE...  (karchive --help for more)"
            ),
        ] as [([String], String, String)])
    func usageErrorExitsTwo(arguments: [String], message: String, usage: String) async throws {
        let run = try await KarchiveProcess.run(arguments)
        #expect(run.exitedNormally && run.status == 2)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "karchive: \(message)\n\(usage)\n")
    }

    @Test func misspelledCommandGetsASuggestion() async throws {
        let run = try await KarchiveProcess.run(["dupm", "x"])
        #expect(run.status == 2)
        #expect(run.standardError.hasPrefix("karchive: unknown command 'dupm'; did you mean 'dump'?\n"))
    }

    @Test func missingFileExitsOne() async throws {
        let path = "/nonexistent/karchive/file.bplist"
        let run = try await KarchiveProcess.run(["json", path])
        #expect(run.exitedNormally && run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "karchive: \(path): cannot open: No such file or directory\n")
    }

    @Test func directoryExitsOne() async throws {
        let path = KarchiveFixtures.path("Fixtures/foundation")
        let run = try await KarchiveProcess.run(["stats", path])
        #expect(run.status == 1)
        #expect(run.standardError == "karchive: \(path): is a directory, not a file\n")
    }

    @Test(.enabled(if: geteuid() != 0, "root reads any file"))
    func unreadableFileExitsOne() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appending(path: "secret.bplist")
        try Data("bplist00".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: file.path)
        let run = try await KarchiveProcess.run(["validate", file.path])
        #expect(run.status == 1)
        #expect(run.standardError == "karchive: \(file.path): cannot open: Permission denied\n")
    }

    @Test func pathStartingWithDashNeedsDoubleDash() async throws {
        let directory = try TemporaryDirectory()
        let source = URL(fileURLWithPath: KarchiveFixtures.path("Fixtures/foundation/k-number-int.archive"))
        try FileManager.default.copyItem(at: source, to: directory.url.appending(path: "-n.archive"))

        let plain = try await KarchiveProcess.run(["validate", "-n.archive"], in: directory.url)
        #expect(plain.status == 2)
        #expect(plain.standardError.contains("unknown option '-n.archive'"))

        let escaped = try await KarchiveProcess.run(["validate", "--", "-n.archive"], in: directory.url)
        #expect(escaped.status == 0, "\(escaped.standardError)")
        #expect(escaped.standardOutput.hasPrefix("-n.archive: valid (binary property list, keyed archive"))

        // After --, a lone - is a file named "-", not standard input.
        try FileManager.default.copyItem(at: source, to: directory.url.appending(path: "-"))
        let dashFile = try await KarchiveProcess.run(["validate", "--", "-n.archive", "-"], in: directory.url)
        #expect(dashFile.standardError.isEmpty)
        #expect(dashFile.standardOutput.hasPrefix("-n.archive: valid (binary property list, keyed archive"))
        #expect(dashFile.standardOutput.contains("\n-: valid (binary property list, keyed archive"))
    }

    @Test func emptyStandardInputIsInvalid() async throws {
        let run = try await KarchiveProcess.run(["validate", "-"])
        #expect(run.status == 1)
        #expect(run.standardError == "<stdin>: ArchiveError.notPropertyList: the input is empty (at byte 0)\n")
    }
}

/// A fresh directory under the temporary directory, removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "karchive-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // Restore permissions a test may have removed, so the directory can be deleted.
        if let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) {
            for name in names {
                try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.appending(path: name).path)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }
}
#endif
