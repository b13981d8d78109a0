#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PropertyList

/// One run of `karchive`: parse the command line, read the input, print the result.
enum Karchive {
    /// The process exit status (DESIGN.md §8).
    enum ExitStatus: Int32 {
        case success = 0
        /// A file cannot be read, or it is not a valid binary property list (for `validate`:
        /// at least one of the files).
        case invalidInput = 1
        case usageError = 2
    }

    /// Runs the command the arguments (without the program name) ask for.
    ///
    /// A usage error prints its message and one usage line on standard error; `--help` prints
    /// the full help on standard output.
    static func run(arguments: [String]) -> ExitStatus {
        let invocation: Invocation
        do {
            invocation = try Invocation(arguments: arguments)
        } catch {
            StandardStream.error.write("karchive: \(error.message)\n\(Usage.line(for: error.command))\n")
            return .usageError
        }
        switch invocation {
        case .help:
            StandardStream.output.write(Usage.text + "\n")
            return .success
        case .run(let command, let sources):
            var status = ExitStatus.success
            for source in sources {
                if !run(command, on: source) { status = .invalidInput }
            }
            return status
        }
    }

    /// Runs `command` on one input, printing its result; false when the input cannot be read or is not valid.
    ///
    /// `validate` prints one line per file, as `plutil -lint` does: `FILE: valid (…)` on standard
    /// output or `FILE: <error>` on standard error. The other commands print their result as it
    /// is, and an error as `karchive: FILE: <error>`.
    private static func run(_ command: Command, on source: InputSource) -> Bool {
        let name = source.displayName
        let errorPrefix = command == .validate ? "\(name): " : "karchive: \(name): "
        let input: InputFile
        do {
            input = try InputFile(contentsOf: source)
        } catch {
            StandardStream.error.write("\(errorPrefix)\(error.message)\n")
            return false
        }
        switch output(of: command, for: input.bytes) {
        case .success(let text):
            StandardStream.output.write(command == .validate ? "\(name): \(text)" : text)
            return true
        case .failure(let error):
            StandardStream.error.write("\(errorPrefix)\(error)\n")
            return false
        }
    }

    /// Ends the process with `status`.
    static func terminate(_ status: ExitStatus) -> Never {
        exit(status.rawValue)
    }

    /// What `command` prints for a file holding `bytes`, or why the bytes are not a valid property list.
    static func output(of command: Command, for bytes: [UInt8]) -> Result<String, ArchiveError> {
        let reader = BPlistReader()
        return Result { () throws(ArchiveError) -> String in
                let root = try reader.read(bytes)
                switch command {
                case .json:
                    return root.plistJSON + "\n"
                case .validate:
                    return validationNote(for: root) + "\n"
                case .dump:
                    return Dump.renderer(for: root).render(root)
                case .stats:
                    let table = try reader.options.withDocument(of: bytes) { ObjectTableStats(document: $0) }
                    let keyed: KeyedArchiveStats? =
                        if case .keyedArchive(let archive) = KeyedArchiveShape.recognize(root) {
                            KeyedArchiveStats(archive: archive)
                        } else {
                            nil
                        }
                    return StatsReport(table: table, keyed: keyed).render()
                }
        }
    }

    /// `valid (binary property list, keyed archive: NSKeyedArchiver 100000, top keys: root)`.
    static func validationNote(for root: PlistValue) -> String {
        switch KeyedArchiveShape.recognize(root) {
        case .keyedArchive(let archive):
            let keys = archive.top.keys.map(PlainTreeDump.bareOrQuoted).joined(separator: ", ")
            return "valid (binary property list, keyed archive: \(archive.archiver) \(archive.version), top keys: \(keys.isEmpty ? "none" : keys))"
        case .notKeyedArchive(reason: nil):
            return "valid (binary property list)"
        case .notKeyedArchive(reason: let reason?):
            return "valid (binary property list; not a keyed archive: \(reason))"
        }
    }
}
