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
