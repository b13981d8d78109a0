import Foundation
import KeyedArchive

/// Typed values with `UserDefaults`' reading rules: a getter never throws, converts between
/// kinds as `UserDefaults` does, and falls back on the key's default when the key has no value
/// it can read.
///
/// ```swift
/// store.register(defaults: ["launches": 0, "theme": "light", "volume": 0.8])
/// try store.set(true, forKey: "onboarded")
/// if store.bool(forKey: "onboarded") { ... }
/// let launches = store.integer(forKey: "launches")    // 0 until set
/// try store.set("42", forKey: "answer")
/// store.integer(forKey: "answer")                     // 42, as UserDefaults reads it
/// try store.set(nil, forKey: "answer")                // removes it, as UserDefaults does
/// ```
///
/// **One defaults system.** Every reader of a key — these getters, `store[key]`,
/// ``value(for:)``, ``values(for:)``, ``observable(_:)`` and `@Stored` — answers by one rule:
/// 1. the stored value, converted to the reader's type as below;
/// 2. when nothing is stored, it expired, its file cannot be read, or it holds a kind that does
///    not convert (an array read as an integer): the **registered default**
///    (``register(defaults:)``), converted the same way;
/// 3. else the **key's default** (``Key/defaultValue``); for the getters that take a string, the
///    default of a ``Key`` of that name used with a store of this folder in this process;
/// 4. else `0`, `0.0`, `false` or nil.
///
/// A registered default wins over a key's because registering is how an app changes a default
/// at run time, for every reader at once (a settings bundle, a remote configuration, a test);
/// a key's default is the fallback compiled into it, so that the key always has a value. A
/// file that cannot be read, or a value of a kind that does not convert, is also reported (see
/// ``Failure``): the throwing ``value(for:)`` throws it instead.
///
/// **Conversions** (Foundation's `UserDefaults` on Linux, checked side by side in the tests):
///
/// | stored | `integer` | `double`, `float` | `bool` | `string` | `url` |
/// |---|---|---|---|---|---|
/// | `Int` | itself | converted | `!= 0` | `"42"` | — |
/// | `Double`, `Float` | truncated toward zero (`Int.min` if out of range or NaN) | converted | `!= 0` | `"4.5"`, `"1e+20"` | — |
/// | `Bool` | 1 or 0 | 1 or 0 | itself | `"1"` or `"0"` | — |
/// | `String` | `NSString.integerValue` (`" 7"` → 7, `"4.9"` → 4, `"abc"` → 0) | `doubleValue` (`"1e3"` → 1000), `floatValue` | `boolValue` (`"YES"`, `"true"`, `"t"`, `"1"`, `"-7"`: true; `"NO"`, `"0"`, `"abc"`, `""`: false) | itself | the file URL of the path, `~` expanded, relative to the current directory |
/// | `Data` | — | — | — | — | the URL, if the data is a keyed archive of one |
/// | `URL` | — | — | — | — | itself |
/// | `Date`, arrays, dictionaries, other values | — | — | — | — | — |
///
/// "—": the kind does not convert, so the getter gives the default (rule 2). `date(forKey:)` and
/// `data(forKey:)` read only a stored date or data; `object(forKey:)` reads any value as it is;
/// `array(forKey:)` an array, `dictionary(forKey:)` a dictionary with string keys, and
/// `stringArray(forKey:)` an array of strings only.
///
/// Deliberate differences from `UserDefaults` on Linux: a kind that does not convert reads as
/// the default, where `UserDefaults` reads `0`, `false` or nil even with a registered default
/// (a zero nobody set is worse than the default); a URL is kept whole (`UserDefaults` there
/// keeps only its path, as a string); `Int.max` reads as itself (`UserDefaults` there reads 0);
/// the elements of `array(forKey:)` are the values themselves (`UserDefaults` there wraps each
/// in an Optional); any value the store saves can be set, where `UserDefaults` traps on a
/// value that is not a property list; and `set(nil, forKey:)` removes the value, as
/// `UserDefaults` does on Apple platforms (on Linux it never returns).
///
/// Each value is an ordinary stored value: ``ArchiveStore/load(_:forKey:)`` reads it too (as
/// the type it was saved as), and ``ArchiveStore/listKeys()`` lists it.
extension ArchiveStore {
    /// Saves an integer under `key`. Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: Int, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a real number under `key`. Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: Double, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a single-precision real number (a 4-byte real) under `key`. Throws as
    /// ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: Float, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a Boolean under `key`. Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: Bool, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a string under `key`. Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: String, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a URL under `key` (as an `NSURL` object, whole). Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: URL, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves a date under `key` (as an `NSDate` object). Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: Date, forKey key: String) throws { try save(value, forKey: key) }
    /// Saves bytes under `key`. Throws as ``save(_:forKey:expiresAfter:)``.
    public func set(_ value: Data, forKey key: String) throws { try save(value, forKey: key) }

    /// Saves `value` under `key`, or removes the key's value when `value` is nil, as
    /// `UserDefaults.set(_:forKey:)` does.
    ///
    /// Property-list values (numbers, strings, dates, data, URLs, arrays and dictionaries of
    /// them) are read back by the getters above; any other value the store saves is saved too,
    /// and ``object(forKey:)`` and ``load(_:forKey:)`` read it.
    ///
    /// - Throws: as ``save(_:forKey:expiresAfter:)`` and ``remove(forKey:)``.
    public func set(_ value: Any?, forKey key: String) throws {
        guard let value, !isNil(value) else { return try remove(forKey: key) }
        try save(value, forKey: key)
    }

    /// Sets what the readers of these keys get when a key has no readable stored value, as
    /// `UserDefaults.register(defaults:)` does.
    ///
    /// The values are converted by each reader like stored values (`"42"` registered reads as
    /// the integer 42), and win over a ``Key``'s own default (see the rules above). They are
    /// kept in memory only, never written, and never seen by ``load(_:forKey:)``,
    /// ``contains(_:)`` or ``listKeys()``. A stored value the reader can read always wins.
    /// Calls merge: a key registered again takes the new value.
    ///
    /// Like the rest of the configuration, registered defaults belong to the folder in this
    /// process: every store opened on it and every namespace made from them share them
    /// (registering on a namespace registers for all of them: defaults are the app's, the
    /// namespaces its users). Stores on other folders do not see them, unlike `UserDefaults` on
    /// Linux, whose registrations are global to the process. Thread-safe.
    ///
    /// - Parameter defaults: Property-list values: `Int` (and the other integer types), `Double`,
    ///   `Float`, `Bool`, `NSNumber`, `String`, `URL`, `Date`, `Data`, arrays and dictionaries of
    ///   them.
    public func register(defaults: [String: Any]) {
        let converted = defaults.mapValues(TypedValue.init)
        configuration.withLock { $0.defaults.merge(converted) { $1 } }
    }

    /// The integer under `key` (converted as in the table above), else the default, else 0.
    public func integer(forKey key: String) -> Int { read(Int.self, forKey: key) ?? 0 }
    /// The real number under `key` (converted as in the table above), else the default, else 0.
    public func double(forKey key: String) -> Double { read(Double.self, forKey: key) ?? 0 }
    /// The single-precision real number under `key` (converted as in the table above), else
    /// the default, else 0.
    public func float(forKey key: String) -> Float { read(Float.self, forKey: key) ?? 0 }
    /// The Boolean under `key` (converted as in the table above), else the default, else false.
    public func bool(forKey key: String) -> Bool { read(Bool.self, forKey: key) ?? false }
    /// The string under `key`, or a number written as one; else the default, else nil.
    public func string(forKey key: String) -> String? { read(String.self, forKey: key) }
    /// The URL under `key`, or the file URL of a stored path (`~` expanded); else the default,
    /// else nil.
    public func url(forKey key: String) -> URL? { read(URL.self, forKey: key) }
    /// The date under `key`, else the default, else nil.
    public func date(forKey key: String) -> Date? { read(Date.self, forKey: key) }
    /// The bytes under `key`, else the default, else nil.
    public func data(forKey key: String) -> Data? { read(Data.self, forKey: key) }
    /// The value under `key` as it was saved (an `Int`, a `String`, an `[Any]`, a model...), else
    /// the default, else nil.
    public func object(forKey key: String) -> Any? { read(Any.self, forKey: key) }
    /// The array under `key`, else the default, else nil.
    public func array(forKey key: String) -> [Any]? { read([Any].self, forKey: key) }
    /// The dictionary (with string keys) under `key`, else the default, else nil.
    public func dictionary(forKey key: String) -> [String: Any]? { read([String: Any].self, forKey: key) }
    /// The array under `key` when every element is a string, else the default, else nil.
    public func stringArray(forKey key: String) -> [String]? { read([String].self, forKey: key) }

    /// A string getter's answer: ``resolve(_:forKey:keyDefault:)``, its failure reported.
    private func read<Value>(_ type: Value.Type, forKey key: String) -> Value? {
        let (value, failure) = resolve(type, forKey: key, keyDefault: nil)
        if let failure { report(failure, .read, key: key) }
        return value
    }

    /// What every reader of `key` as `Value` answers, by the rules above, and the error that made
    /// it fall back on a default (a file that cannot be read, a kind that does not convert).
    ///
    /// - Parameter keyDefault: A ``Key``'s default; nil for the getters that take a string.
    func resolve<Value>(
        _ type: Value.Type, forKey key: String, keyDefault: Value?
    ) -> (value: Value?, failure: ArchiveError?) {
        let configuration = configuration.withLock { configuration in
            if let keyDefault, configuration.keyDefaults[key] == nil,
                !isNil(keyDefault)
            {
                configuration.keyDefaults[key] = TypedValue(keyDefault)
            }
            return configuration
        }
        let now = clock.now
        var failure: ArchiveError?
        do {
            if let (record, _) = try engine.storedRecord(forKey: key, in: place, now: now, configuration: configuration) {
                engine.noteUse(of: key, in: place, at: now)
                if TypedValue.converts(to: type) {
                    let stored = TypedValue(try record.decodeValue(Any.self))
                    if let value = stored.converted(to: type, options: configuration.unarchiverOptions) {
                        return (value, nil)
                    }
                    failure = ArchiveError(
                        .typeMismatch,
                        reason: "\(record.path): the stored value is \(stored.kindName), which does not read as \(Value.self)")
                } else {
                    return (try record.decodeValue(type), nil)
                }
            }
        } catch let error as ArchiveError {
            failure = error
        } catch {
            failure = ArchiveError(.io, reason: "\(error)")
        }
        let fallback = keyDefault == nil ? configuration.defaults[key] ?? configuration.keyDefaults[key] : configuration.defaults[key]
        if let fallback, let value = fallback.converted(to: type, options: configuration.unarchiverOptions) {
            return (value, failure)
        }
        return (keyDefault, failure)
    }
}
