import ArchiveFileSystem
import Foundation
import KeyedArchive
import Synchronization

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
/// is touched), writes a temporary file in the same directory, flushes it to disk, renames it
/// over the key's file and flushes the directory. A save that throws — unencodable value,
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
/// corrupt, written by another program, or holding another key's value) makes ``load(_:forKey:)-8yj94``
/// throw an `ArchiveError` naming its path; the file is left in place so it can be inspected,
/// and ``remove(forKey:)-5avmq`` or a new save replaces it. The typed getters return their defaults
/// for it, ``contains(_:)`` returns true, ``removeExpired()`` leaves it and ``removeAll()``
/// deletes it.
public final class ArchiveStore: Sendable {
    /// The directory given to ``init(directory:)``: the root of every namespace, home of `.lock`.
    let rootPath: String
    /// Namespace names, outermost first, from the root to this store.
    let namespacePath: [String]
    /// This namespace's folder relative to the root (`""` for the root, `ns-a/ns-b`).
    let relativeDirectory: String
    /// Shared by the root store and every namespace made from it.
    let configuration: Locked<StoreConfiguration>
    /// The limits, permissions and index, shared by the root store and every namespace made from it.
    let state: StoreState
    /// Numbers temporary file names (with the process id and a random part), shared by the
    /// threads saving through this instance.
    private let temporaryFileCount = Atomic<UInt64>(0)

    /// Opens the store in `directory`, without limits, its files readable by their owner only.
    ///
    /// The same as ``init(directory:limits:permissions:)`` with ``Limits/none`` and
    /// ``Permissions/ownerOnly``.
    public convenience init(directory: URL) throws {
        try self.init(directory: directory, limits: .none)
    }

    /// Opens the store in `directory`, creating the directory (and missing parents) if needed.
    ///
    /// Stores opened on the same directory, in one process or several, share their values.
    /// Opening the store deletes the temporary files of saves killed midway, unless a save is
    /// running at that moment (see the durability notes of ``ArchiveStore``); it never waits.
    ///
    /// - Parameters:
    ///   - directory: A file URL. The store writes only inside it.
    ///   - limits: The most the store keeps (``Limits``); the least recently used values go first.
    ///   - permissions: The modes of the files and folders the store creates (``Permissions``;
    ///     by default only the owner may read them).
    /// - Throws: `ArchiveError` `.io` when the directory cannot be created or opened (the reason
    ///   names the path and the system's error).
    public init(directory: URL, limits: Limits, permissions: Permissions = .ownerOnly) throws {
        guard directory.isFileURL else {
            throw ArchiveError(.io, reason: "\(directory) is not a file URL; pass a directory on the local file system")
        }
        var path = directory.standardizedFileURL.path(percentEncoded: false)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        try Directory.create(path: path, mode: UInt32(permissions.directoryMode))
        guard let root = try Directory.open(path: path) else {
            throw ArchiveError.io(errno: ENOENT, "open the directory", path: path)
        }
        Self.protect(folderAt: path, permissions.fileProtection)
        rootPath = path
        namespacePath = []
        relativeDirectory = ""
        configuration = Locked(StoreConfiguration())
        state = StoreState(rootPath: path, limits: limits, permissions: permissions)
        sweepTemporaryFilesIfIdle(root: root)
    }

    private init(rootPath: String, namespacePath: [String], configuration: Locked<StoreConfiguration>, state: StoreState) {
        self.rootPath = rootPath
        self.namespacePath = namespacePath
        relativeDirectory = namespacePath.map(StoreFileName.namespaceDirectoryName(for:)).joined(separator: "/")
        self.configuration = configuration
        self.state = state
    }

    /// The limits given when the store was made; namespaces share them (they count the whole store).
    public var limits: Limits { state.limits }

    /// The modes of the files and folders the store creates.
    public var permissions: Permissions { state.permissions }

    /// This store's directory: the directory given to ``init(directory:)`` (standardized), or
    /// for a namespace its own directory inside its parent's.
    ///
    /// A namespace's directory exists from its first save until ``removeAll()`` empties it; it
    /// may not exist yet. Use it to measure the store's size, to exclude it from backups, or to
    /// look at its files (each one a keyed archive `karchive dump` reads). Write nothing into it.
    public var directory: URL {
        let components = namespacePath.map(StoreFileName.namespaceDirectoryName(for:))
        return components.reduce(URL(fileURLWithPath: rootPath, isDirectory: true)) {
            $0.appending(path: $1, directoryHint: .isDirectory)
        }
    }

    /// A sub-store whose keys are apart from this store's and from every other namespace's.
    ///
    /// Any string names a namespace (it is encoded like a key, as a subdirectory `ns-<escaped>`
    /// that cannot collide with key files); namespaces nest. Nothing is created until a value
    /// is saved in it. The namespace shares this store's configuration (registered types,
    /// class names, limits and registered defaults; see ``register(_:)``).
    ///
    /// ```swift
    /// let alice = store.namespace("+15551234567")
    /// try alice.save(cart, forKey: "cart")
    /// ```
    ///
    /// - Parameter name: Any string, compared by its exact UTF-8 bytes, as keys are.
    /// - Returns: The sub-store; asking again for the same name gives a store on the same folder.
    public func namespace(_ name: String) -> ArchiveStore {
        ArchiveStore(
            rootPath: rootPath, namespacePath: namespacePath + [name], configuration: configuration, state: state)
    }

    // MARK: - Saving

    /// Saves `value` under `key`, durably, replacing the previous value.
    ///
    /// The value is archived as the root object of a keyed archive (anything `KeyedArchiver`
    /// archives: `Archivable`, `KeyedCoding`, `Codable`, property-list values, collections).
    /// When the call returns the value is on disk (file and directory flushed).
    ///
    /// Holds the store's lock shared while it writes, so any number of saves run at once, and
    /// ``removeAll()`` and ``removeExpired()`` wait for them.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: Any string; compared by exact UTF-8 bytes.
    ///   - expiresAfter: How long the value lives, from now (wall clock). An expired value loads
    ///     as nil and is deleted; nil (the default) keeps it until it is removed. The expiry
    ///     time is stored inside the file, not in its modification time.
    ///
    /// - Throws: `ArchiveError`: the archiver's codes (`.notArchivable`, `.cycle`,
    ///   `.unencodable`...) before anything is written; `.io` for a failed write (read-only
    ///   directory, full disk), with the path and the system's error. Either way the previous
    ///   value is intact.
    public func save<T>(_ value: T, forKey key: String, expiresAfter: Duration? = nil) throws {
        let expires = expiresAfter.map { Date(timeIntervalSinceNow: $0.seconds) }
        let content = try StoreRecord.encode(value, key: key, expires: expires)
        try store(content, forKey: key, expires: expires)
    }

    /// Writes an encoded stored file under `key` and applies the limits.
    ///
    /// With `expected`, writes only if the key's file is still the one with that identity (the
    /// file an upgrade read), under the exclusive lock; returns whether it wrote.
    @discardableResult
    func store(_ content: Data, forKey key: String, expires: Date?, ifUnchanged expected: FileIdentity? = nil) throws -> Bool {
        guard let root = try write(content, forKey: key, expires: expires?.timeIntervalSinceReferenceDate, ifUnchanged: expected)
        else { return false }
        if state.limits.limitsDisk {
            let path = StoreJournal.path(directory: relativeDirectory, fileName: StoreFileName.keyFileName(for: key))
            enforceLimits(root: root, protecting: path)
        }
        compactIfDue()
        sweepTemporaryFilesIfIdle(root: root)
        return true
    }

    /// Saves `value` under its type's archive class name (one value per model type).
    ///
    /// The key is the type's `archiveClassName` (`KeyedCoding` first, then `Archivable`),
    /// else its module-qualified name (such as `MyApp.Settings`), the name it is archived under.
    /// Declare `archiveClassName` to keep the key stable when the type moves or is renamed; a
    /// renamed type lists its old names in `archiveLegacyClassNames`, and once this save has
    /// written the value under the current name, the values under those names are removed.
    ///
    /// - Parameter value: The value to store; its static type names the key.
    /// - Throws: as ``save(_:forKey:expiresAfter:)-34ndq``; nothing is removed if the save fails.
    public func save<T>(_ value: T) throws {
        try save(value, forKey: Self.defaultKey(for: T.self))
        for legacy in KeyedArchiver.legacyClassNames(of: T.self) { try remove(forKey: legacy) }
    }

    // MARK: - Loading

    /// The value saved under `key`, decoded as `type`; nil when there is none or it expired.
    ///
    /// An expired value is deleted (unless a save of the key is running at that moment; then the
    /// next load or ``removeExpired()`` deletes it).
    ///
    /// Decoding uses the store's configuration: the types given to ``register(_:)`` and
    /// ``setClass(_:forClassName:)`` and the limits in ``unarchiverOptions``.
    ///
    /// - Parameters:
    ///   - type: The type to decode the value as.
    ///   - key: The key given to ``save(_:forKey:expiresAfter:)-34ndq``.
    /// - Returns: The value, or nil when the key holds none or it expired.
    /// - Throws: `ArchiveError`: `.typeMismatch` (and the unarchiver's other decoding codes)
    ///   when the value is not a `type`; `.unknownClass` for a subclass or other type that was
    ///   not registered; for a damaged or foreign file the reader's code (`.notPropertyList`,
    ///   `.truncated`, `.invalidArchive`...), naming the file, which is left in place;
    ///   `.sizeLimit` for a file or value beyond ``unarchiverOptions``; `.io` when the file
    ///   cannot be read.
    public func load<T>(_ type: T.Type, forKey key: String) throws -> T? {
        try loadNow(type, forKey: key)
    }

    /// ``load(_:forKey:)-8yj94``, named apart from its `async` form.
    func loadNow<T>(_ type: T.Type, forKey key: String) throws -> T? {
        let configuration = configuration.withLock { $0 }
        if let hit = try memoryHit(type, forKey: key, configuration: configuration) { return hit }
        guard let (record, _, status) = try record(forKey: key, configuration: configuration) else {
            return nil
        }
        let value = try record.decodeValue(type)
        noteUse(of: key)
        keepInMemory(forKey: key, record: record, status: status, value: value)
        return value
    }

    /// The value saved with ``save(_:)`` for `type`; nil when there is none or it expired.
    ///
    /// A value saved under one of the type's `archiveLegacyClassNames` (before it was renamed)
    /// is found when there is none under its current name.
    ///
    /// - Parameter type: The type to decode; its archive class name is the key.
    /// - Returns: The value, or nil when there is none or it expired.
    /// - Throws: as ``load(_:forKey:)-8yj94``.
    public func load<T>(_ type: T.Type) throws -> T? {
        if let current = try load(type, forKey: Self.defaultKey(for: type)) { return current }
        for legacy in KeyedArchiver.legacyClassNames(of: type) {
            if let value = try load(type, forKey: legacy) { return value }
        }
        return nil
    }

    /// True when a value is stored under `key` and has not expired.
    ///
    /// Reads the file's metadata, not its value; a damaged file counts as present (``load(_:forKey:)-8yj94``
    /// then throws). Deletes nothing.
    public func contains(_ key: String) -> Bool {
        let configuration = configuration.withLock { $0 }
        let fileName = StoreFileName.keyFileName(for: key)
        guard let (_, directory) = try? openDirectories(creating: false) else { return false }
        let data: Data?
        do {
            data = try directory.readFile(fileName, maximumSize: configuration.unarchiverOptions.maximumArchiveSize)
        } catch let error as ArchiveError where error.code == .sizeLimit {
            return true  // beyond the store's limits: a damaged file
        } catch {
            return false
        }
        guard let data else { return false }
        guard let record = try? StoreRecord(data, path: directory.path(of: fileName), configuration: configuration)
        else { return true }
        return !record.isExpired(at: Date())
    }

    /// This namespace's keys, typed values included, not those of nested namespaces; expired
    /// values left out. Ordered by their UTF-8 bytes.
    ///
    /// Reads each file's metadata. A damaged file is listed if its name spells its key (any key
    /// under 255 bytes once escaped) and left out otherwise. Empty when the directory cannot be read.
    public var keys: [String] {
        guard let entries = try? liveEntries(under: false) else { return [] }
        var keys: [String] = []
        var unnamed: [String] = []
        for entry in entries {
            if let key = entry.key { keys.append(key) } else { unnamed.append(entry.fileName) }
        }
        if !unnamed.isEmpty, let (_, directory) = try? openDirectories(creating: false) {
            // Hashed names whose keys the journal does not hold (very long keys): ask the files.
            let configuration = configuration.withLock { $0 }
            for name in unnamed {
                guard
                    let data = try? directory.readFile(
                        name, maximumSize: configuration.unarchiverOptions.maximumArchiveSize),
                    let stored = try? StoreRecord(data, path: directory.path(of: name), configuration: configuration),
                    let key = stored.key, StoreFileName.keyFileName(for: key) == name
                else { continue }
                keys.append(key)
            }
        }
        return keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The names of the namespaces directly inside this one, exactly as given to
    /// ``namespace(_:)``, ordered by their UTF-8 bytes.
    ///
    /// A namespace is listed once a value was saved in it (or in a namespace nested in it) and
    /// until ``removeAll()`` removes it; removing its values one by one leaves it listed, empty.
    /// A name too long for a file name is read from the `.namespace` file its directory keeps;
    /// a directory whose name does not decode, or that lost that file, is left out. Empty
    /// when the directory cannot be read.
    public var namespaces: [String] {
        guard let (_, directory) = try? openDirectories(creating: false),
            let entries = try? directory.entries()
        else { return [] }
        var names: [String] = []
        for entry in entries {
            switch StoreFileName.classify(entry) {
            case .namespace(let name):
                guard (try? Self.nestedDirectory(entry, in: directory)) != nil else { continue }
                names.append(name)
            case .hashedNamespace:
                guard let nested = try? Self.nestedDirectory(entry, in: directory),
                    let name = Self.recordedName(in: nested),
                    StoreFileName.namespaceDirectoryName(for: name) == entry
                else { continue }
                names.append(name)
            case .key, .hashedKey, .temporary, .other:
                continue
            }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    // MARK: - Removing

    /// Removes the value under `key`, durably. An absent key is not an error.
    ///
    /// - Parameter key: The key whose file is deleted (a damaged file under it too).
    /// - Throws: `ArchiveError` `.io` when the file cannot be removed.
    public func remove(forKey key: String) throws {
        try removeNow(forKey: key)
    }

    /// ``remove(forKey:)-5avmq``, named apart from its `async` form.
    func removeNow(forKey key: String) throws {
        defer { compactIfDue() }
        // Nothing to remove, and no lock file to create, when the namespace has no folder.
        guard let (root, directory) = try openDirectories(creating: false) else { return }
        let removed: Bool
        do {
            let lock = try StoreLock.acquire(.shared, in: root, fileMode: state.permissions.fileMode)
            defer { withExtendedLifetime(lock) {} }
            removed = try directory.removeFile(StoreFileName.keyFileName(for: key))
            forgetInMemory(key)
            if removed { record([journalRecord(.removed, key: key)], root: root) }
        }
        if removed { try directory.sync() }
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
        defer { compactIfDue() }
        guard let root = try Directory.open(path: rootPath), try subdirectories(from: root, creating: false) != nil
        else { return }
        let lock = try StoreLock.acquire(.exclusive, in: root, fileMode: state.permissions.fileMode)
        defer { withExtendedLifetime(lock) {} }
        var chain = [root]
        for name in namespacePath {
            guard
                let next = try chain[chain.count - 1].subdirectory(
                    StoreFileName.namespaceDirectoryName(for: name), create: false)
            else { return }
            chain.append(next)
        }
        var removed: [StoreJournal.Record] = []
        try Self.removeEverything(
            in: chain[chain.count - 1], relative: relativeDirectory, configuration: configuration.withLock { $0 },
            removed: &removed)
        let relative = relativeDirectory
        state.memory.withLock { $0.removeAll(under: relative) }
        record(removed, root: root)
        if chain.count >= 2, let name = namespacePath.last {
            let parent = chain[chain.count - 2]
            try parent.removeDirectoryIfEmpty(StoreFileName.namespaceDirectoryName(for: name))
            try parent.sync()
        }
    }

    /// Deletes the expired values of this namespace and of the namespaces nested in it, and the
    /// temporary files of saves that were killed.
    ///
    /// Damaged files are left in place. Holds the store's exclusive lock.
    ///
    /// - Throws: `ArchiveError` `.io` when a directory cannot be read or a file removed.
    public func removeExpired() throws {
        defer { compactIfDue() }
        guard let root = try Directory.open(path: rootPath), try subdirectories(from: root, creating: false) != nil
        else { return }
        let lock = try StoreLock.acquire(.exclusive, in: root, fileMode: state.permissions.fileMode)
        defer { withExtendedLifetime(lock) {} }
        guard let directory = try subdirectories(from: root, creating: false) else { return }
        var removed: [StoreJournal.Record] = []
        try Self.removeExpired(
            in: directory, relative: relativeDirectory, now: Date(), configuration: configuration.withLock { $0 },
            removed: &removed)
        for record in removed { state.memory.withLock { $0.remove(record.path) } }
        record(removed, root: root)
    }

    // MARK: - Internals

    /// The archive class name `save(_:)` uses as the key for `type`.
    package static func defaultKey<T>(for type: T.Type) -> String {
        KeyedArchiver.className(of: type)
    }

    /// The unexpired record stored under `key`, read under `configuration`; nil when there is
    /// none or it expired (an expired one is deleted, see ``load(_:forKey:)-8yj94``).
    ///
    /// - Throws: as ``load(_:forKey:)-8yj94``, for a file that cannot be read or is not `key`'s.
    func record(
        forKey key: String, configuration: StoreConfiguration
    ) throws -> (StoreRecord, root: Directory, status: stat)? {
        let fileName = StoreFileName.keyFileName(for: key)
        guard let (root, directory) = try openDirectories(creating: false),
            let (data, status) = try directory.readFileAndStatus(
                fileName, maximumSize: configuration.unarchiverOptions.maximumArchiveSize)
        else { return nil }
        let record = try StoreRecord(data, path: directory.path(of: fileName), configuration: configuration)
        try record.check(key: key, hashedName: StoreFileName.isHashed(fileName))
        if record.isExpired(at: Date()) {
            deleteIfExpired(key, fileName, in: directory, root: root, configuration: configuration)
            return nil
        }
        return (record, root, status)
    }

    /// The root directory and this store's directory; nil when one of them does not exist and
    /// `creating` is false.
    func openDirectories(creating: Bool) throws -> (root: Directory, directory: Directory)? {
        guard let root = creating ? try openOrCreateRoot() : try Directory.open(path: rootPath),
            let directory = try subdirectories(from: root, creating: creating)
        else { return nil }
        return (root, directory)
    }

    /// The root directory, created again if it was deleted since ``init(directory:)``.
    private func openOrCreateRoot() throws -> Directory {
        if let root = try Directory.open(path: rootPath) { return root }
        try Directory.create(path: rootPath, mode: UInt32(state.permissions.directoryMode))
        guard let root = try Directory.open(path: rootPath) else {
            throw ArchiveError.io(errno: ENOENT, "open the directory", path: rootPath)
        }
        return root
    }

    /// This store's directory, walked from `root` one namespace at a time without following links.
    ///
    /// When `creating`, missing directories are created, and each namespace directory with a
    /// hashed name gets its `.namespace` file (the caller holds the lock shared).
    func subdirectories(from root: Directory, creating: Bool) throws -> Directory? {
        var directory = root
        for name in namespacePath {
            let directoryName = StoreFileName.namespaceDirectoryName(for: name)
            guard
                let next = try directory.subdirectory(
                    directoryName, create: creating, mode: state.permissions.directoryMode,
                    created: { Self.protect(folderAt: $0, self.state.permissions.fileProtection) })
            else { return nil }
            if creating, StoreFileName.isHashed(directoryName) { try recordName(name, in: next) }
            directory = next
        }
        return directory
    }

    /// Writes `name` durably as the `.namespace` file of its directory, unless it is there.
    private func recordName(_ name: String, in directory: Directory) throws {
        guard try directory.status(of: StoreFormat.namespaceNameFileName) == nil else { return }
        try directory.replaceFile(
            StoreFormat.namespaceNameFileName, with: Data(name.utf8), temporaryName: temporaryFileName(),
            mode: UInt32(state.permissions.fileMode))
        try directory.sync()
    }

    /// The name a namespace directory's `.namespace` file holds; nil if it has none.
    private static func recordedName(in directory: Directory) -> String? {
        guard
            let data = try? directory.readFile(
                StoreFormat.namespaceNameFileName, maximumSize: StoreFormat.maximumNamespaceNameFileSize)
        else { return nil }
        return String(validating: data, as: UTF8.self)
    }

    /// Writes `content` as `key`'s file in this store's directory: temporary file, flush, rename,
    /// flush, with the save announced in the journal before the rename and confirmed after it.
    ///
    /// A save that takes the store past its limits first makes room (``makeRoom(for:in:root:)``)
    /// under the exclusive lock, and writes into the file of the value it evicted when it can
    /// (``ReusedFile``); any other save holds the lock shared. Either way removeAll() and the
    /// sweeps (exclusive) never see a save half done.
    ///
    /// A write `ifUnchanged` takes the lock exclusive, so no other save of the key can come
    /// between its check and its rename; it makes no room (an upgrade rewrites a value in place).
    ///
    /// - Returns: the root directory; nil when `ifUnchanged` found another file.
    private func write(_ content: Data, forKey key: String, expires: Double?, ifUnchanged expected: FileIdentity?) throws -> Directory? {
        let root = try openOrCreateRoot()
        let fileName = StoreFileName.keyFileName(for: key)
        var announced = journalRecord(.saving, key: key, fileName: fileName, size: content.count, expires: expires)
        let mode = UInt32(state.permissions.fileMode)
        let evicting = expected == nil && state.limits.limitsDisk && isPastLimits(root: root, saving: announced)
        var directory: Directory
        do {
            let exclusive = evicting || expected != nil
            let lock = try StoreLock.acquire(exclusive ? .exclusive : .shared, in: root, fileMode: state.permissions.fileMode)
            defer { withExtendedLifetime(lock) {} }
            guard let opened = try subdirectories(from: root, creating: expected == nil) else {
                if expected != nil { return nil }
                throw ArchiveError.io(errno: ENOENT, "open the namespace directory", path: rootPath)
            }
            directory = opened
            if let expected {
                guard let now = try directory.status(of: fileName), FileIdentity(now) == expected else { return nil }
            }
            forgetInMemory(key)
            var reused: ReusedFile?
            if evicting {
                reused = makeRoom(for: announced, in: directory, root: root)
                try lock.downgrade(in: root)
            } else {
                record(state.takePendingUses() + [announced], root: root)
            }
            let written: stat
            if let reused, let status = try? reused.write(content, mode: mode), (try? reused.place(as: fileName)) != nil {
                written = status
            } else {
                // A reused file is given up for a new one if anything fails, or if the exclusive
                // lock, free for a moment while it turned shared, let removeAll() or a sweep
                // delete it (and perhaps the folder).
                if reused != nil, let reopened = try subdirectories(from: root, creating: true) { directory = reopened }
                do {
                    written = try directory.replaceFile(
                        fileName, with: content, temporaryName: temporaryFileName(), mode: mode)
                } catch {
                    // The announced save did not happen: tell the journal what is there instead.
                    record([recordOfFile(fileName, key: key, in: directory)], root: root)
                    throw error
                }
            }
            announced.kind = .saved
            record([announced], root: root)
            // Kept in memory only if the file in place is still this save's (same inode).
            if state.keepsValuesInMemory, let status = try? directory.status(of: fileName),
                status.st_ino == written.st_ino, status.st_dev == written.st_dev
            {
                keepInMemory(forKey: key, content: .archive(content), status: status, expires: expires)
            }
        }
        try directory.sync()
        return root
    }

    /// A record of what the file of `key` holds now: `saved` with its size and expiry, or
    /// `removed` when there is none (after a save that failed before its rename).
    private func recordOfFile(_ fileName: String, key: String, in directory: Directory) -> StoreJournal.Record {
        let configuration = configuration.withLock { $0 }
        guard let (data, status) = try? directory.readFileAndStatus(
            fileName, maximumSize: configuration.unarchiverOptions.maximumArchiveSize)
        else { return journalRecord(.removed, key: key) }
        let stored = try? StoreRecord(data, path: directory.path(of: fileName), configuration: configuration)
        return journalRecord(.restated, key: key, size: Int(status.st_size), expires: stored?.expires)
    }

    /// `.tmp-<pid>-<count>-<random>`: unique among the threads and processes saving here.
    func temporaryFileName() -> String {
        let count = temporaryFileCount.wrappingAdd(1, ordering: .relaxed).newValue
        let random = String(UInt32.random(in: .min ... .max), radix: 16)
        return "\(StoreFormat.temporaryPrefix)\(getpid())-\(count)-\(random)"
    }

    /// Deletes `fileName` if it is still expired once the exclusive lock is held; gives up
    /// quietly when the lock is busy (a save is running) or the file cannot be read.
    private func deleteIfExpired(
        _ key: String, _ fileName: String, in directory: Directory, root: Directory, configuration: StoreConfiguration
    ) {
        guard let lock = StoreLock.tryExclusive(in: root, fileMode: state.permissions.fileMode) else { return }
        defer { withExtendedLifetime(lock) {} }
        // No save can rename a file while the exclusive lock is held: read it again to be sure
        // it is the expired one, not a value saved since.
        let maximumSize = configuration.unarchiverOptions.maximumArchiveSize
        guard let data = try? directory.readFile(fileName, maximumSize: maximumSize),
            let stored = try? StoreRecord(data, path: directory.path(of: fileName), configuration: configuration),
            stored.isExpired(at: Date())
        else { return }
        forgetInMemory(key)
        if (try? directory.removeFile(fileName)) == true {
            record([journalRecord(.expired, key: key, size: data.count, expires: stored.expires)], root: root)
            try? directory.sync()
        }
    }

    private static func removeExpired(
        in directory: Directory, relative: String, now: Date, configuration: StoreConfiguration,
        removed records: inout [StoreJournal.Record]
    ) throws {
        var removed = false
        for name in try directory.entries() {
            switch StoreFileName.classify(name) {
            case .key, .hashedKey:
                let data: Data?
                do {
                    data = try directory.readFile(name, maximumSize: configuration.unarchiverOptions.maximumArchiveSize)
                } catch let error as ArchiveError where error.code == .sizeLimit {
                    continue  // beyond the store's limits: a damaged file, left in place
                }
                guard let data,
                    let record = try? StoreRecord(data, path: directory.path(of: name), configuration: configuration),
                    record.isExpired(at: now)
                else { continue }
                if try directory.removeFile(name) {
                    removed = true
                    records.append(
                        StoreJournal.Record(
                            kind: .expired, time: now.timeIntervalSinceReferenceDate, size: data.count,
                            expires: record.expires, directory: relative, fileName: name, key: record.key ?? ""))
                }
            case .temporary:
                removed = try directory.removeFile(name) || removed
            case .namespace, .hashedNamespace:
                if let nested = try nestedDirectory(name, in: directory) {
                    try removeExpired(
                        in: nested, relative: StoreJournal.path(directory: relative, fileName: name), now: now,
                        configuration: configuration, removed: &records)
                }
            case .other:
                continue
            }
        }
        if removed { try directory.sync() }
    }

    /// The namespace directory `name`, or nil if it is gone or is not a directory (a symbolic
    /// link planted under a namespace's name is never followed).
    static func nestedDirectory(_ name: String, in directory: Directory) throws -> Directory? {
        guard let status = try directory.status(of: name), status.st_mode & S_IFMT == S_IFDIR else { return nil }
        return try directory.subdirectory(name, create: false)
    }

    /// Removes every value and nested namespace in `directory`; its `.namespace` file too when
    /// nothing else is left, so the directory can be removed (a directory kept for files the
    /// store did not write keeps its name).
    private static func removeEverything(
        in directory: Directory, relative: String, configuration: StoreConfiguration,
        removed records: inout [StoreJournal.Record]
    ) throws {
        var removed = false
        let now = Date().timeIntervalSinceReferenceDate
        for name in try directory.entries() {
            let kind = StoreFileName.classify(name)
            switch kind {
            case .key, .hashedKey:
                // The key, for the journal and the store's observers: from the name, or the file.
                var key = ""
                if case .key(let spelled) = kind {
                    key = spelled
                } else if let data = try? directory.readFile(
                    name, maximumSize: configuration.unarchiverOptions.maximumArchiveSize),
                    let stored = try? StoreRecord(data, path: directory.path(of: name), configuration: configuration),
                    let recorded = stored.key, StoreFileName.keyFileName(for: recorded) == name
                {
                    key = recorded
                }
                if try directory.removeFile(name) {
                    removed = true
                    records.append(
                        StoreJournal.Record(
                            kind: .removed, time: now, size: 0, expires: nil, directory: relative, fileName: name,
                            key: key))
                }
            case .temporary:
                removed = try directory.removeFile(name) || removed
            case .namespace, .hashedNamespace:
                guard let nested = try nestedDirectory(name, in: directory) else { continue }
                try removeEverything(
                    in: nested, relative: StoreJournal.path(directory: relative, fileName: name),
                    configuration: configuration, removed: &records)
                try directory.removeDirectoryIfEmpty(name)
                removed = true
            case .other:
                continue
            }
        }
        if try directory.entries() == [StoreFormat.namespaceNameFileName] {
            removed = try directory.removeFile(StoreFormat.namespaceNameFileName) || removed
        }
        if removed { try directory.sync() }
    }
}


