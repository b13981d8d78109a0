import ArchiveFileSystem
import Foundation
import KeyedArchive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps one keyed archive per key in a directory, per namespace, and never loses a save it
/// acknowledged.
///
/// ```swift
/// let store = try ArchiveStore.dataStore(named: "com.example.Contacts")
/// let user = store.namespace("+44 20 7946 0958")          // one sub-store per user
/// try user.save(profile, forKey: "profile")
/// let back = try user.load(Profile.self, forKey: "profile") // nil if absent
///
/// try user.save(settings)                                  // key: Settings' archive class name
/// try user.set(3, forKey: "launches")                      // typed values, UserDefaults-style
/// let launches = user.integer(forKey: "launches")          // 0 when absent
///
/// let cache = try ArchiveStore.cacheStore(named: "com.example.Contacts")
/// try cache.save(json, forKey: "https://api.example.com/feed", expiresAfter: .seconds(600))
/// ```
///
/// **Keys.** Any `String` is a key, compared by its exact UTF-8 bytes: NFC and NFD spellings
/// of "é", "A" and "a", "", ".", "..", "a/b" and keys with NUL or thousands of characters are
/// all distinct keys. Each key is one file, `key-<escaped key>.archive`, in the namespace's
/// directory; the escaping (see the names below) never lets a key reach outside the store's
/// directory, and ``keys`` gives every key back exactly.
///
/// **Files.** A stored file is an ordinary keyed archive: the value under the `$top` key
/// `"root"` (as `KeyedArchiver.archivedData(withRootObject:)` writes it), the key under `"key"`
/// and, for a value saved with `expiresAfter`, the expiry time under `"expires"` (seconds
/// since 2001 as a real number). `karchive dump` shows it and
/// `KeyedUnarchiver.unarchivedObject(ofType:from:)` reads the value. The directory layout:
/// ```
/// <directory>/.lock                         advisory lock file
/// <directory>/.journal                      the index: sizes, expiry and last use of every value
/// <directory>/key-profile.archive           key "profile"
/// <directory>/key-^user^settings.archive    key "UserSettings" (^ marks an uppercase letter)
/// <directory>/key-a%2fb.archive             key "a/b" (% and hex for every other byte)
/// <directory>/ns-%2b44%2020.../             namespace "+44 20..."; its keys and namespaces inside
/// <directory>/ns-<cut name>~<hash>/.namespace   the full name of a namespace with a long name
/// ```
/// Names longer than 255 bytes are cut and end with a SHA-256 prefix; the key inside the file
/// (or a namespace's `.namespace` file) then tells the name. ``directory`` is this folder and
/// ``namespaces`` lists the namespaces in it.
///
/// **Configuration.** ``register(_:)``, ``setClass(_:forClassName:)``, ``unarchiverOptions`` and
/// ``register(defaults:)`` configure how values are read; the store you open and every
/// namespace made from it share one configuration.
///
/// **Durability.** A save encodes the value first (an unencodable value throws before the disk
/// is touched), writes a temporary file in the same directory and renames it over the key's
/// file; at ``Durability/full`` (the default) the file is flushed to the drive before the
/// rename and the directory after it, saves made at the same time by other threads sharing
/// those flushes (see ``Durability``). ``batch(_:)`` saves and removes several values all or
/// nothing. A save that throws — unencodable value,
/// read-only directory, full disk — leaves the previous value as it was and removes its
/// temporary file; a process killed during a save leaves the previous value or the new one,
/// never a mix. Its temporary file is deleted when a store next opens the folder, in this
/// process or another, or, if a save is running at that moment, after a save of that store
/// that finds none running (``trim()`` deletes them too). A file of a save in progress is never
/// deleted: a save holds the store's lock shared until its rename, and only a holder of the
/// exclusive lock deletes temporary files (the process id in their names is not trusted: ids
/// are reused, and a container sharing the folder has ids of its own).
///
/// **Concurrency.** An `ArchiveStore` is `Sendable`, and any number of threads and processes
/// may use the same directory: each key's file is replaced atomically, and the operations that
/// read and then delete (expiry, ``removeExpired()``, ``removeAll()``) hold an exclusive
/// `flock(2)` lock on the `.lock` file, which every save holds shared. Loads take no lock.
/// Two saves of one key at once leave one of the two values.
///
/// **Damaged files.** A file under a key that is not a stored keyed archive (truncated,
/// corrupt, written by another program, or holding another key's value) makes ``load(_:forKey:)``
/// throw an `ArchiveError` naming its path; the file is left in place so it can be inspected,
/// and ``remove(forKey:)`` or a new save replaces it. The typed getters return their defaults
/// for it, ``contains(_:)`` returns true, ``removeExpired()`` leaves it and ``removeAll()``
/// deletes it.
public final class ArchiveStore: Sendable {
    /// The working parts, shared by the store made with ``init(directory:limits:permissions:durability:clock:)``
    /// and every namespace made from it.
    let engine: any StoreEngine
    /// The namespace this store is.
    let place: StorePlace
    /// Where this store, and every namespace made from it, reads the time.
    let clock: Clock

    /// Opens the store in `directory`, creating the directory (and missing parents) if needed.
    ///
    /// Stores opened on the same directory, in one process or several, share their values.
    /// Opening the store finishes a batch a killed process left half made and deletes the
    /// temporary files of saves killed midway, unless a save is running at that moment (see the
    /// durability notes of ``ArchiveStore``); it never waits.
    ///
    /// ```swift
    /// let store = try ArchiveStore(directory: folder)                               // durable, no limits
    /// let cache = try ArchiveStore(directory: cacheFolder, limits: .init(maximumCount: 500), durability: .buffered)
    /// let again = try ArchiveStore(directory: cacheFolder)                          // the same limits and durability
    /// ```
    ///
    /// **The folder's configuration.** Limits, permissions and durability belong to the folder:
    /// it keeps them (in `.configuration`), and every instance and process that opens it
    /// applies them. A parameter left nil takes what the folder keeps (or the default below,
    /// for a folder that keeps nothing); one that is given changes it for everyone: instances
    /// already open, in this process and others, apply it from their next save, removal, batch
    /// or ``trim()``. In one process, every instance opened on a folder also shares its
    /// registered types, class names, unarchiver options and registered defaults.
    ///
    /// - Parameters:
    ///   - directory: A file URL. The store writes only inside it.
    ///   - limits: The most the store keeps (``Limits``); the least recently used values go
    ///     first. Nil: the folder's, else ``Limits/unlimited``.
    ///   - permissions: The modes of the files and folders the store creates (``Permissions``).
    ///     Nil: the folder's, else ``Permissions/ownerOnly``.
    ///   - durability: What an acknowledged save survives (``Durability``). Nil: the folder's,
    ///     else ``Durability/full``, a power loss.
    ///   - clock: Where the store reads the time (``Clock``; by default the system's).
    /// - Throws: `ArchiveError` `.io` when the directory cannot be created or opened (the reason
    ///   names the path and the system's error).
    public convenience init(
        directory: URL, limits: Limits? = nil, permissions: Permissions? = nil, durability: Durability? = nil,
        clock: Clock = .system
    ) throws {
        try self.init(
            directory: directory, limits: limits, permissions: permissions, durability: durability, clock: clock,
            defaultDurability: .full)
    }

    /// ``init(directory:limits:permissions:durability:clock:)`` with the durability a folder that
    /// keeps none gets when `durability` is nil.
    init(
        directory: URL, limits: Limits?, permissions: Permissions?, durability: Durability?, clock: Clock,
        defaultDurability: Durability
    ) throws {
        guard directory.isFileURL else {
            throw ArchiveError(.io, reason: "\(directory) is not a file URL; pass a directory on the local file system")
        }
        var path = directory.standardizedFileURL.path(percentEncoded: false)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        try Directory.create(path: path, mode: UInt32((permissions ?? .ownerOnly).directoryMode))
        guard let root = try Directory.open(path: path) else {
            throw ArchiveError.io(errno: ENOENT, "open the directory", path: path)
        }
        let kept = StoreSettings.kept(in: root)
        let settings = StoreSettings.resolve(
            limits: limits, permissions: permissions, durability: durability, kept: kept?.settings,
            defaultDurability: defaultDurability)
        Self.protect(folderAt: path, settings.permissions.fileProtection)
        let engine = FileStoreEngine.open(rootPath: path, settings: settings)
        engine.keep(settings, kept: kept, root: root)
        self.engine = engine
        place = .root
        self.clock = clock
        engine.reopen(root: root)
    }

    init(engine: any StoreEngine, place: StorePlace, clock: Clock) {
        self.engine = engine
        self.place = place
        self.clock = clock
    }

    /// The limits given when the store was made; namespaces share them (they count the whole store).
    public var limits: Limits { engine.limits }

    /// The modes of the files and folders the store creates.
    public var permissions: Permissions { engine.permissions }

    /// What an acknowledged save, removal or batch survives (see ``Durability``).
    public var durability: Durability { engine.durability }

    /// This store's directory: the directory given to ``init(directory:limits:permissions:durability:clock:)``
    /// (standardized), or for a namespace its own directory inside its parent's.
    ///
    /// A namespace's directory exists from its first save until ``removeAll()`` empties it; it
    /// may not exist yet. Use it to measure the store's size, to exclude it from backups, or to
    /// look at its files (each one a keyed archive `karchive dump` reads). Write nothing into it.
    public var directory: URL { engine.directory(of: place) }

    /// A sub-store whose keys are apart from this store's and from every other namespace's.
    ///
    /// Any string names a namespace (it is encoded like a key, as a subdirectory `ns-<escaped>`
    /// that cannot collide with key files); namespaces nest. Nothing is created until a value
    /// is saved in it. The namespace shares this store's configuration (registered types,
    /// class names, limits and registered defaults; see ``register(_:)``) and clock.
    ///
    /// ```swift
    /// let alice = store.namespace("+15551234567")
    /// try alice.save(cart, forKey: "cart")
    /// ```
    ///
    /// - Parameter name: Any string, compared by its exact UTF-8 bytes, as keys are.
    /// - Returns: The sub-store; asking again for the same name gives a store on the same folder.
    public func namespace(_ name: String) -> ArchiveStore {
        ArchiveStore(engine: engine, place: place.appending(name), clock: clock)
    }

    // MARK: - Saving

    /// Saves `value` under `key`, replacing the previous value.
    ///
    /// The value is archived as the root object of a keyed archive (anything `KeyedArchiver`
    /// archives: `Archivable`, `KeyedCoding`, `Codable`, property-list values, collections).
    /// When the call returns the value survives what ``durability`` promises: at
    /// ``Durability/full`` it is on the drive (file and directory flushed, a flush shared with
    /// the saves other threads made at the same time); at ``Durability/buffered`` it survives
    /// the process being killed.
    ///
    /// Any number of saves run at once; ``removeAll()`` and ``removeExpired()`` wait for them.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: Any string; compared by exact UTF-8 bytes.
    ///   - expiresAfter: How long the value lives, from now (the store's ``Clock``). An expired
    ///     value loads as nil and is deleted; nil (the default) keeps it until it is removed.
    ///     The expiry time is stored inside the file, not in its modification time.
    ///
    /// - Throws: `ArchiveError`: the archiver's codes (`.notArchivable`, `.cycle`,
    ///   `.unencodable`...) before anything is written; `.io` for a failed write (read-only
    ///   directory, full disk), with the path and the system's error. Either way the previous
    ///   value is intact.
    public func save<T>(_ value: T, forKey key: String, expiresAfter: Duration? = nil) throws {
        engine.announceCommit()
        let change: FileChange
        do {
            change = try saving(value, forKey: key, expiresAfter: expiresAfter)
        } catch {
            engine.withdrawCommit()
            throw error
        }
        try engine.commit(Commit(changes: [change], atomic: false, time: now), announced: true)
    }

    /// The change that saves `value` under `key`: the value encoded, nothing written yet.
    func saving<T>(_ value: T, forKey key: String, expiresAfter: Duration?) throws -> FileChange {
        let expires = expiresAfter.map { clock.now.addingTimeInterval($0.seconds) }
        let content = try StoreRecord.encode(
            value, key: key, expires: expires, options: configuration.withLock { $0.archiverOptions })
        return FileChange(
            place: place, key: key, action: .save(content, expires: expires?.timeIntervalSinceReferenceDate))
    }

    /// The store's time in seconds since 2001.
    var now: Double { clock.now.timeIntervalSinceReferenceDate }

    /// Saves `value` under its type's archive class name (one value per model type).
    ///
    /// The key is the type's `archiveClassName` (`KeyedCoding` first, then `Archivable`),
    /// else its module-qualified name (such as `MyApp.Settings`), the name it is archived under.
    /// A value saved before the type moved to another module (`OldApp.Settings`, the same name
    /// but for its module) is removed in the same commit, as are the values under a renamed
    /// type's `archiveLegacyClassNames` (all or nothing, as a ``batch(_:)``). The first such save
    /// of a type in a process lists the namespace's keys once to find them.
    ///
    /// - Parameter value: The value to store; its static type names the key.
    /// - Throws: as ``save(_:forKey:expiresAfter:)``; nothing is removed if the save fails.
    public func save<T>(_ value: T) throws {
        let earlier = try earlierKeys(for: T.self)
        guard !earlier.isEmpty else { return try save(value, forKey: Self.defaultKey(for: T.self)) }
        try batch { batch in try savingUnderTypeName(value, replacing: earlier, in: batch) }
        forgetMovedKeys(for: T.self)
    }

    /// Adds to `batch` the save of `value` under its type's name and the removal of the values
    /// under `earlier` keys (``earlierKeys(for:)``).
    func savingUnderTypeName<T>(_ value: T, replacing earlier: [String], in batch: Batch) throws {
        try batch.save(value, forKey: Self.defaultKey(for: T.self))
        for key in earlier { try batch.remove(forKey: key) }
    }

    /// The keys that may hold `type`'s values saved under an earlier name: its legacy class
    /// names, then the keys found by ``movedKeys(for:)``.
    func earlierKeys<T>(for type: T.Type) throws -> [String] {
        KeyedArchiver.legacyClassNames(of: type) + (try movedKeys(for: type))
    }

    /// The keys of this namespace that are `type`'s default key but for their modules: values
    /// saved with ``save(_:)`` before the type moved to another module.
    ///
    /// The namespace's keys are listed the first time a process asks for a type (in any store
    /// on the folder); the answer is kept for the process until a save under the type's name
    /// removes those keys.
    func movedKeys<T>(for type: T.Type) throws -> [String] {
        guard let moved = KeyedArchiver.defaultClassNameWithoutModules(of: type) else { return [] }
        let own = Self.defaultKey(for: type)
        let entry = StoreConfiguration.MovedKeysEntry(directory: place.directory, key: own)
        if let known = configuration.withLock({ $0.movedKeys[entry] }) { return known }
        let found = try listKeys().filter { $0 != own && KeyedArchiver.classNameWithoutModules($0) == moved }
        configuration.withLock { $0.movedKeys[entry] = found }
        return found
    }

    /// Records that the keys ``movedKeys(for:)`` found for `type` were removed.
    func forgetMovedKeys<T>(for type: T.Type) {
        let entry = StoreConfiguration.MovedKeysEntry(directory: place.directory, key: Self.defaultKey(for: type))
        configuration.withLock { $0.movedKeys[entry] = [] }
    }

    // MARK: - Loading

    /// The value saved under `key`, decoded as `type`; nil when there is none or it expired.
    ///
    /// An expired value is deleted (unless a save of the key is running at that moment; then the
    /// next load or ``removeExpired()`` deletes it). A load never waits for saves; it waits only
    /// while a ``batch(_:)`` is making its changes, so that it sees all of them or none.
    ///
    /// Decoding uses the store's configuration: the types given to ``register(_:)`` and
    /// ``setClass(_:forClassName:)`` and the limits in ``unarchiverOptions``.
    ///
    /// - Parameters:
    ///   - type: The type to decode the value as.
    ///   - key: The key given to ``save(_:forKey:expiresAfter:)``.
    /// - Returns: The value, or nil when the key holds none or it expired.
    /// - Throws: `ArchiveError`: `.typeMismatch` (and the unarchiver's other decoding codes)
    ///   when the value is not a `type`; `.unknownClass` for a subclass or other type that was
    ///   not registered; for a damaged or foreign file the reader's code (`.notPropertyList`,
    ///   `.truncated`, `.invalidArchive`...), naming the file, which is left in place;
    ///   `.sizeLimit` for a file or value beyond ``unarchiverOptions``; `.io` when the file
    ///   cannot be read.
    public func load<T>(_ type: T.Type, forKey key: String) throws -> T? {
        try engine.load(type, forKey: key, in: place, now: clock.now)
    }

    /// The value saved with ``save(_:)`` for `type`; nil when there is none or it expired.
    ///
    /// When there is none under its current name, a value saved under one of the type's
    /// `archiveLegacyClassNames` (before it was renamed) is found, then one saved under its
    /// name from another module (before it moved: `OldApp.Settings` for `Models.Settings`); the
    /// next ``save(_:)`` removes them.
    ///
    /// - Parameter type: The type to decode; its archive class name is the key.
    /// - Returns: The value, or nil when there is none or it expired.
    /// - Throws: as ``load(_:forKey:)``.
    public func load<T>(_ type: T.Type) throws -> T? {
        if let current = try load(type, forKey: Self.defaultKey(for: type)) { return current }
        for key in try earlierKeys(for: type) {
            if let value = try load(type, forKey: key) { return value }
        }
        return nil
    }

    /// True when a value is stored under `key` and has not expired.
    ///
    /// Reads the file's metadata, not its value; a damaged file counts as present (``load(_:forKey:)``
    /// then throws). Deletes nothing.
    public func contains(_ key: String) -> Bool {
        engine.contains(key, in: place, now: clock.now)
    }

    /// This namespace's keys, typed values included, not those of nested namespaces; expired
    /// values left out. Ordered by their UTF-8 bytes.
    ///
    /// Reads each file's metadata. A damaged file is listed if its name spells its key (any key
    /// under 255 bytes once escaped) and left out otherwise.
    ///
    /// - Throws: `ArchiveError` `.io` when the directory cannot be read.
    public func listKeys() throws -> [String] {
        try engine.keys(in: place, now: clock.now)
    }

    /// ``listKeys()``, or an empty list when the directory cannot be read; the error is then
    /// reported on standard error and to ``failures()``.
    public var keys: [String] {
        do { return try listKeys() } catch {
            report(error, .list, key: nil)
            return []
        }
    }

    /// The names of the namespaces directly inside this one, exactly as given to
    /// ``namespace(_:)``, ordered by their UTF-8 bytes.
    ///
    /// A namespace is listed once a value was saved in it (or in a namespace nested in it) and
    /// until ``removeAll()`` removes it; removing its values one by one leaves it listed, empty.
    /// A name too long for a file name is read from the `.namespace` file its directory keeps;
    /// a directory whose name does not decode, or that lost that file, is left out.
    ///
    /// - Throws: `ArchiveError` `.io` when the directory cannot be read.
    public func listNamespaces() throws -> [String] {
        try engine.namespaces(in: place)
    }

    /// ``listNamespaces()``, or an empty list when the directory cannot be read; the error is
    /// then reported on standard error and to ``failures()``.
    public var namespaces: [String] {
        do { return try listNamespaces() } catch {
            report(error, .list, key: nil)
            return []
        }
    }

    // MARK: - Removing

    /// Removes the value under `key`, as durably as a save (see ``durability``). An absent key is
    /// not an error.
    ///
    /// - Parameter key: The key whose file is deleted (a damaged file under it too).
    /// - Throws: `ArchiveError` `.io` when the file cannot be removed.
    public func remove(forKey key: String) throws {
        try engine.commit(
            Commit(changes: [FileChange(place: place, key: key, action: .remove)], atomic: false, time: now),
            announced: false)
    }

    /// Removes every value of this namespace and of every namespace nested in it.
    ///
    /// Other namespaces (and, for a namespace, its parent's values) are untouched. Every file
    /// named as a key is deleted, damaged ones included; files with names the store never uses
    /// (anything but `key-…`, `ns-…` and its temporary files) are left, with the directories
    /// holding them. Holds the store's exclusive lock, so it waits for saves in progress (in any
    /// process) and saves wait for it.
    ///
    /// - Throws: `ArchiveError` `.io` when a file or directory cannot be removed.
    public func removeAll() throws {
        try engine.removeAll(in: place, now: clock.now)
    }

    /// Deletes the expired values of this namespace and of the namespaces nested in it, and the
    /// temporary files of saves that were killed.
    ///
    /// Damaged files are left in place. Holds the store's exclusive lock.
    ///
    /// - Throws: `ArchiveError` `.io` when a directory cannot be read or a file removed.
    public func removeExpired() throws {
        try engine.removeExpired(in: place, now: clock.now)
    }

    // MARK: - Internals

    /// The archive class name `save(_:)` uses as the key for `type`.
    package static func defaultKey<T>(for type: T.Type) -> String {
        KeyedArchiver.className(of: type)
    }
}
