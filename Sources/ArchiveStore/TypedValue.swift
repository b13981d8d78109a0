import Foundation
import KeyedArchive

/// A stored or registered value as the typed getters see it, with `UserDefaults`' conversions
/// between kinds.
///
/// The conversions are those of Foundation's `UserDefaults` on Linux, measured side by side
/// (`TypedValueConversionTests` checks them against `UserDefaults` itself); the table is in the
/// documentation of the typed getters (`ArchiveStore+TypedValues.swift`). Strings convert
/// through `NSString` itself, as `UserDefaults` does, and a string's URL is
/// `URL(fileURLWithPath:)` of its `expandingTildeInPath`. A real that is not finite or is
/// out of `Int`'s range reads as the integer `Int.min`, as the processor's conversion gives
/// `UserDefaults` on x86-64.
///
/// `NSString`'s rules: `integerValue` skips leading white space (newlines included) and reads an
/// optional sign and decimal digits up to the first other character (`" 7"` and `"12abc"` → 7
/// and 12, `"4.9"` → 4, `"0x10"` and `"YES"` → 0), saturating at `Int.max`/`Int.min`;
/// `doubleValue` skips spaces and tabs (not newlines) and reads a decimal number with an
/// optional exponent (`"1e3"` → 1000; `"nan"`, `"inf"` → 0); `boolValue` is true when, after
/// white space, the text starts with `Y`, `y`, `T` or `t`, or with an optional sign and zeros
/// followed by a digit 1–9 (`"YES"`, `"true"`, `"t"`, `"1"`, `"007"`, `"-7"`; not `"NO"`,
/// `"0"`, `"0.5"`, `"abc"`, `""`). `date` and `data` convert nothing.
///
/// Differences from `UserDefaults`, deliberate: a stored `URL` stays a URL (`UserDefaults` on
/// Linux keeps only its path, as a string, so `https://example.com/a` would come back as
/// `file:///a`); `Int.max` reads as itself (`UserDefaults` on Linux reads it as 0); and `url` of
/// data that is not an archive is nil (`UserDefaults` traps).
// @unchecked Sendable: the arrays, dictionaries and other values are property-list values, each
// decoded afresh for one read or copied from a registration (`register(defaults:)` bridges them
// into Swift collections), and nothing mutates them after.
enum TypedValue: @unchecked Sendable {
    case integer(Int)
    case double(Double)
    case float(Float)
    case bool(Bool)
    case string(String)
    case url(URL)
    case date(Date)
    case data(Data)
    case array([Any])
    case dictionary([String: Any])
    /// Integers above `Int.max`, sets, models and anything else: only ``object`` reads it.
    case other(Any)

    /// The value as a property-list value: Swift's numbers, `NSNumber`, `String`, `URL`,
    /// `Date`, `Data`, arrays and dictionaries with string keys; anything else is ``other(_:)``.
    init(_ value: Any) {
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self.init(number)
            return
        }
        switch value {
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .integer(value)
        case let value as any BinaryInteger: self = Int(exactly: value).map(Self.integer) ?? .other(value)
        case let value as Double: self = .double(value)
        case let value as Float: self = .float(value)
        case let value as String: self = .string(value)
        case let value as URL: self = .url(value)
        case let value as Date: self = .date(value)
        case let value as Data: self = .data(value)
        case let value as [Any]: self = .array(value)
        case let value as [String: Any]: self = .dictionary(value)
        default: self = .other(value)
        }
    }

    /// An `NSNumber` by the kind of number it holds. A Boolean reads as the integer 1 or 0,
    /// which every getter converts as it converts `true` or `false`.
    private init(_ number: NSNumber) {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "f"): self = .float(number.floatValue)
        case UInt8(ascii: "d"): self = .double(number.doubleValue)
        case UInt8(ascii: "Q") where number.uint64Value > UInt64(Int.max): self = .other(number)
        default: self = .integer(number.intValue)
        }
    }

    /// The value itself, as `object(forKey:)` returns it.
    var object: Any {
        switch self {
        case .integer(let value): value
        case .double(let value): value
        case .float(let value): value
        case .bool(let value): value
        case .string(let value): value
        case .url(let value): value
        case .date(let value): value
        case .data(let value): value
        case .array(let value): value
        case .dictionary(let value): value
        case .other(let value): value
        }
    }

    /// A short name of the kind, for errors (`a string`, `an array`).
    var kindName: String {
        switch self {
        case .integer: "an integer"
        case .double, .float: "a real number"
        case .bool: "a Boolean"
        case .string: "a string"
        case .url: "a URL"
        case .date: "a date"
        case .data: "data"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .other(let value): "a value of type \(type(of: value))"
        }
    }

    // MARK: - Conversions: nil when the kind does not convert

    var integer: Int? {
        switch self {
        case .integer(let value): value
        case .double(let value): Self.truncated(value)
        case .float(let value): Self.truncated(Double(value))
        case .bool(let value): value ? 1 : 0
        case .string(let value): NSString(string: value).integerValue
        case .url, .date, .data, .array, .dictionary, .other: nil
        }
    }

    var double: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        case .float(let value): Double(value)
        case .bool(let value): value ? 1 : 0
        case .string(let value): NSString(string: value).doubleValue
        case .url, .date, .data, .array, .dictionary, .other: nil
        }
    }

    var float: Float? {
        switch self {
        case .integer(let value): Float(value)
        case .double(let value): Float(value)
        case .float(let value): value
        case .bool(let value): value ? 1 : 0
        case .string(let value): NSString(string: value).floatValue
        case .url, .date, .data, .array, .dictionary, .other: nil
        }
    }

    var bool: Bool? {
        switch self {
        case .integer(let value): value != 0
        case .double(let value): value != 0
        case .float(let value): value != 0
        case .bool(let value): value
        case .string(let value): NSString(string: value).boolValue
        case .url, .date, .data, .array, .dictionary, .other: nil
        }
    }

    var string: String? {
        switch self {
        case .integer(let value): String(value)
        case .double(let value): value.description
        case .float(let value): value.description
        case .bool(let value): value ? "1" : "0"
        case .string(let value): value
        case .url, .date, .data, .array, .dictionary, .other: nil
        }
    }

    /// The URL; for a string, the file URL of its path (`~` expanded); for data, the URL
    /// archived in it, read under `options`.
    func url(options: KeyedUnarchiver.Options) -> URL? {
        switch self {
        case .url(let value): value
        case .string(let value): URL(fileURLWithPath: NSString(string: value).expandingTildeInPath)
        case .data(let value):
            try? KeyedUnarchiver(forReadingFrom: value, options: options).decode(URL.self, forKey: StoreFormat.rootKey)
        case .integer, .double, .float, .bool, .date, .array, .dictionary, .other: nil
        }
    }

    var date: Date? { if case .date(let value) = self { value } else { nil } }

    var data: Data? { if case .data(let value) = self { value } else { nil } }

    var array: [Any]? { if case .array(let value) = self { value } else { nil } }

    var dictionary: [String: Any]? { if case .dictionary(let value) = self { value } else { nil } }

    /// An array whose elements are all strings (`UserDefaults.stringArray(forKey:)`).
    var stringArray: [String]? { array.flatMap { $0 as? [String] } }

    /// `value` truncated toward zero; `Int.min` when it is not finite or out of range.
    private static func truncated(_ value: Double) -> Int {
        value >= -0x1p63 && value < 0x1p63 ? Int(value) : .min
    }

    // MARK: - Reading as a key's type

    /// Whether a key of `type` reads its value through these conversions (a typed value, or an
    /// Optional of one) rather than by decoding `type` itself.
    static func converts(to type: Any.Type) -> Bool {
        if let optional = type as? any OptionalValue.Type { return converts(to: optional.wrappedType) }
        return type == Int.self || type == Double.self || type == Float.self || type == Bool.self
            || type == String.self || type == URL.self || type == Date.self || type == Data.self
    }

    /// The value converted to `type` as the getter of that kind converts it (an `Int` as
    /// `integer(forKey:)`...); for other types, the value itself if it is one. Nil when the kind
    /// does not convert.
    func converted<Value>(to type: Value.Type, options: KeyedUnarchiver.Options) -> Value? {
        switch type {
        case is Int.Type: integer as? Value
        case is Double.Type: double as? Value
        case is Float.Type: float as? Value
        case is Bool.Type: bool as? Value
        case is String.Type: string as? Value
        case is URL.Type: url(options: options) as? Value
        case is Date.Type: date as? Value
        case is Data.Type: data as? Value
        default:
            if let optional = type as? any OptionalValue.Type {
                optional.wrapping(self, options: options) as? Value
            } else {
                object as? Value
            }
        }
    }
}

/// Whether `value` is an Optional holding nothing (a save of it removes the key's value instead).
func isNil(_ value: Any) -> Bool {
    (value as? any OptionalValue)?.isNone ?? false
}

/// `Optional`, whatever it wraps: lets a key of `String?` read and remove like a key of `String`.
protocol OptionalValue {
    static var wrappedType: Any.Type { get }
    /// `value` converted to the wrapped type and wrapped; nil when it does not convert.
    static func wrapping(_ value: TypedValue, options: KeyedUnarchiver.Options) -> Self?
    var isNone: Bool { get }
}

extension Optional: OptionalValue {
    static var wrappedType: Any.Type { Wrapped.self }

    static func wrapping(_ value: TypedValue, options: KeyedUnarchiver.Options) -> Self? {
        value.converted(to: Wrapped.self, options: options).map { .some($0) }
    }

    var isNone: Bool { self == nil }
}
