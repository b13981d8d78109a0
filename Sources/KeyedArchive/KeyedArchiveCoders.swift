import Foundation

#if canImport(Combine)
import Combine
#endif

/// Encodes a value as a one-object keyed archive, shaped like `JSONEncoder`: configure its
/// properties, then call ``encode(_:)``.
///
/// It is this library's codec in the form other stores expect: a Codable-based cache, a
/// database column of blobs or any code written against an encoder/decoder pair (Combine's
/// `TopLevelEncoder` where Combine exists) uses it unchanged, and gets keyed archives that
/// Foundation's `NSKeyedUnarchiver` reads. It takes more than `Encodable` values: anything
/// ``KeyedArchiver`` archives.
///
/// ```swift
/// let data = try KeyedArchiveEncoder().encode(profile)
/// let back = try KeyedArchiveDecoder().decode(Profile.self, from: data)
/// ```
// @unchecked: the class-name overrides hold `Any.Type` values, immutable metadata; no instance
// is reachable through them.
public struct KeyedArchiveEncoder: @unchecked Sendable {
    /// The `$top` key the value is stored under (`"root"`, as
    /// ``KeyedArchiver/archivedData(withRootObject:)`` and Foundation write it).
    public var rootKey = "root"
    /// Coded objects nested deeper than this fail with `.depthLimit` (``KeyedArchiver/maximumDepth``).
    public var maximumDepth = 512
    private var classNames: [(type: Any.Type, name: String)] = []

    /// An encoder with the defaults: root key `"root"`, depth limit 512, no class-name overrides.
    public init() {}

    /// Archives `type` under `name` instead of its own class name (``KeyedArchiver/setClassName(_:for:)``).
    public mutating func setClassName(_ name: String, for type: Any.Type) {
        classNames.removeAll { $0.type == type }
        classNames.append((type, name))
    }

    /// The class name set for `type` with ``setClassName(_:for:)``, if any.
    public func className(for type: Any.Type) -> String? {
        classNames.first { $0.type == type }?.name
    }

    /// The keyed archive of `value`.
    ///
    /// - Throws: ``ArchiveError`` as ``KeyedArchiver/encode(_:forKey:)`` throws.
    public func encode<T>(_ value: T) throws -> Data {
        let archiver = KeyedArchiver()
        archiver.maximumDepth = maximumDepth
        for (type, name) in classNames { archiver.setClassName(name, for: type) }
        try archiver.encode(value, forKey: rootKey)
        return try archiver.encodedData
    }
}

/// Decodes a value from a keyed archive, shaped like `JSONDecoder`: configure its properties,
/// then call ``decode(_:from:)``. The counterpart of ``KeyedArchiveEncoder``.
///
/// ```swift
/// var decoder = KeyedArchiveDecoder()
/// decoder.options.maximumArchiveSize = 1 << 20       // the unarchiver's limits
/// decoder.registeredTypes = [Car.self]               // a Vehicle field may hold a Car
/// decoder.classNames["OldApp.Automobile"] = Car.self
/// let garage = try decoder.decode(Garage.self, from: data)
/// ```
// @unchecked: `Any.Type` values are immutable metadata; no instance is reachable through them.
public struct KeyedArchiveDecoder: @unchecked Sendable {
    /// The `$top` key the value is read from (`"root"`).
    public var rootKey = "root"
    /// The unarchiver's limits (``KeyedUnarchiver/Options``).
    public var options = KeyedUnarchiver.Options()
    /// Types allowed where a polymorphic field or `Any` meets their class names (``KeyedUnarchiver/register(_:)``).
    public var registeredTypes: [Any.Type] = []
    /// Class names read as another type (``KeyedUnarchiver/setClass(_:forClassName:)``).
    public var classNames: [String: Any.Type] = [:]

    /// A decoder with the defaults: root key `"root"`, the unarchiver's default limits, no
    /// registered types or class names.
    public init() {}

    /// The value stored under ``rootKey`` in `data`, decoded as `type`.
    ///
    /// - Throws: ``ArchiveError`` as ``KeyedUnarchiver/init(forReadingFrom:options:)`` and
    ///   ``KeyedUnarchiver/decode(_:forKey:)`` throw.
    public func decode<T>(_ type: T.Type, from data: Data) throws -> T {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: options)
        for registered in registeredTypes { unarchiver.register(registered) }
        for (name, mapped) in classNames { unarchiver.setClass(mapped, forClassName: name) }
        return try unarchiver.decode(type, forKey: rootKey)
    }
}

#if canImport(Combine)
extension KeyedArchiveEncoder: TopLevelEncoder {}
extension KeyedArchiveDecoder: TopLevelDecoder {}
#endif
