@_spi(Reader) import PropertyList

/// The key and value references of the objects being written, innermost object's last.
///
/// Every coded object pushes its fields here and pops them when it ends, so the stack is the
/// archiver's busiest structure. It is a pair of plain buffers (no copy-on-write checks, no
/// generic array code).
struct FieldStack: ~Copyable {
    private var keyRefs = RawBuffer<Int>()
    private var valueRefs = RawBuffer<Int>()

    init(capacity: Int = 64) {
        keyRefs.reserve(capacity)
        valueRefs.reserve(capacity)
    }

    var count: Int { keyRefs.count }

    @inline(__always)
    mutating func append(key: Int, value: Int) {
        keyRefs.append(key)
        valueRefs.append(value)
    }

    /// Drops the fields from `start` on.
    @inline(__always)
    mutating func truncate(to start: Int) {
        keyRefs.truncate(to: start)
        valueRefs.truncate(to: start)
    }

    /// The position of the field with key `key` among those from `start` on.
    func position(ofKey key: Int, from start: Int) -> Int? {
        var i = start
        while i < keyRefs.count {
            if keyRefs[unchecked: i] == key { return i }
            i += 1
        }
        return nil
    }

    @inline(__always)
    func setValue(_ value: Int, at position: Int) {
        valueRefs[unchecked: position] = value
    }

    /// Writes the fields from `start` on into `table` as the dictionary at `index`, after
    /// `firstKey` and `firstValue`, and drops them.
    mutating func popDictionary(into table: BPlistTable, at index: Int, firstKey: Int, firstValue: Int, from start: Int) {
        table.setDict(
            at: index, firstKey: firstKey, firstValue: firstValue, keys: keyRefs.elements(from: start),
            values: valueRefs.elements(from: start))
        truncate(to: start)
    }

    /// The keys of the fields from `start` on.
    func keys(from start: Int) -> [Int] {
        Array(keyRefs.elements(from: start))
    }

    /// The values of the fields from `start` on.
    func values(from start: Int) -> [Int] {
        Array(valueRefs.elements(from: start))
    }
}
