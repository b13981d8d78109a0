import Foundation
import KeyedArchive

/// Typed values with `UserDefaults`' reading rules: a getter never throws, and returns `0`,
/// `0.0`, `false` or nil when the key is absent, expired, holds another type, or its file is
/// damaged.
///
/// Values are read back as the type they were saved as; unlike `UserDefaults` there is no
/// conversion between kinds (an `Int` does not read as a `Double` or a `String`). Each value
/// is an ordinary stored value: ``ArchiveStore/load(_:forKey:)`` reads it too, and
/// ``ArchiveStore/keys`` lists it.
///
/// ```swift
/// try store.set(true, forKey: "onboarded")
/// if store.bool(forKey: "onboarded") { ... }
/// let launches = store.integer(forKey: "launches")    // 0 until set
/// ```
extension ArchiveStore {
    /// Saves an integer under `key`. Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: Int, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a real number under `key`. Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: Double, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a Boolean under `key`. Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: Bool, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a string under `key`. Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: String, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a URL under `key` (as an `NSURL` object). Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: URL, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a date under `key` (as an `NSDate` object). Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: Date, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves bytes under `key`. Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: Data, forKey key: String) throws { try save(value, forKey: key) }

    /// The integer under `key`; 0 when absent, expired, of another type or unreadable.
    public func integer(forKey key: String) -> Int { typedValue(Int.self, forKey: key) ?? 0 }
    /// The real number under `key`; 0 when absent, expired, of another type or unreadable.
    public func double(forKey key: String) -> Double { typedValue(Double.self, forKey: key) ?? 0 }
    /// The Boolean under `key`; false when absent, expired, of another type or unreadable.
    public func bool(forKey key: String) -> Bool { typedValue(Bool.self, forKey: key) ?? false }
    /// The string under `key`; nil when absent, expired, of another type or unreadable.
    public func string(forKey key: String) -> String? { typedValue(String.self, forKey: key) }
    /// The URL under `key`; nil when absent, expired, of another type or unreadable.
    public func url(forKey key: String) -> URL? { typedValue(URL.self, forKey: key) }
    /// The date under `key`; nil when absent, expired, of another type or unreadable.
    public func date(forKey key: String) -> Date? { typedValue(Date.self, forKey: key) }
    /// The bytes under `key`; nil when absent, expired, of another type or unreadable.
    public func data(forKey key: String) -> Data? { typedValue(Data.self, forKey: key) }

    private func typedValue<T>(_ type: T.Type, forKey key: String) -> T? {
        (try? load(type, forKey: key)) ?? nil
    }
}
