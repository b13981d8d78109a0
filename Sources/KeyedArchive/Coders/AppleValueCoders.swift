import Foundation
@_spi(Reader) import PropertyList

// Foundation's value classes in the layouts Apple's NSKeyedArchiver writes them in, so archives
// from Apple software decode into Swift's value types, and ours decode there: `NSIndexSet`,
// `NSIndexPath`, `NSLocale`, `NSTimeZone`, `NSCalendar` and `NSValue` ranges here; measurements,
// counted sets, attributed strings and notifications in AppleObjectCoders.swift. Types that were
// archived through `Codable` before these layouts existed still read: an object of any other
// class is decoded as the Codable value it was written as.

package extension ArchiveFormat {
    static let indexSetClasses: Set<String> = ["NSIndexSet", "NSMutableIndexSet"]
    static let indexPathClass = "NSIndexPath"
    static let localeClass = "NSLocale"
    static let timeZoneClass = "NSTimeZone"
    static let calendarClass = "NSCalendar"
    static let valueClass = "NSValue"

    static let rangeCountField = "NSRangeCount"
    static let rangeDataField = "NSRangeData"
    static let rangeLocationField = "NSLocation"
    static let rangeLengthField = "NSLength"
    static let indexPathLengthField = "NSIndexPathLength"
    static let indexPathDataField = "NSIndexPathData"
    static let indexPathValueField = "NSIndexPathValue"
    static let identifierField = "NS.identifier"
    static let nameField = "NS.name"
    static let calendarLocaleField = "NS.locale"
    static let calendarTimeZoneField = "NS.timezone"
    static let calendarFirstWeekdayField = "NS.firstwkdy"
    static let calendarMinimumDaysField = "NS.mindays"
    static let calendarGregorianStartField = "NS.gstartdate"
    static let valueKindField = "NS.special"
    static let rangeValueLocationField = "NS.rangeval.location"
    static let rangeValueLengthField = "NS.rangeval.length"
    static let pointValueField = "NS.pointval"
    static let sizeValueField = "NS.sizeval"
    static let rectValueField = "NS.rectval"
}

/// The kinds of `NSValue` Foundation archives by `NS.special`.
enum SpecialValueKind: Int {
    case point = 1, size = 2, rect = 3, range = 4, edgeInsets = 12

    var name: String {
        switch self {
        case .point: "point"
        case .size: "size"
        case .rect: "rectangle"
        case .range: "range"
        case .edgeInsets: "edge insets"
        }
    }
}

// MARK: Shared reading and writing

extension UnarchiverCore {
    /// The coded object `reference` points at if it is of one of `classes` (by its name or its
    /// class chain); nil for any other object, nil, scalars and plain values.
    func object(_ reference: Int, ofClassIn classes: Set<String>) throws -> ObjectDict? {
        guard case .object(let uid, let object, let index) = try target(reference), object.kind == .dict,
            let (dict, description) = try objectDict(uid: uid, object: object, index: index),
            classes.contains(description.name) || description.classes.contains(where: classes.contains)
        else { return nil }
        return dict
    }

    /// A required field of `dict`, decoded by `coder`; errors name the key.
    func field<V>(_ dict: ObjectDict, _ key: String, _ coder: TypedCoder<V>) throws -> V {
        try withKeyPath(key) { try coder.decode(try requiredField(dict, key), self) }
    }

    /// An optional field of `dict`, decoded by `coder`; nil if the key is absent.
    func optionalField<V>(_ dict: ObjectDict, _ key: String, _ coder: TypedCoder<V>) throws -> V? {
        guard let reference = try value(in: dict, escapedKey: key) else { return nil }
        return try withKeyPath(key) { try coder.decode(reference, self) }
    }

    /// An error about the content of an object that has the expected class: a count, range or
    /// name no such object can have.
    func invalid(_ dict: ObjectDict, _ reason: String) -> ArchiveError {
        ArchiveError(.invalidArchive, reason: reason, byteOffset: dict.object.offset, objectIndex: dict.index)
    }

    /// Decodes `reference` in Apple's layout if it is an object of one of `classes`; any other
    /// object as the `Codable` value this library wrote before it had that layout.
    func decodeAppleLayout<T>(_ reference: Int, classes: Set<String>, _ body: (ObjectDict) throws -> T) throws -> T {
        guard let dict = try object(reference, ofClassIn: classes) else { return try CodableCoder<T>().decode(reference, self) }
        return try reusingValue(of: dict, as: T.self) { try decodingValue(dict) { try body(dict) } }
    }
}

/// Unsigned LEB128 numbers, as `NSIndexSet` and `NSIndexPath` pack theirs.
enum PackedIntegers {
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Reads every number of `data`; nil (with the position of the bad number) if one is cut
    /// short or longer than 64 bits. Stops after `limit` numbers, so a count is checked before
    /// anything grows with it.
    static func read(_ data: Data, limit: Int) -> Result<[UInt64], PackedIntegerError> {
        var values: [UInt64] = []
        values.reserveCapacity(min(limit, data.count))
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var start = 0
        for (offset, byte) in data.enumerated() {
            if shift == 0 { start = offset }
            guard shift < 64, shift < 63 || byte & 0x7E == 0 else { return .failure(.tooLong(number: values.count, byte: start)) }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                guard values.count < limit else { return .failure(.tooMany(limit)) }
                values.append(value)
                value = 0
                shift = 0
            } else {
                shift += 7
            }
        }
        guard shift == 0 else { return .failure(.truncated(number: values.count, byte: start)) }
        return .success(values)
    }

    enum PackedIntegerError: Error {
        case tooLong(number: Int, byte: Int), truncated(number: Int, byte: Int), tooMany(Int)

        func describe(_ field: String) -> String {
            switch self {
            case .tooLong(let number, let byte): "\(field) number \(number) (at byte \(byte)) is longer than 64 bits"
            case .truncated(let number, let byte): "\(field) ends inside number \(number) (at byte \(byte))"
            case .tooMany(let limit): "\(field) holds more than the \(limit) numbers its count gives"
            }
        }
    }
}

extension UnarchiverCore {
    /// The packed numbers of the data field `key`, exactly `count` of them.
    func packedIntegers(_ dict: ObjectDict, _ key: String, count: Int) throws -> [UInt64] {
        let data = try field(dict, key, DataCoder())
        switch PackedIntegers.read(data, limit: count) {
        case .failure(let error): throw invalid(dict, error.describe(key)).prependingKeyPath(key)
        case .success(let values):
            guard values.count == count else {
                throw invalid(dict, "\(key) holds \(values.count) numbers where \(count) were expected").prependingKeyPath(key)
            }
            return values
        }
    }
}

// MARK: IndexSet

/// `IndexSet` as `NSIndexSet`: `NSRangeCount`; one range as `NSLocation` and `NSLength`, more
/// (or none) as `NSRangeData`, each range's location and length packed.
final class IndexSetCoder: TypeCoder {
    func encode(_ value: IndexSet, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let ranges = value.rangeView
        let frame = archiver.beginObject()
        archiver.addField(ArchiveFormat.rangeCountField, value: archiver.integer(Int64(ranges.count), inline: true))
        if ranges.count == 1, let range = ranges.first {
            archiver.addField(ArchiveFormat.rangeLocationField, value: archiver.integer(Int64(range.lowerBound), inline: true))
            archiver.addField(ArchiveFormat.rangeLengthField, value: archiver.integer(Int64(range.count), inline: true))
        } else {
            var bytes: [UInt8] = []
            for range in ranges {
                PackedIntegers.append(UInt64(range.lowerBound), to: &bytes)
                PackedIntegers.append(UInt64(range.count), to: &bytes)
            }
            archiver.addField(ArchiveFormat.rangeDataField, value: archiver.data(bytes, inline: false))
        }
        archiver.endObject(frame, className: "NSIndexSet", classes: ["NSIndexSet", ArchiveFormat.rootClass])
        return archiver.uid(frame.uid)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> IndexSet {
        try unarchiver.decodeAppleLayout(reference, classes: ArchiveFormat.indexSetClasses) { dict in
            let count = try unarchiver.field(dict, ArchiveFormat.rangeCountField, IntegerCoder<Int>())
            guard count >= 0 else { throw unarchiver.invalid(dict, "NSRangeCount \(count) is negative") }
            var pairs: [UInt64]
            if count == 1, try unarchiver.value(in: dict, escapedKey: ArchiveFormat.rangeDataField) == nil {
                pairs = [
                    UInt64(bitPattern: Int64(try unarchiver.field(dict, ArchiveFormat.rangeLocationField, IntegerCoder<Int>()))),
                    UInt64(bitPattern: Int64(try unarchiver.field(dict, ArchiveFormat.rangeLengthField, IntegerCoder<Int>()))),
                ]
            } else {
                // Two numbers per range, at least a byte each: a count the data cannot hold fails before anything is read.
                guard count <= Int.max / 2 else { throw unarchiver.invalid(dict, "NSRangeCount \(count) is too large") }
                pairs = try unarchiver.packedIntegers(dict, ArchiveFormat.rangeDataField, count: 2 * count)
            }
            // The ranges are in order and apart, as NSIndexSet keeps them: each is added after the
            // last, so building the set costs no more than reading them.
            try unarchiver.charge(count, for: dict)
            var set = IndexSet()
            var end: UInt64 = 0
            for i in 0..<count {
                let location = pairs[2 * i]
                let length = pairs[2 * i + 1]
                guard location <= UInt64(Int.max), length <= UInt64(Int.max) - location else {
                    throw unarchiver.invalid(dict, "range \(i) (location \(location), length \(length)) reaches past Int.max")
                }
                guard i == 0 || location >= end else {
                    throw unarchiver.invalid(dict, "range \(i) (location \(location)) starts before range \(i - 1) ends (\(end)); an index set's ranges are in order")
                }
                if length > 0 {
                    set.insert(integersIn: Int(location)..<Int(location + length))
                    end = location + length
                }
            }
            return set
        }
    }
}

// MARK: IndexPath

/// `IndexPath` as `NSIndexPath`: `NSIndexPathLength`; one index as `NSIndexPathValue`, more as
/// `NSIndexPathData`, packed.
final class IndexPathCoder: TypeCoder {
    func encode(_ value: IndexPath, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let frame = archiver.beginObject()
        archiver.addField(ArchiveFormat.indexPathLengthField, value: archiver.integer(Int64(value.count), inline: true))
        if value.count == 1 {
            archiver.addField(ArchiveFormat.indexPathValueField, value: archiver.integer(Int64(value[0]), inline: true))
        } else if value.count > 1 {
            var bytes: [UInt8] = []
            // NSIndexPath holds unsigned indexes; a negative Int keeps its bits.
            for index in value { PackedIntegers.append(UInt64(bitPattern: Int64(index)), to: &bytes) }
            archiver.addField(ArchiveFormat.indexPathDataField, value: archiver.data(bytes, inline: false))
        }
        archiver.endObject(frame, className: ArchiveFormat.indexPathClass, classes: [ArchiveFormat.indexPathClass, ArchiveFormat.rootClass])
        return archiver.uid(frame.uid)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> IndexPath {
        try unarchiver.decodeAppleLayout(reference, classes: [ArchiveFormat.indexPathClass]) { dict in
            let length = try unarchiver.field(dict, ArchiveFormat.indexPathLengthField, IntegerCoder<Int>())
            guard length >= 0 else { throw unarchiver.invalid(dict, "NSIndexPathLength \(length) is negative") }
            if length == 0 { return IndexPath() }
            if length == 1, let single = try unarchiver.optionalField(dict, ArchiveFormat.indexPathValueField, IntegerCoder<Int>()) {
                return IndexPath(index: single)
            }
            let indexes = try unarchiver.packedIntegers(dict, ArchiveFormat.indexPathDataField, count: length)
            try unarchiver.charge(length, for: dict)
            return IndexPath(indexes: indexes.map { Int(Int64(bitPattern: $0)) })
        }
    }
}

// MARK: Locale, TimeZone, Calendar

/// `Locale` as `NSLocale`: its identifier (`NS.identifier`).
final class LocaleCoder: TypeCoder {
    func encode(_ value: Locale, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        archiver.foundationObject(className: ArchiveFormat.localeClass, fields: [(ArchiveFormat.identifierField, archiver.string(value.identifier))])
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Locale {
        try unarchiver.decodeAppleLayout(reference, classes: [ArchiveFormat.localeClass]) { dict in
            Locale(identifier: try unarchiver.field(dict, ArchiveFormat.identifierField, StringCoder()))
        }
    }
}

/// `TimeZone` as `NSTimeZone`: its name (`NS.name`) and its TZif rules (`NS.data`; empty for a
/// fixed offset), which Foundation reads a name it does not know from. Reading here takes the
/// name only (`Europe/Paris`, `GMT+0100`): rules from an archive are never parsed.
final class TimeZoneCoder: TypeCoder {
    func encode(_ value: TimeZone, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let rules = (value as NSTimeZone).data
        return archiver.foundationObject(
            className: ArchiveFormat.timeZoneClass,
            fields: [(ArchiveFormat.nameField, archiver.string(value.identifier)), (ArchiveFormat.dataField, archiver.data([UInt8](rules), inline: false))])
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> TimeZone {
        try unarchiver.decodeAppleLayout(reference, classes: [ArchiveFormat.timeZoneClass]) { dict in
            let name = try unarchiver.field(dict, ArchiveFormat.nameField, StringCoder())
            // The archived rules are not parsed: a name this platform does not know is refused.
            guard let zone = TimeZone(identifier: name) else {
                throw unarchiver.invalid(dict, "the time zone \(quoted: name) is not known here").prependingKeyPath(ArchiveFormat.nameField)
            }
            return zone
        }
    }
}

/// `Calendar` as `NSCalendar`: `NS.identifier` (`gregorian`, `iso8601`, …), `NS.locale`,
/// `NS.timezone`, `NS.firstwkdy`, `NS.mindays`, and for the Gregorian calendar the date it
/// starts (`NS.gstartdate`, always 15 October 1582 here: Calendar has no way to change it).
final class CalendarCoder: TypeCoder {
    /// 1582-10-15T00:00:00Z.
    static let gregorianStart = Date(timeIntervalSinceReferenceDate: -13_197_600_000)

    func encode(_ value: Calendar, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let identifier = (value as NSCalendar).calendarIdentifier.rawValue
        let frame = archiver.beginObject()
        archiver.addField(ArchiveFormat.identifierField, value: archiver.string(identifier))
        if let locale = value.locale {
            archiver.addField(ArchiveFormat.calendarLocaleField, value: try LocaleCoder().encode(locale, inline: false, archiver))
        }
        archiver.addField(ArchiveFormat.calendarTimeZoneField, value: try TimeZoneCoder().encode(value.timeZone, inline: false, archiver))
        archiver.addField(ArchiveFormat.calendarFirstWeekdayField, value: archiver.integer(Int64(value.firstWeekday), inline: true))
        archiver.addField(ArchiveFormat.calendarMinimumDaysField, value: archiver.integer(Int64(value.minimumDaysInFirstWeek), inline: true))
        if value.identifier == .gregorian {
            archiver.addField(ArchiveFormat.calendarGregorianStartField, value: try DateCoder().encode(Self.gregorianStart, inline: false, archiver))
        }
        archiver.endObject(frame, className: ArchiveFormat.calendarClass, classes: [ArchiveFormat.calendarClass, ArchiveFormat.rootClass])
        return archiver.uid(frame.uid)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Calendar {
        try unarchiver.decodeAppleLayout(reference, classes: [ArchiveFormat.calendarClass]) { dict in
            let identifier = try unarchiver.field(dict, ArchiveFormat.identifierField, StringCoder())
            guard let made = NSCalendar(identifier: NSCalendar.Identifier(rawValue: identifier)) else {
                throw unarchiver.invalid(dict, "\(quoted: identifier) is not a calendar this platform knows").prependingKeyPath(ArchiveFormat.identifierField)
            }
            var calendar = made as Calendar
            calendar.locale = try unarchiver.optionalField(dict, ArchiveFormat.calendarLocaleField, OptionalCoder<Locale>()) ?? nil
            if let zone = try unarchiver.optionalField(dict, ArchiveFormat.calendarTimeZoneField, OptionalCoder<TimeZone>()), let zone {
                calendar.timeZone = zone
            }
            if let first = try unarchiver.optionalField(dict, ArchiveFormat.calendarFirstWeekdayField, IntegerCoder<Int>()) {
                guard (1...7).contains(first) else { throw unarchiver.invalid(dict, "NS.firstwkdy \(first) is outside 1...7") }
                calendar.firstWeekday = first
            }
            if let days = try unarchiver.optionalField(dict, ArchiveFormat.calendarMinimumDaysField, IntegerCoder<Int>()) {
                guard (1...7).contains(days) else { throw unarchiver.invalid(dict, "NS.mindays \(days) is outside 1...7") }
                calendar.minimumDaysInFirstWeek = days
            }
            return calendar
        }
    }
}

// MARK: NSValue

/// `NSRange` as an `NSValue` range: `NS.special` 4, `NS.rangeval.location`, `NS.rangeval.length`.
final class NSRangeCoder: TypeCoder {
    func encode(_ value: NSRange, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        archiver.rangeValue(location: value.location, length: value.length)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> NSRange {
        guard let dict = try unarchiver.object(reference, ofClassIn: [ArchiveFormat.valueClass]) else {
            return try CodableCoder<NSRange>().decode(reference, unarchiver)
        }
        let (location, length) = try unarchiver.rangeValue(in: dict)
        return NSRange(location: location, length: length)
    }
}

/// `Range<Int>` as an `NSValue` range (location and length). NSRange's location is unsigned in
/// Apple's Foundation, so a range reaching below zero keeps the `Codable` layout.
final class IntRangeCoder: TypeCoder {
    func encode(_ value: Range<Int>, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        guard value.lowerBound >= 0 else { return try CodableCoder<Range<Int>>().encode(value, inline: inline, archiver) }
        return archiver.rangeValue(location: value.lowerBound, length: value.count)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Range<Int> {
        guard let dict = try unarchiver.object(reference, ofClassIn: [ArchiveFormat.valueClass]) else {
            return try CodableCoder<Range<Int>>().decode(reference, unarchiver)
        }
        let (location, length) = try unarchiver.rangeValue(in: dict)
        return location..<(location + length)
    }
}

extension ArchiverCore {
    func rangeValue(location: Int, length: Int) -> Int {
        let frame = beginObject()
        addField(ArchiveFormat.valueKindField, value: integer(Int64(SpecialValueKind.range.rawValue), inline: true))
        // Location and length are NSNumber objects, as Foundation writes and reads them.
        addField(ArchiveFormat.rangeValueLocationField, value: integer(Int64(location), inline: false))
        addField(ArchiveFormat.rangeValueLengthField, value: integer(Int64(length), inline: false))
        endObject(frame, className: ArchiveFormat.valueClass, classes: [ArchiveFormat.valueClass, ArchiveFormat.rootClass])
        return uid(frame.uid)
    }
}

extension UnarchiverCore {
    /// The location and length of an `NSValue` range.
    func rangeValue(in dict: ObjectDict) throws -> (location: Int, length: Int) {
        try specialValue(dict, .range) { try rangeFields($0) }
    }

    /// Runs `body` on an `NSValue` object, if its `NS.special` is `kind`.
    func specialValue<R>(_ dict: ObjectDict, _ kind: SpecialValueKind, _ body: (ObjectDict) throws -> R) throws -> R {
        try enter(dict.index)
        defer { leave() }
        let found = try field(dict, ArchiveFormat.valueKindField, IntegerCoder<Int>())
        guard found == kind.rawValue else {
            throw invalid(dict, "expected an NSValue \(kind.name) (NS.special \(kind.rawValue)), found NS.special \(found)")
        }
        return try body(dict)
    }

    /// The location and length fields of an `NSValue` range: neither negative (they are unsigned
    /// in Apple's Foundation), and their sum within `Int.max`, so `NSMaxRange` and `Range(_:)`
    /// of the decoded range cannot overflow.
    private func rangeFields(_ dict: ObjectDict) throws -> (location: Int, length: Int) {
        let location = try field(dict, ArchiveFormat.rangeValueLocationField, IntegerCoder<Int>())
        let length = try field(dict, ArchiveFormat.rangeValueLengthField, IntegerCoder<Int>())
        guard location >= 0 else { throw invalid(dict, "NS.rangeval.location \(location) is negative") }
        guard length >= 0 else { throw invalid(dict, "NS.rangeval.length \(length) is negative") }
        guard length <= Int.max - location else {
            throw invalid(dict, "the range at \(location), of length \(length), reaches past Int.max")
        }
        return (location, length)
    }

    /// An `NSValue` decoded where any value is expected: a range as `NSRange`, a point, size or
    /// rectangle as `CGPoint`, `CGSize` or `CGRect`. Edge insets and values of other Objective-C
    /// types have no portable Swift type and are refused.
    func decodeSpecialValue(_ reference: Int) throws -> Any {
        let dict = try foundationObject(reference, classes: [ArchiveFormat.valueClass], expected: "a value")
        try enter(dict.index)
        defer { leave() }
        guard let kindRef = try value(in: dict, escapedKey: ArchiveFormat.valueKindField) else {
            let type = (try? optionalField(dict, "$0", StringCoder())).flatMap { $0 }.map { " of Objective-C type \($0)" } ?? ""
            throw ArchiveError(
                .unknownClass, reason: "the archive holds an NSValue\(type), which has no Swift type here; only ranges, points, sizes and rectangles are mapped",
                byteOffset: dict.object.offset, objectIndex: dict.index)
        }
        let kind = try withKeyPath(ArchiveFormat.valueKindField) { try IntegerCoder<Int>().decode(kindRef, self) }
        switch SpecialValueKind(rawValue: kind) {
        case .range:
            let (location, length) = try rangeFields(dict)
            return NSRange(location: location, length: length)
        case .point: return try GeometryCoder<CGPoint>.value(in: dict, self)
        case .size: return try GeometryCoder<CGSize>.value(in: dict, self)
        case .rect: return try GeometryCoder<CGRect>.value(in: dict, self)
        case .edgeInsets, nil:
            throw ArchiveError(
                .unknownClass,
                reason: "the archive holds an NSValue of kind \(kind) (NS.special)\(SpecialValueKind(rawValue: kind).map { ", \($0.name)" } ?? ""), which has no Swift type here; only ranges, points, sizes and rectangles are mapped",
                byteOffset: dict.object.offset, objectIndex: dict.index)
        }
    }
}

/// `CGPoint`, `CGSize` and `CGRect` as `NSValue`s: `NS.special` 1, 2 or 3 and the geometry as a
/// string, `{x, y}`, `{width, height}` or `{{x, y}, {width, height}}`. A value with a NaN or an
/// infinity, which the string cannot carry, keeps the `Codable` layout.
final class GeometryCoder<T>: TypeCoder {
    private static var kind: SpecialValueKind {
        T.self == CGPoint.self ? .point : T.self == CGSize.self ? .size : .rect
    }
    private static var field: String {
        switch kind {
        case .point: ArchiveFormat.pointValueField
        case .size: ArchiveFormat.sizeValueField
        default: ArchiveFormat.rectValueField
        }
    }

    func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let numbers: [Double] =
            switch value {
            case let point as CGPoint: [Double(point.x), Double(point.y)]
            case let size as CGSize: [Double(size.width), Double(size.height)]
            case let rect as CGRect: [Double(rect.origin.x), Double(rect.origin.y), Double(rect.size.width), Double(rect.size.height)]
            default: []
            }
        guard numbers.count >= 2, numbers.allSatisfy(\.isFinite) else { return try CodableCoder<T>().encode(value, inline: inline, archiver) }
        let pairs = stride(from: 0, to: numbers.count, by: 2).map { "{\(numbers[$0]), \(numbers[$0 + 1])}" }
        let text = pairs.count == 1 ? pairs[0] : "{\(pairs[0]), \(pairs[1])}"
        let frame = archiver.beginObject()
        archiver.addField(ArchiveFormat.valueKindField, value: archiver.integer(Int64(Self.kind.rawValue), inline: true))
        archiver.addField(Self.field, value: archiver.string(text))
        archiver.endObject(frame, className: ArchiveFormat.valueClass, classes: [ArchiveFormat.valueClass, ArchiveFormat.rootClass])
        return archiver.uid(frame.uid)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T {
        guard let dict = try unarchiver.object(reference, ofClassIn: [ArchiveFormat.valueClass]) else {
            return try CodableCoder<T>().decode(reference, unarchiver)
        }
        return try unarchiver.specialValue(dict, Self.kind) { try Self.value(in: $0, unarchiver) }
    }

    /// The geometry of an `NSValue` object already known to be of this coder's kind.
    static func value(in dict: UnarchiverCore.ObjectDict, _ unarchiver: UnarchiverCore) throws -> T {
        let shape = Self.kind == .rect ? "{{n,n},{n,n}}" : "{n,n}"
        let text = try unarchiver.field(dict, Self.field, StringCoder())
        guard let v = geometryNumbers(text, shape: shape) else {
            throw unarchiver.invalid(dict, "\(Self.field) \(quoted: text) is not of the form \(shape)").prependingKeyPath(Self.field)
        }
        let value: Any =
            switch Self.kind {
            case .point: CGPoint(x: v[0], y: v[1])
            case .size: CGSize(width: v[0], height: v[1])
            default: CGRect(x: v[0], y: v[1], width: v[2], height: v[3])
            }
        return value as! T
    }
}

/// The numbers of a geometry string such as `{{400, 300}, {200, 300}}`, if it has exactly the
/// form `shape` (`{n,n}` or `{{n,n},{n,n}}`, spaces aside) and every number reads as a finite Double.
func geometryNumbers(_ text: String, shape: String) -> [Double]? {
    var form = ""
    var numbers: [Double] = []
    var token = ""
    func endToken() -> Bool {
        defer { token = "" }
        if token.isEmpty { return true }
        guard let number = Double(token), number.isFinite else { return false }
        numbers.append(number)
        form.append("n")
        return true
    }
    for character in text {
        switch character {
        case "{", "}", ",":
            guard endToken() else { return nil }
            form.append(character)
        case " ", "\t", "\n":
            guard endToken() else { return nil }
        default:
            // Two numbers apart by a space would read as one form "nn" and fail the comparison.
            if token.isEmpty, form.last == "n" { form.append("n") }
            token.append(character)
        }
    }
    guard endToken(), form == shape else { return nil }
    return numbers
}
