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

// Loads: from the memory tier when it holds the value and the file is unchanged, else from the
// key's file. A load takes no lock and writes nothing, except that it deletes a value it finds
// expired, and that a store with limits remembers the use (see `PendingUses`).

extension FileStoreEngine {
    /// The value of `key` in `place`, decoded as `type`; nil when there is none or it expired.
    func load<T>(_ type: T.Type, forKey key: String, in place: StorePlace, now: Date) throws -> T? {
        let configuration = configuration.withLock { $0 }
        if let hit = try memoryHit(type, forKey: key, in: place, now: now, configuration: configuration) { return hit }
        guard let root = try openRoot(),
            let (record, status) = try storedRecord(forKey: key, in: place, root: root, now: now, configuration: configuration)
        else { return nil }
        let value = try record.decodeValue(type)
        noteUse(of: key, in: place, at: now)
        keepInMemory(forKey: key, in: place, record: record, status: status, value: value)
        return value
    }

    /// The root directory once no batch is being published in it (see ``BatchMarker``); nil
    /// when the store's folder does not exist.
    func openRoot() throws -> Directory? {
        guard let root = try Directory.open(path: rootPath) else { return nil }
        try settleBatch(in: root)
        return root
    }

    /// Waits for a batch being published in `root`, or finishes one a killed process left.
    func settleBatch(in root: Directory) throws {
        try BatchMarker.settle(in: root) { try self.finishBatch(left: $0, root: root) }
    }

    /// ``settleBatch(in:)`` without opening the root first: one `lstat` when there is no batch.
    func settleBatch() throws {
        var status = stat()
        guard lstat(batchMarkerPath, &status) == 0, let root = try Directory.open(path: rootPath) else { return }
        try settleBatch(in: root)
    }

    func storedRecord(
        forKey key: String, in place: StorePlace, now: Date, configuration: StoreConfiguration
    ) throws -> (record: StoreRecord, version: StoredVersion)? {
        guard let root = try openRoot(),
            let (record, status) = try storedRecord(forKey: key, in: place, root: root, now: now, configuration: configuration)
        else { return nil }
        return (record, .file(FileIdentity(status)))
    }

    /// The unexpired record stored under `key` in `place`, read under `configuration`; nil when
    /// there is none or it expired (an expired one is deleted, unless a save is running).
    ///
    /// - Throws: for a file that cannot be read or is not `key`'s.
    func storedRecord(
        forKey key: String, in place: StorePlace, root: Directory, now: Date, configuration: StoreConfiguration
    ) throws -> (StoreRecord, status: stat)? {
        let fileName = StoreFileName.keyFileName(for: key)
        guard let directory = try subdirectory(place, from: root, creating: false),
            let (data, status) = try directory.readFileAndStatus(
                fileName, maximumSize: configuration.unarchiverOptions.maximumArchiveSize)
        else { return nil }
        let record = try StoreRecord(data, path: directory.path(of: fileName), configuration: configuration)
        try record.check(key: key, hashedName: StoreFileName.isHashed(fileName))
        if record.isExpired(at: now) {
            deleteIfExpired(key, in: place, directory: directory, root: root, now: now, configuration: configuration)
            return nil
        }
        return (record, status)
    }

    /// Whether an unexpired value (or a damaged file) is stored under `key` in `place`.
    func contains(_ key: String, in place: StorePlace, now: Date) -> Bool {
        let configuration = configuration.withLock { $0 }
        let fileName = StoreFileName.keyFileName(for: key)
        guard let root = try? openRoot(), let directory = try? subdirectory(place, from: root, creating: false) else {
            return false
        }
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
        return !record.isExpired(at: now)
    }

    // MARK: - Listing

    func keys(in place: StorePlace, now: Date) throws -> [String] {
        let entries = try liveEntries(of: place, nested: false, now: now)
        var keys: [String] = []
        var unnamed: [String] = []
        for entry in entries {
            if let key = entry.key { keys.append(key) } else { unnamed.append(entry.fileName) }
        }
        if !unnamed.isEmpty, let (_, directory) = try? openDirectories(place, creating: false) {
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

    func namespaces(in place: StorePlace) throws -> [String] {
        guard let (_, directory) = try openDirectories(place, creating: false) else { return [] }
        let entries = try directory.entries()
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

    /// The name a namespace directory's `.namespace` file holds; nil if it has none.
    private static func recordedName(in directory: Directory) -> String? {
        guard
            let data = try? directory.readFile(
                StoreFormat.namespaceNameFileName, maximumSize: StoreFormat.maximumNamespaceNameFileSize)
        else { return nil }
        return String(validating: data, as: UTF8.self)
    }

    // MARK: - Uses

    /// Remembers a load of `key` in a store with limits on its files: at once in this process's
    /// index, in the journal with the next batch of uses (see ``PendingUses``). A store without
    /// such limits has no use for the order, and remembers nothing.
    func noteUse(of key: String, in place: StorePlace, at now: Date) {
        guard limits.limitsDisk else { return }
        let use = StoreJournal.Record.event(.used, key: key, in: place, at: now.timeIntervalSinceReferenceDate)
        if indexLoaded.load(ordering: .relaxed) {
            index.withLock { index in
                if index.isLoaded { index.touch(use.path, at: use.time) }
            }
        }
        let batch = pendingUses.withLock { $0.add(use) }
        if !batch.isEmpty, let root = try? Directory.open(path: rootPath) {
            record(batch, root: root)
            compactIfDue()
        }
    }

    // MARK: - The memory tier

    /// The value of `key` from the memory tier, if it holds one for `type` that its file still matches.
    func memoryHit<T>(
        _ type: T.Type, forKey key: String, in place: StorePlace, now: Date, configuration: StoreConfiguration
    ) throws -> T? {
        guard keepsValuesInMemory else { return nil }
        let name = MemoryTier.Name(directory: place.directory, key: Array(key.utf8))
        guard let (path, item) = memory.withLock({ $0.item(named: name) }) else { return nil }
        try settleBatch()
        guard item.expires.map({ now.timeIntervalSinceReferenceDate < $0 }) ?? true,
            FileIdentity.of(path: item.file) == item.identity
        else {
            memory.withLock { $0.remove(path) }
            return nil
        }
        switch item.content {
        case .value(let value, let storedType):
            guard storedType == T.self, let typed = value as? T else { return nil }
            memoryHits.add(1, ordering: .relaxed)
            noteUse(of: key, in: place, at: now)
            return typed
        case .archive(let data):
            let record = try StoreRecord(data, path: item.file, configuration: configuration)
            let value = try record.decodeValue(type)
            memoryHits.add(1, ordering: .relaxed)
            noteUse(of: key, in: place, at: now)
            if MemoryTier.isSelfContained(value) {
                memory.withLock { tier in
                    var kept = item
                    kept.content = .value(value, type: T.self)
                    tier.keep(kept, at: path)
                }
            }
            return value
        }
    }

    /// Keeps a value just loaded from disk: as it is when it holds no class instance, else its bytes.
    func keepInMemory<T>(forKey key: String, in place: StorePlace, record: StoreRecord, status: stat, value: T) {
        guard keepsValuesInMemory else { return }
        let content: MemoryTier.Content =
            MemoryTier.isSelfContained(value) ? .value(value, type: T.self) : .archive(record.data)
        keepInMemory(forKey: key, in: place, content: content, status: status, expires: record.expires)
    }

    func keepInMemory(forKey key: String, in place: StorePlace, content: MemoryTier.Content, status: stat, expires: Double?) {
        guard keepsValuesInMemory else { return }
        let fileName = StoreFileName.keyFileName(for: key)
        let path = StoreJournal.path(directory: place.directory, fileName: fileName)
        let item = MemoryTier.Item(
            content: content, name: MemoryTier.Name(directory: place.directory, key: Array(key.utf8)),
            fileName: fileName, file: rootPath + "/" + path, identity: FileIdentity(status), size: Int(status.st_size),
            expires: expires)
        memory.withLock { $0.keep(item, at: path) }
    }

    /// Drops the memory tier's copy of the value at `path` (relative to the root).
    func forgetInMemory(_ path: String) {
        guard keepsValuesInMemory else { return }
        memory.withLock { $0.remove(path) }
    }
}
