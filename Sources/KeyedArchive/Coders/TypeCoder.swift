// Unsafe code in this file: the field entry points take a field's address from its reflection layout, which says the
// field holds a value of the coder's own type; nothing else is read or written through it.

import Foundation
@_spi(Reader) import PropertyList
import Synchronization

/// How one Swift type is archived and unarchived. One instance per type, made once and cached.
///
/// The base class is the untyped entry point used where only a field's `Any.Type` is known
/// (reflection reads and writes fields through raw pointers); ``TypedCoder`` is the typed one.
/// Coders hold no mutable state, so they are shared between archivers and threads.
class TypeCoder: @unchecked Sendable {  // immutable after init
    /// The class name this type is archived under, if it is archived as a coded object.
    var className: String? { nil }

    /// Earlier class names read as this type (`archiveLegacyClassNames`).
    var legacyClassNames: [String] { [] }

    /// The class names of the coded objects a value of this type is made of at its top: its own
    /// name and earlier names, or, for an Optional or a collection, its elements'.
    var archivedNames: [String] { className.map { [$0] + legacyClassNames } ?? [] }

    /// For a collection type (or an Optional of one), the kind of Foundation collection it is
    /// archived as; nil for anything else.
    var archivedCollection: ArchivedCollection? { nil }

    /// Encodes the value stored at `pointer` as a field (scalars inline); returns the table index to store.
    func encodeField(at pointer: UnsafeRawPointer, _ archiver: ArchiverCore) throws -> Int {
        fatalError("abstract")
    }

    /// Decodes `reference` and assigns it to the initialised value at `pointer`.
    func decodeField(_ reference: Int, at pointer: UnsafeMutableRawPointer, _ unarchiver: UnarchiverCore) throws {
        fatalError("abstract")
    }

    /// Assigns a value a migration set (``ArchivedObject/set(_:forKey:)``) to the initialised
    /// field at `pointer`, read as this coder's type.
    func assignField(_ value: SetValue, at pointer: UnsafeMutableRawPointer) throws {
        fatalError("abstract")
    }

    /// Encodes a value given as `Any` whose dynamic type is this coder's type.
    func encodeAny(_ value: Any, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        fatalError("abstract")
    }

    /// Decodes `reference` as this coder's type, boxed.
    func decodeAny(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Any {
        fatalError("abstract")
    }

    /// Assigns the value at `source` to the initialised value at `pointer`, both fields of this
    /// coder's type. Weak and unowned fields (whose coders derive from this class directly) are
    /// left as they are: they hold no strong reference.
    func copyField(from source: UnsafeRawPointer, to pointer: UnsafeMutableRawPointer) {}

    /// Lets go of what a failed decode stored in `instances`, which this coder's type created
    /// and the failure keeps from ever being handed out; see ``UnarchiverCore/abandonInstances(from:)``.
    /// Only coders that fill a class instance's fields themselves (reflection) have anything to do.
    func resetDecodedFields(of instances: [AnyObject]) {}
}

/// The typed coder of `T`.
class TypedCoder<T>: TypeCoder, @unchecked Sendable {
    /// Encodes `value`; `inline` allows scalars to be stored in place of a UID (inside object fields).
    func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        fatalError("abstract")
    }

    /// Decodes the value a reference (a UID, or an inline scalar) stands for.
    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T {
        fatalError("abstract")
    }

    /// Encodes the collection element at `pointer` (never inline); coders of structs override it
    /// to write the element from where it lies instead of copying it out.
    func encodeElement(at pointer: UnsafePointer<T>, _ archiver: ArchiverCore) throws -> Int {
        try encode(pointer.pointee, inline: false, archiver)
    }

    override func encodeField(at pointer: UnsafeRawPointer, _ archiver: ArchiverCore) throws -> Int {
        try encode(pointer.assumingMemoryBound(to: T.self).pointee, inline: true, archiver)
    }

    override final func decodeField(_ reference: Int, at pointer: UnsafeMutableRawPointer, _ unarchiver: UnarchiverCore) throws {
        pointer.assumingMemoryBound(to: T.self).pointee = try decode(reference, unarchiver)
    }

    override final func assignField(_ value: SetValue, at pointer: UnsafeMutableRawPointer) throws {
        pointer.assumingMemoryBound(to: T.self).pointee = try value.read(as: T.self)
    }

    override final func encodeAny(_ value: Any, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        guard let typed = value as? T else {
            throw ArchiveError(.typeMismatch, reason: "a \(type(of: value)) was given where a \(T.self) was expected")
        }
        return try encode(typed, inline: inline, archiver)
    }

    override final func decodeAny(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Any {
        try decode(reference, unarchiver)
    }

    override final func copyField(from source: UnsafeRawPointer, to pointer: UnsafeMutableRawPointer) {
        pointer.assumingMemoryBound(to: T.self).pointee = source.assumingMemoryBound(to: T.self).pointee
    }
}

/// The coders one archiver or unarchiver has used, in front of the process-wide cache.
struct CoderCache {
    private static let shared = Locked<[ObjectIdentifier: TypeCoder]>([:])
    private var local: [ObjectIdentifier: TypeCoder] = [:]

    mutating func coder(for type: Any.Type) -> TypeCoder {
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
        unsafeDowncast(coder(for: type), to: TypedCoder<T>.self)
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
private func makeCoder(for type: Any.Type) -> TypeCoder {
    func open<T>(_: T.Type) -> TypeCoder { classify(T.self) }
    return _openExistential(type, do: open)
}

private func classify<T>(_ type: T.Type) -> TypeCoder {
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

private func keyedCodingCoder<K: KeyedCoding>(_: K.Type) -> TypeCoder { KeyedCodingCoder<K>() }
private func reflectionCoder<A: Archivable>(_: A.Type) -> TypeCoder { ReflectionCoder<A>() }
private func rawRepresentableCoder<R: RawRepresentable>(_: R.Type) -> TypeCoder? {
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
    static func makeCoder() -> TypeCoder
}

/// A type no strategy can code; every use throws an error naming the type and the fixes.
final class UnsupportedCoder<T>: TypedCoder<T>, @unchecked Sendable {
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
    override func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int { throw error }
    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T { throw error }
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
