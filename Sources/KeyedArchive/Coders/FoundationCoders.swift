import Foundation
@_spi(Reader) import PropertyList

// Foundation's class-cluster objects are archived as the values they hold, exactly as their
// Swift counterparts are: an `NSNumber` is an integer, real or boolean, an `NSString` a string,
// an `NSArray` an `NSArray` of its elements, and so on. `JSONSerialization`,
// `PropertyListSerialization` and Foundation's own unarchiver hand these objects out, so a
// `[String: Any]` from any of them archives with no conversion.

/// The Foundation classes archived as values, most specific first (`NSDecimalNumber` is an `NSNumber`).
enum FoundationFamily {
    case decimalNumber, number, string, array, dictionary, set, date, data, url, uuid

    init?(_ type: Any.Type) {
        switch type {
        case is NSDecimalNumber.Type: self = .decimalNumber
        case is NSNumber.Type: self = .number
        case is NSString.Type: self = .string
        case is NSArray.Type: self = .array
        case is NSDictionary.Type: self = .dictionary
        case is NSSet.Type: self = .set
        case is NSDate.Type: self = .date
        case is NSData.Type: self = .data
        case is NSURL.Type: self = .url
        case is NSUUID.Type: self = .uuid
        default: return nil
        }
    }
}

/// The class of Foundation's boolean `NSNumber`s (`kCFBooleanTrue`, `kCFBooleanFalse`).
private let numberBooleanClass: AnyClass = type(of: NSNumber(value: true))

/// A Foundation object (`T` is `NSNumber`, `NSMutableString`, …) coded through its Swift value.
final class FoundationObjectCoder<T>: TypeCoder {
    private let family: FoundationFamily

    init(_ family: FoundationFamily) {
        self.family = family
    }

    func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let object = value as AnyObject
        switch family {
        case .number:
            // A field declared `NSNumber` may hold an `NSDecimalNumber`: it keeps its decimal digits.
            if let decimal = object as? NSDecimalNumber {
                return try DecimalCoder().encode(decimal.decimalValue, inline: inline, archiver)
            }
            return try Self.encodeNumber(object as! NSNumber, inline: inline, archiver)
        case .decimalNumber: return try DecimalCoder().encode((object as! NSDecimalNumber).decimalValue, inline: inline, archiver)
        case .set where object is NSCountedSet:
            // A field declared NSSet holding a counted set keeps its counts.
            return try CountedSetCoder<NSCountedSet>().encode(object as! NSCountedSet, inline: inline, archiver)
        default: return try archiver.encodeDynamic(try swiftValue(of: object), inline: inline)
        }
    }

    /// The Swift value a Foundation object of this family holds.
    private func swiftValue(of object: AnyObject) throws -> Any {
        let bridged: Any?
        switch family {
        case .string: bridged = object as? String
        case .array: bridged = object as? [Any]
        case .dictionary:
            // String keys (the JSON case) archive exactly as `[String: Any]` does.
            let dictionary = object as! NSDictionary
            bridged = dictionary.allKeys.allSatisfy { $0 is String } ? object as? [String: Any] : object as? [AnyHashable: Any]
        case .set: bridged = object as? Set<AnyHashable>
        case .date: bridged = object as? Date
        case .data: bridged = object as? Data
        case .url:
            // Bridging an `NSURL` to `URL` drops its base on Linux; the base and relative part are kept.
            let url = object as! NSURL
            bridged = url.baseURL.flatMap { URL(string: url.relativeString, relativeTo: $0) } ?? object as? URL
        case .uuid: bridged = object as? UUID
        case .number, .decimalNumber: bridged = object
        }
        guard let bridged else {
            throw ArchiveError(
                .notArchivable, reason: "\(String(reflecting: Swift.type(of: object))) does not convert to the Swift value it stands for")
        }
        return bridged
    }

    /// An `NSNumber` as the integer, real or boolean it holds (booleans are their own class).
    private static func encodeNumber(_ number: NSNumber, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        if Swift.type(of: number) == numberBooleanClass { return try BoolCoder().encode(number.boolValue, inline: inline, archiver) }
        switch number.objCType.pointee {
        case CChar(UInt8(ascii: "f")): return try FloatCoder().encode(number.floatValue, inline: inline, archiver)
        case CChar(UInt8(ascii: "d")): return try DoubleCoder().encode(number.doubleValue, inline: inline, archiver)
        case CChar(UInt8(ascii: "Q")) where number.uint64Value > UInt64(Int64.max),
            CChar(UInt8(ascii: "L")) where number.uint64Value > UInt64(Int64.max):
            return try IntegerCoder<UInt64>().encode(number.uint64Value, inline: inline, archiver)
        default: return try IntegerCoder<Int64>().encode(number.int64Value, inline: inline, archiver)
        }
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T {
        let object: AnyObject
        switch family {
        case .decimalNumber:
            object = NSDecimalNumber(decimal: try DecimalCoder().decode(reference, unarchiver))
        case .number:
            object = try Self.number(from: try unarchiver.decodeAny(reference), reference, unarchiver)
        case .string:
            let string = try StringCoder.decodeValue(reference, unarchiver)
            object = T.self is NSMutableString.Type ? NSMutableString(string: string) : NSString(string: string)
        case .array:
            let elements = try ArrayCoder<Any>().decode(reference, unarchiver)
            object = T.self is NSMutableArray.Type ? NSMutableArray(array: elements) : NSArray(array: elements)
        case .dictionary:
            let entries = try DictionaryCoder<AnyHashable, Any>().decode(reference, unarchiver)
            object = T.self is NSMutableDictionary.Type ? NSMutableDictionary(dictionary: entries) : NSDictionary(dictionary: entries)
        case .set:
            let elements = try SetCoder<AnyHashable>().decode(reference, unarchiver)
            object = T.self is NSMutableSet.Type ? NSMutableSet(set: elements) : NSSet(set: elements)
        case .date:
            object = NSDate(timeIntervalSinceReferenceDate: try DateCoder().decode(reference, unarchiver).timeIntervalSinceReferenceDate)
        case .data:
            let data = try DataCoder().decode(reference, unarchiver)
            object = T.self is NSMutableData.Type ? NSMutableData(data: data) : NSData(data: data)
        case .url:
            let url = try URLCoder().decode(reference, unarchiver)
            object = NSURL(string: url.relativeString, relativeTo: url.baseURL) ?? NSURL(fileURLWithPath: url.path)
        case .uuid:
            object = NSUUID(uuidString: try UUIDCoder().decode(reference, unarchiver).uuidString)!
        }
        guard let typed = object as? T else { throw unarchiver.mismatch(String(reflecting: T.self), reference) }
        return typed
    }

    /// The `NSNumber` for a decoded integer, real, boolean or decimal.
    private static func number(from value: Any, _ reference: Int, _ unarchiver: UnarchiverCore) throws -> NSNumber {
        switch value {
        case let bool as Bool: return NSNumber(value: bool)
        case let int as Int: return NSNumber(value: int)
        case let unsigned as UInt64: return NSNumber(value: unsigned)
        case let double as Double: return NSNumber(value: double)
        case let float as Float: return NSNumber(value: float)
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal)
        default: throw unarchiver.mismatch("a number", reference)
        }
    }
}

/// `Decimal` in `NSDecimalNumber`'s layout: `NS.exponent`, `NS.length` (mantissa words in use),
/// `NS.negative`, `NS.compact`, `NS.mantissa.bo` (1: little-endian words) and `NS.mantissa`
/// (16 bytes: eight 16-bit words, least significant first). A NaN has length 0 and is negative.
final class DecimalCoder: TypeCoder {
    static let classes = [ArchiveFormat.decimalNumberClass, "NSNumber", "NSValue", ArchiveFormat.rootClass]

    func encode(_ value: Decimal, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        var mantissa: UInt128 = 0
        var exponent = 0
        if !value.isNaN && !value.isZero {
            // The public API gives the value as sign × significand × 10^exponent.
            guard let significand = UInt128(value.significand.description) else {
                throw ArchiveError(.notArchivable, reason: "the Decimal \(value) has no integer significand of 128 bits")
            }
            mantissa = significand
            exponent = value.exponent
        }
        guard let storedExponent = Int8(exactly: exponent) else {
            throw ArchiveError(.notArchivable, reason: "the Decimal \(value) has an exponent outside -128...127")
        }
        var words = [UInt8](repeating: 0, count: 16)
        var length = 0
        for word in 0..<8 {
            let bits = UInt16(truncatingIfNeeded: mantissa >> (16 * word))
            words[2 * word] = UInt8(truncatingIfNeeded: bits)
            words[2 * word + 1] = UInt8(truncatingIfNeeded: bits >> 8)
            if bits != 0 { length = word + 1 }
        }
        let negative = value.isNaN || value.sign == .minus && !value.isZero
        let frame = archiver.beginObject()
        archiver.addField(ArchiveFormat.decimalExponentField, value: archiver.integer(Int64(storedExponent), inline: true))
        archiver.addField(ArchiveFormat.decimalLengthField, value: archiver.integer(Int64(length), inline: true))
        archiver.addField(ArchiveFormat.decimalNegativeField, value: archiver.boolean(negative, inline: true))
        archiver.addField(ArchiveFormat.decimalCompactField, value: archiver.boolean(mantissa % 10 != 0 || mantissa == 0, inline: true))
        archiver.addField(ArchiveFormat.decimalByteOrderField, value: archiver.integer(1, inline: true))
        archiver.addField(ArchiveFormat.decimalMantissaField, value: archiver.data(words, inline: false))
        archiver.endObject(frame, className: ArchiveFormat.decimalNumberClass, classes: Self.classes)
        return archiver.uid(frame.uid)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Decimal {
        let dict = try unarchiver.foundationObject(reference, classes: [ArchiveFormat.decimalNumberClass], expected: "a decimal number")
        func field<V>(_ key: String, _ coder: TypedCoder<V>) throws -> V {
            try withKeyPath(key) { try coder.decode(try unarchiver.requiredField(dict, key), unarchiver) }
        }
        func invalid(_ reason: String) -> ArchiveError {
            ArchiveError(.typeMismatch, reason: reason, byteOffset: dict.object.offset, objectIndex: dict.index)
        }
        let exponent = try field(ArchiveFormat.decimalExponentField, IntegerCoder<Int>())
        let length = try field(ArchiveFormat.decimalLengthField, IntegerCoder<Int>())
        let negative = try field(ArchiveFormat.decimalNegativeField, BoolCoder())
        let bytes = try field(ArchiveFormat.decimalMantissaField, DataCoder())
        var byteOrder = 1
        if let order = try unarchiver.value(in: dict, escapedKey: ArchiveFormat.decimalByteOrderField) {
            byteOrder = try withKeyPath(ArchiveFormat.decimalByteOrderField) { try IntegerCoder<Int>().decode(order, unarchiver) }
        }
        guard (-128...127).contains(exponent) else { throw invalid("NS.exponent \(exponent) is outside -128...127") }
        guard (0...8).contains(length) else { throw invalid("NS.length \(length) is outside 0...8") }
        guard bytes.count == 16 else { throw invalid("NS.mantissa holds \(bytes.count) bytes; a decimal number needs 16") }
        if length == 0 { return negative ? .nan : 0 }
        var mantissa: UInt128 = 0
        for word in 0..<length {
            let first = UInt16(bytes[bytes.startIndex + 2 * word])
            let second = UInt16(bytes[bytes.startIndex + 2 * word + 1])
            let bits = byteOrder == 2 ? first << 8 | second : second << 8 | first
            mantissa |= UInt128(bits) << (16 * word)
        }
        guard let significand = Decimal(string: String(mantissa)) else { throw invalid("NS.mantissa \(mantissa) is not a decimal") }
        return Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: significand)
    }
}
