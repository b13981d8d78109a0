// Unsafe code in this file: bytes are read only at indexes below the buffer's count.

/// Turns byte offsets into the line and column a text editor shows.
enum TextPosition {
    /// The line (from 1; `\n`, `\r\n` and a lone `\r` end lines) and the column (from 1, in
    /// Unicode scalars, counting a malformed byte as one) of the byte at `offset`.
    static func lineAndColumn(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        let stop = min(offset, bytes.count)
        var i = 0
        while i < stop {
            let byte = bytes[i]
            if byte == 0x0A || (byte == 0x0D && (i + 1 >= bytes.count || bytes[i + 1] != 0x0A)) {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        var column = 1
        for k in lineStart..<stop where bytes[k] & 0xC0 != 0x80 { column += 1 }
        return (line, column)
    }
}

/// Finds where bytes stop being valid UTF-8 (overlong forms, surrogates and values beyond
/// U+10FFFF are invalid).
enum UTF8Validation {
    static func firstInvalid(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        let count = text.count
        while i < count {
            let lead = text[i]
            if lead < 0x80 { i += 1; continue }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return i
            }
            guard i + length <= count else { return i }
            guard text[i + 1] >= low, text[i + 1] <= high else { return i }
            for k in 2..<max(2, length) where text[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }
}
