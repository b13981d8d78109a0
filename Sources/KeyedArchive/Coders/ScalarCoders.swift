import Foundation
@_spi(Reader) import PropertyList

/// The coder of a property-list or Foundation value type, or nil if `type` is not one.
func primitiveCoder<T>(for type: T.Type) -> (any TypeCoder)? {
    switch type {
    case is String.Type: StringCoder()
    case is Bool.Type: BoolCoder()
    case is Int.Type: IntegerCoder<Int>()
    case is Int8.Type: IntegerCoder<Int8>()
    case is Int16.Type: IntegerCoder<Int16>()
    case is Int32.Type: IntegerCoder<Int32>()
    case is Int64.Type: IntegerCoder<Int64>()
    case is UInt.Type: IntegerCoder<UInt>()
    case is UInt8.Type: IntegerCoder<UInt8>()
    case is UInt16.Type: IntegerCoder<UInt16>()
    case is UInt32.Type: IntegerCoder<UInt32>()
    case is UInt64.Type: IntegerCoder<UInt64>()
    case is Double.Type: DoubleCoder()
    case is Float.Type: FloatCoder()
    case is Data.Type: DataCoder()
    case is Date.Type: DateCoder()
    case is URL.Type: URLCoder()
    case is UUID.Type: UUIDCoder()
    case is Decimal.Type: DecimalCoder()
    case is IndexSet.Type: IndexSetCoder()
    case is IndexPath.Type: IndexPathCoder()
    case is Locale.Type: LocaleCoder()
    case is TimeZone.Type: TimeZoneCoder()
    case is Calendar.Type: CalendarCoder()
    case is NSRange.Type: NSRangeCoder()
    case is Range<Int>.Type: IntRangeCoder()
    case is CGPoint.Type, is CGSize.Type, is CGRect.Type: GeometryCoder<T>()
    case is Notification.Type: NotificationCoder()
    case is NSCountedSet.Type: CountedSetCoder<T>()
    case is NSAttributedString.Type, is ArchivedAttributedString.Type: AttributedStringCoder<T>()
    // Foundation's objects for these values (what a value becomes inside an NSCountedSet or any
    // other object container) are archived as the values they bridge to.
    case is NSNotification.Type: BridgedObjectCoder<T, Notification>(NotificationCoder())
    case is NSIndexSet.Type: BridgedObjectCoder<T, IndexSet>(IndexSetCoder())
    case is NSIndexPath.Type: BridgedObjectCoder<T, IndexPath>(IndexPathCoder())
    case is NSLocale.Type: BridgedObjectCoder<T, Locale>(LocaleCoder())
    case is NSTimeZone.Type: BridgedObjectCoder<T, TimeZone>(TimeZoneCoder())
    case is NSCalendar.Type: BridgedObjectCoder<T, Calendar>(CalendarCoder())
    case is NSMeasurement.Type: BridgedObjectCoder<T, Measurement<Unit>>(MeasurementCoder<Unit>())
    default: nil
    }
}

/// A Foundation object (`NSNotification`, `NSIndexSet`, …) archived as the Swift value it bridges
/// to, by that value's coder; decoded as that value, bridged back.
final class BridgedObjectCoder<T, Value>: TypeCoder {  // immutable
    private let valueCoder: TypedCoder<Value>

    init(_ valueCoder: TypedCoder<Value>) {
        self.valueCoder = valueCoder
    }

    func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        guard let bridged = value as? Value else {
            throw ArchiveError(.notArchivable, reason: "\(String(reflecting: type(of: value))) does not bridge to \(String(reflecting: Value.self)), so it has no archived layout")
        }
        return try valueCoder.encode(bridged, inline: inline, archiver)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T {
        let value = try valueCoder.decode(reference, unarchiver)
        guard let object = (value as AnyObject) as? T else { throw unarchiver.mismatch(String(reflecting: T.self), reference) }
        return object
    }
}

final class IntegerCoder<I: FixedWidthInteger>: TypeCoder {
    func encode(_ value: I, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        I.isSigned ? archiver.integer(Int64(value), inline: inline) : archiver.unsignedInteger(UInt64(value), inline: inline)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> I {
        // `Int` (by far the commonest) through code compiled for it; this method is generic code.
        if I.self == Int.self { return sameType(try IntegerCoder<Int>.decodeValue(reference, unarchiver), as: I.self) }
        return try Self.decodeValue(reference, unarchiver)
    }

    /// Decodes an integer of type `I` (callers with a concrete `I` get code specialised for it).
    static func decodeValue(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> I {
        let (object, index) = try unarchiver.scalar(reference, expected: "an integer")
        guard object.kind == .int else { throw unarchiver.mismatch("an integer (\(I.self))", reference) }
        let (bits, aboveInt64) = try unarchiver.graph.integerBits(object, index: index)
        // Range checks on the 64-bit value, so no `Optional<I>` is needed per value.
        let fits: Bool
        if aboveInt64 {
            fits = !I.isSigned && I.bitWidth >= 64
        } else {
            let value = Int64(bitPattern: bits)
            if I.bitWidth >= 64 {
                fits = I.isSigned || value >= 0
            } else if I.isSigned {
                fits = value >= Int64(truncatingIfNeeded: I.min) && value <= Int64(truncatingIfNeeded: I.max)
            } else {
                fits = value >= 0 && value <= Int64(truncatingIfNeeded: I.max)
            }
        }
        guard fits else {
            let text = aboveInt64 ? String(bits) : String(Int64(bitPattern: bits))
            throw ArchiveError(
                .typeMismatch, reason: "the integer \(text) does not fit \(I.self)", byteOffset: object.offset, objectIndex: index)
        }
        return I(truncatingIfNeeded: bits)
    }
}

final class BoolCoder: TypeCoder {
    func encode(_ value: Bool, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        archiver.boolean(value, inline: inline)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Bool {
        try Self.decodeValue(reference, unarchiver)
    }

    static func decodeValue(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Bool {
        let (object, _) = try unarchiver.scalar(reference, expected: "a boolean")
        guard object.kind == .bool else { throw unarchiver.mismatch("a boolean", reference) }
        return unarchiver.graph.boolean(object)
    }
}

final class DoubleCoder: TypeCoder {
    func encode(_ value: Double, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        archiver.real(value, inline: inline)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Double {
        try Self.decodeValue(reference, unarchiver)
    }

    static func decodeValue(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Double {
        let (object, index) = try unarchiver.scalar(reference, expected: "a real")
        switch object.kind {
        case .real:
            return unarchiver.graph.double(object)
        case .int:
            // Whole numbers written as integers (JSON-like data) read as reals when exact.
            let value = try unarchiver.graph.integer(object, index: index)
            if let v = value.int64Value, let d = Double(exactly: v) { return d }
            if let v = value.uint64Value, let d = Double(exactly: v) { return d }
            throw unarchiver.mismatch("a real", reference)
        default:
            throw unarchiver.mismatch("a real", reference)
        }
    }
}

final class FloatCoder: TypeCoder {
    func encode(_ value: Float, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        archiver.float(value, inline: inline)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Float {
        let value = try DoubleCoder.decodeValue(reference, unarchiver)
        let narrowed = Float(value)
        guard narrowed.isFinite || !value.isFinite else {
            throw ArchiveError(
                .typeMismatch, reason: "the real \(value) is out of range for Float",
                byteOffset: unarchiver.graph.offset(of: reference), objectIndex: reference)
        }
        return narrowed
    }
}

final class StringCoder: TypeCoder {
    func encode(_ value: String, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        archiver.string(value)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> String {
        try Self.decodeValue(reference, unarchiver)
    }

    static func decodeValue(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> String {
        let (object, index) = try unarchiver.scalar(reference, expected: "a string")
        switch object.kind {
        case .asciiString, .utf16String:
            return try unarchiver.string(object, index: index)
        case .dict:
            // NSMutableString and friends: {NS.string: "…", $class: NSMutableString}.
            if case .object(let uid, _, _) = try unarchiver.target(reference),
                let (dict, description) = try unarchiver.objectDict(uid: uid, object: object, index: index),
                ArchiveFormat.stringClasses.contains(description.name) || description.classes.contains("NSString"),
                let inner = try unarchiver.value(in: dict, escapedKey: ArchiveFormat.stringField)
            {
                // The inner value must be a plain string: no further NS.string objects (no recursion).
                let (innerObject, innerIndex) = try unarchiver.scalar(inner, expected: "a string")
                guard innerObject.kind == .asciiString || innerObject.kind == .utf16String else {
                    throw unarchiver.mismatch("a string", inner).prependingKeyPath(ArchiveFormat.stringField)
                }
                return try unarchiver.string(innerObject, index: innerIndex)
            }
            throw unarchiver.mismatch("a string", reference)
        default:
            throw unarchiver.mismatch("a string", reference)
        }
    }
}

final class DataCoder: TypeCoder {
    func encode(_ value: Data, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        archiver.data([UInt8](value), inline: false)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Data {
        let (object, index) = try unarchiver.scalar(reference, expected: "data")
        switch object.kind {
        case .data:
            return unarchiver.graph.data(object)
        case .dict:
            if case .object(let uid, _, _) = try unarchiver.target(reference),
                let (dict, description) = try unarchiver.objectDict(uid: uid, object: object, index: index),
                ArchiveFormat.dataClasses.contains(description.name) || description.classes.contains("NSData"),
                let inner = try unarchiver.value(in: dict, escapedKey: ArchiveFormat.dataField)
            {
                // The inner value must be plain data: no further NS.data objects (no recursion).
                let (innerObject, _) = try unarchiver.scalar(inner, expected: "data")
                guard innerObject.kind == .data else {
                    throw unarchiver.mismatch("data", inner).prependingKeyPath(ArchiveFormat.dataField)
                }
                return unarchiver.graph.data(innerObject)
            }
            throw unarchiver.mismatch("data", reference)
        default:
            throw unarchiver.mismatch("data", reference)
        }
    }
}

final class DateCoder: TypeCoder {
    func encode(_ value: Date, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        // The time, the object, then its key: the order the objects have always been added in.
        let time = archiver.real(value.timeIntervalSinceReferenceDate, inline: true)
        let frame = archiver.beginObject()
        archiver.appendField(archiver.wellKnownKey(&archiver.wellKnown.timeKey, ArchiveFormat.timeField), value: time)
        archiver.endObject(frame, classUID: archiver.wellKnownClass(&archiver.wellKnown.dateClass, ArchiveFormat.dateClass))
        return archiver.uid(frame.uid)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Date {
        if case .object(_, let object, _) = try unarchiver.target(reference), object.kind == .date {
            return Date(timeIntervalSinceReferenceDate: unarchiver.graph.date(object))
        }
        let dict = try unarchiver.dateObject(reference)
        let time = try unarchiver.requiredField(dict, ArchiveFormat.timeField, id: ArchiveKeyIDs.timeKey)
        return Date(timeIntervalSinceReferenceDate: try withKeyPath(ArchiveFormat.timeField) { try DoubleCoder.decodeValue(time, unarchiver) })
    }
}

final class URLCoder: TypeCoder {
    func encode(_ value: URL, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let base = try value.baseURL.map { try encode($0, inline: false, archiver) } ?? archiver.nullReference
        return archiver.foundationObject(
            className: ArchiveFormat.urlClass,
            fields: [(ArchiveFormat.baseField, base), (ArchiveFormat.relativeField, archiver.string(value.relativeString))])
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> URL {
        let dict = try unarchiver.foundationObject(reference, classes: [ArchiveFormat.urlClass], expected: "a URL")
        try unarchiver.enter(dict.index)
        defer { unarchiver.leave() }
        let relative = try withKeyPath(ArchiveFormat.relativeField) {
            try StringCoder.decodeValue(try unarchiver.requiredField(dict, ArchiveFormat.relativeField), unarchiver)
        }
        var base: URL?
        if let baseRef = try unarchiver.value(in: dict, escapedKey: ArchiveFormat.baseField) {
            base = try withKeyPath(ArchiveFormat.baseField) { try OptionalCoder<URL>().decode(baseRef, unarchiver) }
        }
        guard let url = URL(string: relative, relativeTo: base) else {
            throw ArchiveError(.typeMismatch, reason: "\(quoted: relative) is not a valid URL", byteOffset: dict.object.offset, objectIndex: dict.index)
        }
        return url
    }
}

final class UUIDCoder: TypeCoder {
    func encode(_ value: UUID, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let u = value.uuid
        let bytes = [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]
        return archiver.foundationObject(
            className: ArchiveFormat.uuidClass, fields: [(ArchiveFormat.uuidBytesField, archiver.data(bytes, inline: true))])
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> UUID {
        let dict = try unarchiver.foundationObject(reference, classes: [ArchiveFormat.uuidClass], expected: "a UUID")
        let bytes = try withKeyPath(ArchiveFormat.uuidBytesField) {
            try DataCoder().decode(try unarchiver.requiredField(dict, ArchiveFormat.uuidBytesField), unarchiver)
        }
        guard bytes.count == 16 else {
            throw ArchiveError(
                .typeMismatch, reason: "NS.uuidbytes holds \(bytes.count) bytes; a UUID needs 16",
                byteOffset: dict.object.offset, objectIndex: dict.index, keyPath: ArchiveFormat.uuidBytesField)
        }
        let b = [UInt8](bytes)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}

/// The one `NSNull` decoding hands out, for every null it reads.
///
/// All `NSNull`s are equal, but Foundation on Linux makes a new instance per `NSNull()` and hashes
/// it by identity, so two of them as dictionary keys or set elements break `Hashable`'s rule
/// (equal values, equal hashes): whether two null keys were seen as one, and whether a `Dictionary`
/// or `Set` trapped on them, followed the process's hash seed. One instance hashes alike wherever
/// it appears. (On Apple platforms `NSNull()` is this kind of singleton already.)
let decodedNull = NSNull()

final class NullCoder<T>: TypeCoder {
    func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        archiver.foundationObject(className: ArchiveFormat.nullClass, fields: [])
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T {
        _ = try unarchiver.foundationObject(reference, classes: [ArchiveFormat.nullClass], expected: "NSNull")
        guard let null = decodedNull as? T else { throw unarchiver.mismatch("\(T.self)", reference) }
        return null
    }
}

/// Enums and other `RawRepresentable` types whose raw value is a property-list value.
final class RawRepresentableCoder<R: RawRepresentable>: TypeCoder {
    func encode(_ value: R, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.coders.typed(R.RawValue.self).encode(value.rawValue, inline: inline, archiver)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> R {
        let raw = try unarchiver.coders.typed(R.RawValue.self).decode(reference, unarchiver)
        guard let value = R(rawValue: raw) else {
            throw ArchiveError(
                .typeMismatch, reason: "\(raw) is not a raw value of \(String(reflecting: R.self))",
                byteOffset: unarchiver.graph.offset(of: reference), objectIndex: reference)
        }
        return value
    }
}
