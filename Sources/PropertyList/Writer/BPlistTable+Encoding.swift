extension BPlistTable {
    /// Writes the table as `bplist00` bytes with `top` as the root object.
    ///
    /// Reference and offset widths are the smallest of 1, 2, 4 or 8 bytes that address every
    /// object and every offset; counts of 15 or more are escaped with the smallest integer.
    ///
    /// - Throws: `.unencodable` if a container was left open.
    package func encode(top: Int = 0) throws(ArchiveError) -> [UInt8] {
        let refSize = BPlistFormat.width(for: UInt64(objects.count))
        var out = BPlistOutput()
        out.bytes.reserveCapacity(objects.count * 12 + refs.count * refSize + 64)
        out.bytes.append(contentsOf: BPlistFormat.header)
        var offsets = [Int]()
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(out.bytes.count)
            switch object {
            case .bool(let v): out.bytes.append(v ? BPlistFormat.trueMarker : BPlistFormat.falseMarker)
            case .int(let v): out.appendInteger(v)
            case .uint(let v): out.appendUnsigned(v)
            case .real(let v):
                out.bytes.append(BPlistFormat.float64Marker)
                out.appendBigEndian(v.bitPattern, width: 8)
            case .float(let v):
                out.bytes.append(BPlistFormat.float32Marker)
                out.appendBigEndian(UInt64(v.bitPattern), width: 4)
            case .date(let v):
                out.bytes.append(BPlistFormat.dateMarker)
                out.appendBigEndian(v.bitPattern, width: 8)
            case .data(let v):
                out.appendMarker(BPlistFormat.Marker.data.rawValue, count: v.count)
                out.bytes.append(contentsOf: v)
            case .string(let v): out.appendString(v)
            case .uid(let v):
                let width = BPlistFormat.width(for: v)
                out.bytes.append(BPlistFormat.Marker.uid.rawValue | UInt8(width - 1))
                out.appendBigEndian(v, width: width)
            case .array(let range):
                out.appendMarker(BPlistFormat.Marker.array.rawValue, count: range.count)
                for i in range { out.appendBigEndian(UInt64(refs[i]), width: refSize) }
            case .dict(let range):
                out.appendMarker(BPlistFormat.Marker.dict.rawValue, count: range.count / 2)
                for i in range { out.appendBigEndian(UInt64(refs[i]), width: refSize) }
            case .pending:
                throw ArchiveError(.unencodable, reason: "container #\(offsets.count - 1) was reserved but never filled")
            }
        }
        let tableOffset = out.bytes.count
        let offsetSize = BPlistFormat.width(for: UInt64(tableOffset))
        for offset in offsets { out.appendBigEndian(UInt64(offset), width: offsetSize) }
        out.bytes.append(contentsOf: repeatElement(0, count: 6))
        out.bytes.append(UInt8(offsetSize))
        out.bytes.append(UInt8(refSize))
        out.appendBigEndian(UInt64(objects.count), width: 8)
        out.appendBigEndian(UInt64(top), width: 8)
        out.appendBigEndian(UInt64(tableOffset), width: 8)
        return out.bytes
    }
}

/// The growing output of the encoder.
private struct BPlistOutput {
    var bytes: [UInt8] = []

    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        var shift = UInt64(width * 8)
        while shift > 0 {
            shift -= 8
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    /// A marker whose low nibble is `count`, or `0xF` followed by the count as an integer object.
    @inline(__always)
    mutating func appendMarker(_ high: UInt8, count: Int) {
        if count < 15 {
            bytes.append(high | UInt8(count))
        } else {
            bytes.append(high | BPlistFormat.countFollows)
            appendUnsigned(UInt64(count))
        }
    }

    /// Non-negative values in the smallest of 1, 2, 4, 8 bytes; negative values in 8.
    mutating func appendInteger(_ value: Int64) {
        if value < 0 {
            bytes.append(BPlistFormat.Marker.int.rawValue | 3)
            appendBigEndian(UInt64(bitPattern: value), width: 8)
        } else {
            appendUnsigned(UInt64(value))
        }
    }

    /// Values up to `Int64.max` as `appendInteger`; larger ones as a 16-byte integer with a zero high half.
    mutating func appendUnsigned(_ value: UInt64) {
        if value > UInt64(Int64.max) {
            bytes.append(BPlistFormat.int128Marker)
            appendBigEndian(0, width: 8)
            appendBigEndian(value, width: 8)
            return
        }
        let width = BPlistFormat.width(for: value)
        bytes.append(BPlistFormat.Marker.int.rawValue | UInt8(width.trailingZeroBitCount))
        appendBigEndian(value, width: width)
    }

    /// ASCII text as `0x5_` bytes, anything else as big-endian UTF-16 `0x6_`.
    mutating func appendString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            var units = 0
            var ascii = true
            for byte in utf8 {
                if byte >= 0x80 { ascii = false }
                // Every non-continuation byte starts a scalar (one unit); 4-byte leads need two.
                if byte & 0xC0 != 0x80 { units += 1 }
                if byte >= 0xF0 { units += 1 }
            }
            if ascii {
                appendMarker(BPlistFormat.Marker.asciiString.rawValue, count: utf8.count)
                bytes.append(contentsOf: utf8)
                return
            }
            appendMarker(BPlistFormat.Marker.utf16String.rawValue, count: units)
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: units * 2))
            bytes.withUnsafeMutableBufferPointer { out in
                var o = start
                var i = 0
                let n = utf8.count
                func put(_ unit: UInt32) { out[o] = UInt8(truncatingIfNeeded: unit >> 8); out[o + 1] = UInt8(truncatingIfNeeded: unit); o += 2 }
                while i < n {
                    let b0 = UInt32(utf8[i])
                    if b0 < 0x80 { put(b0); i += 1 }
                    else if b0 < 0xE0 { put((b0 & 0x1F) << 6 | UInt32(utf8[i + 1]) & 0x3F); i += 2 }
                    else if b0 < 0xF0 { put((b0 & 0x0F) << 12 | (UInt32(utf8[i + 1]) & 0x3F) << 6 | UInt32(utf8[i + 2]) & 0x3F); i += 3 }
                    else {
                        let scalar = (b0 & 0x07) << 18 | (UInt32(utf8[i + 1]) & 0x3F) << 12 | (UInt32(utf8[i + 2]) & 0x3F) << 6 | UInt32(utf8[i + 3]) & 0x3F
                        let v = scalar - 0x10000
                        put(0xD800 | v >> 10); put(0xDC00 | v & 0x3FF); i += 4
                    }
                }
            }
        }
    }
}
