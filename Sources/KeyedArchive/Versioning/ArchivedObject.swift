import Foundation
@_spi(Reader) import PropertyList

/// One archived object's fields, as ``ArchiveVersioned/migrate(_:from:)`` sees and changes them
/// before the type's fields are filled from them.
///
/// Keys are the object's field keys as the type wrote them (without `$class`). A value is read
/// with ``decode(_:forKey:)`` as any type the archive can decode (a nested object, a collection,
/// a class instance, which keeps its identity), and written with ``set(_:forKey:)`` as any value
/// the archive can encode.
///
/// ```swift
/// static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
///     if version == 0 {
///         let full = try object.decode(String.self, forKey: "fullName").split(separator: " ")
///         try object.set(String(full.first ?? ""), forKey: "first")
///         try object.set(full.dropFirst().joined(separator: " "), forKey: "last")
///         object.removeField("fullName")
///     }
/// }
/// ```
///
/// A value set here is read into a field of its own type as it is; into a field of another type
/// (an `Int` set for an `Int64` field, say) as that type would read it from an archive.
public struct ArchivedObject {
    /// The object's `$classname` in the archive (an earlier name when the type was renamed).
    public let className: String
    /// The version of the fields as they stand: the archive's version of the object during the
    /// first step, one more during each step after it.
    public internal(set) var version: Int
    var entries: [(key: String, slot: Slot)]
    let context: Context

    /// Where a field's value is: still in the archive, or set by a migration.
    enum Slot {
        case archived(Int)
        case value(SetValue)
    }

    /// What every copy of the view shares: the archive it reads and the object it came from.
    final class Context {
        let core: UnarchiverCore
        let dict: UnarchiverCore.ObjectDict

        init(core: UnarchiverCore, dict: UnarchiverCore.ObjectDict) {
            self.core = core
            self.dict = dict
        }
    }

    init(core: UnarchiverCore, dict: UnarchiverCore.ObjectDict, className: String, version: Int) throws {
        self.className = className
        self.version = version
        entries = try core.fields(of: dict).map { ($0.key, Slot.archived($0.reference)) }
        context = Context(core: core, dict: dict)
    }

    /// The object's keys, in archive order (a key set by a migration comes last).
    public var keys: [String] { entries.map(\.key) }

    /// Whether the object has a value under `key` (a stored nil counts as a value).
    public func contains(_ key: String) -> Bool {
        entries.contains { $0.key == key }
    }

    /// Decodes the value under `key` as `type`.
    ///
    /// - Parameters:
    ///   - type: Any type the archive decodes: what the field was archived as at this version.
    ///   - key: The field's key.
    /// - Returns: The value. A class instance is the one the rest of the decode shares.
    /// - Throws: `.keyNotFound` if the key is absent (an Optional type reads absent as nil),
    ///   `.typeMismatch` if the value is of another kind, and the unarchiver's other errors, each
    ///   with the key as its key path.
    public func decode<T>(_ type: T.Type, forKey key: String) throws -> T {
        guard let slot = slot(forKey: key) else {
            let coder = context.core.coders.typed(T.self)
            if let optional = coder as? any AbsentAsNil, let none = optional.absentValue as? T { return none }
            throw ArchiveError(
                .keyNotFound,
                reason: "the archived \(input: className) (version \(version)) has no value for the key \(quoted: key); it has \(input: "\(keys)")",
                byteOffset: context.dict.object.offset, objectIndex: context.dict.index, keyPath: key)
        }
        return try withKeyPath(key) { try Self.read(slot, as: T.self, context.core) }
    }

    /// Sets the value under `key`, replacing any value it had.
    ///
    /// - Parameters:
    ///   - value: Anything the archive can encode.
    ///   - key: The field's key; a key that begins with `$` is stored as any field key is.
    /// - Throws: The archiver's error for a value it cannot encode (`.notArchivable`...), with
    ///   the key as its key path.
    public mutating func set<T>(_ value: T, forKey key: String) throws {
        let set = try withKeyPath(key) { try SetValue(value, reading: context.core) }
        if let position = entries.firstIndex(where: { $0.key == key }) {
            entries[position].slot = .value(set)
        } else {
            entries.append((key, .value(set)))
        }
    }

    /// Moves the value under `old` to `new`, replacing any value `new` had. Nothing happens when
    /// `old` is absent.
    public mutating func renameField(_ old: String, to new: String) {
        guard old != new, let position = entries.firstIndex(where: { $0.key == old }) else { return }
        let slot = entries[position].slot
        entries.removeAll { $0.key == new }
        let target = entries.firstIndex { $0.key == old }!
        entries[target] = (new, slot)
    }

    /// Removes the value under `key`, if there is one: the field keeps its `init()` value.
    public mutating func removeField(_ key: String) {
        entries.removeAll { $0.key == key }
    }

    // MARK: Reading the migrated fields

    func slot(forKey key: String) -> Slot? {
        for entry in entries where entry.key == key { return entry.slot }
        return nil
    }

    /// The value in `slot` as `T`, read from the archive or from the value a migration set.
    static func read<T>(_ slot: Slot, as type: T.Type, _ core: UnarchiverCore) throws -> T {
        switch slot {
        case .archived(let reference): return try core.coders.typed(T.self).decode(reference, core)
        case .value(let set): return try set.read(as: T.self)
        }
    }
}

@available(*, unavailable)
extension ArchivedObject: Sendable {}

/// A value a migration set: the value itself, and, made the first time a field of another type
/// reads it, the same value archived on its own, so that field reads it as it reads an archive
/// (an `Int` into an `Int64` field). A field of the value's own type takes it as it is.
final class SetValue {
    let value: Any
    private let archive: () throws -> Data
    private let options: KeyedUnarchiver.Options
    private let registered: [Any.Type]
    private let classMap: [String: Any.Type]
    private var archived: (core: UnarchiverCore, reference: Int)?
    /// The core whose decode the migration belongs to, which lets go of this value's instances
    /// if that decode fails.
    private weak var owner: UnarchiverCore?

    /// Keeps `value`, to be read with the limits, registered types and class mappings of
    /// `unarchiver`. A type no strategy can code is refused here; anything else the archiver
    /// would refuse inside it, when a field of another type reads it.
    init<T>(_ value: T, reading unarchiver: UnarchiverCore) throws {
        if let unsupported = unarchiver.coders.typed(T.self) as? UnsupportedCoder<T> {
            _ = try unsupported.encode(value, inline: false, ArchiverCore())
        }
        self.value = value
        archive = { try KeyedArchiver.archivedData(withRootObject: value) }
        options = unarchiver.options
        registered = unarchiver.registered
        classMap = unarchiver.classMap
        owner = unarchiver
    }

    /// The value as `T`: itself when it is one (a class instance keeps its identity), else
    /// decoded from its archive.
    func read<T>(as type: T.Type) throws -> T {
        if let typed = value as? T { return typed }
        do {
            let (core, reference) = try archivedValue()
            return try core.topLevel { try core.coders.typed(T.self).decode(reference, core) }
        } catch let error as ArchiveError {
            throw ArchiveError(
                error.code, reason: "the \(Swift.type(of: value)) a migration set does not read as \(T.self): \(error.reason)",
                keyPath: error.keyPath)
        }
    }

    /// The archived value, for decoders that read it through containers (`Codable`).
    func archivedValue() throws -> (UnarchiverCore, Int) {
        if let archived { return archived }
        let core = try UnarchiverCore(bytes: try archive(), options: options)
        core.registered = registered
        core.classMap = classMap
        core.isValueCore = true
        owner?.valueCores.append(core)
        let made = (core, core.top[0].reference)
        archived = made
        return made
    }
}
