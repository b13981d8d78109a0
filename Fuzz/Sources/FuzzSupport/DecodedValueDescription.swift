import Foundation

/// A description of a value decoded as `Any` that depends on nothing but the value: the kind of
/// every value is spelled out (`int(1)`, `real(1.0)`, `float(1.0)`), dictionary entries and set
/// elements are listed sorted by their own descriptions, and every character outside printable
/// ASCII is written as `\u{…}`, so it can be compared as bytes. Two decodes of the same objects
/// describe alike whatever the hash seed; a dictionary or set whose contents follow hashing
/// does not. (The test suite's child process, `archive-store-crash-child`, prints the same form.)
public struct DecodedValueDescription {
    /// Values left to describe before giving up (a value expanded through shared references
    /// can hold millions of elements).
    private var budget: Int

    /// The description of `value`, or nil if it holds more than `budget` values.
    public static func of(_ value: Any, budget: Int = 1 << 20) -> String? {
        var describer = DecodedValueDescription(budget: budget)
        return describer.describe(value)
    }

    private mutating func describe(_ value: Any) -> String? {
        guard budget > 0 else { return nil }
        budget -= 1
        switch value {
        case is NSNull: return "null"
        case let bool as Bool: return bool ? "true" : "false"
        case let int as Int: return "int(\(int))"
        case let unsigned as UInt64: return "uint(\(unsigned))"
        case let double as Double: return "real(\(Self.real(double, bits: double.bitPattern)))"
        case let float as Float: return "float(\(Self.real(Double(float), bits: UInt64(float.bitPattern))))"
        case let string as String: return Self.quoted(string)
        case let data as Data: return "data(\(data.map { Self.hex($0, width: 2) }.joined()))"
        case let date as Date:
            let seconds = date.timeIntervalSinceReferenceDate
            return "date(\(Self.real(seconds, bits: seconds.bitPattern)))"
        case let url as URL:
            if let base = url.baseURL {
                return describe(base).map { "url(\(Self.quoted(url.relativeString)) relative to \($0))" }
            } else {
                return "url(\(Self.quoted(url.relativeString)))"
            }
        case let uuid as UUID: return "uuid(\(uuid.uuidString))"
        case let decimal as Decimal: return "decimal(\(decimal))"
        default: return describeContainer(value)
        }
    }

    /// Containers by their exact type: an `[AnyHashable: Any]` whose keys are all strings
    /// would also cast to `[String: Any]`.
    private mutating func describeContainer(_ value: Any) -> String? {
        let type = Swift.type(of: value)
        if type == [Any].self, let array = value as? [Any] {
            var parts: [String] = []
            for element in array {
                guard let part = describe(element) else { return nil }
                parts.append(part)
            }
            return "[" + parts.joined(separator: ", ") + "]"
        }
        if type == [String: Any].self, let dictionary = value as? [String: Any] {
            return entries(dictionary.map { (Self.quoted($0.key), $0.value) }).map { "{" + $0 + "}" }
        }
        if type == [AnyHashable: Any].self, let dictionary = value as? [AnyHashable: Any] {
            var pairs: [(key: String, value: Any)] = []
            for (key, element) in dictionary {
                guard let key = describe(key.base) else { return nil }
                pairs.append((key, element))
            }
            return entries(pairs).map { "any-keyed {" + $0 + "}" }
        }
        if type == Set<AnyHashable>.self, let set = value as? Set<AnyHashable> {
            var parts: [String] = []
            for element in set {
                guard let part = describe(element.base) else { return nil }
                parts.append(part)
            }
            return "set[" + parts.sorted(by: Self.precedes).joined(separator: ", ") + "]"
        }
        return "<\(String(reflecting: type))>"
    }

    /// Entries sorted by key, and by value where keys describe alike (NaNs, which are never equal).
    private mutating func entries(_ pairs: [(key: String, value: Any)]) -> String? {
        var described: [(key: String, value: String)] = []
        for pair in pairs {
            guard let value = describe(pair.value) else { return nil }
            described.append((pair.key, value))
        }
        return described.sorted { $0.key != $1.key ? Self.precedes($0.key, $1.key) : Self.precedes($0.value, $1.value) }
            .map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }

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
