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
enum TypedValue: Sendable {
    case integer(Int)
    case double(Double)
    case float(Float)
    case bool(Bool)
    case string(String)
    case url(URL)
    case date(Date)
    case data(Data)
    /// Arrays, dictionaries, integers above `Int.max`, and anything else: every getter gives
    /// its default.
    case other

    /// The value as a property-list value: Swift's numbers, `NSNumber`, `String`, `URL`,
    /// `Date`, `Data`; anything else is ``other``.
    init(_ value: Any) {
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self.init(number)
            return
        }
        switch value {
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .integer(value)
        case let value as any BinaryInteger: self = Int(exactly: value).map(Self.integer) ?? .other
        case let value as Double: self = .double(value)
        case let value as Float: self = .float(value)
        case let value as String: self = .string(value)
        case let value as URL: self = .url(value)
        case let value as Date: self = .date(value)
        case let value as Data: self = .data(value)
        default: self = .other
        }
    }

    /// An `NSNumber` by the kind of number it holds. A Boolean reads as the integer 1 or 0,
    /// which every getter converts as it converts `true` or `false`.
    private init(_ number: NSNumber) {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "f"): self = .float(number.floatValue)
        case UInt8(ascii: "d"): self = .double(number.doubleValue)
        case UInt8(ascii: "Q") where number.uint64Value > UInt64(Int.max): self = .other
        default: self = .integer(number.intValue)
        }
    }

    var integer: Int {
        switch self {
        case .integer(let value): value
        case .double(let value): Self.truncated(value)
        case .float(let value): Self.truncated(Double(value))
        case .bool(let value): value ? 1 : 0
        case .string(let value): NSString(string: value).integerValue
        case .url, .date, .data, .other: 0
        }
    }

    var double: Double {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        case .float(let value): Double(value)
        case .bool(let value): value ? 1 : 0
        case .string(let value): NSString(string: value).doubleValue
        case .url, .date, .data, .other: 0
        }
    }

    var float: Float {
        switch self {
        case .integer(let value): Float(value)
        case .double(let value): Float(value)
        case .float(let value): value
        case .bool(let value): value ? 1 : 0
        case .string(let value): NSString(string: value).floatValue
        case .url, .date, .data, .other: 0
        }
    }

    var bool: Bool {
        switch self {
        case .integer(let value): value != 0
        case .double(let value): value != 0
        case .float(let value): value != 0
        case .bool(let value): value
        case .string(let value): NSString(string: value).boolValue
        case .url, .date, .data, .other: false
        }
    }

    var string: String? {
        switch self {
        case .integer(let value): String(value)
        case .double(let value): value.description
        case .float(let value): value.description
        case .bool(let value): value ? "1" : "0"
        case .string(let value): value
        case .url, .date, .data, .other: nil
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
        case .integer, .double, .float, .bool, .date, .other: nil
        }
    }

    var date: Date? { if case .date(let value) = self { value } else { nil } }

    var data: Data? { if case .data(let value) = self { value } else { nil } }

    /// `value` truncated toward zero; `Int.min` when it is not finite or out of range.
    private static func truncated(_ value: Double) -> Int {
        value >= -0x1p63 && value < 0x1p63 ? Int(value) : .min
    }
}
