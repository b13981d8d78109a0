/// Wire-format constants of `bplist00`: header, trailer layout and object markers.
package enum BPlistFormat {
    /// `bplist00`.
    package static let header: [UInt8] = Array("bplist00".utf8)
    package static let headerSize = 8
    package static let trailerSize = 32
    /// Within the trailer: offset-table entry width, object-reference width, object count,
    /// top-object index and offset-table position.
    package static let trailerOffsetSizeField = 6
    package static let trailerRefSizeField = 7
    package static let trailerObjectCountField = 8
    package static let trailerTopObjectField = 16
    package static let trailerTableOffsetField = 24

    /// The high nibble of a marker byte names the object type; the low nibble is a size,
    /// a count (`0xF` = the count follows as an integer object) or a subtype.
    package enum Marker: UInt8 {
        case singleton = 0x00  // 0x00 null, 0x08 false, 0x09 true
        case int = 0x10  // 2^n bytes
        case real = 0x20  // 0x22 float32, 0x23 float64
        case date = 0x30  // 0x33 only
        case data = 0x40
        case asciiString = 0x50
        case utf16String = 0x60
        case uid = 0x80  // n+1 bytes
        case array = 0xA0
        case set = 0xC0
        case dict = 0xD0
    }

    package static let null: UInt8 = 0x00
    package static let falseMarker: UInt8 = 0x08
    package static let trueMarker: UInt8 = 0x09
    package static let float32Marker: UInt8 = 0x22
    package static let float64Marker: UInt8 = 0x23
    package static let dateMarker: UInt8 = 0x33
    /// 16-byte integer: `0x14`.
    package static let int128Marker: UInt8 = 0x14
    /// Low nibble meaning "the count follows as an integer object".
    package static let countFollows: UInt8 = 0x0F

    /// The smallest of 1, 2, 4 or 8 bytes that holds `value`.
    package static func width(for value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }
}
