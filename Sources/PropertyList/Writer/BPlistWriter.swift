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
    /// A writer. It has no options: the layout is fixed, so the same value always gives the same bytes.
    public init() {}

    /// Encodes `value`.
    ///
    /// - Parameter value: The root object of the file.
    /// - Returns: The whole `bplist00` file: header, objects, offset table and trailer.
    ///
    /// - Throws: ``ArchiveError`` `.unencodable` for what `bplist00` readers reject: `.null`,
    ///   `.set`, and UIDs of 2^32 or more.
    public func write(_ value: PlistValue) throws(ArchiveError) -> [UInt8] {
        let table = BPlistTable()
        _ = try table.add(value)
        return try table.encode()
    }
}

extension BPlistTable {
    /// Adds a whole value tree in CoreFoundation's pre-order; returns the index of its root.
    package func add(_ value: PlistValue) throws(ArchiveError) -> Int {
        try add(value, path: "root")
    }

    /// Puts `value` into a slot made by `reserve()`: containers as usual, scalars as a new (not uniqued) object.
    package func fill(_ slot: Int, with value: PlistValue) throws(ArchiveError) {
        switch value {
        case .array(let elements):
            var refs: [Int] = []
            refs.reserveCapacity(elements.count)
            for (i, element) in elements.enumerated() { refs.append(try add(element, path: "[\(i)]")) }
            setArray(at: slot, elements: refs)
        case .dict(let dict):
            let keys = dict.keys.map { add(string: $0) }
            var values: [Int] = []
            values.reserveCapacity(dict.count)
            for (key, element) in zip(dict.keys, dict.values) { values.append(try add(element, path: key)) }
            setDict(at: slot, keys: keys, values: values)
        default:
            copyObject(at: slot, from: try add(value, path: "root"))
        }
    }

    private func add(_ value: PlistValue, path: @autoclosure () -> String) throws(ArchiveError) -> Int {
        switch value {
        case .null:
            throw ArchiveError(
                .unencodable, reason: "bplist00 readers from Apple reject the null object; leave the key out instead",
                keyPath: path())
        case .set:
            throw ArchiveError(
                .unencodable, reason: "Apple writes no sets in bplist00 and Foundation on Linux crashes on them; write an array",
                keyPath: path())
        case .bool(let v): return add(bool: v)
        case .int(let v): return add(int: v)
        case .uint(let v): return add(uint: v)
        case .real(let v): return add(real: v)
        case .float(let v): return add(float: v)
        case .date(let v): return add(date: v)
        case .data(let v): return add(data: v)
        case .string(let v): return add(string: v)
        case .uid(let v):
            do { return try add(uid: v) } catch { throw error.at(keyPath: path()) }
        case .array(let elements):
            let container = beginContainer()
            for (i, element) in elements.enumerated() {
                appendReference(try add(element, path: "\(path())[\(i)]"))
            }
            endArray(container)
            return container.index
        case .dict(let dict):
            let container = beginContainer()
            appendKeyReferences(dict.keys)
            for (key, element) in zip(dict.keys, dict.values) {
                appendReference(try add(element, path: "\(path()).\(key)"))
            }
            endDict(container)
            return container.index
        }
    }
}

extension PlistValue {
    /// Reads a binary property list with the default options.
    ///
    /// The same as `try BPlistReader().read(bytes)`.
    ///
    /// - Throws: ``ArchiveError``, as ``BPlistReader/read(_:)-(Sequence<UInt8>)`` throws.
    public init(bplist bytes: some Sequence<UInt8>) throws(ArchiveError) {
        self = try BPlistReader().read(bytes)
    }

    /// This value as `bplist00` bytes.
    ///
    /// The same as `try BPlistWriter().write(self)`.
    ///
    /// - Throws: ``ArchiveError`` `.unencodable`, as ``BPlistWriter/write(_:)`` throws.
    public func bplistBytes() throws(ArchiveError) -> [UInt8] {
        try BPlistWriter().write(self)
    }
}
