/// Base64 (RFC 4648, the standard alphabet, with padding) for plist-json and XML `<data>`.
package enum Base64 {
    /// The 64 characters, indexed by sextet.
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Marks white space in ``decodeTable``.
    static let space: UInt8 = 0xFE
    /// Marks every other byte (padding included) in ``decodeTable``.
    static let other: UInt8 = 0xFF

    /// Byte → its sextet (0–63), ``space`` for space, tab, CR and LF, ``other`` for anything else.
    static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: other, count: 256)
        for (sextet, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(sextet) }
        for byte in [0x20, 0x09, 0x0A, 0x0D] { table[byte] = space }
        return table
    }()

    /// `bytes` as one line of base64.
    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        append(bytes[...], to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64 (padding optional, no white space); nil if a character is outside the alphabet.
    package static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") { break }
            let value = decodeTable[Int(byte)]
            guard value < 64 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return out
    }

    /// Appends the base64 of `data` to `output` in lines of `lineLength` characters (a multiple
    /// of 4), each line after `indent` tabs and ending with a newline, as Apple's writer lays out
    /// `<data>`.
    static func appendLines(of data: [UInt8], lineLength: Int, indent: Int, to output: inout [UInt8]) {
        let bytesPerLine = lineLength / 4 * 3
        var start = 0
        while start < data.count {
            for _ in 0..<indent { output.append(0x09) }
            let stop = min(start + bytesPerLine, data.count)
            append(data[start..<stop], to: &output)
            output.append(0x0A)
            start = stop
        }
    }

    /// Appends the base64 of `bytes`, padded, to `output`.
    private static func append(_ bytes: ArraySlice<UInt8>, to output: inout [UInt8]) {
        let letters = alphabet
        var i = bytes.startIndex
        let stop = bytes.endIndex
        while i + 3 <= stop {
            let word = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            output.append(letters[Int(word >> 18)])
            output.append(letters[Int(word >> 12 & 63)])
            output.append(letters[Int(word >> 6 & 63)])
            output.append(letters[Int(word & 63)])
            i += 3
        }
        if i < stop {
            let second = i + 1 < stop ? UInt32(bytes[i + 1]) : 0
            let word = UInt32(bytes[i]) << 16 | second << 8
            output.append(letters[Int(word >> 18)])
            output.append(letters[Int(word >> 12 & 63)])
            output.append(i + 1 < stop ? letters[Int(word >> 6 & 63)] : UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        }
    }
}
