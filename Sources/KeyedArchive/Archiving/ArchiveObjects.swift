@_spi(Reader) import PropertyList

/// A keyed archive's `$objects` as the archiver builds it, over the bplist table it writes to.
///
/// A UID is a position in `$objects`; the list keeps the table index of each entry and becomes
/// the `$objects` array when the archive closes. A reference to a UID is one of the table's
/// trailing UIDs, so the file holds one UID object per UID referenced, after every other object,
/// however many containers refer to it. A raw value (a string, number or data object placed in
/// `$objects` itself) gets one UID per distinct value: the table uniques equal values to one
/// scalar, and the UID is kept here by that scalar's table index, so equal values share it.
struct ArchiveObjects: ~Copyable {
    /// Table index per UID.
    private var entries = RawBuffer<UInt32>()
    /// Per table index of a raw value: its UID (0 until it has one; UID 0 is `$null`, never a
    /// raw value's). Indices past the end have none yet.
    private var rawValueUIDs = RawBuffer<UInt32>()

    init(expecting expected: Int) {
        entries.reserve(expected)
    }

    /// The number of `$objects` entries (UIDs run from 0 to `count - 1`).
    var count: Int { entries.count }

    /// Adds the object at `tableIndex` to `$objects`; returns its UID.
    @inline(__always)
    mutating func newUID(for tableIndex: Int) -> Int {
        entries.append(UInt32(truncatingIfNeeded: tableIndex))
        return entries.count - 1
    }

    /// The UID of the raw value at `tableIndex` (a scalar of the table), added on first use.
    @inline(__always)
    mutating func uid(ofRawValue tableIndex: Int) -> Int {
        if tableIndex < rawValueUIDs.count {
            let known = rawValueUIDs[unchecked: tableIndex]
            if known != 0 { return Int(known) }
        } else {
            let newCount = max(tableIndex + 1, rawValueUIDs.count * 2, 64)
            rawValueUIDs.append(repeating: 0, count: newCount - rawValueUIDs.count)
        }
        let new = newUID(for: tableIndex)
        rawValueUIDs[unchecked: tableIndex] = UInt32(truncatingIfNeeded: new)
        return new
    }

    /// Makes the table's pending slot `index` the `$objects` array.
    func write(to table: BPlistTable, at index: Int) {
        table.setArray(at: index, references: entries.elements())
    }
}
