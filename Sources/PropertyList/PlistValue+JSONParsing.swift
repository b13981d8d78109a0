extension PlistValue {
    /// Parses plist-json (see ``plistJSON``) back into a value.
    ///
    /// - Throws: ``ArchiveError`` `.invalidJSON` naming the byte offset of the problem.
    public init(plistJSON text: String) throws(ArchiveError) {
        var parser = PlistJSONParser(bytes: Array(text.utf8))
        let json = try parser.parseDocument()
        self = try PlistJSONParser.plistValue(from: json, at: "root")
    }
}

extension ArchiveError.Code {
    /// Text given as plist-json is not valid JSON or not in the plist-json shape.
    public static let invalidJSON = Self("invalidJSON")
}

/// A small strict JSON parser that keeps numbers as their text, so no precision is lost.
private struct PlistJSONParser {
    indirect enum JSON {
        case null, bool(Bool), number(String), string(String), array([JSON]), object([(String, JSON)])
    }

    let bytes: [UInt8]
    var position = 0
    var depth = 0
    let stack = StackGuard()
    /// Two JSON levels per container (the tag object and its array or object): room for a
    /// property list nested 512 deep, the reader's default limit.
    static let maximumDepth = 1_030

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(ArchiveError) -> JSON {
        let value = try parseValue()
        skipSpace()
        guard position == bytes.count else { throw fail("unexpected text after the JSON value") }
        return value
    }

    private func checkDepth() throws(ArchiveError) {
        guard depth <= Self.maximumDepth else {
            throw ArchiveError(.depthLimit, reason: "the JSON is nested more than \(Self.maximumDepth) deep", byteOffset: position)
        }
        guard stack.hasRoom() else { throw ArchiveError(.depthLimit, reason: StackGuard.reason(depth: depth), byteOffset: position) }
    }

    private func fail(_ reason: String) -> ArchiveError {
        ArchiveError(.invalidJSON, reason: reason, byteOffset: position)
    }

    private mutating func skipSpace() {
        while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
    }

    private mutating func expect(_ literal: String) throws(ArchiveError) {
        for byte in literal.utf8 {
            guard position < bytes.count, bytes[position] == byte else { throw fail("expected \(literal)") }
            position += 1
        }
    }

    private mutating func parseValue() throws(ArchiveError) -> JSON {
        skipSpace()
        guard position < bytes.count else { throw fail("unexpected end of JSON") }
        switch bytes[position] {
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "["):
            depth += 1
            try checkDepth()
            defer { depth -= 1 }
            position += 1
            var elements: [JSON] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
            while true {
                elements.append(try parseValue())
                skipSpace()
                guard position < bytes.count else { throw fail("unterminated array") }
                if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
                guard bytes[position] == UInt8(ascii: ",") else { throw fail("expected , or ] in an array") }
                position += 1
            }
        case UInt8(ascii: "{"):
            depth += 1
            try checkDepth()
            defer { depth -= 1 }
            position += 1
            var members: [(String, JSON)] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                let key = try parseString()
                skipSpace()
                try expect(":")
                members.append((key, try parseValue()))
                skipSpace()
                guard position < bytes.count else { throw fail("unterminated object") }
                if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
                guard bytes[position] == UInt8(ascii: ",") else { throw fail("expected , or } in an object") }
                position += 1
            }
        default:
            let start = position
            while position < bytes.count, "+-0123456789.eE".utf8.contains(bytes[position]) { position += 1 }
            guard position > start else { throw fail("unexpected character") }
            return .number(String(decoding: bytes[start..<position], as: UTF8.self))
        }
    }

    private mutating func parseString() throws(ArchiveError) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var run = [UInt8]()
        func flush() {
            if !run.isEmpty {
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                run.removeAll(keepingCapacity: true)
            }
        }
        while true {
            guard position < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\"") { break }
            if byte != UInt8(ascii: "\\") { run.append(byte); continue }
            flush()
            guard position < bytes.count else { throw fail("unterminated escape") }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "u"):
                let unit = try parseHex4()
                if UTF16.isLeadSurrogate(unit) {
                    try expect("\\u")
                    let trail = try parseHex4()
                    guard UTF16.isTrailSurrogate(trail) else { throw fail("a lone surrogate in a \\u escape") }
                    let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(trail) - 0xDC00)
                    scalars.append(Unicode.Scalar(value)!)
                    continue
                }
                guard let scalar = Unicode.Scalar(unit) else { throw fail("a lone surrogate in a \\u escape") }
                scalars.append(scalar)
            default: scalars.append(Unicode.Scalar(escape))
            }
        }
        flush()
        return String(scalars)
    }

    private mutating func parseHex4() throws(ArchiveError) -> UInt16 {
        guard position + 4 <= bytes.count,
            let value = UInt16(String(decoding: bytes[position..<(position + 4)], as: UTF8.self), radix: 16)
        else { throw fail("a bad \\u escape") }
        position += 4
        return value
    }

    static func plistValue(from json: JSON, at path: String) throws(ArchiveError) -> PlistValue {
        func bad(_ reason: String) -> ArchiveError { ArchiveError(.invalidJSON, reason: reason, keyPath: path) }
        guard case .object(let members) = json, members.count == 1 else {
            throw bad("each value must be a one-key object tagged by its type")
        }
        let (tag, body) = members[0]
        func number(_ body: JSON) throws(ArchiveError) -> Double {
            switch body {
            case .number(let text): if let v = Double(text) { return v }
            case .string("nan"): return .nan
            case .string("inf"): return .infinity
            case .string("-inf"): return -.infinity
            default: break
            }
            throw bad("\(tag) needs a number")
        }
        switch (tag, body) {
        case ("null", .null): return .null
        case ("bool", .bool(let v)): return .bool(v)
        case ("int", .string(let text)), ("int", .number(let text)):
            if let v = Int64(text) { return .int(v) }
            if let v = UInt64(text) { return .uint(v) }
            throw bad("int \(text) does not fit 64 bits")
        case ("real", _): return .real(try number(body))
        case ("date", _): return .date(try number(body))
        case ("data", .string(let text)):
            guard let bytes = Base64.decode(text) else { throw bad("data is not base64") }
            return .data(bytes)
        case ("string", .string(let v)): return .string(v)
        case ("uid", .number(let text)):
            guard let v = UInt64(text) else { throw bad("uid \(text) is not an unsigned integer") }
            return .uid(v)
        case ("array", .array(let elements)), ("set", .array(let elements)):
            var values: [PlistValue] = []
            for (i, element) in elements.enumerated() { values.append(try plistValue(from: element, at: "\(path)[\(i)]")) }
            return tag == "set" ? .set(values) : .array(values)
        case ("dict", .object(let members)):
            var dict = PlistDictionary()
            for (key, element) in members {
                guard dict.appendNew(key: key, value: try plistValue(from: element, at: "\(path).\(key)")) else {
                    throw bad("the key \(quoted: key) appears twice")
                }
            }
            return .dict(dict)
        default:
            throw bad("unknown tag \(quoted: tag) or a body of the wrong kind")
        }
    }
}
