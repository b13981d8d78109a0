/// The help text of `karchive`, printed by `--help` and after a usage error.
enum Usage {
    static let text = """
        OVERVIEW: Inspect binary property lists (bplist00) and keyed archives.

        USAGE: karchive <command> <file>

        COMMANDS:
          json <file>       Print the property list as plist-json, one line.
          validate <file>   Read the file strictly; print "valid" and whether it is a keyed archive.
          dump <file>       Print the property list as an indented tree.
          stats <file>      Print object counts per kind and per class, sizes and reference widths.
          help              Show this help (also -h, --help).

        <file> is a path, or - for standard input. Put -- before a path that starts with -.

        EXIT STATUS:
          0  success
          1  the file cannot be read or is not a valid binary property list (message on stderr)
          2  usage error
        """
}
