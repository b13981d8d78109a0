import Foundation
import KeyedArchive

extension ArchiveStore {
    /// A key that knows the type of its value and the value it reads as when nothing is stored.
    ///
    /// Declare keys once, read them without `try` and without casts:
    ///
    /// ```swift
    /// extension ArchiveStore.Key {
    ///     static var theme: ArchiveStore.Key<String> { .init("theme", default: "light") }
    ///     static var recentSearches: ArchiveStore.Key<[String]> { .init("recentSearches", default: []) }
    /// }
    ///
    /// let theme = settings[.theme]                  // "light" until set
    /// try settings.set("dark", for: .theme)
    /// for await searches in settings.values(for: .recentSearches) { … }
    /// ```
    ///
    /// The value is stored as an ordinary value under `name` (``load(_:forKey:)-8yj94`` reads it), so
    /// any type the store saves works: property-list values, `Archivable`, `KeyedCoding` and
    /// `Codable` types, collections of them.
    public struct Key<Value> {
        /// The key the value is stored under.
        public let name: String
        /// What the key reads as when no value is stored, it expired, or it cannot be read.
        public let defaultValue: Value

        /// A key stored under `name` that reads as `defaultValue` when nothing is stored.
        public init(_ name: String, default defaultValue: Value) {
            self.name = name
            self.defaultValue = defaultValue
        }
    }

    /// The value under `key`; its default when none is stored, it expired, or the stored one
    /// cannot be read (see ``value(for:)`` to see that error).
    public subscript<Value>(key: Key<Value>) -> Value {
        (try? value(for: key)) ?? key.defaultValue
    }

    /// The value under `key`, or its default when none is stored or it expired.
    ///
    /// - Throws: as ``load(_:forKey:)-8yj94``: a stored value of another type, a damaged file.
    public func value<Value>(for key: Key<Value>) throws -> Value {
        try load(Value.self, forKey: key.name) ?? key.defaultValue
    }

    /// Saves `value` under `key`, durably. Throws as ``save(_:forKey:expiresAfter:)-34ndq``.
    public func set<Value>(_ value: Value, for key: Key<Value>) throws {
        try save(value, forKey: key.name)
    }

    /// Removes the value under `key`: it reads as its default again.
    public func remove<Value>(_ key: Key<Value>) throws {
        try remove(forKey: key.name)
    }
}

extension ArchiveStore.Key: Sendable where Value: Sendable {}
