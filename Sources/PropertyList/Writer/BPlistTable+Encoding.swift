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
    ///
    /// The output is sized once from an upper bound of every object's size and then written
    /// through a pointer: no per-byte capacity checks, numbers stored as whole big-endian words,
    /// ASCII strings and data copied in one move.
    ///
    /// - Throws: `.unencodable` if a container was left open.
    package func encode(top: Int = 0) throws(ArchiveError) -> [UInt8] {
        let bound = try sizeBound()
        return [UInt8](unsafeUninitializedCapacity: bound) { buffer, initialized in
            initialized = write(top: top, bound: bound, into: buffer.baseAddress!)
        }
    }

    /// The same bytes as ``encode(top:)``, in memory from `malloc` that the caller frees (or hands
    /// to an owner that frees it, such as `Data(bytesNoCopy:count:deallocator: .free)`): no copy
    /// between the encoder's buffer and the caller's.
    package func encodeAllocated(top: Int = 0) throws(ArchiveError) -> (bytes: UnsafeMutableRawPointer, count: Int) {
        let bound = try sizeBound()
        guard let raw = malloc(max(bound, 1)) else { preconditionFailure("out of memory for \(bound) bytes") }
        let count = write(top: top, bound: bound, into: raw.assumingMemoryBound(to: UInt8.self))
        return (realloc(raw, max(count, 1)) ?? raw, count)
    }

    /// Bytes per object reference: the smallest of 1, 2, 4, 8 that addresses every object.
    private var referenceWidth: Int { BPlistFormat.width(for: UInt64(objects.count)) }

    /// An upper bound of the encoded size; throws for a container left open.
    private func sizeBound() throws(ArchiveError) -> Int {
        // Header, trailer, and an offset table of at most 8 bytes per object.
        var bound = BPlistFormat.header.count + BPlistFormat.trailerSize + objects.count * 8 + refs.count * referenceWidth
        for (index, object) in objects.enumerated() {
            switch object {
            case .bool: bound += 1
            case .int, .real, .date: bound += 9
            case .uint: bound += 17
            case .float: bound += 5
            case .uid: bound += 9
            case .data(let v): bound += 10 + v.count
            // UTF-16 takes at most two bytes per UTF-8 byte.
            case .string(let v): bound += 10 + 2 * v.utf8.count
            case .array, .dict: bound += 10
            case .pending:
                throw ArchiveError(.unencodable, reason: "container #\(index) was reserved but never filled")
            }
        }
        return bound
    }

    /// Writes the whole file at `base`, which holds at least `bound` bytes; returns its length.
    private func write(top: Int, bound: Int, into base: UnsafeMutablePointer<UInt8>) -> Int {
        var offsets = [Int](repeating: 0, count: objects.count)
        let refSize = referenceWidth
        var out = BPlistOutput(base: base)
        out.append(contentsOf: BPlistFormat.header)
        refs.withUnsafeBufferPointer { refs in
            for index in objects.indices {
                offsets[index] = out.position
                switch objects[index] {
                case .bool(let v): out.append(v ? BPlistFormat.trueMarker : BPlistFormat.falseMarker)
                case .int(let v): out.appendInteger(v)
                case .uint(let v): out.appendUnsigned(v)
                case .real(let v):
                    out.append(BPlistFormat.float64Marker)
                    out.appendBigEndian(v.bitPattern, width: 8)
                case .float(let v):
                    out.append(BPlistFormat.float32Marker)
                    out.appendBigEndian(UInt64(v.bitPattern), width: 4)
                case .date(let v):
                    out.append(BPlistFormat.dateMarker)
                    out.appendBigEndian(v.bitPattern, width: 8)
                case .data(let v):
                    out.appendMarker(BPlistFormat.Marker.data.rawValue, count: v.count)
                    v.withUnsafeBytes { out.append(contentsOf: $0) }
                case .string(let v): out.appendString(v)
                case .uid(let v):
                    let width = BPlistFormat.width(for: v)
                    out.append(BPlistFormat.Marker.uid.rawValue | UInt8(width - 1))
                    out.appendBigEndian(v, width: width)
                case .array(let range):
                    out.appendMarker(BPlistFormat.Marker.array.rawValue, count: range.count)
                    for i in range { out.appendBigEndian(UInt64(refs[i]), width: refSize) }
                case .dict(let range):
                    out.appendMarker(BPlistFormat.Marker.dict.rawValue, count: range.count / 2)
                    for i in range { out.appendBigEndian(UInt64(refs[i]), width: refSize) }
                case .pending:
                    preconditionFailure("sizeBound() refuses a table with an open container")
                }
            }
        }
        let tableOffset = out.position
        let offsetSize = BPlistFormat.width(for: UInt64(tableOffset))
        for offset in offsets { out.appendBigEndian(UInt64(offset), width: offsetSize) }
        for _ in 0..<6 { out.append(0) }
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        out.appendBigEndian(UInt64(objects.count), width: 8)
        out.appendBigEndian(UInt64(top), width: 8)
        out.appendBigEndian(UInt64(tableOffset), width: 8)
        precondition(out.position <= bound, "bplist size bound exceeded")
        return out.position
    }
}

/// The encoder's output: a cursor into a buffer sized in advance from an upper bound.
private struct BPlistOutput {
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

    /// ASCII text as `0x5_` bytes, anything else as big-endian UTF-16 `0x6_`.
    mutating func appendString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
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
