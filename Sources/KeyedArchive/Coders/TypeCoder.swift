import Foundation
@_spi(Reader) import PropertyList
import Synchronization

/// How one Swift type, `Coded`, is archived and unarchived. One instance per type, made once and cached.
///
/// Held as `any TypeCoder` where only a field's `Any.Type` is known (reflection reads and writes
/// fields at their addresses through the field entry points), and as ``TypedCoder`` where the type
/// is known. Coders hold no mutable state, so they are shared between archivers and threads.
///
/// A coder implements ``encode(_:inline:_:)`` and ``decode(_:_:)``; the extensions give every
/// other requirement its usual meaning in their terms.
protocol TypeCoder<Coded>: AnyObject, Sendable {
    /// The type this coder archives.
    associatedtype Coded

    /// The class name this type is archived under, if it is archived as a coded object.
    var className: String? { get }

    /// Earlier class names read as this type (`archiveLegacyClassNames`).
    var legacyClassNames: [String] { get }

    /// The class names of the coded objects a value of this type is made of at its top: its own
    /// name and earlier names, or, for an Optional or a collection, its elements'.
    var archivedNames: [String] { get }

    /// For a collection type (or an Optional of one), the kind of Foundation collection it is
    /// archived as; nil for anything else.
    var archivedCollection: ArchivedCollection? { get }

    /// Encodes `value`; `inline` allows scalars to be stored in place of a UID (inside object fields).
    func encode(_ value: Coded, inline: Bool, _ archiver: ArchiverCore) throws -> Int

    /// Decodes the value a reference (a UID, or an inline scalar) stands for.
    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Coded

    /// Encodes the collection element at `element` (never inline); coders of structs write the
    /// element from where it lies instead of copying it out.
    func encodeElement(at element: FieldAddress, _ archiver: ArchiverCore) throws -> Int

    /// Encodes the value of the field at `field` (scalars inline); returns the table index to store.
    func encodeField(at field: FieldAddress, _ archiver: ArchiverCore) throws -> Int

    /// Decodes `reference` and assigns it to the initialised field at `field`.
    func decodeField(_ reference: Int, at field: MutableFieldAddress, _ unarchiver: UnarchiverCore) throws

    /// Assigns a value a migration set (``ArchivedObject/set(_:forKey:)``) to the initialised
    /// field at `field`.
    func assignField(_ value: SetValue, at field: MutableFieldAddress) throws

    /// Assigns the field at `source` to the initialised field at `field`, both fields this coder
    /// codes. Weak and unowned fields are left as they are: they hold no strong reference.
    func copyField(from source: FieldAddress, to field: MutableFieldAddress)

    /// Encodes a value given as `Any` whose dynamic type is `Coded`.
    func encodeAny(_ value: Any, inline: Bool, _ archiver: ArchiverCore) throws -> Int

    /// Decodes `reference` as `Coded`, boxed.
    func decodeAny(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Any

    /// This coder as the typed coder of `type`, which must be `Coded`.
    func typed<T>(as type: T.Type) -> TypedCoder<T>

    /// Lets go of what a failed decode stored in `instances`, which this coder's type created
    /// and the failure keeps from ever being handed out; see ``UnarchiverCore/abandonInstances(from:)``.
    /// Only coders that fill a class instance's fields themselves (reflection) have anything to do.
    func resetDecodedFields(of instances: [AnyObject])
}

/// The coder of `T`, held without knowing its class.
typealias TypedCoder<T> = any TypeCoder<T>

extension TypeCoder {
    var className: String? { nil }

    var legacyClassNames: [String] { [] }

    var archivedNames: [String] { className.map { [$0] + legacyClassNames } ?? [] }

    var archivedCollection: ArchivedCollection? { nil }

    func encodeElement(at element: FieldAddress, _ archiver: ArchiverCore) throws -> Int {
        try encode(element.load(as: Coded.self), inline: false, archiver)
    }

    func encodeField(at field: FieldAddress, _ archiver: ArchiverCore) throws -> Int {
        try encode(field.load(as: Coded.self), inline: true, archiver)
    }

    func decodeField(_ reference: Int, at field: MutableFieldAddress, _ unarchiver: UnarchiverCore) throws {
        field.assign(try decode(reference, unarchiver), as: Coded.self)
    }

    func assignField(_ value: SetValue, at field: MutableFieldAddress) throws {
        field.assign(try value.read(as: Coded.self), as: Coded.self)
    }

    func copyField(from source: FieldAddress, to field: MutableFieldAddress) {
        field.assign(Coded.self, from: source)
    }

    func encodeAny(_ value: Any, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        guard let typed = value as? Coded else {
            throw ArchiveError(.typeMismatch, reason: "a \(type(of: value)) was given where a \(Coded.self) was expected")
        }
        return try encode(typed, inline: inline, archiver)
    }

    func decodeAny(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Any {
        try decode(reference, unarchiver)
    }

    func typed<T>(as type: T.Type) -> TypedCoder<T> {
        precondition(T.self == Coded.self, "the coder of \(Coded.self) was asked for as the coder of \(T.self)")
        return sameType(self as TypedCoder<Coded>, as: TypedCoder<T>.self)
    }

    func resetDecodedFields(of instances: [AnyObject]) {}
}

/// The coders one archiver or unarchiver has used, in front of the process-wide cache.
struct CoderCache {
    private static let shared = Locked<[ObjectIdentifier: any TypeCoder]>([:])
    private var local: [ObjectIdentifier: any TypeCoder] = [:]

    mutating func coder(for type: Any.Type) -> any TypeCoder {
        let id = ObjectIdentifier(type)
        if let coder = local[id] { return coder }
        let coder = Self.shared.withLock { $0[id] } ?? {
            // Built outside the lock: making a coder may make others.
            let made = makeCoder(for: type)
            return Self.shared.withLock { cache in
                if let raced = cache[id] { return raced }
                cache[id] = made
                return made
            }
        }()
        local[id] = coder
        return coder
    }

    mutating func typed<T>(_ type: T.Type) -> TypedCoder<T> {
        coder(for: type).typed(as: T.self)
    }

    /// The process-wide coder of `T`, for coders that hold their element coders.
    ///
    /// Making a coder never builds a reflection layout, so coders of recursive types
    /// (`Node` holding `[Node]`) can hold each other without recursing forever.
    static func global<T>(_ type: T.Type) -> TypedCoder<T> {
        var cache = CoderCache()
        return cache.typed(type)
    }
}

/// Chooses the strategy for a type, in the documented order: property-list and Foundation values,
/// Optional and collections, `KeyedCoding`, `Archivable`, `RawRepresentable`, `Codable`, `Any`; else an error coder.
private func makeCoder(for type: Any.Type) -> any TypeCoder {
    func open<T>(_: T.Type) -> any TypeCoder { classify(T.self) }
    return _openExistential(type, do: open)
}

private func classify<T>(_ type: T.Type) -> any TypeCoder {
    if let primitive = primitiveCoder(for: type) { return primitive }
    if let family = FoundationFamily(type) { return FoundationObjectCoder<T>(family) }
    if let container = type as? any ArchiveContainer.Type { return container.makeCoder() }
    if let keyed = type as? any KeyedCoding.Type { return keyedCodingCoder(keyed) }
    if let archivable = type as? any Archivable.Type { return reflectionCoder(archivable) }
    if let raw = type as? any RawRepresentable.Type, let coder = rawRepresentableCoder(raw) { return coder }
    if type is any Encodable.Type || type is any Decodable.Type { return CodableCoder<T>() }
    if type == Any.self || type == AnyObject.self || type == AnyHashable.self { return AnyCoder<T>() }
    if type is AnyObject.Type, type is NSNull.Type { return NullCoder<T>() }
    return UnsupportedCoder<T>()
}

private func keyedCodingCoder<K: KeyedCoding>(_: K.Type) -> any TypeCoder { KeyedCodingCoder<K>() }
private func reflectionCoder<A: Archivable>(_: A.Type) -> any TypeCoder { ReflectionCoder<A>() }
private func rawRepresentableCoder<R: RawRepresentable>(_: R.Type) -> (any TypeCoder)? {
    primitiveCoder(for: R.RawValue.self) == nil ? nil : RawRepresentableCoder<R>()
}

/// The kinds of Foundation collection a Swift collection is archived as.
package enum ArchivedCollection: Sendable {
    /// `NSArray`, `NSSet`, `NSOrderedSet` (arrays and sets).
    case list
    /// `NSDictionary`.
    case dictionary
}

/// Types that make their own coder from their generic arguments: Optional, Array, Set, Dictionary.
protocol ArchiveContainer {
    static func makeCoder() -> any TypeCoder
}

/// A type no strategy can code; every use throws an error naming the type and the fixes.
final class UnsupportedCoder<T>: TypeCoder {
    private var error: ArchiveError {
        let name = String(reflecting: T.self)
        let fix =
            switch TypeKind(T.self) {
            case .tuple:
                "a tuple cannot conform to a protocol: hold its elements in a struct that is Archivable or Codable, or list the field in transientFields"
            case .function, .metatype, .existentialMetatype:
                "functions and metatypes cannot be archived: list the field in transientFields"
            case .existential:
                "an existential holds values of any conforming type: declare the field as Any (archiving property-list values and registered types), or as a concrete type"
            default:
                "conform it to Archivable (with init()), KeyedCoding or Codable"
            }
        return ArchiveError(.notArchivable, reason: "\(name) cannot be archived: \(fix)")
    }
    func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int { throw error }
    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T { throw error }
}

extension KeyedArchiver {
    /// The class name `type` is archived under by default: its declared `archiveClassName`,
    /// else its module-qualified name.
    package static func className(of type: Any.Type) -> String {
        var cache = CoderCache()
        return cache.coder(for: type).className ?? defaultClassName(of: type)
    }

    /// The class names a value of `type` is archived under at its top, and for a collection
    /// type the kind of collection whose elements have them (see ``TypeCoder/archivedNames``).
    package static func archivedNames(of type: Any.Type) -> (names: [String], collection: ArchivedCollection?) {
        var cache = CoderCache()
        let coder = cache.coder(for: type)
        return (coder.archivedNames, coder.archivedCollection)
    }

    /// `type`'s default (module-qualified) class name without its modules: the part that stays
    /// when the type moves to another module (see ``ClassNames``); nil when the type declares
    /// its class name, or the name has no module.
    package static func defaultClassNameWithoutModules(of type: Any.Type) -> String? {
        let name = defaultClassName(of: type)
        return className(of: type) == name ? ClassNames.withoutModules(name) : nil
    }

    /// `name` without the module of each type name in it, or nil when a type name has none.
    package static func classNameWithoutModules(_ name: String) -> String? {
        ClassNames.withoutModules(name)
    }

    /// The earlier class names `type` declares (`archiveLegacyClassNames`).
    package static func legacyClassNames(of type: Any.Type) -> [String] {
        var cache = CoderCache()
        return cache.coder(for: type).legacyClassNames
    }
}

/// Runs `body` with one more path component on any error it throws.
@inline(__always)
func withKeyPath<R>(_ component: @autoclosure () -> String, _ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as ArchiveError {
        throw error.prependingKeyPath(component())
    }
}
