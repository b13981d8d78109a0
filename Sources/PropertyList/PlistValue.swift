/// One property-list value: the in-memory model of every object a `bplist00` file can hold.
///
/// Reals and dates compare by bit pattern, so `-0.0` differs from `0.0`, `NaN` equals itself,
/// and equality is exactly "reads back as the same bytes". Integers compare by value whichever
/// case holds them (`.int(5) == .uint(5)`). Arrays and sets compare in order; dictionaries
/// compare as unordered maps but keep their insertion order for writing.
///
/// ```swift
/// let value: PlistValue = .dict(["name": .string("Ann"), "age": .int(30)])
/// let bytes = try BPlistWriter().write(value)
/// let back = try BPlistReader().read(bytes)
/// assert(back == value)
/// ```
public enum PlistValue: Sendable, Hashable {
    /// The null object (`0x00`). Read, never written: Apple's readers reject it in `bplist00`.
    case null
    /// A Boolean (`0x08` false, `0x09` true); a distinct object from the integers 0 and 1.
    case bool(Bool)
    /// A signed integer. Non-negative values are written in 1, 2, 4 or 8 bytes, negative ones in 8.
    case int(Int64)
    /// An unsigned integer; values above `Int64.max` are written as 16-byte integers.
    case uint(UInt64)
    /// An 8-byte IEEE-754 real.
    case real(Double)
    /// A 4-byte IEEE-754 real.
    case float(Float)
    /// A date: seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    /// Bytes.
    case data([UInt8])
    /// A string: written as ASCII bytes when every character is ASCII, else as UTF-16.
    case string(String)
    /// A UID (bplist00 marker `0x8_`): an unsigned number that refers to an object by its
    /// position in a list the file itself defines.
    case uid(UInt64)
    /// An ordered list of values.
    case array([PlistValue])
    /// A set, kept in file order.
    case set([PlistValue])
    /// A dictionary with string keys, in insertion order.
    case dict(PlistDictionary)

    /// The value as a signed integer, if it is an integer that fits `Int64`.
    public var int64Value: Int64? {
        switch self {
        case .int(let v): v
        case .uint(let v): Int64(exactly: v)
        default: nil
        }
    }

    /// The value as an unsigned integer, if it is a non-negative integer.
    public var uint64Value: UInt64? {
        switch self {
        case .int(let v): UInt64(exactly: v)
        case .uint(let v): v
        default: nil
        }
    }

    /// The string, if the value is a string.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The elements, if the value is an array (not a set).
    public var arrayValue: [PlistValue]? { if case .array(let a) = self { a } else { nil } }
    /// The dictionary, if the value is one.
    public var dictValue: PlistDictionary? { if case .dict(let d) = self { d } else { nil } }

    /// A short name for the kind of value, used in messages ("an integer", "a string").
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .uint: "an integer"
        case .real, .float: "a real"
        case .date: "a date"
        case .data: "data"
        case .string: "a string"
        case .uid: "a UID"
        case .array: "an array"
        case .set: "a set"
        case .dict: "a dictionary"
        }
    }

    /// Whether the two values are the same property-list value: integers by value whichever case
    /// holds them, reals and dates by bit pattern, strings by their exact Unicode scalars, arrays
    /// and sets in order, dictionaries in any order. Values of different kinds are never equal
    /// (`.int(1)`, `.real(1)` and `.bool(true)` are three values).
    public static func == (lhs: PlistValue, rhs: PlistValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int, .int), (.int, .uint), (.uint, .int), (.uint, .uint): lhs.integerKey == rhs.integerKey
        case (.real(let a), .real(let b)): a.bitPattern == b.bitPattern
        case (.float(let a), .float(let b)): a.bitPattern == b.bitPattern
        case (.date(let a), .date(let b)): a.bitPattern == b.bitPattern
        case (.data(let a), .data(let b)): a == b
        case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
        case (.uid(let a), .uid(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.set(let a), .set(let b)): a == b
        case (.dict(let a), .dict(let b)): a == b
        default: false
        }
    }

    /// Hashes the value as ``==(_:_:)`` compares it.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let v): hasher.combine(1); hasher.combine(v)
        case .int, .uint:
            hasher.combine(2)
            let key = integerKey
            hasher.combine(key.negative)
            hasher.combine(key.bits)
        case .real(let v): hasher.combine(3); hasher.combine(v.bitPattern)
        case .float(let v): hasher.combine(4); hasher.combine(v.bitPattern)
        case .date(let v): hasher.combine(5); hasher.combine(v.bitPattern)
        case .data(let v): hasher.combine(6); hasher.combine(v)
        case .string(let v): hasher.combine(7); ExactString(v).hash(into: &hasher)
        case .uid(let v): hasher.combine(8); hasher.combine(v)
        case .array(let v): hasher.combine(9); hasher.combine(v)
        case .set(let v): hasher.combine(10); hasher.combine(v)
        case .dict(let v): hasher.combine(11); hasher.combine(v)
        }
    }

    /// Integers normalised for comparison: sign and 64-bit pattern.
    private var integerKey: (negative: Bool, bits: UInt64) {
        switch self {
        case .int(let v): (v < 0, UInt64(bitPattern: v))
        case .uint(let v): (false, v)
        default: (false, 0)
        }
    }
}

extension PlistValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string literal is a ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal is an ``int(_:)``.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating-point literal is an 8-byte ``real(_:)``.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// `true` and `false` are ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array literal is an ``array(_:)``.
    public init(arrayLiteral elements: PlistValue...) { self = .array(elements) }
    /// A dictionary literal is a ``dict(_:)``, keys in the literal's order (a repeated key keeps
    /// its first position and its last value).
    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        self = .dict(PlistDictionary(uniqueKeysWithValues: elements))
    }
}
