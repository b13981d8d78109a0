import Foundation

/// The package's executables, run as subprocesses by tests.
public enum ChildProcess {
    /// A product built next to the tests, or the path in the environment variable `override`.
    ///
    /// Looked for next to the running test executable (SwiftPM puts every product of a
    /// configuration in one directory, whatever `-c` or `--scratch-path` says), then in the
    /// package's `.build/debug` and `.build/release`.
    public static func builtExecutable(named name: String, override: String) -> URL? {
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
        if let first = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        for configuration in ["debug", "release"] {
            directories.append(Fixtures.packageRoot.appending(path: ".build").appending(path: configuration))
        }
        return
            directories
            .map { $0.appending(path: name) }
            .first { fileManager.isExecutableFile(atPath: $0.path) }
    }

    #if os(macOS) || os(Linux)  // iOS, tvOS, watchOS and visionOS do not allow running other processes
    /// Runs `executable` to completion and returns its exit status and output. `environment`
    /// replaces the inherited environment when given.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil
    ) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
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
    #endif
}
