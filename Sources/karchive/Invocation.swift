/// A `karchive` subcommand. `validate` and `convert` work on one or more input files, `diff` on
/// two, the others on one.
enum Command: String, CaseIterable, Sendable {
    case json
    case validate
    case dump
    case stats
    case convert
    case extract
    case diff

    /// Whether the command takes several files (`validate`, like `plutil -lint`, and `convert`).
    var takesSeveralFiles: Bool { self == .validate || self == .convert }

    /// How the command's arguments are written in usage lines.
    var operands: String {
        switch self {
        case .validate: "FILE..."
        case .convert: "-f xml1|binary1|json FILE... [-o OUT | -e EXT]"
        case .extract: "KEYPATH FILE [-f xml1|binary1|json|raw]"
        case .json: "[--pretty] FILE"
        case .diff: "[--plist] A B"
        case .dump, .stats: "FILE"
        }
    }
}

/// The formats `convert` and `extract` write, by `plutil`'s names (`raw`: `extract` only).
enum OutputFormat: String, CaseIterable, Sendable {
    case xml1, binary1, json, raw
}

/// The options of one command line, each checked against the command it goes with.
struct Options: Equatable, Sendable {
    /// `-f`: the format to write.
    var format: OutputFormat?
    /// `-o`: where `convert` writes (`-` for standard output).
    var output: String?
    /// `-e`: the extension `convert` gives each output file, written beside its input.
    var outputExtension: String?
    /// `--pretty`: indented JSON.
    var pretty = false
    /// `--plist`: `diff` compares keyed archives as the plain property lists they are.
    var plist = false
}

/// Where the input comes from: a path, or standard input (`-`).
enum InputSource: Equatable, Sendable {
    case path(String)
    case standardInput

    /// The name used in messages: the path as given, or `<stdin>`.
    var displayName: String {
        switch self {
        case .path(let path): path
        case .standardInput: "<stdin>"
        }
    }
}

/// A command line that is not a valid `karchive` invocation, with a message saying why.
struct UsageError: Error, Equatable {
    let message: String
    /// The command the line names, if it names one: its usage line is the one to show.
    var command: Command? = nil
}

/// What the command line asks for: help, or one command on its inputs (one, two for `diff`, or
/// for `validate` and `convert` one or more, in the order given).
enum Invocation: Equatable {
    case help
    case run(Request)

    /// One command to run.
    struct Request: Equatable {
        let command: Command
        let sources: [InputSource]
        var options = Options()
        /// `extract`'s key path.
        var keyPath: String? = nil
    }

    /// Parses the arguments that follow the program name.
    ///
    /// `-h`/`--help` anywhere (before `--`) asks for help, as does `help` (optionally followed by
    /// a command name). Otherwise the command line is `<command> [options] FILE` (`validate FILE...`,
    /// `convert -f FMT FILE...`, `extract KEYPATH FILE`, `diff A B`), options anywhere before `--`, where a
    /// `FILE` may be `-` for standard input (once) and `--` ends option parsing so a path may
    /// start with `-`.
    ///
    /// - Throws: ``UsageError`` for a missing or unknown command, a missing or empty file, an
    ///   unknown option or one the command does not take, an extra argument, or standard input
    ///   named twice.
    init(arguments: [String]) throws(UsageError) {
        var positionals: [String] = []
        var options = Options()
        var given: [String] = []
        // The index in `positionals` of the first argument after `--`.
        var firstEscaped = Int.max
        var iterator = arguments.makeIterator()
        func value(of option: String) throws(UsageError) -> String {
            guard let value = iterator.next(), !value.isEmpty else {
                throw UsageError(message: "\(option) needs a value")
            }
            return value
        }
        while let argument = iterator.next() {
            if firstEscaped == .max {
                switch argument {
                case "--":
                    firstEscaped = positionals.count
                    continue
                case "-h", "--help":
                    self = .help
                    return
                case "-f":
                    let name = try value(of: "-f")
                    guard let format = OutputFormat(rawValue: name) else {
                        throw UsageError(message: "unknown format '\(name)' for -f (xml1, binary1, json, or for extract raw)")
                    }
                    options.format = format
                    given.append("-f")
                    continue
                case "-o":
                    options.output = try value(of: "-o")
                    given.append("-o")
                    continue
                case "-e":
                    options.outputExtension = try value(of: "-e")
                    given.append("-e")
                    continue
                case "--pretty":
                    options.pretty = true
                    given.append("--pretty")
                    continue
                case "--plist":
                    options.plist = true
                    given.append("--plist")
                    continue
                default:
                    if argument.hasPrefix("-"), argument != "-" {
                        throw UsageError(message: "unknown option '\(argument)' (to read a file named like that, put -- before it)")
                    }
                }
            }
            positionals.append(argument)
        }

        guard let name = positionals.first else {
            throw UsageError(message: "missing command")
        }
        if name == "help" {
            if positionals.count > 2 {
                throw UsageError(message: "unexpected argument '\(positionals[2])' after 'help \(positionals[1])'")
            }
            if positionals.count == 2, Command(rawValue: positionals[1]) == nil {
                throw UsageError(message: "no help for unknown command '\(positionals[1])'")
            }
            self = .help
            return
        }
        guard let command = Command(rawValue: name) else {
            var message = "unknown command '\(name)'"
            if let suggestion = Self.closestCommand(to: name) { message += "; did you mean '\(suggestion)'?" }
            throw UsageError(message: message)
        }
        try Self.check(options, given: given, for: command)
        var files = Array(positionals.dropFirst())
        var keyPath: String?
        if command == .extract {
            guard let path = files.first else {
                throw UsageError(message: "missing KEYPATH after 'extract' (such as root.users.3.name)", command: command)
            }
            keyPath = path
            files.removeFirst()
            firstEscaped = firstEscaped == .max ? .max : firstEscaped - 1
        }
        guard !files.isEmpty else {
            throw UsageError(message: "missing FILE after '\(name)' (a path, or - for standard input)", command: command)
        }
        if command == .diff {
            guard files.count == 2 else {
                throw UsageError(
                    message: files.count == 1
                        ? "missing FILE B after 'diff \(files[0])': 'diff' compares two files"
                        : "unexpected argument '\(files[2])': 'diff' takes exactly two FILEs, A and B",
                    command: command)
            }
        } else if files.count > 1, !command.takesSeveralFiles {
            throw UsageError(
                message: "unexpected argument '\(files[1])': '\(name)' takes exactly one FILE (only 'validate' and 'convert' take several)",
                command: command)
        }
        if options.output != nil, files.count > 1 {
            throw UsageError(message: "-o names one output for \(files.count) files; use -e EXT to write each beside its input", command: command)
        }
        var sources: [InputSource] = []
        for (position, file) in files.enumerated() {
            guard !file.isEmpty else {
                let which = files.count == 1 ? "the FILE argument" : "FILE argument \(position + 1) of \(files.count)"
                throw UsageError(message: "\(which) is empty", command: command)
            }
            // `-` after `--` is a file named `-`.
            let source: InputSource = file == "-" && position + 1 < firstEscaped ? .standardInput : .path(file)
            if source == .standardInput, sources.contains(.standardInput) {
                throw UsageError(message: "standard input (-) is named more than once; it can be read only once", command: command)
            }
            if source == .standardInput, options.outputExtension != nil {
                throw UsageError(message: "-e writes beside each input, and standard input has no place; use -o", command: command)
            }
            sources.append(source)
        }
        self = .run(Request(command: command, sources: sources, options: options, keyPath: keyPath))
    }

    /// Refuses options the command does not take.
    private static func check(_ options: Options, given: [String], for command: Command) throws(UsageError) {
        let allowed: Set<String> =
            switch command {
            case .convert: ["-f", "-o", "-e", "--pretty"]
            case .extract: ["-f", "--pretty"]
            case .json: ["--pretty"]
            case .diff: ["--plist"]
            case .validate, .dump, .stats: []
            }
        if let option = given.first(where: { !allowed.contains($0) }) {
            throw UsageError(message: "'\(command.rawValue)' does not take \(option)", command: command)
        }
        if command == .convert {
            guard let format = options.format else {
                throw UsageError(message: "'convert' needs -f xml1, binary1 or json", command: command)
            }
            if format == .raw { throw UsageError(message: "-f raw is for 'extract' only", command: command) }
            if options.output != nil, options.outputExtension != nil {
                throw UsageError(message: "-o and -e both say where to write; give one", command: command)
            }
        }
        if options.pretty, let format = options.format, format != .json {
            throw UsageError(message: "--pretty is for JSON output, not -f \(format.rawValue)", command: command)
        }
    }

    /// The command whose name is within two edits of `name`, if exactly one is nearest.
    private static func closestCommand(to name: String) -> String? {
        let lowered = Array(name.lowercased().unicodeScalars)
        let ranked = (Command.allCases.map(\.rawValue) + ["help"])
            .map { ($0, editDistance(lowered, Array($0.unicodeScalars))) }
            .filter { $0.1 <= 2 }
            .sorted { $0.1 < $1.1 }
        guard let best = ranked.first, ranked.dropFirst().first?.1 != best.1 else { return nil }
        return best.0
    }

    /// Levenshtein distance between two short strings.
    private static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
