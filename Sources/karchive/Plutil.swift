import Foundation
import KeyedArchive
import PropertyList

/// `plutil`'s spellings: `-lint`, `-p`, `-convert`, `-insert`, `-replace`, `-remove`,
/// `-extract`, `-type`, `-create` (and `-help`), with `plutil`'s options (`-s`, `-o`, `-e`, `-r`,
/// `-n`, `--`, `-expect`, `-append`, `-header`), its outputs and its exit codes (0, or 1 when an
/// argument or any file fails, the message on standard error). `--graph` is karchive's own: the
/// key path of `-insert`, `-replace`, `-remove`, `-extract` and `-type` follows a keyed archive's
/// object graph from `$top` (see ``ArchiveGraphEdit``).
///
/// Deliberate differences from swift-corelibs-foundation's `plutil` (also in
/// `Docs/karchive-plutil.md`, and listed by the conformance test):
/// 1. UIDs are values: written to `xml1` (as `{"CF$UID": n}`) and `binary1`, printed by `-p` as
///    `<UID n>`, by `-type` as `uid`, by `raw` as their number. `plutil` refuses any value that
///    contains one ("Dictionaries are required to have string keys in property lists"), so it
///    cannot convert, extract from or edit a keyed archive; `-p` prints a memory address.
///    `json`, `swift` and `objc` refuse UIDs as `plutil` does.
/// 2. `-p` prints data with two hex digits a byte (above 24 bytes: the first 8, `...`, the last 8);
///    `plutil` drops each byte's leading zero and shows every other byte of the first 16, so its
///    text cannot be read back.
/// 3. Compact JSON (`-convert json` without `-r`) has its keys sorted as with `-r`; `plutil`
///    writes them in hash order, which changes from run to run.
/// 4. Input that is not a property list, or cannot be read, is reported with karchive's reader
///    message (an ``ArchiveError``: what is wrong and at which byte), not Foundation's; the exit
///    status is the same. karchive's reader is the strict one of `karchive validate`: it reads a
///    UID wider than 4 bytes (CoreFoundation does not), no OpenStep (old ASCII) property lists, and
///    JSON numbers of more digits than a double holds as reals (Foundation: decimal numbers).
/// 5. `-extract KEYPATH FMT FILE` without `-o`, and any result for standard input without `-o`,
///    go to standard output; `plutil` writes them over the input file (or to a file named `-`).
/// 6. `-insert … -date` with text that is not an XML date fails with a message (exit 1); `plutil`
///    crashes.
/// 7. Files are written atomically (a temporary file renamed over the old one, keeping its
///    mode); binary output has karchive's object order, so its bytes can differ from `plutil`'s
///    while the values are the same.
/// 8. `-0.0` is written to XML as `-0.0`; `plutil` writes `0.0`.
/// 9. `-p` prints dates that `Date.description` cannot (such as 9999-12-31T23:59:59Z); `plutil`
///    prints `<description unavailable>`.
/// 10. `-help` prints karchive's help; a first argument that is not a verb is not taken as
///    `-lint FILE…` but as a karchive command.
/// 11. `-e EXT` replaces the extension of the file name only; `plutil` replaces from the last
///    `.` in the whole path, even one in a directory name.
enum Plutil {
    /// The verbs that select this mode when they come first.
    static let verbs: Set<String> = ["-lint", "-p", "-convert", "-insert", "-replace", "-remove", "-extract", "-type", "-create", "-help"]

    /// The output formats, by `plutil`'s names.
    enum Format: String {
        case xml1, binary1, json, swift, objc, raw, type, openStep
    }

    /// The options that follow a verb's own arguments.
    struct Arguments {
        var paths: [String] = []
        var readable = false
        var terminatingNewline = true
        var output: String?
        var outputExtension: String?
        var silent = false
        var graph = false

        init(_ arguments: ArraySlice<String>) throws(Karchive.Failure) {
            var iterator = arguments.makeIterator()
            while let argument = iterator.next() {
                switch argument {
                case "--":
                    while let path = iterator.next() { paths.append(path) }
                case "-n": terminatingNewline = false
                case "-s": silent = true
                case "-r": readable = true
                case "--graph": graph = true
                case "-o":
                    guard let next = iterator.next() else { throw Karchive.Failure("Missing argument for -o.") }
                    output = next
                case "-e":
                    guard let next = iterator.next() else { throw Karchive.Failure("Missing argument for -e.") }
                    outputExtension = next
                default:
                    if argument.hasPrefix("-"), argument.count > 1 { throw Karchive.Failure("unrecognized option: \(argument)") }
                    paths.append(argument)
                }
            }
            guard !paths.isEmpty else { throw Karchive.Failure("No files specified.") }
        }
    }

    /// Runs a `plutil`-style command line (the verb first).
    static func run(arguments: [String]) -> Karchive.ExitStatus {
        do {
            return try execute(arguments) ? .success : .invalidInput
        } catch let failure as Karchive.Failure {
            StandardStream.error.write(failure.message + "\n")
        } catch {
            StandardStream.error.write("\(error)\n")
        }
        return .invalidInput
    }

    private static func format(_ name: String) throws(Karchive.Failure) -> Format? {
        if name == "NoConversion" { return nil }
        guard let format = Format(rawValue: name) else { throw Karchive.Failure("Unknown format specifier: \(name)") }
        return format
    }

    private static func execute(_ arguments: [String]) throws -> Bool {
        var rest = arguments[...]
        let verb = rest.removeFirst()
        switch verb {
        case "-help":
            StandardStream.output.write(Usage.text + "\n")
            return true
        case "-lint":
            let options = try Arguments(rest)
            if options.output != nil { throw Karchive.Failure("-o is not used with -lint.") }
            if options.outputExtension != nil { throw Karchive.Failure("-e is not used with -lint.") }
            return forEach(options.paths) { path in
                _ = try read(path, json: false)
                if !options.silent { StandardStream.output.write("\(displayName(path)): OK\n") }
            }
        case "-p":
            let options = try Arguments(rest)
            if options.output != nil { throw Karchive.Failure("-o is not used with -p.") }
            if options.outputExtension != nil { throw Karchive.Failure("-e is not used with -p.") }
            if options.silent { StandardStream.error.write("-s doesn't make a lot of sense with -p.\n") }
            return forEach(options.paths) { path in
                StandardStream.output.write(PlutilText.printed(try read(path).value))
            }
        case "-convert":
            guard let name = rest.popFirst() else { throw Karchive.Failure("Missing format specifier for command.") }
            let target = try format(name)
            var header = false
            if rest.first == "-header" {
                guard target == .objc else { throw Karchive.Failure("-header is only valid for objc literal conversions.") }
                header = true
                rest.removeFirst()
            }
            let options = try Arguments(rest)
            return forEach(options.paths) { path in
                let input = try read(path)
                try write(input.value, from: path, format: target ?? input.format, options, keyPath: nil, header: header)
            }
        case "-insert", "-replace":
            let replacing = verb == "-replace"
            let missing = Karchive.Failure("'Insert' and 'Replace' require a key path, a type, and a value.")
            guard let keyPath = rest.popFirst(), let type = rest.popFirst() else { throw missing }
            let value = try insertedValue(type: type, from: &rest)
            var appending = false
            if rest.first == "-append" {
                rest.removeFirst()
                appending = !replacing
            }
            let path = PlistKeyPath(keyPath)
            return try edit(Arguments(rest), keyPath: keyPath) { graph in
                try graph.insert(value, at: path, replacing: replacing, appending: appending)
            } plain: { plist in
                try path.inserting(value, into: plist, replacing: replacing, appending: appending)
            }
        case "-remove":
            guard let keyPath = rest.popFirst() else { throw Karchive.Failure("'Remove' requires a key path.") }
            let path = PlistKeyPath(keyPath)
            return try edit(Arguments(rest), keyPath: keyPath) { graph in
                try graph.remove(at: path)
            } plain: { plist in
                try path.removing(from: plist)
            }
        case "-extract", "-type":
            let missing = Karchive.Failure("'Extract' requires a key path and a plist format.")
            guard let keyPath = rest.popFirst() else { throw missing }
            var target: Format? = .type
            if verb == "-extract" {
                guard let name = rest.popFirst() else { throw missing }
                target = try format(name)
            }
            var expected: String?
            if rest.first == "-expect" {
                rest.removeFirst()
                guard let type = rest.popFirst() else { throw Karchive.Failure("-expect requires a type argument.") }
                guard PlutilText.expectTypes.contains(type) else { throw Karchive.Failure("-expect type [\(type)] not valid.") }
                expected = type
            }
            let options = try Arguments(rest)
            let path = PlistKeyPath(keyPath)
            return forEach(options.paths) { file in
                let input = try read(file)
                let found: PlistValue?
                if options.graph {
                    guard case .keyedArchive(let archive) = KeyedArchiveShape.recognize(input.value) else {
                        throw Karchive.Failure("--graph follows a keyed archive's object graph, and this is not a keyed archive; leave out --graph")
                    }
                    guard !path.components.contains(where: \.isEmpty) else {
                        throw Karchive.Failure("Could not extract value, error: No value at that key path or invalid key path: \(keyPath)")
                    }
                    var walk = ArchiveGraphWalk(archive: archive)
                    found = try walk.value(at: path.components)
                } else {
                    found = path.value(in: input.value)
                }
                guard let found else {
                    throw Karchive.Failure("Could not extract value, error: No value at that key path or invalid key path: \(keyPath)")
                }
                if let expected, PlutilText.typeName(of: found) != expected {
                    throw Karchive.Failure("Value at [\(keyPath)] expected to be \(expected) but is \(PlutilText.typeName(of: found))")
                }
                var extractOptions = options
                // Without -o, the extracted value goes to standard output, never over the input.
                if extractOptions.output == nil { extractOptions.output = "-" }
                try write(found, from: file, format: target ?? input.format, extractOptions, keyPath: keyPath)
            }
        case "-create":
            guard let name = rest.popFirst() else { throw Karchive.Failure("'Create' requires a plist format.") }
            let target = try format(name) ?? .xml1
            let options = try Arguments(rest)
            return forEach(options.paths) { path in
                let bytes = try created(target, readable: options.readable)
                if path == "-" {
                    StandardStream.output.write(bytes: bytes)
                    if options.terminatingNewline, target == .raw || target == .type { StandardStream.output.write("\n") }
                } else {
                    try Conversion.write(bytes, to: path)
                }
            }
        default:
            throw Karchive.Failure("unknown verb \(verb)")
        }
    }

    /// Runs `body` on every path, printing `PATH: message` on standard error for each that fails.
    /// Edits each file of `options` in place, in its own format: through its object graph with
    /// `--graph` (`graph`), else as a property list (`plain`).
    private static func edit(
        _ options: Arguments, keyPath: String, graph: (inout ArchiveGraphEdit) throws -> Void,
        plain: (PlistValue) throws -> PlistValue
    ) -> Bool {
        forEach(options.paths) { file in
            let input = try read(file)
            let edited: PlistValue
            if options.graph {
                var archive = try ArchiveGraphEdit(input.value)
                try graph(&archive)
                edited = archive.value
            } else {
                edited = try plain(input.value)
            }
            try write(edited, from: file, format: input.format, options, keyPath: keyPath)
        }
    }

    private static func forEach(_ paths: [String], _ body: (String) throws -> Void) -> Bool {
        var allSucceeded = true
        for path in paths {
            do {
                try body(path)
            } catch {
                allSucceeded = false
                let message = (error as? Karchive.Failure)?.message ?? "\(error)"
                StandardStream.error.write("\(displayName(path)): \(message)\n")
            }
        }
        return allSucceeded
    }

    /// `<stdin>` for `-`, else the path.
    static func displayName(_ path: String) -> String {
        path == "-" ? "<stdin>" : path
    }

    // MARK: - Reading

    /// Reads a property list (binary or XML), or with `json` also plain JSON, as `plutil` does.
    static func read(_ path: String, json: Bool = true) throws -> (value: PlistValue, format: Format) {
        guard !path.isEmpty else { throw Karchive.Failure("Empty path specified") }
        let input: InputFile
        do {
            input = try InputFile(contentsOf: path == "-" ? .standardInput : .path(path))
        } catch {
            throw Karchive.Failure(error.message)
        }
        do {
            let (value, format) = try PlistReader().readWithFormat(input.bytes)
            return (value, format == .binary ? .binary1 : .xml1)
        } catch let plistError {
            guard json else { throw Karchive.Failure(plistError) }
            let first = input.bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
            guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { throw Karchive.Failure(plistError) }
            do {
                return (try PlainJSONReader.read(input.bytes), .json)
            } catch {
                throw Karchive.Failure("\(plistError.description); nor is it JSON: \(error.message)")
            }
        }
    }

    // MARK: - Values to insert

    private static func insertedValue(type: String, from rest: inout ArraySlice<String>) throws -> PlistValue {
        func argument() throws(Karchive.Failure) -> String {
            guard let value = rest.popFirst() else {
                throw Karchive.Failure("'Insert' and 'Replace' require a key path, a type, and a value2.")
            }
            return value
        }
        switch type {
        case "-bool":
            let text = try argument().lowercased()
            return .bool(text == "true" || text == "yes")
        case "-integer": return .int(leadingInteger(try argument()))
        case "-float": return .real(leadingReal(try argument()))
        case "-string": return .string(try argument())
        case "-date":
            let text = try argument()
            let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><date>\(text)</date></plist>"
            guard case .date(let seconds)? = try? XMLPlistReader().read(Array(xml.utf8)) else {
                throw Karchive.Failure("Invalid date \"\(text)\": write it as in an XML property list, such as 2024-05-06T07:08:09Z")
            }
            return .date(seconds)
        case "-data":
            guard let data = Data(base64Encoded: try argument(), options: .ignoreUnknownCharacters) else {
                throw Karchive.Failure("Invalid base64 data in argument")
            }
            return .data(Array(data))
        case "-xml":
            let text = try argument()
            do {
                // A fragment such as `<array>…</array>` is read as the content of a <plist>.
                let document = text.contains("<plist") ? text : "<plist version=\"1.0\">\(text)</plist>"
                return try PlistReader().read(Array(document.utf8))
            } catch {
                throw Karchive.Failure("Unable to parse xml property list: \(error)")
            }
        case "-json":
            let text = try argument()
            do {
                return try PlainJSONReader.read(Array(text.utf8))
            } catch {
                throw Karchive.Failure("Unable to parse JSON: \(error.message)")
            }
        case "-dictionary": return .dict([:])
        case "-array": return .array([])
        default: throw Karchive.Failure("Unknown insert or replace type \(type)")
        }
    }

    /// The integer at the start of `text` after white space (`12abc` is 12, `abc` 0), clamped to
    /// 64 bits, as `NSString.integerValue` reads it.
    static func leadingInteger(_ text: String) -> Int64 {
        var scalars = text.unicodeScalars.drop { $0.properties.isWhitespace }[...]
        var negative = false
        if let sign = scalars.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            scalars = scalars.dropFirst()
        }
        var magnitude: UInt64 = 0
        var overflow = false
        for scalar in scalars {
            guard let digit = scalar.properties.numericType == .decimal ? UInt64(String(scalar)) : nil, scalar.isASCII else { break }
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(digit)
            if o1 || o2 { overflow = true; break }
            magnitude = sum
        }
        if negative {
            return overflow || magnitude > UInt64(Int64.max) + 1 ? .min : (magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude))
        }
        return overflow || magnitude > UInt64(Int64.max) ? .max : Int64(magnitude)
    }

    /// The longest number at the start of `text` after white space (`2.5e3x` is 2500), or 0, as
    /// `NSString.doubleValue` reads it.
    static func leadingReal(_ text: String) -> Double {
        let trimmed = Substring(text.drop { $0.isWhitespace })
        var best = 0.0
        var end = trimmed.startIndex
        while end < trimmed.endIndex {
            end = trimmed.index(after: end)
            if let value = Double(trimmed[..<end]), !trimmed[..<end].lowercased().contains("n"), !trimmed[..<end].lowercased().contains("x") { best = value }
        }
        return best
    }

    // MARK: - Writing

    /// Whether `value` holds a UID or a null anywhere.
    private static func contains(_ value: PlistValue, where test: (PlistValue) -> Bool) -> Bool {
        if test(value) { return true }
        switch value {
        case .array(let elements), .set(let elements): return elements.contains { contains($0, where: test) }
        case .dict(let dict): return dict.values.contains { contains($0, where: test) }
        default: return false
        }
    }

    /// The bytes of `value` in `format`.
    private static func encoded(_ value: PlistValue, format: Format, sourcePath: String, outputPath: String, readable: Bool, keyPath: String?) throws -> [UInt8] {
        let refusedKinds: (PlistValue) -> Bool = { candidate in
            if case .null = candidate { return true }
            if case .uid = candidate { return [.json, .swift, .objc].contains(format) }
            return false
        }
        if contains(value, where: refusedKinds) {
            throw Karchive.Failure("Dictionaries are required to have string keys in property lists")
        }
        do {
            switch format {
            case .xml1: return try XMLPlistWriter().write(value)
            case .binary1: return try BPlistWriter().write(value)
            case .json: return Array(try PlutilText.json(value, readable: readable).utf8)
            case .swift: return Array(try PlutilText.swiftLiteral(value, sourcePath: sourcePath).utf8)
            case .objc: return Array(try PlutilText.objCLiteral(value, sourcePath: sourcePath, outputPath: outputPath).utf8)
            case .raw: return Array(try PlutilText.raw(value).utf8)
            case .type: return Array(PlutilText.typeName(of: value).utf8)
            case .openStep: throw Karchive.Failure("Conversion to OpenStep format is not supported")
            }
        } catch let refusal as PlutilText.Refusal {
            throw Karchive.Failure(refusal.message)
        } catch let error as ArchiveError {
            throw Karchive.Failure(error)
        }
    }

    /// Writes a result where `plutil` would: standard output for `-o -` (and for `raw` and
    /// `type`, or standard input, without `-o`), else `-o OUT`, else the input's path with the
    /// extension of `-e` (`.swift` and `.m` for literals).
    private static func write(_ value: PlistValue, from path: String, format: Format, _ options: Arguments, keyPath: String?, header: Bool = false) throws {
        let toStandardOutput = options.output == "-" || (options.output == nil && (format == .raw || format == .type || path == "-"))
        let destination = toStandardOutput ? "-" : outputPath(for: path, format: format, options)
        let bytes = try encoded(value, format: format, sourcePath: path, outputPath: destination, readable: options.readable, keyPath: keyPath)
        if toStandardOutput {
            StandardStream.output.write(bytes: bytes)
            if options.terminatingNewline, format == .raw || format == .type { StandardStream.output.write("\n") }
            return
        }
        try Conversion.write(bytes, to: destination)
        if header {
            let headerPath = replacingExtension(of: destination, with: "h")
            try Conversion.write(Array(PlutilText.objCHeader(value, sourcePath: path, outputPath: destination).utf8), to: headerPath)
        }
    }

    private static func outputPath(for path: String, format: Format, _ options: Arguments) -> String {
        if let output = options.output { return output }
        var result = path
        if let ext = options.outputExtension { result = replacingExtension(of: result, with: ext) }
        switch format {
        case .objc: result = replacingExtension(of: result, with: "m")
        case .swift: result = replacingExtension(of: result, with: "swift")
        default: break
        }
        return result
    }

    /// `dir/name.plist` with `xml` → `dir/name.xml`; a name without an extension stays as it is.
    static func replacingExtension(of path: String, with ext: String) -> String {
        let nameStart = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let name = path[nameStart...]
        guard name != ".", name != "..", let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path }
        return String(path[...dot]) + ext
    }

    /// `-create FMT`: an empty dictionary in the format, as `plutil` writes it.
    private static func created(_ format: Format, readable: Bool) throws -> [UInt8] {
        switch format {
        case .json: return Array((readable ? "{\n\n}" : "{}").utf8)
        case .xml1: return try XMLPlistWriter().write(.dict([:]))
        case .binary1: return try BPlistWriter().write(.dict([:]))
        case .swift: return Array("/// Generated from -\nlet - = [\n    ]".utf8)
        case .objc: return Array("/// Generated from -\n__attribute__((visibility(\"hidden\")))\nNSDictionary * const _ = @{\n};".utf8)
        case .raw: return [0x0A]
        case .type: return Array("dictionary".utf8)
        case .openStep: throw Karchive.Failure("Cannot create open step property lists")
        }
    }
}
