/// A `karchive` subcommand that works on one input file.
enum Command: String, CaseIterable, Sendable {
    case json
    case validate
    case dump
    case stats
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
}

/// What the command line asks for: help, or one command on one input.
enum Invocation: Equatable {
    case help
    case run(Command, InputSource)

    /// Parses the arguments that follow the program name.
    ///
    /// `-h`/`--help` anywhere (before `--`) asks for help, as does `help` (optionally followed by
    /// a command name). Otherwise the command line is `<command> <file>`, where `<file>` may be
    /// `-` for standard input and `--` ends option parsing so a path may start with `-`.
    ///
    /// - Throws: ``UsageError`` for a missing or unknown command, a missing file, an unknown
    ///   option or an extra argument.
    init(arguments: [String]) throws(UsageError) {
        var positionals: [String] = []
        var optionsEnded = false
        for argument in arguments {
            if !optionsEnded {
                if argument == "--" {
                    optionsEnded = true
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
            throw UsageError(message: "missing <file> after '\(name)' (a path, or - for standard input)")
        }
        guard positionals.count == 2 else {
            throw UsageError(message: "unexpected argument '\(positionals[2])': '\(name)' takes exactly one <file>")
        }
        let file = positionals[1]
        guard !file.isEmpty else {
            throw UsageError(message: "the <file> argument is empty")
        }
        self = .run(command, file == "-" && !optionsEnded ? .standardInput : .path(file))
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
