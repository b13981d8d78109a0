/// A `karchive` subcommand: `validate` works on one or more input files, the others on one.
enum Command: String, CaseIterable, Sendable {
    case json
    case validate
    case dump
    case stats

    /// Whether the command takes several files (`validate`, like `plutil -lint`).
    var takesSeveralFiles: Bool { self == .validate }

    /// How the command's arguments are written in usage lines: `FILE...` or `FILE`.
    var operands: String { takesSeveralFiles ? "FILE..." : "FILE" }
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

/// What the command line asks for: help, or one command on its inputs (one, or for
/// `validate` one or more, in the order given).
enum Invocation: Equatable {
    case help
    case run(Command, [InputSource])

    /// Parses the arguments that follow the program name.
    ///
    /// `-h`/`--help` anywhere (before `--`) asks for help, as does `help` (optionally followed by
    /// a command name). Otherwise the command line is `<command> FILE` (`validate FILE...`),
    /// where a `FILE` may be `-` for standard input (once) and `--` ends option parsing so a path
    /// may start with `-`.
    ///
    /// - Throws: ``UsageError`` for a missing or unknown command, a missing or empty file, an
    ///   unknown option, an extra argument, or standard input named twice.
    init(arguments: [String]) throws(UsageError) {
        var positionals: [String] = []
        // The index in `positionals` of the first argument after `--`.
        var firstEscaped = Int.max
        for argument in arguments {
            if firstEscaped == .max {
                if argument == "--" {
                    firstEscaped = positionals.count
                    continue
                }
                if argument == "-h" || argument == "--help" {
                    self = .help
                    return
                }
                if argument.hasPrefix("-"), argument != "-" {
                    throw UsageError(message: "unknown option '\(argument)' (to read a file named like that, put -- before it)")
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
        guard positionals.count >= 2 else {
            throw UsageError(message: "missing FILE after '\(name)' (a path, or - for standard input)", command: command)
        }
        guard positionals.count == 2 || command.takesSeveralFiles else {
            throw UsageError(
                message: "unexpected argument '\(positionals[2])': '\(name)' takes exactly one FILE (only 'validate' takes several)",
                command: command)
        }
        var sources: [InputSource] = []
        for (position, file) in positionals.dropFirst().enumerated() {
            guard !file.isEmpty else {
                let which = positionals.count == 2 ? "the FILE argument" : "FILE argument \(position + 1) of \(positionals.count - 1)"
                throw UsageError(message: "\(which) is empty", command: command)
            }
            // `-` after `--` is a file named `-`.
            let source: InputSource = file == "-" && position + 1 < firstEscaped ? .standardInput : .path(file)
            if source == .standardInput, sources.contains(.standardInput) {
                throw UsageError(message: "standard input (-) is named more than once; it can be read only once", command: command)
            }
            sources.append(source)
        }
        self = .run(command, sources)
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
