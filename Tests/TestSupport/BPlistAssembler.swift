/// Builds `bplist00` files by hand from raw object bytes, for reader tests that need exact,
/// deliberately malformed inputs. Nothing here is checked: widths, counts and the top index are
/// written as given, so a test can break any one of them.
///
/// ```swift
/// // A single array that contains itself: bplist00 A1 00 | 08 | trailer
/// let bytes = BPlistAssembler.assemble([[0xA1, 0x00]])
/// ```
public enum BPlistAssembler {
    /// Header, the objects back to back, an offset table and a trailer.
    ///
    /// - Parameters:
    ///   - objects: each object's bytes, marker first, in index order.
    ///   - offsetSize: offset-table entry width written in the trailer (entries are written in this width).
    ///   - refSize: object-reference width written in the trailer (the object bytes must already use it).
    ///   - objectCount: the count written in the trailer; defaults to `objects.count`.
    ///   - top: the top-object index written in the trailer.
    ///   - tableOffset: the table position written in the trailer; defaults to where the table really is.
    ///   - offsets: entries to write in the offset table; defaults to the objects' real positions.
    public static func assemble(
        _ objects: [[UInt8]], offsetSize: Int = 1, refSize: Int = 1, objectCount: UInt64? = nil, top: UInt64 = 0,
        tableOffset: UInt64? = nil, offsets: [UInt64]? = nil
    ) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var realOffsets: [UInt64] = []
        for object in objects {
            realOffsets.append(UInt64(bytes.count))
            bytes += object
        }
        let table = UInt64(bytes.count)
        for offset in offsets ?? realOffsets { bytes += bigEndian(offset, width: offsetSize) }
        bytes += trailer(
            offsetSize: offsetSize, refSize: refSize, objectCount: objectCount ?? UInt64(objects.count), top: top,
            tableOffset: tableOffset ?? table)
        return bytes
    }

    /// The 32-byte trailer.
    public static func trailer(offsetSize: Int, refSize: Int, objectCount: UInt64, top: UInt64, tableOffset: UInt64) -> [UInt8] {
        [UInt8](repeating: 0, count: 6) + [UInt8(truncatingIfNeeded: offsetSize), UInt8(truncatingIfNeeded: refSize)]
            + bigEndian(objectCount, width: 8) + bigEndian(top, width: 8) + bigEndian(tableOffset, width: 8)
    }

    /// `value` as `width` big-endian bytes (the low `width` bytes when wider than 8).
    public static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { i in
            let shift = 8 * (width - 1 - i)
            return shift >= 64 ? 0 : UInt8(truncatingIfNeeded: value >> UInt64(shift))
        }
    }

    /// A marker with its count: in the low nibble below 15, else `0xF` and the smallest int (`0x10`...`0x13`).
    public static func marker(_ high: UInt8, count: Int) -> [UInt8] {
        if count < 15 { return [high | UInt8(count)] }
        let value = UInt64(count)
        let width = value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
        return [high | 0x0F, 0x10 | UInt8(width.trailingZeroBitCount)] + bigEndian(value, width: width)
    }

    /// An ASCII string object.
    public static func ascii(_ text: String) -> [UInt8] { marker(0x50, count: text.utf8.count) + Array(text.utf8) }

    /// A UTF-16BE string object from code units (which may be lone surrogates).
    public static func utf16(_ units: [UInt16]) -> [UInt8] {
        marker(0x60, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// An array object referencing `refs` in `refSize` bytes each.
    public static func array(_ refs: [UInt64], refSize: Int = 1) -> [UInt8] {
        marker(0xA0, count: refs.count) + refs.flatMap { bigEndian($0, width: refSize) }
    }

    /// A dictionary object: key references, then value references.
    public static func dict(keys: [UInt64], values: [UInt64], refSize: Int = 1) -> [UInt8] {
        marker(0xD0, count: keys.count) + (keys + values).flatMap { bigEndian($0, width: refSize) }
    }

    /// The smallest int object for a non-negative value (1, 2, 4 or 8 bytes).
    public static func int(_ value: UInt64) -> [UInt8] {
        let width = value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
        return [0x10 | UInt8(width.trailingZeroBitCount)] + bigEndian(value, width: width)
    }
}

/// Bytes as spaced hex, for failure messages: `62 70 6C 69`.
public func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }.joined(separator: " ")
}

/// Bytes from spaced hex text: `bytes("62 70 6C")`; spaces and newlines are ignored.
public func bytes(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "odd number of hex digits in \(text)")
    var out: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        out.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return out
}
