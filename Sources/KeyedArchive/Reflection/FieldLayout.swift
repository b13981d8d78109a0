// Unsafe code in this file: weak and unowned fields are read and written through their address, as the box type
// the runtime lays them out as.

import Foundation
@_spi(Reader) import PropertyList
import Synchronization

/// The archived fields of one `Archivable` type, built once from the runtime's field table and
/// checked against `Mirror`: names, archive keys, offsets and the coder of each field.
///
/// A class, so handing a layout to each object written costs one reference count, not a copy
/// of its arrays and strings.
final class FieldLayout: @unchecked Sendable {  // immutable; TypeCoder instances are immutable
    struct Field {
        /// The stored name (`_x`, `$__lazy_storage_$_x`, `x`).
        let storedName: String
        /// The archive key as the user sees it.
        let key: String
        /// The archive key as stored (`$`-prefixed keys get one more `$`).
        let escapedKey: String
        /// `escapedKey`'s number in ``ArchiveKeyIDs``.
        let keyID: Int32
        let offset: Int
        let coder: TypeCoder
        /// `coder` without ownership, for the hot loops: calling through it costs no reference
        /// count (the layout's `coder` keeps it alive for as long as the layout lives).
        let unownedCoder: Unmanaged<TypeCoder>
        let isVar: Bool
        /// How the field is written: the commonest scalar types straight into the table, the rest by `coder`.
        let kind: Kind
    }

    /// Field types written without going through their coder (none of them can fail).
    enum Kind {
        case int, double, bool, string, other

        init(_ type: Any.Type, isStrong: Bool) {
            switch type {
            case _ where !isStrong: self = .other
            case is Int.Type: self = .int
            case is Double.Type: self = .double
            case is Bool.Type: self = .bool
            case is String.Type: self = .string
            default: self = .other
            }
        }
    }

    let fields: [Field]
    /// `$classes`: the class name, superclass names, `NSObject`.
    let classes: [String]
    /// The superclasses named in `classes`, nearest first, so an archiver can rename them too.
    let superclasses: [Any.Type]
    /// The first archived `let` field, which reflection cannot write.
    let letField: Field?
    /// A small number unique to this layout in the process, so archivers can keep per-layout
    /// state in arrays instead of hashing.
    let number: Int

    private static let nextNumber = Atomic<Int>(0)

    private init(fields: [Field], classes: [String], superclasses: [Any.Type], letField: Field?) {
        self.fields = fields
        self.classes = classes
        self.superclasses = superclasses
        self.letField = letField
        number = Self.nextNumber.add(1, ordering: .relaxed).oldValue
    }

    /// Builds the layout of `A`.
    ///
    /// - Throws: `.reflection` if the type is not a struct or class; `.notArchivable` if the
    ///   runtime's field table and `Mirror` disagree (``LayoutCheck``), or for a field that cannot
    ///   be coded (a function).
    static func build<A: Archivable>(_ type: A.Type, className: String) throws -> FieldLayout {
        let typeName = String(reflecting: A.self)
        guard let table = FieldTable(A.self) else {
            throw ArchiveError(
                .reflection,
                reason: "\(typeName) is not a struct or class, so reflection cannot code it; adopt KeyedCoding or Codable")
        }
        // Mirror defines the archived fields; the field table must agree with it on one instance
        // before any field is read or written through it.
        let fieldInfos = LayoutCheck.fields(of: table)
        try LayoutCheck.verify(fieldInfos, of: A(), typeName: typeName)
        let names = fieldInfos.map(\.name)
        // Superclasses are named as each is archived itself: its declared name, else its module-qualified one.
        var coders = CoderCache()
        let superclasses = archivedSuperclasses(of: A.self)
        let superclassNames = superclasses.map { coders.coder(for: $0).className ?? defaultClassName(of: $0) }
        if let shared = zip(superclasses, superclassNames).first(where: { $0.1 == className }) {
            // A `static var archiveClassName` in a base class is inherited: the subclass would be
            // read back as its base class.
            throw ArchiveError(
                .notArchivable,
                reason: "\(typeName) and its superclass \(String(reflecting: shared.0)) are both archived as \"\(className)\", so one would be read back as the other; declare archiveClassName as a class var in \(String(reflecting: shared.0)) and override it in \(typeName)")
        }
        let storedNames = Set(names)
        var fields: [Field] = []
        var keys: Set<String> = []
        for info in fieldInfos {
            let property = propertyName(info.name, siblings: storedNames)
            guard !generatedStorage.contains(info.name) else { continue }
            guard !A.transientFields.contains(property), !A.transientFields.contains(info.name) else { continue }
            let key = A.archiveKeys[property] ?? A.archiveKeys[info.name] ?? property
            guard info.hasGenericRepresentation else {
                throw ArchiveError(
                    .notArchivable,
                    reason: "\(typeName).\(property) holds a function or a metatype, which cannot be archived; list it in transientFields")
            }
            guard keys.insert(key).inserted else {
                throw ArchiveError(
                    .notArchivable, reason: "two fields of \(typeName) are archived under the key \"\(key)\"; rename one in archiveKeys")
            }
            let coder: TypeCoder
            if info.isStrong {
                coder = coders.coder(for: info.type)
            } else if info.ownership == .unmanaged {
                throw ArchiveError(
                    .notArchivable,
                    reason: "\(typeName).\(property) is unowned(unsafe): a decoded object could be freed while the field still points at it; list it in transientFields or make it weak")
            } else if let ownership = info.ownership, let nonStrong = nonStrongCoder(for: info.type, ownership: ownership) {
                coder = nonStrong
            } else {
                throw ArchiveError(
                    .notArchivable,
                    reason: "\(typeName).\(property) is a weak or unowned reference of a type reflection cannot assign (\(info.type)); list it in transientFields")
            }
            fields.append(
                Field(
                    storedName: info.name, key: key, escapedKey: ArchiveFormat.escape(key),
                    keyID: ArchiveKeyIDs.id(for: ArchiveFormat.escape(key)), offset: info.offset, coder: coder,
                    unownedCoder: Unmanaged.passUnretained(coder), isVar: info.isVar,
                    kind: Kind(info.type, isStrong: info.isStrong)))
        }
        return FieldLayout(
            fields: fields, classes: [className] + superclassNames + [ArchiveFormat.rootClass], superclasses: superclasses,
            letField: fields.first { !$0.isVar })
    }

    /// The superclasses of `type` that `$classes` names, nearest first: its Swift superclasses
    /// below `NSObject`. An Objective-C class (`NSObject`, or the `SwiftObject` above a Swift root
    /// class on Apple platforms) has no archive name of its own; the `NSObject` that ends every
    /// chain stands for it. On Linux `NSObject` is itself a Swift class; the chain stops at it
    /// there too, so an `NSObject` subclass archives to the same bytes on every platform.
    static func archivedSuperclasses(of type: Any.Type) -> [Any.Type] {
        Array(TypeMetadata.swiftClassChain(type).dropFirst().prefix { $0 != NSObject.self })
    }

    /// Stored fields that macros add to a type for their own bookkeeping, never archived: a
    /// fresh one comes from `init()`. `@Observable`'s registrar, and SwiftData `@Model`'s
    /// registrar and backing data.
    static let generatedStorage: Set<String> = ["_$observationRegistrar", "_$backingData"]

    /// The error for archiving or unarchiving a type whose archived fields include `field`, a `let`.
    func letFieldError(_ field: Field, of type: Any.Type) -> ArchiveError {
        ArchiveError(
            .letField,
            reason: "\(String(reflecting: type)).\(field.key) is a let constant; reflection cannot restore it. Declare it var, list it in transientFields, or adopt KeyedCoding or Codable",
            keyPath: field.key)
    }

    /// The property a stored field belongs to: `$__lazy_storage_$_x` and a wrapper's `_x` are `x`.
    static func propertyName(_ stored: String, siblings: Set<String>) -> String {
        let lazyPrefix = "$__lazy_storage_$_"
        if stored.hasPrefix(lazyPrefix) { return String(stored.dropFirst(lazyPrefix.count)) }
        if stored.hasPrefix("_"), stored.count > 1 {
            let property = String(stored.dropFirst())
            if !siblings.contains(property) { return property }
        }
        return stored
    }
}

/// The coder of a weak (`Optional<C>`) or unowned (`C`) field: assigns through a box with the field's layout.
private func nonStrongCoder(for type: Any.Type, ownership: ReferenceOwnership) -> TypeCoder? {
    if let optional = type as? any OptionalTypeProtocol.Type {
        guard let referent = optional.wrappedType as? AnyObject.Type else { return nil }
        switch ownership {
        case .weak:
            func make<C: AnyObject>(_: C.Type) -> TypeCoder { WeakFieldCoder<C>() }
            return make(referent)
        case .unowned:
            func make<C: AnyObject>(_: C.Type) -> TypeCoder { UnownedOptionalFieldCoder<C>() }
            return make(referent)
        case .unmanaged:
            return nil
        }
    }
    guard ownership == .unowned else { return nil }
    guard let referent = type as? AnyObject.Type else { return nil }
    func make<C: AnyObject>(_: C.Type) -> TypeCoder { UnownedFieldCoder<C>() }
    return make(referent)
}

/// `weak var x: C?`: read and written through `WeakBox<C>`, so the runtime's weak-reference rules hold.
private final class WeakFieldCoder<C: AnyObject>: TypeCoder, @unchecked Sendable {
    override func encodeField(at pointer: UnsafeRawPointer, _ archiver: ArchiverCore) throws -> Int {
        let value = pointer.assumingMemoryBound(to: WeakBox<C>.self).pointee.value
        return try archiver.coders.typed(C?.self).encode(value, inline: true, archiver)
    }

    override func decodeField(_ reference: Int, at pointer: UnsafeMutableRawPointer, _ unarchiver: UnarchiverCore) throws {
        let value = try unarchiver.coders.typed(C?.self).decode(reference, unarchiver)
        pointer.assumingMemoryBound(to: WeakBox<C>.self).pointee.value = value
    }

    override func assignField(_ value: SetValue, at pointer: UnsafeMutableRawPointer) throws {
        pointer.assumingMemoryBound(to: WeakBox<C>.self).pointee.value = try value.read(as: C?.self)
    }
}

/// `unowned var x: C`: read and written through `UnownedBox<C>`.
private final class UnownedFieldCoder<C: AnyObject>: TypeCoder, @unchecked Sendable {
    override func encodeField(at pointer: UnsafeRawPointer, _ archiver: ArchiverCore) throws -> Int {
        let value = pointer.assumingMemoryBound(to: UnownedBox<C>.self).pointee.value
        return try archiver.coders.typed(C.self).encode(value, inline: true, archiver)
    }

    override func decodeField(_ reference: Int, at pointer: UnsafeMutableRawPointer, _ unarchiver: UnarchiverCore) throws {
        let value = try unarchiver.coders.typed(C.self).decode(reference, unarchiver)
        pointer.assumingMemoryBound(to: UnownedBox<C>.self).pointee.value = value
    }

    override func assignField(_ value: SetValue, at pointer: UnsafeMutableRawPointer) throws {
        pointer.assumingMemoryBound(to: UnownedBox<C>.self).pointee.value = try value.read(as: C.self)
    }
}

/// `unowned var x: C?`: read and written through `UnownedOptionalBox<C>`.
private final class UnownedOptionalFieldCoder<C: AnyObject>: TypeCoder, @unchecked Sendable {
    override func encodeField(at pointer: UnsafeRawPointer, _ archiver: ArchiverCore) throws -> Int {
        let value = pointer.assumingMemoryBound(to: UnownedOptionalBox<C>.self).pointee.value
        return try archiver.coders.typed(C?.self).encode(value, inline: true, archiver)
    }

    override func decodeField(_ reference: Int, at pointer: UnsafeMutableRawPointer, _ unarchiver: UnarchiverCore) throws {
        let value = try unarchiver.coders.typed(C?.self).decode(reference, unarchiver)
        pointer.assumingMemoryBound(to: UnownedOptionalBox<C>.self).pointee.value = value
    }

    override func assignField(_ value: SetValue, at pointer: UnsafeMutableRawPointer) throws {
        pointer.assumingMemoryBound(to: UnownedOptionalBox<C>.self).pointee.value = try value.read(as: C?.self)
    }
}
