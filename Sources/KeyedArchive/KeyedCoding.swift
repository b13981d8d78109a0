import Foundation
@_spi(Reader) import PropertyList

/// A type that writes and reads its own fields, in the shape of `NSCoding`: the escape hatch
/// when reflection is not wanted (computed state, `let` fields, versioned formats).
///
/// ```swift
/// struct Point: KeyedCoding {
///     let x: Double, y: Double
///     func encode(with coder: KeyedEncodingCoder) throws {
///         try coder.encode(x, forKey: "x")
///         try coder.encode(y, forKey: "y")
///     }
///     init(from coder: KeyedDecodingCoder) throws {
///         x = try coder.decode(Double.self, forKey: "x")
///         y = try coder.decode(Double.self, forKey: "y")
///     }
/// }
/// ```
///
/// A class adopting `KeyedCoding` keeps its identity (shared references stay shared) but cannot
/// take part in a cycle: its instance exists only after `init(from:)` returns. A cycle through it
/// is an `ArchiveError.cycle`, never endless recursion; use ``Archivable`` for cyclic graphs.
public protocol KeyedCoding: ArchiveVersioned {
    /// Writes the value's fields, each under a key of its own.
    ///
    /// Called once per value written (once per instance, for a class). Keys are any strings; one
    /// that begins with `$` is stored with one more `$`.
    ///
    /// - Parameter coder: The archiver's view of this object; use it only during the call.
    /// - Throws: Errors of the values encoded (``ArchiveError``, with the key path), or any error
    ///   of your own, which the archiver reports as `.notArchivable` for the top-level key.
    func encode(with coder: KeyedEncodingCoder) throws
    /// Makes a value from the fields ``encode(with:)`` wrote.
    ///
    /// - Parameter coder: The unarchiver's view of this object: its keys and their values.
    /// - Throws: The decoding errors of the values read (`.keyNotFound`, `.typeMismatch`...), or
    ///   any error of your own; the unarchiver reports one that is not an ``ArchiveError`` as
    ///   `.typeMismatch`.
    init(from coder: KeyedDecodingCoder) throws
    /// The class name written to archives. Default nil: the module-qualified type name.
    static var archiveClassName: String? { get }
    /// Class names this type was archived under before (a renamed or moved type), read as this
    /// type. Default: none.
    static var archiveLegacyClassNames: [String] { get }
}

extension KeyedCoding {
    /// No declared name: the type is archived under its module-qualified name (`MyApp.Point`).
    public static var archiveClassName: String? { nil }
    /// No earlier names.
    public static var archiveLegacyClassNames: [String] { [] }
}

/// The archiver's view of one object being encoded by ``KeyedCoding/encode(with:)``.
public struct KeyedEncodingCoder {
    let core: ArchiverCore

    /// Encodes `value` under `key`: integers, reals and booleans inline, anything else by reference.
    ///
    /// - Parameters:
    ///   - value: Anything the archiver can code (see ``KeyedArchiver``).
    ///   - key: The field's key in this object; encoding the same key again replaces the
    ///     earlier value.
    /// - Throws: ``ArchiveError`` for a value that cannot be coded (`.notArchivable`, `.cycle`,
    ///   `.letField`, `.depthLimit`...), its key path starting at `key`.
    public func encode<T>(_ value: T, forKey key: String) throws {
        let reference = try withKeyPath(key) { try core.coders.typed(T.self).encode(value, inline: true, core) }
        core.addField(key, value: reference)
    }

    /// A reference to `object` if it is archived unconditionally anywhere in the archive (before
    /// or after this call); otherwise the key is left out.
    ///
    /// The counterpart of `NSCoder.encodeConditionalObject(_:forKey:)`: a child can point at its
    /// parent without the child alone pulling the parent into an archive. Decode it with
    /// ``KeyedDecodingCoder/decodeIfPresent(_:forKey:)``.
    ///
    /// - Parameters:
    ///   - object: The instance to refer to; nil leaves the key out.
    ///   - key: The field's key in this object.
    public func encodeConditional<T: AnyObject>(_ object: T?, forKey key: String) throws {
        guard let object else { return }
        core.addConditionalField(key, object: object)
    }
}

@available(*, unavailable)
extension KeyedEncodingCoder: Sendable {}

/// The unarchiver's view of one object being decoded by ``KeyedCoding/init(from:)``.
public struct KeyedDecodingCoder {
    /// The object's fields (after its type's migration, when it needed one).
    let fields: ObjectFields
    /// The keys the type asked for, when the unarchiver reports what was not mapped.
    let asked: AskedKeys?

    /// The object's keys, in archive order, without `$class` (after the type's migration, if
    /// the object needed one).
    public var allKeys: [String] { fields.keys }

    /// Whether the object has a value under `key` (a stored nil counts as a value).
    public func contains(_ key: String) -> Bool {
        asked?.insert(key)
        return fields.contains(key)
    }

    /// Decodes the value under `key`.
    ///
    /// - Parameters:
    ///   - type: The type to decode, which drives decoding (a class name in the archive only
    ///     selects this type, a registered one or one mapped with `setClass`).
    ///   - key: The field's key in this object.
    /// - Returns: The decoded value.
    /// - Throws: `.keyNotFound` if the key is absent (an Optional type reads absent as nil),
    ///   `.typeMismatch` if the value is of another kind, and the unarchiver's other errors
    ///   (`.unknownClass`, `.cycle`...), each with its key path.
    public func decode<T>(_ type: T.Type, forKey key: String) throws -> T {
        asked?.insert(key)
        guard let slot = try fields.slot(forKey: key) else {
            let coder = fields.core.coders.typed(T.self)
            if let optional = coder as? any AbsentAsNil, let none = optional.absentValue as? T { return none }
            throw fields.keyNotFound(key, owner: "the object")
        }
        return try withKeyPath(key) { try fields.read(slot, as: T.self) }
    }

    /// Decodes the value under `key`, or nil if the key is absent or holds nil.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - key: The field's key in this object.
    /// - Returns: The value, or nil.
    /// - Throws: `.typeMismatch` if the value is of another kind, and the unarchiver's other
    ///   errors, each with its key path.
    public func decodeIfPresent<T>(_ type: T.Type, forKey key: String) throws -> T? {
        asked?.insert(key)
        guard let slot = try fields.slot(forKey: key) else { return nil }
        return try withKeyPath(key) { try fields.readIfPresent(slot, as: T.self) }
    }
}

@available(*, unavailable)
extension KeyedDecodingCoder: Sendable {}

/// Coders whose type reads a missing key as nil (Optional).
protocol AbsentAsNil {
    var absentValue: Any { get }
}

extension OptionalCoder: AbsentAsNil {
    var absentValue: Any { Wrapped?.none as Any }
}

/// `KeyedCoding` types: a coded object whose fields the type writes itself.
final class KeyedCodingCoder<K: KeyedCoding>: TypeCoder {
    private let name = K.archiveClassName ?? defaultClassName(of: K.self)
    private let versioning = TypeVersioning.of(K.self)
    var className: String? { name }
    var legacyClassNames: [String] { K.archiveLegacyClassNames }

    func encode(_ value: K, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try versioning.checkVersion()
        return try archiver.encodeObject(value, className: name, version: versioning.version, allowsCycles: false) { _ in
            try value.encode(with: KeyedEncodingCoder(core: archiver))
        }
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> K {
        try unarchiver.decodeObject(
            reference, as: K.self, ownName: name, legacyNames: K.archiveLegacyClassNames, versioning: versioning
        ) { coded, _ in
            let fields = try ObjectFields(unarchiver, coded, versioning)
            let asked = unarchiver.reporter == nil ? nil : AskedKeys()
            let value = try K(from: KeyedDecodingCoder(fields: fields, asked: asked))
            if let asked { unarchiver.reportFields(of: coded.dict.uid, archived: fields.keys, taken: asked.keys) }
            return value
        }
    }
}
