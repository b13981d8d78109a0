import Foundation
import TestSupport
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

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
        ChildProcess.builtExecutable(named: name, override: override)
    }

    /// Runs the child to completion and returns its standard output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let executable = try #require(executable, "archive-store-crash-child was not built next to the tests")
        return try run(executable, arguments)
    }

    /// Runs `executable` to completion and returns its exit status and output.
    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        try ChildProcess.run(executable, arguments)
    }
}
#endif
