import Foundation
import KeyedArchive

/// Typed values with `UserDefaults`' reading rules: a getter never throws, converts between
/// kinds as `UserDefaults` does, and returns the registered default, else `0`, `0.0`, `false`
/// or nil, when the key has no readable value.
///
/// ```swift
/// store.register(defaults: ["launches": 0, "theme": "light", "volume": 0.8])
/// try store.set(true, forKey: "onboarded")
/// if store.bool(forKey: "onboarded") { ... }
/// let launches = store.integer(forKey: "launches")    // 0 until set
/// try store.set("42", forKey: "answer")
/// store.integer(forKey: "answer")                     // 42, as UserDefaults reads it
/// ```
///
/// **Conversions** (Foundation's `UserDefaults` on Linux, checked side by side in the tests):
///
/// | stored | `integer` | `double`, `float` | `bool` | `string` | `url` |
/// |---|---|---|---|---|---|
/// | `Int` | itself | converted | `!= 0` | `"42"` | nil |
/// | `Double`, `Float` | truncated toward zero (`Int.min` if out of range or NaN) | converted | `!= 0` | `"4.5"`, `"1e+20"` | nil |
/// | `Bool` | 1 or 0 | 1 or 0 | itself | `"1"` or `"0"` | nil |
/// | `String` | `NSString.integerValue` (`" 7"` → 7, `"4.9"` → 4, `"abc"` → 0) | `doubleValue` (`"1e3"` → 1000), `floatValue` | `boolValue` (`"YES"`, `"true"`, `"t"`, `"1"`, `"-7"`: true; `"NO"`, `"0"`, `"abc"`, `""`: false) | itself | the file URL of the path, `~` expanded, relative to the current directory |
/// | `Data` | 0 | 0 | false | nil | the URL, if the data is a keyed archive of one |
/// | `URL` | 0 | 0 | false | nil | itself |
/// | `Date` | 0 | 0 | false | nil | nil (`date`: itself) |
/// | arrays, dictionaries, other values | 0 | 0 | false | nil | nil |
///
/// `date(forKey:)` and `data(forKey:)` return only a stored date or data. Two deliberate
/// differences from `UserDefaults` on Linux: a URL is kept whole (`UserDefaults` there keeps
/// only its path, as a string), and `Int.max` reads as itself (`UserDefaults` there reads 0).
///
/// Each value is an ordinary stored value: ``ArchiveStore/load(_:forKey:)-8yj94`` reads it too (as
/// the type it was saved as), and ``ArchiveStore/keys`` lists it. A key holds a value when a
/// readable, unexpired file is stored under it; a damaged file counts as no value here.
extension ArchiveStore {
    /// Saves an integer under `key`. Throws as ``save(_:forKey:expiresAfter:)-34ndq``.
    public func set(_ value: Int, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a real number under `key`. Throws as ``save(_:forKey:expiresAfter:)-34ndq``.
    public func set(_ value: Double, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a single-precision real number (a 4-byte real) under `key`. Throws as
    /// ``save(_:forKey:expiresAfter:)-34ndq``.
    public func set(_ value: Float, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a Boolean under `key`. Throws as ``save(_:forKey:expiresAfter:)-34ndq``.
    public func set(_ value: Bool, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a string under `key`. Throws as ``save(_:forKey:expiresAfter:)-34ndq``.
    public func set(_ value: String, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a URL under `key` (as an `NSURL` object, whole). Throws as ``save(_:forKey:expiresAfter:)-34ndq``.
    public func set(_ value: URL, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a date under `key` (as an `NSDate` object). Throws as ``save(_:forKey:expiresAfter:)-34ndq``.
    public func set(_ value: Date, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves bytes under `key`. Throws as ``save(_:forKey:expiresAfter:)-34ndq``.
    public func set(_ value: Data, forKey key: String) throws { try save(value, forKey: key) }

    /// Sets what the typed getters return for keys that hold no value, as
    /// `UserDefaults.register(defaults:)` does.
    ///
    /// The values are converted by each getter like stored values (`"42"` registered reads as
    /// the integer 42). They are kept in memory only, never written, and never seen by
    /// ``load(_:forKey:)-8yj94``, ``contains(_:)`` or ``keys``. A stored value always wins, even one
    /// the getter cannot convert. Calls merge: a key registered again takes the new value.
    ///
    /// Like the rest of the configuration, registered defaults belong to the folder in this
    /// process: every store opened on it and every namespace made from them share them
    /// (registering on a namespace registers for all of them: defaults are the app's, the
    /// namespaces its users). Stores on other folders do not see them, unlike `UserDefaults` on
    /// Linux, whose registrations are global to the process. Thread-safe.
    ///
    /// - Parameter defaults: Property-list values: `Int` (and the other integer types), `Double`,
    ///   `Float`, `Bool`, `NSNumber`, `String`, `URL`, `Date`, `Data`. Any other value (an
    ///   array, a dictionary) makes each getter return its own default for that key.
    public func register(defaults: [String: Any]) {
        let converted = defaults.mapValues(TypedValue.init)
        configuration.withLock { $0.defaults.merge(converted) { $1 } }
    }

    /// The integer under `key` (converted as in the table above); the registered default,
    /// else 0, when the key holds no value.
    public func integer(forKey key: String) -> Int { typedValue(forKey: key)?.integer ?? 0 }
    /// The real number under `key` (converted as in the table above); the registered
    /// default, else 0, when the key holds no value.
    public func double(forKey key: String) -> Double { typedValue(forKey: key)?.double ?? 0 }
    /// The single-precision real number under `key` (converted as in the table above); the
    /// registered default, else 0, when the key holds no value.
    public func float(forKey key: String) -> Float { typedValue(forKey: key)?.float ?? 0 }
    /// The Boolean under `key` (converted as in the table above); the registered default,
    /// else false, when the key holds no value.
    public func bool(forKey key: String) -> Bool { typedValue(forKey: key)?.bool ?? false }
    /// The string under `key`, or a number written as one; the registered default, else nil,
    /// when the key holds no value or one that is not a string or number.
    public func string(forKey key: String) -> String? { typedValue(forKey: key)?.string }
    /// The URL under `key`, or the file URL of a stored path (`~` expanded); the registered
    /// default, else nil, when there is neither.
    public func url(forKey key: String) -> URL? {
        typedValue(forKey: key)?.url(options: configuration.withLock { $0.unarchiverOptions })
    }
    /// The date under `key`; the registered default, else nil, when the key holds no date.
    public func date(forKey key: String) -> Date? { typedValue(forKey: key)?.date }
    /// The bytes under `key`; the registered default, else nil, when the key holds no data.
    public func data(forKey key: String) -> Data? { typedValue(forKey: key)?.data }

    /// The value under `key` as the getters see it, else the registered default; nil when
    /// there is neither.
    private func typedValue(forKey key: String) -> TypedValue? {
        let configuration = configuration.withLock { $0 }
        let now = clock.now
        guard let (stored, _) = try? engine.storedRecord(forKey: key, in: place, now: now, configuration: configuration)
        else { return configuration.defaults[key] }
        guard let value = try? stored.decodeValue(Any.self) else { return .other }
        engine.noteUse(of: key, in: place, at: now)
        return TypedValue(value)
    }
}
