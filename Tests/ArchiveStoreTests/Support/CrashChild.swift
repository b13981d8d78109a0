import Foundation
import Testing

/// The `archive-store-crash-child` helper executable (and `karchive`), run as subprocesses.
///
/// Looked for next to the running test executable (SwiftPM puts every product of a
/// configuration in one directory, whatever `-c` or `--scratch-path` says), then in the
/// package's `.build/debug` and `.build/release`. `ARCHIVE_STORE_CRASH_CHILD` overrides it.
enum CrashChild {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // ArchiveStoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package

    static let executable: URL? = builtExecutable(
        named: "archive-store-crash-child", override: "ARCHIVE_STORE_CRASH_CHILD")

    /// A product built next to the tests, or the path in the environment variable `override`.
    static func builtExecutable(named name: String, override: String) -> URL? {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment[override] {
            return URL(fileURLWithPath: override)
        }
        var directories: [URL] = []
        #if os(Linux)
        if let running = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: running).deletingLastPathComponent())
        }
        #endif
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        if let main = Bundle.main.executableURL { directories.append(main.deletingLastPathComponent()) }
        for configuration in ["debug", "release"] {
            directories.append(packageRoot.appending(path: ".build").appending(path: configuration))
        }
        return
            directories
            .map { $0.appending(path: name) }
            .first { fileManager.isExecutableFile(atPath: $0.path) }
    }

    /// Runs the child to completion and returns its standard output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let executable = try #require(executable, "archive-store-crash-child was not built next to the tests")
        return try run(executable, arguments)
    }

    /// Runs `executable` to completion and returns its exit status and output.
    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outData, as: UTF8.self),
            String(decoding: errData, as: UTF8.self)
        )
    }
}
