import Foundation

/// Runs `python3` for cross-checks against `plistlib`; tests skip with a printed reason when it is missing.
public enum Python {
    /// The first executable `python3` on `PATH`, or nil.
    public static var executable: URL? {
        #if os(macOS) || os(Linux)
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appending(path: "python3")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        #endif
        return nil
    }

    /// Runs `script` with `python3 -c`, returns its standard output and error; throws if Python exits non-zero.
    public static func run(_ python: URL, script: String, arguments: [String]) throws -> String {
        #if os(macOS) || os(Linux)  // iOS, tvOS, watchOS and visionOS do not allow running other processes
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script] + arguments
        // One pipe for both streams: nothing can block on a second, undrained pipe.
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw PythonFailure(status: process.terminationStatus, output: text)
        }
        return text
        #else
        throw PythonFailure(status: -1, output: "python3 cannot be run on this platform")
        #endif
    }

    public struct PythonFailure: Error, CustomStringConvertible {
        public let status: Int32
        public let output: String
        public var description: String { "python3 exited with status \(status):\n\(output)" }
    }
}
