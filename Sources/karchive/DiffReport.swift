/// The differences `karchive diff` found: the first ``maximumLines`` as lines, the rest counted.
struct DiffReport {
    /// Differences printed, at most; the rest are counted in a last line.
    static let maximumLines = 100

    /// `root.friends[2].name: "Ann" != "Anne"`, in the order found.
    private(set) var lines: [String] = []
    /// Every difference found, printed or not.
    private(set) var count = 0

    /// Records a difference at `path`; its text is made only when it will be printed.
    mutating func add(_ path: DiffPath, _ message: @autoclosure () -> String) {
        count += 1
        if lines.count < Self.maximumLines { lines.append("\(path.text): \(message())") }
    }

    /// What `diff` prints: one line per difference, then `… 3 more differences` past the bound.
    var text: String {
        var text = lines.map { $0 + "\n" }.joined()
        if count > lines.count { text += "… " + PlainTreeDump.count(count - lines.count, "more difference") + "\n" }
        return text
    }
}
