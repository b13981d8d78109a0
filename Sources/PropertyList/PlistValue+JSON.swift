/// plist-json: one JSON value per property-list object, a one-key object tagged by type.
///
/// `{"string": "…"}`, `{"int": "-5"}` (decimal text, any width), `{"real": 1.5}` (or `"nan"`,
/// `"inf"`, `"-inf"`), `{"bool": true}`, `{"date": 10.0}` (seconds since 2001-01-01),
/// `{"data": "<base64>"}`, `{"uid": 3}`, `{"null": null}`, `{"array": […]}`, `{"set": […]}`,
/// `{"dict": {"key": value, …}}`. Dictionary keys are written sorted by their UTF-8 bytes.
extension PlistValue {
    /// This value in plist-json, compact, with dictionary keys sorted.
    public var plistJSON: String {
        var out = ""
        writeJSON(to: &out)
        return out
    }

    private func writeJSON(to out: inout String) {
        switch self {
        case .null: out += #"{"null":null}"#
        case .bool(let v): out += v ? #"{"bool":true}"# : #"{"bool":false}"#
        case .int(let v): out += #"{"int":""# + String(v) + #""}"#
        case .uint(let v): out += #"{"int":""# + String(v) + #""}"#
        case .real(let v): out += #"{"real":"# + Self.jsonNumber(v) + "}"
        case .float(let v): out += #"{"real":"# + Self.jsonNumber(Double(v)) + "}"
        case .date(let v): out += #"{"date":"# + Self.jsonNumber(v) + "}"
        case .data(let v): out += #"{"data":""# + Base64.encode(v) + #""}"#
        case .string(let v):
            out += #"{"string":"#
            Self.writeJSONString(v, to: &out)
            out += "}"
        case .uid(let v): out += #"{"uid":"# + String(v) + "}"
        case .array(let elements), .set(let elements):
            let open = if case .array = self { #"{"array":["# } else { #"{"set":["# }
            out += open
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                element.writeJSON(to: &out)
            }
            out += "]}"
        case .dict(let dict):
            out += #"{"dict":{"#
            let order = dict.indices.sorted { dict.keys[$0].utf8.lexicographicallyPrecedes(dict.keys[$1].utf8) }
            for (n, i) in order.enumerated() {
                if n > 0 { out += "," }
                Self.writeJSONString(dict.keys[i], to: &out)
                out += ":"
                dict.values[i].writeJSON(to: &out)
            }
            out += "}}"
        }
    }

    private static func jsonNumber(_ value: Double) -> String {
        if value.isNaN { return #""nan""# }
        if value.isInfinite { return value < 0 ? #""-inf""# : #""inf""# }
        return String(value)
    }

    private static func writeJSONString(_ string: String, to out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// Standard base64 with padding (RFC 4648), for plist-json data.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int(n >> UInt32(shift) & 63)]) }
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(rest == 2 ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes standard base64 (padding optional); nil if a character is outside the alphabet.
    package static func decode(_ text: String) -> [UInt8]? {
        var out = [UInt8]()
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") { break }
            guard let value = alphabet.firstIndex(of: byte) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return out
    }
}
