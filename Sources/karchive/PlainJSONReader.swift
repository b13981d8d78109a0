import PropertyList

/// Reads plain JSON (RFC 8259) into a property list, as `plutil` reads JSON files and `-json`
/// values: objects become dictionaries, numbers without a fraction or exponent integers, other
/// numbers reals, `null` a ``PlistValue/null`` (which no output format accepts).
///
/// A scalar at the top is accepted (a `-json` fragment). Depth is capped at 512.
struct PlainJSONReader {
    struct Failure: Error {
        let message: String
    }

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0
    static let maximumDepth = 512

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The value `bytes` hold, with nothing but white space after it.
    static func read(_ bytes: [UInt8]) throws(Failure) -> PlistValue {
        var reader = PlainJSONReader(bytes)
        reader.skipSpace()
        let value = try reader.value()
        reader.skipSpace()
        guard reader.position == bytes.count else { throw reader.fail("garbage after the JSON value") }
        return value
    }

    private func fail(_ what: String) -> Failure {
        Failure(message: "\(what) at byte \(position)")
    }

    private mutating func skipSpace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func literal(_ word: String, _ value: PlistValue) throws(Failure) -> PlistValue {
        let expected = Array(word.utf8)
        guard bytes.count - position >= expected.count, Array(bytes[position..<position + expected.count]) == expected else {
            throw fail("unexpected text")
        }
        position += expected.count
        return value
    }

    private mutating func value() throws(Failure) -> PlistValue {
        guard position < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return try number()
        }
    }

    private mutating func nest() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth) levels") }
        position += 1
        skipSpace()
    }

    private mutating func object() throws(Failure) -> PlistValue {
        try nest()
        defer { depth -= 1 }
        var dict = PlistDictionary()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .dict(dict)
        }
        while true {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let key = try string()
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            position += 1
            skipSpace()
            dict[key] = try value()
            skipSpace()
            guard position < bytes.count else { throw fail("unexpected end of input") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                skipSpace()
            } else if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .dict(dict)
            } else {
                throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func array() throws(Failure) -> PlistValue {
        try nest()
        defer { depth -= 1 }
        var elements: [PlistValue] = []
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipSpace()
            guard position < bytes.count else { throw fail("unexpected end of input") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                skipSpace()
            } else if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            } else {
                throw fail("expected ',' or ']'")
            }
        }
    }

    private mutating func number() throws(Failure) -> PlistValue {
        let start = position
        var isReal = false
        while position < bytes.count {
            let byte = bytes[position]
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") {
                position += 1
            } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                isReal = true
                position += 1
            } else {
                break
            }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard !text.isEmpty else { throw fail("unexpected character") }
        if !isReal {
            if let v = Int64(text) { return .int(v) }
            if let v = UInt64(text) { return .uint(v) }
        }
        guard let v = Double(text), v.isFinite else { throw fail("invalid number \(text)") }
        return .real(v)
    }

    private mutating func string() throws(Failure) -> String {
        position += 1
        var units: [UInt16] = []
        var run = position
        var result = ""
        func flush(_ end: Int) {
            result += String(decoding: bytes[run..<end], as: UTF8.self)
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                flush(position)
                position += 1
                return result
            }
            if byte < 0x20 { throw fail("control character in a string") }
            guard byte == UInt8(ascii: "\\") else {
                position += 1
                continue
            }
            flush(position)
            position += 1
            guard position < bytes.count else { break }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""): result += "\""
            case UInt8(ascii: "\\"): result += "\\"
            case UInt8(ascii: "/"): result += "/"
            case UInt8(ascii: "b"): result += "\u{08}"
            case UInt8(ascii: "f"): result += "\u{0C}"
            case UInt8(ascii: "n"): result += "\n"
            case UInt8(ascii: "r"): result += "\r"
            case UInt8(ascii: "t"): result += "\t"
            case UInt8(ascii: "u"):
                units.removeAll()
                units.append(try hexUnit())
                // A high surrogate takes the low one of the next \u escape.
                if (0xD800..<0xDC00).contains(units[0]), bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                {
                    position += 2
                    units.append(try hexUnit())
                }
                guard let decoded = String(validating: units, as: UTF16.self) else { throw fail("a lone surrogate in \\u escapes") }
                result += decoded
            default:
                throw fail("invalid escape")
            }
            run = position
        }
        throw fail("unterminated string")
    }

    private mutating func hexUnit() throws(Failure) -> UInt16 {
        guard bytes.count - position >= 4, let unit = UInt16(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16) else {
            throw fail("invalid \\u escape")
        }
        position += 4
        return unit
    }
}
