import PropertyList

/// `karchive diff [--plist] A B`: what differs between two files, one line per difference.
///
/// Two keyed archives are compared as object graphs, and anything else (or anything, with
/// `--plist`) as plain property lists; see ``Comparison``. Each difference is a line on standard
/// output, `KEYPATH: MESSAGE` (paths as ``DiffPath`` writes them):
///
/// ```
/// root.friends[2].name: "Ann" != "Anne"
/// root.count: integer 3 != real 3.0
/// root.tags: only in A
/// root.owner: class Person != Employee
/// root.b: shared with root.a in A, not in B
/// ```
///
/// At most ``DiffReport/maximumLines`` are printed, then `… N more differences`. The exit status
/// is `cmp`'s: 0 when the files are the same (nothing printed), 1 when they differ, 2 when a file
/// cannot be read or compared (`karchive: FILE: <error>` on standard error).
enum Diff {
    static func run(_ request: Invocation.Request) -> Karchive.ExitStatus {
        var values: [PlistValue] = []
        for source in request.sources {
            do {
                values.append(try Karchive.document(from: source).value)
            } catch {
                StandardStream.error.write("karchive: \(source.displayName): \(error.message)\n")
                return .trouble
            }
        }
        let names = request.sources.map(\.displayName)
        guard values.count == 2 else { return .trouble }
        let report: DiffReport
        do {
            report = try compare(values[0], values[1], asPropertyLists: request.options.plist)
        } catch {
            let name = error.side.map { names[$0.rawValue] } ?? names.joined(separator: " and ")
            StandardStream.error.write("karchive: \(name): \(error.message)\n")
            return .trouble
        }
        guard report.count > 0 else { return .success }
        StandardStream.output.write(report.text)
        return .different
    }

    /// The differences between `a` and `b`: as object graphs when both are keyed archives and
    /// `asPropertyLists` is false, else as plain property lists.
    static func compare(_ a: PlistValue, _ b: PlistValue, asPropertyLists: Bool) throws(Comparison.Trouble) -> DiffReport {
        if !asPropertyLists, case .keyedArchive(let x) = KeyedArchiveShape.recognize(a), case .keyedArchive(let y) = KeyedArchiveShape.recognize(b) {
            return try Comparison.graphs(x, y)
        }
        return try Comparison.plain(a, b)
    }
}
