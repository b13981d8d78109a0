import Foundation
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

/// The programs in `Examples/`, built with the package, run once each as a user runs them.
@Suite("The example programs")
struct ExampleProgramsTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // EverydayUseTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// A built product: next to the running tests (SwiftPM puts a configuration's products in one
    /// folder), else in `.build/debug` or `.build/release`.
    static func executable(_ name: String) -> URL? {
        var folders: [URL] = []
        #if os(Linux)
        if let running = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            folders.append(URL(fileURLWithPath: running).deletingLastPathComponent())
        }
        #endif
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        folders += ["debug", "release"].map { packageRoot.appending(path: ".build").appending(path: $0) }
        return folders.map { $0.appending(path: name) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// What each program must print (among its other lines).
    static let programs: [(name: String, lines: [String])] = [
        (
            "user-folders",
            [
                "users on this device: [\"+1 (555) 010-0199\", \"+44 20 7946 0001\"]",
                "cleared +44 20 7946 0001; users left: [\"+1 (555) 010-0199\"]",
            ]
        ),
        ("archived-items", ["removed shopping; contains it: false; keys: [\"draft-1\"]", "read back: captain Ann of Core, 2 members, one team instance"]),
        ("settings-store", [
            "theme dark, zoom 1.25, retries 42", "8 threads wrote 200 settings; lost: 0",
            "fontSize 17 (registered 13, key's default 12), theme read off the caller: dark",
        ]),
        ("model-cache", ["cached models: [\"Examples.AccountSummary\", \"Examples.Feed\"]", "logged out; cached models left: 0; feed cached: false"]),
        ("json-cache", ["JSON after the cache equals the response: true", "flash-sale after its expiry: gone", "after removeExpired: [\"banners\"]"]),
        ("encoder-store", ["keyed archive round trip: true", "JSON round trip: true", "read as a keyed archive: true"]),
    ]

    /// The programs that end with a `Data` in a top-level variable (archived-items' `file` and
    /// `loaded`, json-cache's `response`, `again` and `original`). Under AddressSanitizer they run
    /// without leak detection: a `Data` keeps its storage in a pointer whose spare bits hold the
    /// enum case, which LeakSanitizer does not take for a pointer, so it reports those globals,
    /// still in use at exit, as leaked. The other programs keep leak detection (and this run's
    /// suppressions, in the inherited `LSAN_OPTIONS`).
    static let topLevelDataAtExit: Set<String> = ["archived-items", "json-cache", "encoder-store"]

    @Test("each example runs to the end, exits 0, prints what it did and leaves nothing behind", arguments: programs.map(\.name))
    func exampleRuns(name: String) throws {
        let program = try #require(Self.executable(name), "\(name) was not built")
        // A fresh home, which is also the data and the caches folder: whatever the program
        // creates lands in it, and it must be empty again when the program exits.
        let home = FileManager.default.temporaryDirectory.appending(path: "example-\(name)-\(UUID().uuidString)")
        let logs = FileManager.default.temporaryDirectory.appending(path: "example-\(name)-output-\(UUID().uuidString)")
        for folder in [home, logs] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        defer { for folder in [home, logs] { try? FileManager.default.removeItem(at: folder) } }

        let process = Process()
        process.executableURL = program
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_DATA_HOME"] = home.path
        environment["XDG_CACHE_HOME"] = home.path
        if Self.topLevelDataAtExit.contains(name) {
            environment["LSAN_OPTIONS"] = (environment["LSAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        }
        process.environment = environment
        let output = logs.appending(path: "output.txt")
        try #require(FileManager.default.createFile(atPath: output.path, contents: nil))
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(name) said:\n\(text)")
        let lines = text.split(separator: "\n").map(String.init)
        for expected in Self.programs.first(where: { $0.name == name })?.lines ?? [] {
            #expect(lines.contains(expected), "\(name) did not print \(expected); it printed:\n\(text)")
        }
        // Each ends by saying it cleaned up, but the encoder store (which keeps its blobs in memory).
        #expect(lines.last == (name == "encoder-store" ? "read as a keyed archive: true" : "removed the example's data"))
        // Nothing is left: no value, no store folder, no .journal, .lock or .configuration.
        let left = FileManager.default.subpaths(atPath: home.path) ?? []
        #expect(left.isEmpty, "\(name) left \(left.sorted())")
    }
}
#endif
