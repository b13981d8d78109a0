import Foundation

/// A description of a value decoded as `Any` that depends on nothing but the value: the kind of
/// every value is spelled out (`int(1)`, `real(1.0)`, `float(1.0)`), dictionary entries and set
/// elements are listed sorted by their own descriptions, and every character outside printable
/// ASCII is written as `\u{…}`, so two strings that differ only in Unicode normalisation
/// describe differently and descriptions can be compared as bytes.
///
/// Two processes that decode the same bytes to the same value print the same text, whatever
/// their hash seeds; a dictionary or set whose contents depend on hashing does not.
enum DecodedValueDescription {
    static func of(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let bool as Bool: return bool ? "true" : "false"
        case let int as Int: return "int(\(int))"
        case let unsigned as UInt64: return "uint(\(unsigned))"
        case let double as Double: return "real(\(real(double, bits: double.bitPattern)))"
        case let float as Float: return "float(\(real(Double(float), bits: UInt64(float.bitPattern))))"
        case let string as String: return quoted(string)
        case let data as Data: return "data(\(data.map { hex($0, width: 2) }.joined()))"
        case let date as Date:
            let seconds = date.timeIntervalSinceReferenceDate
            return "date(\(real(seconds, bits: seconds.bitPattern)))"
        case let url as URL:
            guard let base = url.baseURL else { return "url(\(quoted(url.relativeString)))" }
            return "url(\(quoted(url.relativeString)) relative to \(of(base)))"
        case let uuid as UUID: return "uuid(\(uuid.uuidString))"
        case let decimal as Decimal: return "decimal(\(decimal))"
        default: break
        }
        // Containers by their exact type: an `[AnyHashable: Any]` whose keys are all strings
        // would also cast to `[String: Any]`.
        let type = Swift.type(of: value)
        if type == [Any].self, let array = value as? [Any] {
            return "[" + array.map(of).joined(separator: ", ") + "]"
        }
        if type == [String: Any].self, let dictionary = value as? [String: Any] {
            return "{" + entries(dictionary.map { (quoted($0.key), $0.value) }) + "}"
        }
        if type == [AnyHashable: Any].self, let dictionary = value as? [AnyHashable: Any] {
            return "any-keyed {" + entries(dictionary.map { (of($0.key.base), $0.value) }) + "}"
        }
        if type == Set<AnyHashable>.self, let set = value as? Set<AnyHashable> {
            return "set[" + set.map { of($0.base) }.sorted(by: precedes).joined(separator: ", ") + "]"
        }
        return "<\(String(reflecting: type))>"
    }

    /// Entries sorted by key, and by value where keys describe alike (NaNs, which are never equal).
    private static func entries(_ pairs: [(key: String, value: Any)]) -> String {
        pairs.map { (key: $0.key, value: of($0.value)) }
            .sorted { $0.key != $1.key ? precedes($0.key, $1.key) : precedes($0.value, $1.value) }
            .map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }

    /// Order by UTF-8 bytes (descriptions are ASCII; `String`'s `<` would also do, but bytes say what is meant).
    private static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// A real as Swift prints it, and its bit pattern when that does not say it all (NaN payloads).
    private static func real(_ value: Double, bits: UInt64) -> String {
        value.isNaN ? "nan 0x\(hex(bits, width: 1))" : "\(value)"
    }

    private static func quoted(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case " "..."~": text.unicodeScalars.append(scalar)
            default: text += "\\u{\(hex(scalar.value, width: 1))}"
            }
        }
        return text + "\""
    }

    private static func hex(_ value: some BinaryInteger, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
