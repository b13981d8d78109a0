import PropertyList

/// A property list as an indented tree: one line per value, its type first.
///
/// ```
/// dict (2 entries)
///   "name": string "Ann"
///   "tags": array (2 elements)
///     [0] string "a"
///     [1] UID(3)
/// ```
///
/// Dictionaries are shown key by key in file order, strings and keys quoted with escapes,
/// data as its size and first bytes in hex, dates in ISO 8601 UTC. Shared sub-trees are
/// shown wherever they appear.
struct PlainTreeDump: DumpRenderer {
    /// How many leading bytes of data values are shown in hex.
    var dataPreviewLength = 16

    func render(_ root: PlistValue) -> String {
        var out = ""
        write(root, depth: 0, label: "", into: &out)
        return out
    }

    private func write(_ value: PlistValue, depth: Int, label: String, into out: inout String) {
        out += String(repeating: "  ", count: depth)
        out += label
        out += line(for: value)
        out += "\n"
        switch value {
        case .array(let elements), .set(let elements):
            for (i, element) in elements.enumerated() {
                write(element, depth: depth + 1, label: "[\(i)] ", into: &out)
            }
        case .dict(let dict):
            for (key, element) in zip(dict.keys, dict.values) {
                write(element, depth: depth + 1, label: Self.quoted(key) + ": ", into: &out)
            }
        default:
            break
        }
    }

    /// The one-line description of a value: the whole value for scalars, the kind and size for containers.
    func line(for value: PlistValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let v): "bool \(v)"
        case .int(let v): "int \(v)"
        case .uint(let v): "int \(v)"
        case .real(let v): "real \(v)"
        case .float(let v): "real32 \(v)"
        case .date(let v): "date " + (ISO8601.string(secondsSinceReferenceDate: v) ?? "\(v) (seconds since 2001-01-01, outside years 0000-9999)")
        case .data(let bytes): data(bytes)
        case .string(let s): "string " + Self.quoted(s)
        case .uid(let v): "UID(\(v))"
        case .array(let elements): "array (\(Self.count(elements.count, "element")))"
        case .set(let elements): "set (\(Self.count(elements.count, "element")))"
        case .dict(let dict): "dict (\(Self.count(dict.count, "entry", plural: "entries")))"
        }
    }

    private func data(_ bytes: [UInt8]) -> String {
        var text = "data (\(Self.count(bytes.count, "byte")))"
        guard !bytes.isEmpty else { return text }
        text += " "
        for byte in bytes.prefix(dataPreviewLength) {
            text += byte < 0x10 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }
        if bytes.count > dataPreviewLength { text += "…" }
        return text
    }

    /// `"text"` with `"`, `\` and control characters escaped (`\n`, `\t`, `\r`, `\u{7F}`).
    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.properties.generalCategory == .control:
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The text as is when it is plain (no spaces, quotes, commas or control characters), else ``quoted(_:)``.
    static func bareOrQuoted(_ string: String) -> String {
        let plain = !string.isEmpty && string.unicodeScalars.allSatisfy { scalar in
            !scalar.properties.isWhitespace && scalar.properties.generalCategory != .control
                && scalar != "\"" && scalar != "\\" && scalar != ","
        }
        return plain ? string : quoted(string)
    }

    /// `1 entry`, `3 entries`.
    static func count(_ n: Int, _ singular: String, plural: String? = nil) -> String {
        "\(n) " + (n == 1 ? singular : plural ?? singular + "s")
    }
}
