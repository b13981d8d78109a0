/// The help text of `karchive` (printed by `--help`), and the one-line usage printed after a usage error.
enum Usage {
    static let text = """
        OVERVIEW: Inspect and convert property lists (binary, XML) and keyed archives.

        USAGE: karchive <command> [options] FILE...

        COMMANDS:
          validate FILE...  Read each file strictly; print "FILE: valid (...)", saying its format and
                            whether it is a keyed archive, or "FILE: <error>" on stderr. Like plutil -lint.
          json [--pretty] FILE
                            Print the property list as plist-json: one line, or indented with --pretty.
          dump FILE         Print the format, then the property list as an indented tree: a keyed
                            archive as its object graph, with the version ("v2") of each versioned class.
          stats FILE        Print object counts per kind and per class, sizes and reference widths
                            (for XML, of the file's binary form).
          convert -f xml1|binary1|json FILE... [-o OUT | -e EXT] [--pretty]
                            Write each file in the format: Apple's XML layout, bplist00, or plist-json.
                            Without -o or -e to standard output; -o OUT writes one file to OUT (- for
                            standard output); -e EXT writes each beside its input with extension EXT.
                            An input is replaced only when -o names it, and a file is replaced whole
                            or not at all.
          extract KEYPATH FILE [-f xml1|binary1|json|raw] [--pretty]
                            Print the value at a dotted key path (numbers index arrays, \\. is a dot in
                            a key). In a keyed archive the path starts with a top-level key and follows
                            the object graph: root.users.3.name. -f raw prints a single value bare;
                            the default is json.
          diff [--plist] A B
                            Compare two files; print one line per difference, such as
                            root.friends[2].name: "Ann" != "Anne", root.tags: only in A, or
                            root.count: integer 3 != real 3.0 (at most 100, then a count). Two keyed
                            archives are compared as object graphs from their $top keys: how
                            $objects is numbered and ordered does not matter, classes and sharing
                            do. With --plist, or for other files, as plain property lists.
                            Exit 0 when the same, 1 when different, 2 on an error (as cmp).
          help              Show this help (also -h, --help).

        FILE is a path, or - for standard input; binary, XML and plist-json are read, found from
        the content. Put -- before a path that starts with -.

        PLUTIL'S SPELLINGS (the verb first; plutil's options, outputs and exit status: 0, or 1 when an
        argument or any file fails):
          -lint [-s] FILE...   -p FILE...   -create xml1|binary1|json|swift|objc|raw|type FILE|-
          -convert xml1|binary1|json|swift|objc [-header] FILE... [-o OUT|-e EXT] [-r]
          -insert KEYPATH -TYPE VALUE [-append] FILE...   -replace KEYPATH -TYPE VALUE FILE...
          -remove KEYPATH FILE...   -extract KEYPATH FMT [-expect TYPE] FILE...   -type KEYPATH FILE...
                            -TYPE: -bool -integer -float -string -date -data (base64) -xml -json
                            -array -dictionary. -o - is standard output, -r indents JSON, -n drops
                            the newline after raw and type output. Edits write the file back in its
                            own format, atomically. --graph (karchive's own): the KEYPATH of -insert,
                            -replace, -remove, -extract and -type starts at a $top key and follows the
                            keyed archive's object graph (root.friends.0.name); without it a keyed
                            archive is the plain property list plutil sees. Differences from plutil:
                            Docs/karchive-plutil.md.

        EXIT STATUS:
          0  success (validate, convert: every file; diff: the files are the same)
          1  a file cannot be read, is not a valid property list, or its result cannot be written
             (message on stderr); diff: the files differ
          2  usage error; diff: also a file that cannot be read or is not a valid property list
        """

    /// `usage: karchive stats FILE  (karchive --help for more)`, or the line for every command
    /// when `command` is nil.
    static func line(for command: Command?) -> String {
        let synopsis = command.map { "\($0.rawValue) \($0.operands)" } ?? "<dump|json|validate|stats|convert|extract|diff> FILE..."
        return "usage: karchive \(synopsis)  (karchive --help for more)"
    }
}
