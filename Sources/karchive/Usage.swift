/// The help text of `karchive` (printed by `--help`), and the one-line usage printed after a usage error.
enum Usage {
    static let text = """
        OVERVIEW: Inspect binary property lists (bplist00) and keyed archives.

        USAGE: karchive <command> FILE...

        COMMANDS:
          validate FILE...  Read each file strictly; print "FILE: valid (...)", saying whether it is
                            a keyed archive, or "FILE: <error>" on stderr. Like plutil -lint.
          json FILE         Print the property list as plist-json, one line.
          dump FILE         Print the property list as an indented tree: a keyed archive as its
                            object graph, with the version ("v2") of each versioned class.
          stats FILE        Print object counts per kind and per class, sizes and reference widths.
          help              Show this help (also -h, --help).

        FILE is a path, or - for standard input. Put -- before a path that starts with -.

        EXIT STATUS:
          0  success (validate: every file is valid)
          1  a file cannot be read or is not a valid binary property list (message on stderr)
          2  usage error
        """

    /// `usage: karchive stats FILE  (karchive --help for more)`, or the line for every command
    /// when `command` is nil.
    static func line(for command: Command?) -> String {
        let synopsis = command.map { "\($0.rawValue) \($0.operands)" } ?? "<dump|json|validate|stats> FILE..."
        return "usage: karchive \(synopsis)  (karchive --help for more)"
    }
}
