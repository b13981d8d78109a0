// Unsafe code in this file: the table's vectors are RawBuffers; scalar bytes are written only into room reserved for
// their bound just before, and read (hashed, compared, decoded) only within the encoding their marker bounds.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The flat object table a `bplist00` file is written from: objects in index order, scalars
/// uniqued by (exact type, value), containers as ranges of one shared reference pool.
///
/// Objects are added in pre-order (a container reserves its index before its children), which
/// puts the root at index 0 as CoreFoundation does. A container collects its children's
/// references on a scratch stack, so building a table allocates nothing per container.
///
/// Scalars are encoded when they are added: their bytes (marker, count, payload, exactly as
/// in the file) go to one byte arena, and strings and data are uniqued by comparing those
/// bytes. An object is then a position and a kind, and the table holds no Swift values at
/// all: nothing to retain or release, about a third of the memory of a table of enums.
/// When the arena holds the scalars in index order (always, for tables built only by adding),
/// ``encodeAllocated(top:)`` lays the file out inside the arena itself.
///
/// ```swift
/// let table = BPlistTable()
/// let root = table.beginContainer()
/// table.appendReference(table.add(string: "a"))
/// table.endArray(root)
/// let bytes = try table.encode()
/// ```
package final class BPlistTable {
    /// The encoded bytes of every scalar object.
    @exclusivity(unchecked) var arena = RawBuffer<UInt8>()
    /// Per object: a scalar's offset in the arena, or a container's first reference in `refs`.
    @exclusivity(unchecked) var starts = RawBuffer<UInt32>()
    /// Set when a position no longer fits `starts` (a file of 4 GiB or more); encoding then throws.
    @exclusivity(unchecked) var oversized = false
    /// Per object: its kind (``Kind``) and, for a container, its number of references.
    @exclusivity(unchecked) var kinds = RawBuffer<UInt32>()
    /// Container references (object indices), each container's a contiguous run.
    @exclusivity(unchecked) var refs = RawBuffer<UInt32>()
    /// References of the open containers, innermost last.
    @exclusivity(unchecked) private var scratch = RawBuffer<UInt32>()
    /// One bit per trailing UID value, set once a reference to it was handed out (see ``trailingUID(_:)``).
    @exclusivity(unchecked) var uidBits = RawBuffer<UInt64>()
    /// While encoding: per word of `uidBits`, how many bits are set in the words before it, so a
    /// trailing UID's object index is the table's count plus the referenced values below it.
    @exclusivity(unchecked) var uidRanks = RawBuffer<UInt32>()
    /// Whether the arena holds every scalar once, in index order, with no gaps.
    @exclusivity(unchecked) var scalarsInOrder = true
    /// Set once the arena has been handed to the caller by ``encodeAllocated(top:)``.
    @exclusivity(unchecked) var consumed = false

    @exclusivity(unchecked) private var ints = WordIndex()
    @exclusivity(unchecked) private var reals = WordIndex()
    @exclusivity(unchecked) private var dates = WordIndex()
    /// Strings and data, by their encoded bytes (the marker tells the two apart).
    @exclusivity(unchecked) private var encoded = EncodedIndex()
    @exclusivity(unchecked) private var uints: [UInt64: Int] = [:]
    @exclusivity(unchecked) private var floats: [UInt32: Int] = [:]
    @exclusivity(unchecked) private var uids: [UInt64: Int] = [:]
    @exclusivity(unchecked) private var bools: (Int?, Int?) = (nil, nil)

    @exclusivity(unchecked) private var lastKeys: [String] = []
    @exclusivity(unchecked) private var lastKeyRefs: [UInt32] = []

    /// An object's kind, in the top two bits of its `kinds` entry; the low 30 bits count a
    /// container's references.
    enum Kind {
        static let pending: UInt32 = 0
        static let scalar: UInt32 = 1 << 30
        static let array: UInt32 = 2 << 30
        static let dict: UInt32 = 3 << 30
        static let countMask: UInt32 = (1 << 30) - 1
    }

    package init() {}

    /// Objects added so far, not counting trailing UIDs (which are placed after them in the file).
    package var count: Int { kinds.count }

    /// How much a table holds: objects, container references, bytes of its file, trailing UID
    /// values, and the distinct strings and data, integers, reals and dates its indexes hold.
    package struct Sizes: Sendable {
        var objects = 0
        var references = 0
        var bytes = 0
        var trailingUIDs = 0
        var encoded = 0
        var ints = 0
        var reals = 0
        var dates = 0
        package init() {}

        /// Makes room for a whole file of `size` bytes, which the estimate from the table
        /// (taken before the UID objects and the offset table are laid out) falls short of.
        package mutating func recordFile(of size: Int) {
            bytes = max(bytes, size)
        }
    }

    package var sizes: Sizes {
        var sizes = Sizes()
        sizes.objects = count
        sizes.references = refs.count
        // The arena becomes the file in the end: room for the containers and offsets too.
        sizes.bytes = arena.count + 4 * refs.count + 8 * count + 64
        sizes.trailingUIDs = 64 * uidBits.count
        sizes.encoded = encoded.count
        sizes.ints = ints.count
        sizes.reals = reals.count
        sizes.dates = dates.count
        return sizes
    }

    /// Room for `sizes` (each capped at 2^24 elements), so a table that ends up that large never
    /// grows, and its uniquing indexes are never rebuilt.
    package func reserveCapacity(_ sizes: Sizes) {
        let cap = 1 << 24
        starts.reserve(min(sizes.objects, cap))
        kinds.reserve(min(sizes.objects, cap))
        refs.reserve(min(sizes.references, cap))
        arena.reserve(min(sizes.bytes, cap))
        uidBits.reserve(min(sizes.trailingUIDs, cap) / 64 + 1)
        encoded.reserve(min(sizes.encoded, cap)) { Self.encodedHash(self.scalarBytes(at: $0)) }
        ints.reserve(min(sizes.ints, cap)) { self.scalarWord(at: $0) }
        reals.reserve(min(sizes.reals, cap)) { self.scalarWord(at: $0) }
        dates.reserve(min(sizes.dates, cap)) { self.scalarWord(at: $0) }
    }

    // MARK: Scalars

    /// Appends a new scalar object whose encoding `write` puts at the arena's end (at most `bound` bytes).
    @inline(__always)
    private func appendScalar(bound: Int, _ write: (inout BPlistOutput) -> Void) -> Int {
        appendObject(start: appendToArena(bound: bound, write), kind: Kind.scalar)
    }

    /// Writes an encoding at the arena's end (at most `bound` bytes); returns where it starts.
    @inline(__always)
    private func appendToArena(bound: Int, _ write: (inout BPlistOutput) -> Void) -> Int {
        let start = arena.count
        arena.reserve(start + bound)
        var out = BPlistOutput(base: arena.base.unsafelyUnwrapped + start)
        write(&out)
        arena.commit(out.position)
        return start
    }

    @inline(__always)
    private func appendObject(start: Int, kind: UInt32) -> Int {
        starts.append(Self.narrow(start, &oversized))
        kinds.append(kind)
        return kinds.count - 1
    }

    package func add(bool value: Bool) -> Int {
        if let index = value ? bools.1 : bools.0 { return index }
        let index = appendScalar(bound: 1) { $0.append(value ? BPlistFormat.trueMarker : BPlistFormat.falseMarker) }
        if value { bools.1 = index } else { bools.0 = index }
        return index
    }

    package func add(int value: Int64) -> Int {
        let candidate = count
        let index = ints.index(of: UInt64(bitPattern: value), candidate: candidate) { self.scalarWord(at: $0) }
        if index == candidate { _ = appendScalar(bound: 9) { $0.appendInteger(value) } }
        return index
    }

    /// An unsigned integer; values up to `Int64.max` are the same object as the equal `Int64`.
    package func add(uint value: UInt64) -> Int {
        if let small = Int64(exactly: value) { return add(int: small) }
        if let index = uints[value] { return index }
        let index = appendScalar(bound: 17) { $0.appendUnsigned(value) }
        uints[value] = index
        return index
    }

    package func add(real value: Double) -> Int {
        addEightBytes(value.bitPattern, marker: BPlistFormat.float64Marker, uniquedIn: &reals)
    }

    /// A real or date: a marker and eight big-endian bytes, uniqued by their bits in `index`.
    @inline(__always)
    private func addEightBytes(_ bits: UInt64, marker: UInt8, uniquedIn index: inout WordIndex) -> Int {
        let candidate = count
        let found = index.index(of: bits, candidate: candidate) { self.scalarWord(at: $0) }
        if found == candidate {
            _ = appendScalar(bound: 9) {
                $0.append(marker)
                $0.appendBigEndian(bits, width: 8)
            }
        }
        return found
    }

    package func add(float value: Float) -> Int {
        if let index = floats[value.bitPattern] { return index }
        let index = appendScalar(bound: 5) {
            $0.append(BPlistFormat.float32Marker)
            $0.appendBigEndian(UInt64(value.bitPattern), width: 4)
        }
        floats[value.bitPattern] = index
        return index
    }

    package func add(date value: Double) -> Int {
        addEightBytes(value.bitPattern, marker: BPlistFormat.dateMarker, uniquedIn: &dates)
    }

    package func add(string value: String) -> Int {
        withUnsafePointer(to: value) { add(stringAt: $0) }
    }

    /// ``add(string:)`` for a string read where it lies (no copy of the string is made).
    ///
    /// Room for the encoding is made first; the string is then only read while its bytes are
    /// encoded, a step that cannot release an object, so the string needs no retain of its own
    /// (for a large archive, a retain and a release are two atomic writes to a cold line).
    package func add(stringAt pointer: UnsafePointer<String>) -> Int {
        // UTF-16 takes at most two bytes per UTF-8 byte.
        arena.reserve(arena.count + 10 + 2 * pointer.pointee.utf8.count)
        let at = arena.base.unsafelyUnwrapped + arena.count
        let length = pointer.pointee.utf8.withContiguousStorageIfAvailable { utf8 in
            var out = BPlistOutput(base: at)
            out.appendString(utf8)
            return out.position
        }
        if let length { return keepEncoded(at: at, length: length) }
        // Not contiguous (a bridged string): made contiguous in a copy first.
        var copy = pointer.pointee
        return copy.withUTF8 { add(utf8: $0) }
    }

    @inline(__always)
    private func add(utf8: UnsafeBufferPointer<UInt8>) -> Int {
        // UTF-16 takes at most two bytes per UTF-8 byte.
        addEncoded(bound: 10 + 2 * utf8.count) { $0.appendString(utf8) }
    }

    package func add(data value: [UInt8]) -> Int {
        value.withUnsafeBytes { add(data: $0) }
    }

    package func add(data bytes: UnsafeRawBufferPointer) -> Int {
        addEncoded(bound: 10 + bytes.count) {
            $0.appendMarker(BPlistFormat.Marker.data.rawValue, count: bytes.count)
            $0.append(contentsOf: bytes)
        }
    }

    /// Encodes a string or data object at the arena's end, then keeps it as a new object or
    /// takes it back in favour of an equal one already in the table.
    @inline(__always)
    private func addEncoded(bound: Int, _ write: (inout BPlistOutput) -> Void) -> Int {
        let start = arena.count
        arena.reserve(start + bound)
        let at = arena.base.unsafelyUnwrapped + start
        var out = BPlistOutput(base: at)
        write(&out)
        return keepEncoded(at: at, length: out.position)
    }

    /// Keeps the string or data object encoded at the arena's end (`at`, `length` bytes, not yet
    /// committed) as a new object, or takes it back in favour of an equal one already in the table.
    @inline(__always)
    private func keepEncoded(at: UnsafeMutablePointer<UInt8>, length: Int) -> Int {
        let bytes = UnsafeRawBufferPointer(start: at, count: length)
        let candidate = count
        let index = encoded.index(
            hash: Self.encodedHash(bytes), candidate: candidate,
            isEqual: { existing in
                let other = self.scalarBytes(at: existing)
                return other.count == bytes.count && memcmp(other.baseAddress!, bytes.baseAddress!, bytes.count) == 0
            },
            hashAt: { Self.encodedHash(self.scalarBytes(at: $0)) })
        if index == candidate {
            let start = arena.count
            arena.commit(length)
            _ = appendObject(start: start, kind: Kind.scalar)
        }
        return index
    }

    /// A UID object, placed where it is added (CoreFoundation's pre-order); values of 2^32 and
    /// more are refused by Apple's readers and so by this writer. See ``trailingUID(_:)`` for
    /// UIDs laid out after every other object.
    package func add(uid value: UInt64) throws(ArchiveError) -> Int {
        guard value <= UInt64(UInt32.max) else {
            throw ArchiveError(.unencodable, reason: "UID \(value) is 2^32 or more, which Apple's readers reject")
        }
        if let index = uids[value] { return index }
        let index = appendScalar(bound: 5) { $0.appendUID(value) }
        uids[value] = index
        return index
    }

    /// Marks references to trailing UIDs in `refs`; the rest of the bits are the UID's value.
    static let uidTag = 1 << 31

    /// A reference to the trailing UID object of `value` (below 2^31), for containers of this table.
    ///
    /// Trailing UIDs are not objects of the table: a reference names the value, and the file
    /// gets one UID object per value referenced, after all other objects, in value order. A
    /// table whose containers refer to many UIDs (as many as it has objects, say) so holds none
    /// of them, and a reference costs one bit.
    @inline(__always)
    package func trailingUID(_ value: Int) -> Int {
        precondition(value >= 0 && value < Self.uidTag, "UID \(value) is out of range for a writer table")
        let word = value >> 6
        if word >= uidBits.count { growUIDBits(to: word + 1) }
        // A read, then a write: the compound assignment through this non-copyable property makes
        // the compiler emit invalid code under ThreadSanitizer (Swift 6.3).
        let bits = uidBits[unchecked: word]
        uidBits[unchecked: word] = bits | 1 << UInt64(value & 63)
        return Self.uidTag | value
    }

    private func growUIDBits(to minimum: Int) {
        let newCount = max(minimum, uidBits.count * 2, 16)
        uidBits.append(repeating: 0, count: newCount - uidBits.count)
    }

    /// The object index a reference in `refs` stands for, once ``numberUIDObjects()`` has run.
    @inline(__always)
    func resolve(_ reference: UInt32) -> UInt32 {
        guard reference >= UInt32(Self.uidTag) else { return reference }
        let value = Int(reference) - Self.uidTag
        let below = uidBits[unchecked: value >> 6] & ((1 << UInt64(value & 63)) - 1)
        return UInt32(truncatingIfNeeded: count) + uidRanks[unchecked: value >> 6] + UInt32(below.nonzeroBitCount)
    }

    @inline(__always)
    static func isScalar(_ kind: UInt32) -> Bool { kind & ~Kind.countMask == Kind.scalar }

    /// The 64 bits a uniqued integer, real or date at `index` was added with, read back from
    /// its encoding: an integer's big-endian payload (1, 2, 4 or 8 bytes; negative values are
    /// always 8), a real's or date's eight bytes after the marker.
    @inline(__always)
    func scalarWord(at index: Int) -> UInt64 {
        let at = arena.base.unsafelyUnwrapped + Int(starts[unchecked: index])
        let marker = at[0]
        let width = marker >> 4 == BPlistFormat.Marker.int.rawValue >> 4 ? 1 << Int(marker & 0x0F) : 8
        return BPlistDocument.bigEndian(UnsafeRawBufferPointer(start: at, count: 1 + width), at: 1, width: width)
    }

    private static let hashSeed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x5EED)
        return UInt64(UInt(bitPattern: hasher.finalize()))
    }()

    /// The hash ``EncodedIndex`` files a string's or data's encoding under: eight bytes per step
    /// mixed by multiply rounds, keyed by a per-process random seed.
    @inline(__always)
    static func encodedHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        var h = hashSeed ^ (UInt64(count) &* 0x9E37_79B9_7F4A_7C15)
        var i = 0
        while i + 8 <= count {
            h = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
            i += 8
        }
        if i < count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < count {
                tail |= UInt64(bytes[i]) << shift
                shift += 8
                i += 1
            }
            h = (h ^ tail) &* 0x94D0_49BB_1331_11EB
        }
        h ^= h >> 29
        h = h &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 32
        return h
    }

    /// The encoded bytes of the scalar at `index`.
    @inline(__always)
    func scalarBytes(at index: Int) -> UnsafeRawBufferPointer {
        let at = arena.base.unsafelyUnwrapped + Int(starts[unchecked: index])
        return UnsafeRawBufferPointer(start: at, count: BPlistOutput.encodedSize(at))
    }

    /// The value of the scalar at `index`, read back from its encoding.
    package func scalarValue(at index: Int) -> PlistValue {
        let bytes = scalarBytes(at: index)
        let marker = bytes[0]
        let low = Int(marker & 0x0F)
        func word(_ at: Int, _ width: Int) -> UInt64 { BPlistDocument.bigEndian(bytes, at: at, width: width) }
        switch marker >> 4 {
        case 0x0:
            return marker == BPlistFormat.trueMarker ? .bool(true) : marker == BPlistFormat.falseMarker ? .bool(false) : .null
        case 0x1:
            // 1, 2 and 4 bytes are unsigned, 8 signed, 16 an unsigned value above Int64.max.
            let width = 1 << low
            return width == 16 ? .uint(word(9, 8)) : .int(Int64(bitPattern: word(1, width)))
        case 0x2:
            return low == 2 ? .float(Float(bitPattern: UInt32(truncatingIfNeeded: word(1, 4)))) : .real(Double(bitPattern: word(1, 8)))
        case 0x3:
            return .date(Double(bitPattern: word(1, 8)))
        case 0x8:
            return .uid(word(1, low + 1))
        default:
            var count = low
            var header = 1
            if low == 15 {
                let width = 1 << Int(bytes[1] & 0x0F)
                count = Int(word(2, width))
                header = 2 + width
            }
            switch marker >> 4 {
            case 0x4: return .data(Array(bytes[header..<(header + count)]))
            case 0x5: return .string(String(decoding: bytes[header..<(header + count)], as: UTF8.self))
            default:
                let units = (0..<count).map { UInt16(bytes[header + 2 * $0]) << 8 | UInt16(bytes[header + 2 * $0 + 1]) }
                return .string(String(decoding: units, as: UTF16.self))
            }
        }
    }

    /// A reference in a container of the table: an object of the table, or a trailing UID's value.
    package enum Reference {
        case object(Int)
        case uid(UInt64)
    }

    /// The references of the container at `index` (a dictionary's keys, then its values), and
    /// whether it is a dictionary; nil for a scalar.
    package func references(of index: Int) -> (isDictionary: Bool, references: [Reference])? {
        let entry = kinds[unchecked: index]
        guard !Self.isScalar(entry), entry != Kind.pending else { return nil }
        let start = Int(starts[unchecked: index])
        let count = Int(entry & Kind.countMask)
        let references = (start..<(start + count)).map { i -> Reference in
            let reference = refs[unchecked: i]
            return reference >= UInt32(Self.uidTag) ? .uid(UInt64(Int(reference) - Self.uidTag)) : .object(Int(reference))
        }
        return (entry & ~Kind.countMask == Kind.dict, references)
    }

    // MARK: Containers

    /// A container under construction: its reserved index and where its references start on the scratch stack.
    package struct OpenContainer {
        package let index: Int
        fileprivate let scratchStart: Int
    }

    /// Reserves the next index for a container; add its children, then end it.
    package func beginContainer() -> OpenContainer {
        OpenContainer(index: reserve(), scratchStart: scratch.count)
    }

    /// Adds a reference to the innermost open container.
    @inline(__always)
    package func appendReference(_ index: Int) {
        scratch.append(UInt32(truncatingIfNeeded: index))
    }

    /// Appends references to `keys`, reusing the previous dictionary's when its keys are the same.
    package func appendKeyReferences(_ keys: [String]) {
        if keys.count != lastKeys.count || !zip(keys, lastKeys).allSatisfy({ ExactString($0) == ExactString($1) }) {
            lastKeyRefs.removeAll(keepingCapacity: true)
            for key in keys { lastKeyRefs.append(UInt32(truncatingIfNeeded: add(string: key))) }
            lastKeys = keys
        }
        lastKeyRefs.withUnsafeBufferPointer { scratch.append(contentsOf: $0) }
    }

    /// Ends an array whose references were appended since `beginContainer`.
    package func endArray(_ container: OpenContainer) {
        finishContainer(container, kind: Kind.array)
    }

    /// Ends a dictionary whose key references, then value references, were appended since `beginContainer`.
    package func endDict(_ container: OpenContainer) {
        precondition((scratch.count - container.scratchStart) % 2 == 0, "a dictionary needs as many values as keys")
        finishContainer(container, kind: Kind.dict)
    }

    private func finishContainer(_ container: OpenContainer, kind: UInt32) {
        let start = refs.count
        let moved = scratch.count - container.scratchStart
        refs.append(contentsOf: scratch.elements(from: container.scratchStart))
        scratch.truncate(to: container.scratchStart)
        setContainer(container.index, kind: kind, start: start, count: moved)
    }

    private func setContainer(_ index: Int, kind: UInt32, start: Int, count: Int) {
        precondition(index >= 0 && index < self.count, "object #\(index) is not in the table")
        precondition(count <= Int(Kind.countMask), "a container of \(count) references is too large for bplist00")
        starts[unchecked: index] = Self.narrow(start, &oversized)
        kinds[unchecked: index] = kind | UInt32(count)
    }

    @inline(__always)
    private func appendRefs(_ indices: ArraySlice<Int>) {
        indices.withUnsafeBufferPointer { appendRefs($0) }
    }

    @inline(__always)
    private func appendRefs(_ indices: UnsafeBufferPointer<Int>) {
        refs.reserve(refs.count + indices.count)
        for index in indices { refs.append(UInt32(truncatingIfNeeded: index)) }
    }

    /// Replaces a pending slot with a finished container whose references are `keys` then `values`.
    package func setDict(at index: Int, keys: ArraySlice<Int>, values: ArraySlice<Int>) {
        let start = refs.count
        appendRefs(keys)
        appendRefs(values)
        setContainer(index, kind: Kind.dict, start: start, count: refs.count - start)
    }

    package func setDict(at index: Int, keys: [Int], values: [Int]) {
        setDict(at: index, keys: keys[...], values: values[...])
    }

    /// Replaces a pending slot with a dictionary of one leading pair, then `keys` with `values`.
    package func setDict(at index: Int, firstKey: Int, firstValue: Int, keys: ArraySlice<Int>, values: ArraySlice<Int>) {
        keys.withUnsafeBufferPointer { keys in
            values.withUnsafeBufferPointer { values in
                setDict(at: index, firstKey: firstKey, firstValue: firstValue, keys: keys, values: values)
            }
        }
    }

    package func setDict(
        at index: Int, firstKey: Int, firstValue: Int, keys: UnsafeBufferPointer<Int>, values: UnsafeBufferPointer<Int>
    ) {
        let start = refs.count
        refs.reserve(start + 2 + keys.count + values.count)
        refs.append(UInt32(truncatingIfNeeded: firstKey))
        appendRefs(keys)
        refs.append(UInt32(truncatingIfNeeded: firstValue))
        appendRefs(values)
        setContainer(index, kind: Kind.dict, start: start, count: refs.count - start)
    }

    /// Replaces a pending slot with an array of the object references in `elements`.
    package func setArray(at index: Int, references elements: UnsafeBufferPointer<UInt32>) {
        let start = refs.count
        refs.append(contentsOf: elements)
        setContainer(index, kind: Kind.array, start: start, count: elements.count)
    }

    /// Replaces a pending slot with a finished array.
    package func setArray(at index: Int, elements: ArraySlice<Int>) {
        let start = refs.count
        appendRefs(elements)
        setContainer(index, kind: Kind.array, start: start, count: refs.count - start)
    }

    package func setArray(at index: Int, elements: [Int]) {
        setArray(at: index, elements: elements[...])
    }

    /// Makes a pending slot a second copy of the object at `source` (written twice in the file).
    package func copyObject(at index: Int, from source: Int) {
        precondition(index >= 0 && index < count, "object index out of range")
        if source >= Self.uidTag {
            // A UID as a value of its own: written here as an object of its own.
            starts[unchecked: index] = Self.narrow(appendToArena(bound: 5) { $0.appendUID(UInt64(source - Self.uidTag)) }, &oversized)
            kinds[unchecked: index] = Kind.scalar
            scalarsInOrder = false
            return
        }
        precondition(source >= 0 && source < count, "object index out of range")
        starts[unchecked: index] = starts[unchecked: source]
        if Self.isScalar(kinds[unchecked: source]) {
            kinds[unchecked: index] = Kind.scalar
            scalarsInOrder = false
        } else {
            kinds[unchecked: index] = kinds[unchecked: source]
        }
    }

    /// Drops the references of containers begun and never ended (after a failed encode).
    package func abandonOpenContainers() {
        scratch.truncate(to: 0)
    }

    /// Writes every slot still pending as an empty dictionary, so the table always encodes.
    package func fillPendingWithEmptyDictionaries() {
        for index in 0..<count where kinds[unchecked: index] == Kind.pending {
            starts[unchecked: index] = Self.narrow(refs.count, &oversized)
            kinds[unchecked: index] = Kind.dict
        }
    }

    /// A position in the arena or in `refs` as kept in `starts`; one of 2^32 or more sets `flag`.
    @inline(__always)
    static func narrow(_ position: Int, _ flag: inout Bool) -> UInt32 {
        if position > Int(UInt32.max) { flag = true }
        return UInt32(truncatingIfNeeded: position)
    }

    /// Reserves an index to be filled later with `setArray` or `setDict`.
    package func reserve() -> Int {
        appendObject(start: 0, kind: Kind.pending)
    }
}
