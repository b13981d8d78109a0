import Foundation
import TestSupport
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

/// The built `karchive` executable, run as a subprocess.
///
/// The binary is looked for next to the running test executable (SwiftPM puts every product of
/// a configuration in one directory, whatever `-c` or `--scratch-path` says), then in the
/// package's `.build/debug` and `.build/release`. `KARCHIVE_PATH` overrides the search.
enum KarchiveProcess {
    /// What one run did.
    struct Outcome: Sendable {
        /// True when the process exited normally (not killed by a signal).
        let exitedNormally: Bool
        /// The exit status, or the signal number when killed.
        let status: Int32
        let standardOutput: String
        let standardError: String
        /// True when the run was stopped for taking longer than the time limit.
        let timedOut: Bool
    }

    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // KarchiveTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package

    /// The executable, or `nil` if it was not built.
    static let executable: URL? = ChildProcess.builtExecutable(named: "karchive", override: "KARCHIVE_PATH")

    /// Runs `karchive` with `arguments`, optionally feeding `input` to its standard input.
    ///
    /// Output goes to temporary files (no pipe can fill up); a run longer than `timeLimit`
    /// seconds is killed and reported with `timedOut`.
    static func run(
        _ arguments: [String], standardInput input: URL? = nil, in directory: URL? = nil, timeLimit: Double = 60
    ) async throws -> Outcome {
        let executable = try #require(executable, "karchive was not built next to the tests (set KARCHIVE_PATH)")
        let scratch = FileManager.default.temporaryDirectory.appending(path: "karchive-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appending(path: "stdout")
        let errURL = scratch.appending(path: "stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = try input.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
        if let directory { process.currentDirectoryURL = directory }

        let watch = Watchdog(process)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            watch.arm(seconds: timeLimit)
        }
        // The child has exited (the handler runs after `isRunning` turns false), so this returns at
        // once. It is still needed: on Linux a `Process` and its run-loop source retain each
        // other until `waitUntilExit()` lets go of the source, so a process that is only waited
        // for with `terminationHandler` is never freed, with its handles and arguments.
        process.waitUntilExit()

        return Outcome(
            exitedNormally: process.terminationReason == .exit,
            status: process.terminationStatus,
            standardOutput: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
            timedOut: watch.fired)
    }
}

/// Kills a subprocess that runs past its time limit.
///
/// `@unchecked Sendable`: `Process.terminate()`/`isRunning` may be called from any thread, and
/// `fired` is guarded by the lock.
private final class Watchdog: @unchecked Sendable {
    private let process: Process
    private let lock = NSLock()
    private var didFire = false

    init(_ process: Process) { self.process = process }

    var fired: Bool { lock.withLock { didFire } }

    func arm(seconds: Double) {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            guard process.isRunning else { return }
            lock.withLock { didFire = true }
            process.terminate()
        }
    }
}
#endif
