import Foundation
@_spi(Reader) import PropertyList
import Synchronization

/// The archived fields of one `Archivable` type, built once from the runtime's field table and
/// checked against `Mirror`: names, archive keys, offsets and the coder of each field.
///
/// A class, so handing a layout to each object written costs one reference count, not a copy
/// of its arrays and strings.
// @unchecked: every property is a `let` set when the layout is built and never written again; what
// the checker cannot see through are the fields' unretained coders (kept alive by `coderObject`),
// the copy of `fields` in memory the layout owns, and `Any.Type` metadata.
final class FieldLayout: @unchecked Sendable {
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
        /// The field's coder, in an object of its own that keeps `borrowedCoder` valid.
        let coderObject: FieldCoder
        /// `coderObject`, for the hot loops: borrowing it costs no reference count.
        let borrowedCoder: Unretained<FieldCoder>
        let isVar: Bool
        /// How the field is written: the commonest scalar types straight into the table, the rest by `coder`.
        let kind: Kind

        /// The field's coder.
        var coder: any TypeCoder { coderObject.coder }
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
    /// `fields`, read where they lie for as long as the layout lives (a copied `Field` costs a
    /// retain and release per member).
    private let fixedFields: FixedElements<Field>
    /// `$classes`: the class name, superclass names, `NSObject`.
    let classes: [String]
    /// The superclasses named in `classes`, nearest first, so an archiver can rename them too.
    let superclasses: [Any.Type]
    /// Why reflection can neither archive nor unarchive the type: its first archived `let`
    /// field, which it cannot write; nil when every archived field is a `var`.
    let letFieldError: ArchiveError?
    /// Why no value of the type can be archived: its first archived `let` field (which decoding
    /// could not restore), else the problem with its versioning; nil for almost every type. Found
    /// once, when the layout is built, rather than for every object written.
    let encodeRefusal: ArchiveError?
    /// A small number unique to this layout in the process, so archivers can keep per-layout
    /// state in arrays instead of hashing.
    let number: Int

    private static let nextNumber = Atomic<Int>(0)

    /// ``fields``, read where they lie; valid while the layout lives.
    var borrowedFields: BorrowedElements<Field> { fixedFields.elements }

    private init(fields: [Field], classes: [String], superclasses: [Any.Type], letFieldError: ArchiveError?, versioningProblem: ArchiveError?) {
        self.fields = fields
        fixedFields = FixedElements(fields)
        self.classes = classes
        self.superclasses = superclasses
        self.letFieldError = letFieldError
        encodeRefusal = letFieldError ?? versioningProblem
        number = Self.nextNumber.add(1, ordering: .relaxed).oldValue
    }

    /// Builds the layout of `A`, whose versioning has `versioningProblem` (``TypeVersioning/problem``).
    ///
    /// - Throws: `.reflection` if the type is not a struct or class; `.notArchivable` if the
    ///   runtime's field table and `Mirror` disagree (``LayoutCheck``), or for a field that cannot
    ///   be coded (a function).
    static func build<A: Archivable>(_ type: A.Type, className: String, versioningProblem: ArchiveError?) throws -> FieldLayout {
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
            let coder: any TypeCoder
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
            let coderObject = FieldCoder(coder)
            fields.append(
                Field(
                    storedName: info.name, key: key, escapedKey: ArchiveFormat.escape(key),
                    keyID: ArchiveKeyIDs.id(for: ArchiveFormat.escape(key)), offset: info.offset, coderObject: coderObject,
                    borrowedCoder: Unretained(coderObject), isVar: info.isVar,
                    kind: Kind(info.type, isStrong: info.isStrong)))
        }
        return FieldLayout(
            fields: fields, classes: [className] + superclassNames + [ArchiveFormat.rootClass], superclasses: superclasses,
            letFieldError: fields.first { !$0.isVar }.map { letFieldError($0, of: A.self) }, versioningProblem: versioningProblem)
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
    private static func letFieldError(_ field: Field, of type: Any.Type) -> ArchiveError {
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

/// A field's coder in an object of its own, so the hot loops can borrow it through ``Unretained``
/// (a protocol value cannot be held unretained; an object holding it can).
final class FieldCoder: Sendable {
    let coder: any TypeCoder

    init(_ coder: any TypeCoder) {
        self.coder = coder
    }
}

/// The coder of a weak (`Optional<C>`) or unowned (`C`) field: assigns through a box with the field's layout.
private func nonStrongCoder(for type: Any.Type, ownership: ReferenceOwnership) -> (any TypeCoder)? {
    if let optional = type as? any OptionalTypeProtocol.Type {
        guard let referent = optional.wrappedType as? AnyObject.Type else { return nil }
        switch ownership {
        case .weak:
            func make<C: AnyObject>(_: C.Type) -> any TypeCoder { NonStrongFieldCoder<WeakReference<C>>() }
            return make(referent)
        case .unowned:
            func make<C: AnyObject>(_: C.Type) -> any TypeCoder { NonStrongFieldCoder<UnownedOptionalReference<C>>() }
            return make(referent)
        case .unmanaged:
            return nil
        }
    }
    guard ownership == .unowned else { return nil }
    guard let referent = type as? AnyObject.Type else { return nil }
    func make<C: AnyObject>(_: C.Type) -> any TypeCoder { NonStrongFieldCoder<UnownedReference<C>>() }
    return make(referent)
}

/// How a field that holds no strong reference is read and written: `weak var x: C?`,
/// `unowned var x: C` or `unowned var x: C?`, each through the box the runtime lays it out as.
private protocol NonStrongReference {
    /// The value the field is coded as (`C?` or `C`).
    associatedtype Value
    static func load(_ field: FieldAddress) -> Value
    static func assign(_ value: Value, to field: MutableFieldAddress)
}

/// `weak var x: C?`: read and written as a weak reference, so the runtime's weak-reference rules hold.
private enum WeakReference<C: AnyObject>: NonStrongReference {
    static func load(_ field: FieldAddress) -> C? { field.loadWeak(C.self) }
    static func assign(_ value: C?, to field: MutableFieldAddress) { field.assignWeak(value) }
}

/// `unowned var x: C`.
private enum UnownedReference<C: AnyObject>: NonStrongReference {
    static func load(_ field: FieldAddress) -> C { field.loadUnowned(C.self) }
    static func assign(_ value: C, to field: MutableFieldAddress) { field.assignUnowned(value) }
}

/// `unowned var x: C?`.
private enum UnownedOptionalReference<C: AnyObject>: NonStrongReference {
    static func load(_ field: FieldAddress) -> C? { field.loadUnownedOptional(C.self) }
    static func assign(_ value: C?, to field: MutableFieldAddress) { field.assignUnownedOptional(value) }
}

/// The coder of a field that holds no strong reference: its value is coded as `Reference.Value`
/// and read and written as `Reference` says. A failed decode leaves the field as it is, and a
/// copy of the field is not made: it holds no strong reference.
private final class NonStrongFieldCoder<Reference: NonStrongReference>: TypeCoder {
    private let value = CoderCache.global(Reference.Value.self)

    func encode(_ value: Reference.Value, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try self.value.encode(value, inline: inline, archiver)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Reference.Value {
        try value.decode(reference, unarchiver)
    }

    func encodeField(at field: FieldAddress, _ archiver: ArchiverCore) throws -> Int {
        try encode(Reference.load(field), inline: true, archiver)
    }

    func decodeField(_ reference: Int, at field: MutableFieldAddress, _ unarchiver: UnarchiverCore) throws {
        Reference.assign(try decode(reference, unarchiver), to: field)
    }

    func assignField(_ value: SetValue, at field: MutableFieldAddress) throws {
        Reference.assign(try value.read(as: Reference.Value.self), to: field)
    }

    func copyField(from source: FieldAddress, to field: MutableFieldAddress) {}
}
