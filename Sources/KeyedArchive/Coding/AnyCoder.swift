import Foundation
@_spi(Reader) import PropertyList

/// `Any`, `AnyObject` and `AnyHashable`: encoded by the value's dynamic type; decoded as
/// property-list values the way `JSONSerialization` gives them (Int, Double, Bool, String,
/// Data, Date, URL, UUID, `[Any]`, `[String: Any]`, `Set<AnyHashable>`, `NSNull`), or as a
/// registered or mapped type for any other class name.
final class AnyCoder<T>: TypedCoder<T>, @unchecked Sendable {
    override func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let unwrapped: Any = (value as? AnyHashable)?.base ?? value
        return try archiver.encodeDynamic(unwrapped, inline: inline)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T {
        let value = try unarchiver.decodeAny(reference)
        if T.self == AnyHashable.self {
            guard let hashable = value as? AnyHashable else { throw unarchiver.mismatch("a hashable value", reference) }
            return hashable as! T
        }
        return value as! T  // T is Any or AnyObject: every value converts
    }
}

extension ArchiverCore {
    /// Encodes a value by its dynamic type.
    func encodeDynamic(_ value: Any, inline: Bool) throws -> Int {
        if value is NSNull { return foundationObject(className: ArchiveFormat.nullClass, fields: []) }
        return try coders.coder(for: type(of: value)).encodeAny(value, inline: inline, self)
    }
}

extension UnarchiverCore {
    /// Decodes whatever a reference holds without a requested type.
    func decodeAny(_ reference: Int) throws -> Any {
        switch try target(reference) {
        case .null:
            return decodedNull
        case .inline(let object, let index):
            return try plainValue(object, index: index, reference: reference)
        case .object(let uid, let object, let index):
            guard object.kind == .dict, let (dict, description) = try objectDict(uid: uid, object: object, index: index) else {
                return try plainValue(object, index: index, reference: reference)
            }
            if let instance = instances[uid] { return instance }
            // The class itself if this process knows it, else the first known name in its chain or hints.
            let candidates = [description.name] + description.classes
            let name =
                candidates.first { mappedType(forClassName: $0) != nil || Self.foundationClasses.contains($0) }
                ?? description.name
            if ArchiveFormat.arrayClasses.contains(name) || ArchiveFormat.orderedSetClasses.contains(name) {
                return try ArrayCoder<Any>().decode(reference, self)
            }
            if ArchiveFormat.dictionaryClasses.contains(name) {
                let anyKeyed = try DictionaryCoder<AnyHashable, Any>().decode(reference, self)
                if anyKeyed.keys.allSatisfy({ $0.base is String }) {
                    return Dictionary(uniqueKeysWithValues: anyKeyed.map { ($0.key.base as! String, $0.value) })
                }
                return anyKeyed
            }
            if ArchiveFormat.setClasses.contains(name) { return try SetCoder<AnyHashable>().decode(reference, self) }
            if let mapped = mappedType(forClassName: name) {
                return try coders.coder(for: mapped).decodeAny(reference, self)
            }
            switch name {
            case ArchiveFormat.dateClass: return try DateCoder().decode(reference, self)
            case ArchiveFormat.urlClass: return try URLCoder().decode(reference, self)
            case ArchiveFormat.uuidClass: return try UUIDCoder().decode(reference, self)
            case ArchiveFormat.nullClass: return decodedNull
            case ArchiveFormat.decimalNumberClass: return try DecimalCoder().decode(reference, self)
            case _ where ArchiveFormat.stringClasses.contains(name): return try StringCoder.decodeValue(reference, self)
            case _ where ArchiveFormat.dataClasses.contains(name): return try DataCoder().decode(reference, self)
            default:
                _ = dict
                throw ArchiveError(
                    .unknownClass,
                    reason: "the archive holds an object of class \(name) where any value was expected; register its type with register(_:) or map the name with setClass(_:forClassName:)",
                    byteOffset: object.offset, objectIndex: index)
            }
        }
    }

    private static let foundationClasses: Set<String> = ArchiveFormat.arrayClasses
        .union(ArchiveFormat.orderedSetClasses).union(ArchiveFormat.dictionaryClasses).union(ArchiveFormat.setClasses)
        .union(ArchiveFormat.stringClasses).union(ArchiveFormat.dataClasses)
        .union([
            ArchiveFormat.dateClass, ArchiveFormat.urlClass, ArchiveFormat.uuidClass, ArchiveFormat.nullClass,
            ArchiveFormat.decimalNumberClass,
        ])

    /// A plain property-list value: integers as Int (or UInt64 above Int.max), 8-byte reals as
    /// Double and 4-byte reals as Float (what was archived from a `Float`).
    private func plainValue(_ object: BPlistDocument.Object, index: Int, reference: Int) throws -> Any {
        switch object.kind {
        case .bool: return object.marker == 0x09
        case .int:
            let value = try document.integer(object, index: index)
            if let small = value.int64Value { return Int(small) }
            return value.uint64Value!
        case .real:
            if case .float(let f) = document.real(object) { return f }
            return document.double(object)
        case .date: return Date(timeIntervalSinceReferenceDate: document.double(object))
        case .data: return try DataCoder().decode(reference, self)
        case .asciiString, .utf16String: return try string(object, index: index)
        default: throw mismatch("a property-list value", reference)
        }
    }
}
