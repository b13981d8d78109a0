// Unsafe code in this file: the output is written into one allocation sized by a first pass over the table, each
// write within the bound computed for its object.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension BPlistTable {
    /// Writes the table as `bplist00` bytes with `top` as the root object.
    ///
    /// Reference and offset widths are the smallest of 1, 2, 4 or 8 bytes that address every
    /// object and every offset; counts of 15 or more are escaped with the smallest integer.
    /// Objects appear in index order. The size is known exactly before anything is written.
    ///
    /// - Throws: `.unencodable` if a container was left open.
    package func encode(top: Int = 0) throws(ArchiveError) -> [UInt8] {
        let layout = try measure(top: top)
        return [UInt8](unsafeUninitializedCapacity: layout.total) { buffer, initialized in
            writeForward(layout, into: buffer.baseAddress!)
            initialized = layout.total
        }
    }

    /// The same bytes as ``encode(top:)``, in memory from `malloc` that the caller frees (or hands
    /// to an owner that frees it, such as `Data(bytesNoCopy:count:deallocator: .free)`).
    ///
    /// When the arena holds the scalars in index order, the file is laid out inside the arena
    /// itself (grown to the file's size, then filled from the end backwards), so the bytes are
    /// never copied to a second buffer; the table can then not be encoded again.
    package func encodeAllocated(top: Int = 0) throws(ArchiveError) -> (bytes: UnsafeMutableRawPointer, count: Int) {
        let layout = try measure(top: top)
        if scalarsInOrder {
            arena.reserve(layout.total)
            writeInPlace(layout)
            consumed = true
            return (arena.take().releasingBlock().unsafelyUnwrapped, layout.total)
        }
        var file = RawBuffer<UInt8>()
        file.reserve(layout.total)
        writeForward(layout, into: file.base.unsafelyUnwrapped)
        return (file.releasingBlock().unsafelyUnwrapped, layout.total)
    }

    /// Where everything goes in the file.
    struct Layout {
        let top: Int
        /// Objects in the file: the table's, then one per UID value referenced.
        let objectCount: Int
        let referenceWidth: Int
        /// Where the offset table starts (just after the last object).
        let tableOffset: Int
        let offsetWidth: Int
        let total: Int
    }

    /// The encoded size of the container with `kinds` entry `kind` at reference width `width`.
    @inline(__always)
    private static func containerSize(_ kind: UInt32, width: Int) -> Int {
        let references = Int(kind & Kind.countMask)
        let count = kind >= Kind.dict ? references / 2 : references
        return BPlistOutput.markerSize(count: count) + references * width
    }

    /// Gives each referenced UID value its object index, after the other objects; returns the
    /// number of objects in the file and the bytes of the UID objects.
    private func numberUIDObjects() -> (objects: Int, bytes: Int) {
        var referenced = 0
        var bytes = 0
        uidRanks.truncate(to: 0)
        uidRanks.reserve(uidBits.count)
        for word in 0..<uidBits.count {
            uidRanks.append(UInt32(truncatingIfNeeded: referenced))
            var bits = uidBits[unchecked: word]
            referenced += bits.nonzeroBitCount
            while bits != 0 {
                bytes += BPlistOutput.uidSize(UInt64(word << 6 | bits.trailingZeroBitCount))
                bits &= bits - 1
            }
        }
        return (count + referenced, bytes)
    }

    /// The referenced UID values, lowest first.
    private func forEachReferencedUID(_ body: (Int) -> Void) {
        for word in 0..<uidBits.count {
            var bits = uidBits[unchecked: word]
            while bits != 0 {
                body(word << 6 | bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
    }

    /// Every object's size summed, and the widths that follow; throws for a container left open.
    private func measure(top: Int) throws(ArchiveError) -> Layout {
        precondition(!consumed, "the table was already encoded into a buffer handed to the caller")
        guard !oversized else {
            throw ArchiveError(.unencodable, reason: "the property list would be 4 GiB or more, which this writer does not produce")
        }
        let (objectCount, uidBytes) = numberUIDObjects()
        let width = BPlistFormat.width(for: UInt64(objectCount))
        var size = BPlistFormat.headerSize + uidBytes
        if scalarsInOrder { size += arena.count }
        for index in 0..<count {
            let kind = kinds[unchecked: index]
            if kind == Kind.pending {
                throw ArchiveError(.unencodable, reason: "container #\(index) was reserved but never filled")
            } else if Self.isScalar(kind) {
                if !scalarsInOrder { size += scalarBytes(at: index).count }
            } else {
                size += Self.containerSize(kind, width: width)
            }
        }
        let offsetWidth = BPlistFormat.width(for: UInt64(size))
        return Layout(
            top: top, objectCount: objectCount, referenceWidth: width, tableOffset: size, offsetWidth: offsetWidth,
            total: size + objectCount * offsetWidth + BPlistFormat.trailerSize)
    }

    /// Writes the UID object of `value` at `at`; returns its size.
    @inline(__always)
    private static func writeUID(_ value: Int, at: UnsafeMutablePointer<UInt8>) -> Int {
        var out = BPlistOutput(base: at)
        out.appendUID(UInt64(value))
        return out.position
    }

    /// Writes a container's marker and references at `at`.
    @inline(__always)
    private func writeContainer(_ index: Int, kind: UInt32, width: Int, at: UnsafeMutablePointer<UInt8>) {
        let references = Int(kind & Kind.countMask)
        var out = BPlistOutput(base: at)
        let marker = kind >= Kind.dict ? BPlistFormat.Marker.dict : BPlistFormat.Marker.array
        out.appendMarker(marker.rawValue, count: kind >= Kind.dict ? references / 2 : references)
        guard references > 0 else { return }
        let source = refs.base.unsafelyUnwrapped + Int(starts[unchecked: index])
        let target = UnsafeMutableRawPointer(at + out.position)
        switch width {
        case 1:
            for i in 0..<references {
                target.storeBytes(of: UInt8(truncatingIfNeeded: resolve(source[i])), toByteOffset: i, as: UInt8.self)
            }
        case 2:
            for i in 0..<references {
                target.storeBytes(of: UInt16(truncatingIfNeeded: resolve(source[i])).bigEndian, toByteOffset: 2 * i, as: UInt16.self)
            }
        case 4: for i in 0..<references { target.storeBytes(of: resolve(source[i]).bigEndian, toByteOffset: 4 * i, as: UInt32.self) }
        default:
            for i in 0..<references { target.storeBytes(of: UInt64(resolve(source[i])).bigEndian, toByteOffset: 8 * i, as: UInt64.self) }
        }
    }

    /// Header, then the trailer after the offset table.
    private func writeFrame(_ layout: Layout, into base: UnsafeMutablePointer<UInt8>) {
        var out = BPlistOutput(base: base)
        out.append(contentsOf: BPlistFormat.header)
        out = BPlistOutput(base: base + layout.tableOffset + layout.objectCount * layout.offsetWidth)
        for _ in 0..<6 { out.append(0) }
        out.append(UInt8(layout.offsetWidth))
        out.append(UInt8(layout.referenceWidth))
        out.appendBigEndian(UInt64(layout.objectCount), width: 8)
        out.appendBigEndian(UInt64(layout.top), width: 8)
        out.appendBigEndian(UInt64(layout.tableOffset), width: 8)
    }

    /// Writes the file into a separate buffer of `layout.total` bytes, first object first.
    private func writeForward(_ layout: Layout, into base: UnsafeMutablePointer<UInt8>) {
        var position = BPlistFormat.headerSize
        var offsets = BPlistOutput(base: base + layout.tableOffset)
        for index in 0..<count {
            offsets.appendBigEndian(UInt64(position), width: layout.offsetWidth)
            let kind = kinds[unchecked: index]
            if Self.isScalar(kind) {
                let bytes = scalarBytes(at: index)
                UnsafeMutableRawPointer(base + position).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                position += bytes.count
            } else {
                writeContainer(index, kind: kind, width: layout.referenceWidth, at: base + position)
                position += Self.containerSize(kind, width: layout.referenceWidth)
            }
        }
        forEachReferencedUID { value in
            offsets.appendBigEndian(UInt64(position), width: layout.offsetWidth)
            position += Self.writeUID(value, at: base + position)
        }
        precondition(position == layout.tableOffset, "bplist layout does not add up")
        writeFrame(layout, into: base)
    }

    /// Lays the file out inside the arena (at least `layout.total` bytes), last object first.
    ///
    /// Every scalar moves towards the end (its file offset is its arena offset plus the header
    /// and the containers before it; UID objects come last), so filling from the end never
    /// overwrites a scalar that has not moved yet; the offset table lies past the arena's old end.
    private func writeInPlace(_ layout: Layout) {
        let base = arena.base.unsafelyUnwrapped
        var end = layout.tableOffset
        var scalarEnd = arena.count
        let offsetWidth = layout.offsetWidth
        var uid = layout.objectCount
        var word = uidBits.count - 1
        while word >= 0 {
            // The word's set bits, highest first.
            var bits = uidBits[unchecked: word]
            while bits != 0 {
                let bit = 63 - bits.leadingZeroBitCount
                bits &= ~(1 << UInt64(bit))
                let value = word << 6 | bit
                uid -= 1
                end -= BPlistOutput.uidSize(UInt64(value))
                _ = Self.writeUID(value, at: base + end)
                var offset = BPlistOutput(base: base + layout.tableOffset + uid * offsetWidth)
                offset.appendBigEndian(UInt64(end), width: offsetWidth)
            }
            word -= 1
        }
        // Scalars with no container between them move together: one move per run.
        var runEnd = scalarEnd
        func moveRun() {
            if runEnd > scalarEnd, end != scalarEnd { memmove(base + end, base + scalarEnd, runEnd - scalarEnd) }
            runEnd = scalarEnd
        }
        var index = count - 1
        while index >= 0 {
            let kind = kinds[unchecked: index]
            if Self.isScalar(kind) {
                let start = Int(starts[unchecked: index])
                end -= scalarEnd - start
                scalarEnd = start
            } else {
                moveRun()
                end -= Self.containerSize(kind, width: layout.referenceWidth)
                writeContainer(index, kind: kind, width: layout.referenceWidth, at: base + end)
            }
            var offset = BPlistOutput(base: base + layout.tableOffset + index * offsetWidth)
            offset.appendBigEndian(UInt64(end), width: offsetWidth)
            index -= 1
        }
        moveRun()
        precondition(end == BPlistFormat.headerSize && scalarEnd == 0, "bplist layout does not add up")
        writeFrame(layout, into: base)
    }
}

/// The encoder's output: a cursor into a buffer with room for everything it is asked to write.
struct BPlistOutput {
    let base: UnsafeMutablePointer<UInt8>
    var position = 0

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        base[position] = byte
        position += 1
    }

    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        UnsafeMutableRawPointer(base + position).copyMemory(from: source, byteCount: bytes.count)
        position += bytes.count
    }

    @inline(__always)
    mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        let at = UnsafeMutableRawPointer(base + position)
        switch width {
        case 1: at.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
        case 2: at.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, as: UInt16.self)
        case 4: at.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, as: UInt32.self)
        case 8: at.storeBytes(of: value.bigEndian, as: UInt64.self)
        default:
            for i in 0..<width { base[position + i] = UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - i))) }
        }
        position += width
    }

    /// A marker whose low nibble is `count`, or `0xF` followed by the count as an integer object.
    @inline(__always)
    mutating func appendMarker(_ high: UInt8, count: Int) {
        if count < 15 {
            append(high | UInt8(count))
        } else {
            append(high | BPlistFormat.countFollows)
            appendUnsigned(UInt64(count))
        }
    }

    /// Non-negative values in the smallest of 1, 2, 4, 8 bytes; negative values in 8.
    mutating func appendInteger(_ value: Int64) {
        if value < 0 {
            append(BPlistFormat.Marker.int.rawValue | 3)
            appendBigEndian(UInt64(bitPattern: value), width: 8)
        } else {
            appendUnsigned(UInt64(value))
        }
    }

    /// Values up to `Int64.max` as `appendInteger`; larger ones as a 16-byte integer with a zero high half.
    mutating func appendUnsigned(_ value: UInt64) {
        if value > UInt64(Int64.max) {
            append(BPlistFormat.int128Marker)
            appendBigEndian(0, width: 8)
            appendBigEndian(value, width: 8)
            return
        }
        let width = BPlistFormat.width(for: value)
        append(BPlistFormat.Marker.int.rawValue | UInt8(width.trailingZeroBitCount))
        appendBigEndian(value, width: width)
    }

    /// A UID object: its marker, then the value in the smallest of 1, 2, 4 or 8 bytes.
    @inline(__always)
    mutating func appendUID(_ value: UInt64) {
        let width = BPlistFormat.width(for: value)
        append(BPlistFormat.Marker.uid.rawValue | UInt8(width - 1))
        appendBigEndian(value, width: width)
    }

    @inline(__always)
    static func uidSize(_ value: UInt64) -> Int { 1 + BPlistFormat.width(for: value) }

    /// The bytes of a marker for `count` elements (with the escaped count when it is 15 or more).
    @inline(__always)
    static func markerSize(count: Int) -> Int {
        count < 15 ? 1 : 2 + BPlistFormat.width(for: UInt64(count))
    }

    /// The size of the scalar object encoded at `at` (marker, count and payload).
    @inline(__always)
    static func encodedSize(_ at: UnsafePointer<UInt8>) -> Int {
        let marker = at[0]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0: return 1
        case 0x1, 0x2: return 1 + (1 << low)
        case 0x3: return 9
        case 0x8: return 2 + low
        default:
            var count = low
            var header = 1
            if low == 15 {
                let width = 1 << Int(at[1] & 0x0F)
                count = 0
                for i in 0..<width { count = count << 8 | Int(at[2 + i]) }
                header = 2 + width
            }
            return header + (marker >> 4 == 0x6 ? 2 * count : count)
        }
    }

    /// ASCII text as `0x5_` bytes, anything else as big-endian UTF-16 `0x6_`.
    mutating func appendString(_ utf8: UnsafeBufferPointer<UInt8>) {
        let raw = UnsafeRawBufferPointer(utf8)
        if Self.isASCII(raw) {
            appendMarker(BPlistFormat.Marker.asciiString.rawValue, count: raw.count)
            append(contentsOf: raw)
            return
        }
        var units = 0
        for byte in utf8 {
            // Every non-continuation byte starts a scalar (one unit); 4-byte leads need two.
            if byte & 0xC0 != 0x80 { units += 1 }
            if byte >= 0xF0 { units += 1 }
        }
        appendMarker(BPlistFormat.Marker.utf16String.rawValue, count: units)
        var i = 0
        let n = utf8.count
        while i < n {
            let b0 = UInt32(utf8[i])
            if b0 < 0x80 {
                appendBigEndian(UInt64(b0), width: 2)
                i += 1
            } else if b0 < 0xE0 {
                appendBigEndian(UInt64((b0 & 0x1F) << 6 | UInt32(utf8[i + 1]) & 0x3F), width: 2)
                i += 2
            } else if b0 < 0xF0 {
                let unit = (b0 & 0x0F) << 12 | (UInt32(utf8[i + 1]) & 0x3F) << 6 | UInt32(utf8[i + 2]) & 0x3F
                appendBigEndian(UInt64(unit), width: 2)
                i += 3
            } else {
                let scalar =
                    (b0 & 0x07) << 18 | (UInt32(utf8[i + 1]) & 0x3F) << 12 | (UInt32(utf8[i + 2]) & 0x3F) << 6
                    | UInt32(utf8[i + 3]) & 0x3F
                let v = scalar - 0x10000
                appendBigEndian(UInt64(0xD800 | v >> 10), width: 2)
                appendBigEndian(UInt64(0xDC00 | v & 0x3FF), width: 2)
                i += 4
            }
        }
    }

    /// Whether every byte is below 0x80, eight bytes at a time.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var i = 0
        var high: UInt64 = 0
        while i + 8 <= count {
            high |= bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < count {
            high |= UInt64(bytes[i])
            i += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}
