import PropertyList

/// How `karchive diff` writes values: beside a value of the same kind by value alone
/// (`"Ann" != "Anne"`, `3 != 4`), beside one of another kind with the kind first
/// (`integer 3 != real 3.0`).
///
/// Integers are one kind whatever their width or sign, reals one kind whether stored in 4 or 8
/// bytes (a 4-byte real is shown as the double it holds); an integer and a real are two kinds
/// however equal their values. Strings longer than ``ArchiveError/quotedLength`` characters are
/// cut, data shows its size and first bytes, containers their kind and size.
enum DiffText {
    /// The difference between two values that are not both containers of one kind, or nil when
    /// they are equal: integers, reals and dates by value, strings by their exact Unicode
    /// scalars, data byte for byte.
    static func difference(_ a: PlistValue, _ b: PlistValue) -> String? {
        switch (a, b) {
        case (.int, .int), (.int, .uint), (.uint, .int), (.uint, .uint), (.bool, .bool), (.string, .string), (.data, .data),
            (.uid, .uid), (.null, .null):
            if a == b { return nil }
        case (.real, .real), (.real, .float), (.float, .real), (.float, .float), (.date, .date):
            if let x = real(a), let y = real(b), x == y || (x.isNaN && y.isNaN) { return nil }
        default:
            return "\(full(a)) != \(full(b))"
        }
        let (left, right) = (value(a), value(b))
        return "\(left) != \(right)" + (left == right ? note(a, b) : "")
    }

    /// A value without its kind: `"Ann"`, `3`, `3.0`, `true`, a date in ISO 8601; data, UIDs,
    /// null and containers as `karchive dump` shows them (`data (3 bytes) 0102ff`, `array (2 elements)`).
    static func value(_ value: PlistValue) -> String {
        switch value {
        case .int(let v): String(v)
        case .uint(let v): String(v)
        case .real(let v): String(v)
        case .float(let v): String(Double(v))
        case .bool(let v): String(v)
        case .date(let v): ISO8601.string(secondsSinceReferenceDate: v) ?? "\(v) seconds from 2001-01-01"
        case .string(let s): quoted(s)
        default: PlainTreeDump().line(for: value)
        }
    }

    /// A value with its kind: `string "Ann"`, `integer 3`, `real 3.0`, `boolean true`, `date …`.
    static func full(_ value: PlistValue) -> String {
        let kind: String
        switch value {
        case .int, .uint: kind = "integer"
        case .real, .float: kind = "real"
        case .bool: kind = "boolean"
        case .date: kind = "date"
        case .string: kind = "string"
        default: return Self.value(value)
        }
        return kind + " " + Self.value(value)
    }

    /// `"text"` with escapes, cut after ``ArchiveError/quotedLength`` characters: `"abc"… (300 characters)`.
    static func quoted(_ string: String) -> String {
        let count = string.count
        guard count > ArchiveError.quotedLength else { return PlainTreeDump.quoted(string) }
        return PlainTreeDump.quoted(String(string.prefix(ArchiveError.quotedLength))) + "… (\(count) characters)"
    }

    private static func real(_ value: PlistValue) -> Double? {
        switch value {
        case .real(let v), .date(let v): v
        case .float(let v): Double(v)
        default: nil
        }
    }

    /// Where two different values that read the same differ.
    private static func note(_ a: PlistValue, _ b: PlistValue) -> String {
        switch (a, b) {
        case (.string(let x), .string(let y)):
            let same = zip(x, y).prefix { $0.unicodeScalars.elementsEqual($1.unicodeScalars) }.count
            return " (first difference at character \(same))"
        case (.data(let x), .data(let y)):
            return " (first difference at byte \(zip(x, y).prefix { $0 == $1 }.count))"
        case (.date(let x), .date(let y)):
            return " (seconds from 2001-01-01: \(x) != \(y))"
        default:
            return ""
        }
    }
}
