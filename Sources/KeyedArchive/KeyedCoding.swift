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
public protocol KeyedCoding {
    func encode(with coder: KeyedEncodingCoder) throws
    init(from coder: KeyedDecodingCoder) throws
    /// The class name written to archives. Default nil: the module-qualified type name.
    static var archiveClassName: String? { get }
    /// Class names this type was archived under before (a renamed or moved type), read as this
    /// type. Default: none.
    static var archiveLegacyClassNames: [String] { get }
}

extension KeyedCoding {
    public static var archiveClassName: String? { nil }
    public static var archiveLegacyClassNames: [String] { [] }
}

/// The archiver's view of one object being encoded by ``KeyedCoding/encode(with:)``.
public struct KeyedEncodingCoder {
    let core: ArchiverCore

    /// Encodes `value` under `key`: integers, reals and booleans inline, anything else by reference.
    public func encode<T>(_ value: T, forKey key: String) throws {
        let reference = try withKeyPath(key) { try core.coders.typed(T.self).encode(value, inline: true, core) }
        core.addField(key, value: reference)
    }

    /// A reference to `object` if it is archived unconditionally anywhere in the archive (before
    /// or after this call); otherwise the key is left out.
    public func encodeConditional<T: AnyObject>(_ object: T?, forKey key: String) throws {
        guard let object else { return }
        core.addConditionalField(key, object: object)
    }
}

@available(*, unavailable)
extension KeyedEncodingCoder: Sendable {}

/// The unarchiver's view of one object being decoded by ``KeyedCoding/init(from:)``.
public struct KeyedDecodingCoder {
    let core: UnarchiverCore
    let dict: UnarchiverCore.ObjectDict

    /// The object's keys, in archive order, without `$class`.
    public var allKeys: [String] { (try? core.keys(of: dict)) ?? [] }

    public func contains(_ key: String) -> Bool {
        ((try? core.value(in: dict, escapedKey: ArchiveFormat.escape(key))) ?? nil) != nil
    }

    /// Decodes the value under `key`.
    ///
    /// - Throws: `.keyNotFound` if the key is absent (an Optional type reads absent as nil),
    ///   `.typeMismatch` if the value is of another kind.
    public func decode<T>(_ type: T.Type, forKey key: String) throws -> T {
        let coder = core.coders.typed(T.self)
        guard let reference = try core.value(in: dict, escapedKey: ArchiveFormat.escape(key)) else {
            if let optional = coder as? any AbsentAsNil, let none = optional.absentValue as? T { return none }
            throw ArchiveError(
                .keyNotFound, reason: "the object has no value for the key \"\(key)\"",
                byteOffset: dict.object.offset, objectIndex: dict.index, keyPath: key)
        }
        return try withKeyPath(key) { try coder.decode(reference, core) }
    }

    /// Decodes the value under `key`, or nil if the key is absent or holds nil.
    public func decodeIfPresent<T>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let reference = try core.value(in: dict, escapedKey: ArchiveFormat.escape(key)) else { return nil }
        if case .null = try core.target(reference) { return nil }
        return try withKeyPath(key) { try core.coders.typed(T.self).decode(reference, core) }
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
final class KeyedCodingCoder<K: KeyedCoding>: TypedCoder<K>, @unchecked Sendable {
    private let name = K.archiveClassName ?? defaultClassName(of: K.self)
    override var className: String? { name }
    override var legacyClassNames: [String] { K.archiveLegacyClassNames }

    override func encode(_ value: K, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeObject(value, className: name, allowsCycles: false) { _ in
            try value.encode(with: KeyedEncodingCoder(core: archiver))
        }
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> K {
        try unarchiver.decodeObject(reference, as: K.self, ownName: name, legacyNames: K.archiveLegacyClassNames, registersEarly: false) { dict, _ in
            try K(from: KeyedDecodingCoder(core: unarchiver, dict: dict))
        }
    }
}
