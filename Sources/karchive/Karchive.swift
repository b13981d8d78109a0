#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeyedArchive
import PropertyList

/// One run of `karchive`: parse the command line, read the input, print or write the result.
enum Karchive {
    /// The process exit status (DESIGN.md §8). `diff` gives 1 and 2 the meanings `cmp` and
    /// `diff` give them: ``different`` and ``trouble``.
    enum ExitStatus: Int32 {
        case success = 0
        /// A file cannot be read, is not a valid property list, or (convert, extract) its result
        /// cannot be written; for several files, at least one of them.
        case invalidInput = 1
        case usageError = 2

        /// `diff`: the two files differ.
        static let different = invalidInput
        /// `diff`: a usage error, or a file that cannot be read or is not a valid property list.
        static let trouble = usageError
    }

    /// Runs the command the arguments (without the program name) ask for.
    ///
    /// A usage error prints its message and one usage line on standard error; `--help` prints
    /// the full help on standard output.
    static func run(arguments: [String]) -> ExitStatus {
        if let first = arguments.first, Plutil.verbs.contains(first) {
            return Plutil.run(arguments: arguments)
        }
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
        case .run(let request) where request.command == .diff:
            return Diff.run(request)
        case .run(let request):
            var status = ExitStatus.success
            for source in request.sources {
                if !run(request, on: source) { status = .invalidInput }
            }
            return status
        }
    }

    /// What went wrong with one input: its message, printed after the input's name.
    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
        init(_ error: ArchiveError) { message = error.description }
    }

    /// Runs the request on one input, printing or writing its result; false when the input
    /// cannot be read, is not valid, or its result cannot be written.
    ///
    /// `validate` prints one line per file, as `plutil -lint` does: `FILE: valid (…)` on standard
    /// output or `FILE: <error>` on standard error. The other commands print their result as it
    /// is, and an error as `karchive: FILE: <error>`.
    private static func run(_ request: Invocation.Request, on source: InputSource) -> Bool {
        let name = source.displayName
        let errorPrefix = request.command == .validate ? "\(name): " : "karchive: \(name): "
        do {
            let document = try Self.document(from: source)
            switch request.command {
            case .convert:
                try Conversion.convert(document, from: source, request.options)
            default:
                let result = try output(of: request, for: document)
                if request.command == .validate {
                    StandardStream.output.write("\(name): \(String(decoding: result, as: UTF8.self))")
                } else {
                    StandardStream.output.write(bytes: result)
                }
            }
            return true
        } catch let failure as Failure {
            StandardStream.error.write("\(errorPrefix)\(failure.message)\n")
        } catch {
            StandardStream.error.write("\(errorPrefix)\(error)\n")
        }
        return false
    }

    /// Reads one input and its property list.
    ///
    /// - Throws: ``Failure`` when the input cannot be read or is not a property list (binary,
    ///   XML or plist-json).
    static func document(from source: InputSource) throws(Failure) -> Document {
        let input: InputFile
        do {
            input = try InputFile(contentsOf: source)
        } catch {
            throw Failure(error.message)
        }
        return try Document(bytes: input.bytes)
    }

    /// Ends the process with `status`.
    static func terminate(_ status: ExitStatus) -> Never {
        exit(status.rawValue)
    }

    /// What a command other than `convert` and `diff` prints for `document`.
    static func output(of request: Invocation.Request, for document: Document) throws -> [UInt8] {
        let root = document.value
        switch request.command {
        case .json:
            return Array((request.options.pretty ? PrettyJSON.indent(root.plistJSON) : root.plistJSON).utf8) + [0x0A]
        case .validate:
            return Array((validationNote(for: document) + "\n").utf8)
        case .dump:
            return Array(("\(document.format.title)\n" + Dump.renderer(for: root).render(root)).utf8)
        case .stats:
            let binary = try document.binaryBytes()
            let table = try BPlistReader().options.withDocument(of: binary) { ObjectTableStats(document: $0) }
            let keyed: KeyedArchiveStats? =
                if case .keyedArchive(let archive) = KeyedArchiveShape.recognize(root) {
                    KeyedArchiveStats(archive: archive)
                } else {
                    nil
                }
            var text = StatsReport(table: table, keyed: keyed).render()
            if document.format != .binary {
                text = "\(document.format.title), \(PlainTreeDump.count(document.byteCount, "byte")); the object table of its binary form:\n" + text
            }
            return Array(text.utf8)
        case .extract:
            let value = try Extraction.value(at: request.keyPath ?? "", in: root)
            return try Conversion.bytes(of: value, format: request.options.format ?? .json, pretty: request.options.pretty)
        case .convert:
            return try Conversion.bytes(of: root, format: request.options.format ?? .binary1, pretty: request.options.pretty)
        case .diff:
            // Two documents make one result: `Diff.run(_:)` reads them and prints it.
            throw Failure("'diff' compares two files; it has no output for one")
        }
    }

    /// `valid (binary property list, keyed archive: NSKeyedArchiver 100000, top keys: root)`.
    static func validationNote(for document: Document) -> String {
        let kind = document.format.name
        switch KeyedArchiveShape.recognize(document.value) {
        case .keyedArchive(let archive):
            let keys = archive.top.keys.map(PlainTreeDump.bareOrQuoted).joined(separator: ", ")
            return "valid (\(kind), keyed archive: \(archive.archiver) \(archive.version), top keys: \(keys.isEmpty ? "none" : keys))"
        case .notKeyedArchive(reason: nil):
            return "valid (\(kind))"
        case .notKeyedArchive(reason: let reason?):
            return "valid (\(kind); not a keyed archive: \(reason))"
        }
    }
}

/// One input read: its value and the format it was in.
struct Document {
    /// The formats `karchive` reads: the two of property lists, and plist-json.
    enum Format {
        case binary, xml, json

        /// `binary property list`.
        var name: String {
            switch self {
            case .binary: "binary property list"
            case .xml: "XML property list"
            case .json: "plist-json"
            }
        }

        /// The first line of `dump`: `binary property list (binary1)`.
        var title: String {
            switch self {
            case .binary: "binary property list (binary1)"
            case .xml: "XML property list (xml1)"
            case .json: "plist-json (json)"
            }
        }
    }

    let value: PlistValue
    let format: Format
    let byteCount: Int
    private let bytes: [UInt8]

    /// Reads binary or XML (found from the content), or plist-json (text starting with `{`).
    init(bytes: [UInt8]) throws(Karchive.Failure) {
        self.bytes = bytes
        byteCount = bytes.count
        let read = Self.read(bytes)
        switch read {
        case .success(let (value, format)):
            self.value = value
            self.format = format
        case .failure(let error):
            throw Karchive.Failure(error)
        }
    }

    private static func read(_ bytes: [UInt8]) -> Result<(PlistValue, Format), ArchiveError> {
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if PlistFormat(of: bytes) == nil, first == UInt8(ascii: "{") {
            return Result { () throws(ArchiveError) in
                (try PlistValue(plistJSON: String(decoding: bytes, as: UTF8.self)), Format.json)
            }
        }
        return Result { () throws(ArchiveError) in
            let (value, format) = try PlistReader().readWithFormat(bytes)
            return (value, format == .binary ? Format.binary : Format.xml)
        }
    }

    /// The document as `bplist00`: the input itself when it was binary.
    func binaryBytes() throws -> [UInt8] {
        if format == .binary { return bytes }
        do {
            return try BPlistWriter().write(value)
        } catch {
            throw Karchive.Failure(error)
        }
    }
}
