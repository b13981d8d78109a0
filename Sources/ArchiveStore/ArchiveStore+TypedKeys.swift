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
    /// settings[.theme] = "dark"                       // or try settings.set("dark", for: .theme)
    /// for await searches in settings.values(for: .recentSearches) { … }
    /// ```
    ///
    /// Labels: a `Key` goes with `for:` (``set(_:for:)``, ``value(for:)``, ``remove(for:)``,
    /// ``values(for:)``), a string with `forKey:`.
    ///
    /// The value is stored as an ordinary value under `name` (``load(_:forKey:)`` reads it), so
    /// any type the store saves works: property-list values, `Archivable`, `KeyedCoding` and
    /// `Codable` types, collections of them.
    public struct Key<Value> {
        /// The key the value is stored under.
        public let name: String
        /// What the key reads as when no value is stored, it expired, or it cannot be read, and
        /// no default is registered for its name (a registered default wins: see
        /// ``ArchiveStore/register(defaults:)``).
        public let defaultValue: Value

        /// A key stored under `name` that reads as `defaultValue` when nothing is stored.
        public init(_ name: String, default defaultValue: Value) {
            self.name = name
            self.defaultValue = defaultValue
        }
    }

    /// The value under `key`, read as every reader of it reads it: the stored value, else the
    /// registered default, else the key's default (see ``register(defaults:)`` for the rules).
    ///
    /// Setting it saves, as ``set(_:for:)`` does; `nil` for a key of an Optional type removes
    /// the value. Neither can throw: a file that cannot be read, a value that does not read as
    /// `Value`, and a save that fails are reported on standard error and to ``failures()`` (see
    /// ``Failure``); the getter then gives the default, and a failed save leaves the stored value
    /// as it was. Use ``value(for:)`` and ``set(_:for:)`` to handle the error where it happens.
    ///
    /// ```swift
    /// store[.theme] = "dark"
    /// let theme = store[.theme]
    /// ```
    public subscript<Value>(key: Key<Value>) -> Value {
        get {
            let (value, failure) = resolve(Value.self, forKey: key.name, keyDefault: key.defaultValue)
            if let failure { report(failure, .read, key: key.name) }
            return value ?? key.defaultValue
        }
        set {
            do {
                try set(newValue, for: key)
            } catch {
                report(error, .write, key: key.name)
            }
        }
    }

    /// The value under `key`, as `store[key]` reads it, or the error that made `store[key]`
    /// fall back on a default.
    ///
    /// - Throws: as ``load(_:forKey:)``: a damaged file; `.typeMismatch` for a stored value that
    ///   does not read as `Value` (after the conversions of the typed values, for a key of one).
    public func value<Value>(for key: Key<Value>) throws -> Value {
        let (value, failure) = resolve(Value.self, forKey: key.name, keyDefault: key.defaultValue)
        if let failure { throw failure }
        return value ?? key.defaultValue
    }

    /// Saves `value` under `key`; for a key of an Optional type, `nil` removes the value (it then
    /// reads as the default). Throws as ``save(_:forKey:expiresAfter:)``.
    public func set<Value>(_ value: Value, for key: Key<Value>) throws {
        if isNil(value) { return try remove(forKey: key.name) }
        try save(value, forKey: key.name)
    }

    /// Removes the value under `key`: it reads as its default again.
    public func remove<Value>(for key: Key<Value>) throws {
        try remove(forKey: key.name)
    }

    /// Removes the value under `key`.
    @available(*, deprecated, renamed: "remove(for:)", message: "a Key takes the label for:, as in set(_:for:) and value(for:)")
    public func remove<Value>(_ key: Key<Value>) throws {
        try remove(for: key)
    }
}

extension ArchiveStore.Key: Sendable where Value: Sendable {}
