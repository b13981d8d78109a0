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

// Removals that read before they delete (everything in a namespace, expired values) and the
// sweep of killed saves' temporary files: each under the store's exclusive lock, so that no
// save is half done while they look.

extension FileStoreEngine {
    /// Removes every value of `place` and of the namespaces nested in it, and `place`'s folder.
    func removeAll(in place: StorePlace, now: Date) throws {
        try withExclusiveLock(onFolderOf: place) { root in
            var chain = [root]
            for name in place.namespacePath {
                guard
                    let next = try chain[chain.count - 1].subdirectory(
                        StoreFileName.namespaceDirectoryName(for: name), create: false)
                else { return }
                chain.append(next)
            }
            var removed: [StoreJournal.Record] = []
            try Self.removeEverything(
                in: chain[chain.count - 1], relative: place.directory, now: now.timeIntervalSinceReferenceDate,
                configuration: configuration.withLock { $0 }, removed: &removed)
            memory.withLock { $0.removeAll(under: place.directory) }
            record(removed, root: root)
            if chain.count >= 2, let name = place.namespacePath.last {
                let parent = chain[chain.count - 2]
                try parent.removeDirectoryIfEmpty(StoreFileName.namespaceDirectoryName(for: name))
                try parent.sync()
            }
        }
    }

    /// Deletes the expired values of `place` and its nested namespaces, and killed saves' files.
    func removeExpired(in place: StorePlace, now: Date) throws {
        try withExclusiveLock(onFolderOf: place) { root in
            guard let directory = try subdirectory(place, from: root, creating: false) else { return }
            var removed: [StoreJournal.Record] = []
            try Self.removeExpired(
                in: directory, relative: place.directory, now: now, configuration: configuration.withLock { $0 },
                removed: &removed)
            for record in removed { forgetInMemory(record.path) }
            record(removed, root: root)
        }
    }

    /// Runs `body` with the root directory, holding the store's lock exclusive, once no batch is
    /// being made; nothing when `place` has no folder. Compacts the journal afterwards if due.
    private func withExclusiveLock(onFolderOf place: StorePlace, _ body: (Directory) throws -> Void) throws {
        defer { compactIfDue() }
        guard let root = try Directory.open(path: rootPath), try subdirectory(place, from: root, creating: false) != nil
        else { return }
        let lock = try StoreLock.acquire(.exclusive, in: root, fileMode: permissions.fileMode)
        defer { withExtendedLifetime(lock) {} }
        try settleBatch(in: root)
        try body(root)
    }

    /// Deletes `key`'s file in `directory` if it is still expired once the exclusive lock is
    /// held; gives up quietly when the lock is busy (a save is running) or the file cannot be read.
    func deleteIfExpired(
        _ key: String, in place: StorePlace, directory: Directory, root: Directory, now: Date,
        configuration: StoreConfiguration
    ) {
        guard let lock = StoreLock.tryExclusive(in: root, fileMode: permissions.fileMode) else { return }
        defer { withExtendedLifetime(lock) {} }
        // No save can rename a file while the exclusive lock is held: read it again to be sure
        // it is the expired one, not a value saved since.
        let fileName = StoreFileName.keyFileName(for: key)
        let maximumSize = configuration.unarchiverOptions.maximumArchiveSize
        guard let data = try? directory.readFile(fileName, maximumSize: maximumSize),
            let stored = try? StoreRecord(data, path: directory.path(of: fileName), configuration: configuration),
            stored.isExpired(at: now)
        else { return }
        forgetInMemory(place.path(ofKey: key))
        if (try? directory.removeFile(fileName)) == true {
            record(
                [
                    StoreJournal.Record.event(
                        .expired, key: key, in: place, at: now.timeIntervalSinceReferenceDate, size: data.count,
                        expires: stored.expires)
                ], root: root)
            if durability == .full { try? directory.sync() }
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

    /// Removes every value and nested namespace in `directory`; its `.namespace` file too when
    /// nothing else is left, so the directory can be removed (a directory kept for files the
    /// store did not write keeps its name).
    private static func removeEverything(
        in directory: Directory, relative: String, now: Double, configuration: StoreConfiguration,
        removed records: inout [StoreJournal.Record]
    ) throws {
        var removed = false
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
                    in: nested, relative: StoreJournal.path(directory: relative, fileName: name), now: now,
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

    // MARK: - Temporary files of killed saves

    /// Deletes the temporary files of killed saves in the whole store, namespaces included, if
    /// no save is running now; otherwise leaves them, and tries again after each later commit
    /// until one sweep is done.
    ///
    /// Which files are dead is told by the store's lock, never by the process id in their names:
    /// every save holds the lock shared from creating its temporary file to renaming it, a
    /// killed process's lock goes with it, and so whoever holds the lock exclusive sees only
    /// files of saves that are dead (a batch's, once `.batch` is settled: see ``BatchMarker``).
    /// A process id proves nothing: ids are reused, and a process in another PID namespace (a
    /// container sharing the folder) has ids of its own. The lock is tried, not waited for, so
    /// opening a store never waits for a save elsewhere. Without a lock file no save has run here
    /// (a save creates it first); it is not created here.
    ///
    /// Called when a store opens its folder and after a commit while ``temporaryFilesDue``. Costs
    /// a listing of each folder; the deletions are not flushed: one lost in a power cut is
    /// deleted again at the next open. Best effort: a folder that cannot be read, or a file that
    /// cannot be removed (a read-only folder), leaves the sweep due.
    func sweepTemporaryFilesIfIdle(root: Directory) {
        guard temporaryFilesDue.load(ordering: .relaxed),
            let lock = StoreLock.tryExclusive(in: root, fileMode: permissions.fileMode, creating: false)
        else { return }
        defer { withExtendedLifetime(lock) {} }
        if (try? settleBatch(in: root)) != nil, (try? Self.sweepTemporaryFiles(in: root, flushing: false)) != nil {
            temporaryFilesDue.store(false, ordering: .relaxed)
        }
    }

    /// Deletes the temporary files of killed saves in `directory` and the namespaces inside it
    /// (the caller holds the exclusive lock and settled `.batch`, so no save is running); with
    /// `flushing`, makes the deletions durable (a flush of each folder that lost a file).
    static func sweepTemporaryFiles(in directory: Directory, flushing: Bool = true) throws {
        var removed = false
        for name in try directory.entries() {
            switch StoreFileName.classify(name) {
            case .temporary:
                removed = try directory.removeFile(name) || removed
            case .namespace, .hashedNamespace:
                if let nested = try nestedDirectory(name, in: directory) {
                    try sweepTemporaryFiles(in: nested, flushing: flushing)
                }
            case .key, .hashedKey, .other:
                continue
            }
        }
        if removed, flushing { try directory.sync() }
    }
}
