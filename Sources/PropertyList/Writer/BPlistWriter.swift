/// Writes a ``PlistValue`` as `bplist00` bytes in CoreFoundation's layout.
///
/// The root is object 0; a dictionary is followed by its keys, then each value's sub-tree;
/// strings, numbers, dates, data, booleans and UIDs are uniqued by exact type and value
/// (`1`, `1.0` and `true` stay three objects); reference and offset widths are minimal.
/// The same value always gives the same bytes. Apple's readers and Python's `plistlib`
/// read the output.
///
/// ```swift
/// let bytes = try BPlistWriter().write(["name": "Ann", "tags": ["a", "b"]])
/// ```
public struct BPlistWriter: Sendable {
    public init() {}

    /// Encodes `value`.
    ///
    /// - Throws: ``ArchiveError`` `.unencodable` for what `bplist00` readers reject: `.null`,
    ///   `.set`, and UIDs of 2^32 or more.
    public func write(_ value: PlistValue) throws(ArchiveError) -> [UInt8] {
        var table = BPlistTable()
        _ = try add(value, to: &table, path: "root")
        return try table.encode()
    }

    private func add(_ value: PlistValue, to table: inout BPlistTable, path: @autoclosure () -> String) throws(ArchiveError) -> Int {
        switch value {
        case .null:
            throw ArchiveError(
                .unencodable, reason: "bplist00 readers from Apple reject the null object; leave the key out instead",
                keyPath: path())
        case .set:
            throw ArchiveError(
                .unencodable, reason: "Apple writes no sets in bplist00 and Foundation on Linux crashes on them; write an array",
                keyPath: path())
        case .bool(let v): return table.add(bool: v)
        case .int(let v): return table.add(int: v)
        case .uint(let v): return table.add(uint: v)
        case .real(let v): return table.add(real: v)
        case .float(let v): return table.add(float: v)
        case .date(let v): return table.add(date: v)
        case .data(let v): return table.add(data: v)
        case .string(let v): return table.add(string: v)
        case .uid(let v):
            do { return try table.add(uid: v) } catch { throw error.at(keyPath: path()) }
        case .array(let elements):
            let container = table.beginContainer()
            for (i, element) in elements.enumerated() {
                table.appendReference(try add(element, to: &table, path: "\(path())[\(i)]"))
            }
            table.endArray(container)
            return container.index
        case .dict(let dict):
            let container = table.beginContainer()
            for key in dict.keys { table.appendReference(table.add(string: key)) }
            for (key, element) in zip(dict.keys, dict.values) {
                table.appendReference(try add(element, to: &table, path: "\(path()).\(key)"))
            }
            table.endDict(container)
            return container.index
        }
    }
}

extension PlistValue {
    /// Reads a binary property list with the default options.
    public init(bplist bytes: some Sequence<UInt8>) throws(ArchiveError) {
        self = try BPlistReader().read(bytes)
    }

    /// This value as `bplist00` bytes.
    public func bplistBytes() throws(ArchiveError) -> [UInt8] {
        try BPlistWriter().write(self)
    }
}
