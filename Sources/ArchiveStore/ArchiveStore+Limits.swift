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

extension ArchiveStore {
    /// How much a store keeps: at most so many bytes, so many values, values used within a
    /// given time. Set when the store is made (``init(directory:limits:permissions:)``,
    /// ``cacheStore(named:limits:)``); a nil field sets no limit.
    ///
    /// A store past a limit removes values, least recently used first ("use" is a save or a
    /// load, remembered across launches and seen between processes), until it is within every
    /// limit again. A save that would take it past a limit makes room first (and writes its
    /// value into the file of a value it evicted from its own folder, which costs the file
    /// system less than a file deleted and one created); ``trim()`` does the same on demand.
    /// Expired values go first, and each removal is recorded as `evicted` (or `expired`) for
    /// the store's observers, before the save is recorded as `saved`. The value being saved is
    /// never removed to make room for itself: a value larger than `maximumBytes` is kept, alone.
    /// The room a save made stays made if the save then fails (a full disk, an I/O error): the
    /// values it evicted were the ones the store gives up first, and the key's previous value
    /// is intact as always.
    ///
    /// The limits count the whole store: its values and those of every namespace inside it
    /// (``count`` and ``totalBytes`` of the root store are what they compare). Bytes are the
    /// stored files' sizes. Stores opened on the same directory with different limits each
    /// apply their own after their own saves.
    ///
    /// ```swift
    /// let cache = try ArchiveStore.cacheStore(
    ///     named: "com.example.Feed",
    ///     limits: .init(maximumBytes: 50 << 20, maximumCount: 10_000, maximumAge: .seconds(7 * 86_400)))
    /// ```
    public struct Limits: Sendable, Equatable {
        /// The most bytes the store's files may take together.
        public var maximumBytes: Int?
        /// The most values the store may hold.
        public var maximumCount: Int?
        /// How long a value may go without a save or a load before it is removed.
        public var maximumAge: Duration?
        /// The most bytes (counted as the files' sizes) of values kept in memory after a save or
        /// a load, so that loading them again skips the disk; nil keeps none. A value is checked
        /// against its file (one `stat`) before it is returned from memory, so a save by another
        /// instance or process is seen; see the README for what a hit returns.
        public var memoryBytes: Int?

        /// Limits; nil sets none. Negative values count as zero.
        public init(maximumBytes: Int? = nil, maximumCount: Int? = nil, maximumAge: Duration? = nil, memoryBytes: Int? = nil) {
            self.maximumBytes = maximumBytes.map { max(0, $0) }
            self.maximumCount = maximumCount.map { max(0, $0) }
            self.maximumAge = maximumAge.map { max(.zero, $0) }
            self.memoryBytes = memoryBytes.map { max(0, $0) }
        }

        /// No limit: the store keeps every value until it is removed or expires.
        public static let none = Limits()

        /// Whether any limit applies to the files.
        var limitsDisk: Bool { maximumBytes != nil || maximumCount != nil || maximumAge != nil }
    }

    /// Who may read and write a store's files and folders.
    ///
    /// The modes are applied exactly, whatever the process's umask: files and folders the store
    /// creates get them (the store directory itself too when the store creates it; an existing
    /// directory keeps its own).
    public struct Permissions: Sendable, Equatable {
        /// The mode of each file (`0o600`: owner read and write).
        public let fileMode: UInt16
        /// The mode of each folder (`0o700`).
        public let directoryMode: UInt16

        /// Files `0600` and folders `0700`: only the owner reads or writes (the default).
        public static let ownerOnly = Permissions(fileMode: 0o600, directoryMode: 0o700)
        /// Files `0660` and folders `0770`: the owner's group shares the store (a folder shared
        /// by several of one user's apps or services that run as different users of a group).
        public static let group = Permissions(fileMode: 0o660, directoryMode: 0o770)

        /// The data protection class of the store's files on iOS, iPadOS, tvOS, watchOS and
        /// visionOS (set on the store's folders, whose new files inherit it); ignored elsewhere.
        /// Default ``FileProtection/completeUntilFirstUserAuthentication``, the system's default
        /// for app data: readable by background work once the device was unlocked after a restart.
        public var fileProtection: FileProtection = .completeUntilFirstUserAuthentication

        /// Custom modes. The owner always keeps read and write (and search on folders): a store
        /// cannot work without them, so those bits are added.
        public init(
            fileMode: UInt16, directoryMode: UInt16,
            fileProtection: FileProtection = .completeUntilFirstUserAuthentication
        ) {
            self.fileMode = (fileMode & 0o777) | 0o600
            self.directoryMode = (directoryMode & 0o777) | 0o700
            self.fileProtection = fileProtection
        }
    }

    /// Data protection classes (Foundation's `FileProtectionType`), for ``Permissions/fileProtection``.
    public enum FileProtection: Sendable, Equatable {
        /// Readable only while the device is unlocked.
        case complete
        /// Files open when the device locks stay readable; new ones can be created while locked.
        case completeUnlessOpen
        /// Readable once the device was unlocked after a restart (the system's default).
        case completeUntilFirstUserAuthentication
        /// No protection beyond the file system's.
        case none
    }

    // MARK: - Size and listing

    /// The number of values in this store and the namespaces inside it, expired values left out:
    /// what ``Limits/maximumCount`` counts.
    ///
    /// Read from the store's index, not from the files: about the cost of listing the
    /// folders the first time in a process, then of reading what other processes appended to
    /// the journal since. Zero when the directory cannot be read.
    public var count: Int {
        (try? liveEntries(under: true)).map(\.count) ?? 0
    }

    /// The bytes the files of this store and the namespaces inside it take, expired values left
    /// out: what ``Limits/maximumBytes`` counts. From the index, as ``count``.
    public var totalBytes: Int {
        (try? liveEntries(under: true)).map { $0.reduce(0) { $0 + $1.size } } ?? 0
    }

    /// Applies the store's limits now: removes expired values, values unused for longer than
    /// ``Limits/maximumAge``, then the least recently used until the store is within its limits.
    ///
    /// Also checks the index against the folders (values added or removed by hand, or by a
    /// process killed mid-save, are taken into account), rewrites the journal from it, and
    /// deletes the temporary files of killed saves. A store without limits only loses its
    /// expired values. Holds the store's exclusive lock while it works.
    ///
    /// - Throws: `ArchiveError` `.io` when a folder cannot be read.
    public func trim() throws {
        guard let root = try Directory.open(path: rootPath) else { return }
        let lock = try StoreLock.acquire(.exclusive, in: root, fileMode: state.permissions.fileMode)
        defer { withExtendedLifetime(lock) {} }
        record(state.takePendingUses(), root: root)
        try state.index.withLock { index in
            try catchUp(&index, root: root, rescan: true, holdingExclusiveLock: true)
            try Self.sweepTemporaryFiles(in: root)
            state.temporaryFilesDue.store(false, ordering: .relaxed)
            record(evict(&index, root: root, protecting: nil).records, root: root, appliedTo: &index)
            compact(&index, root: root, holdingExclusiveLock: true)
        }
    }

    // MARK: - Internals

    /// The unexpired entries of this namespace (`nested`: and of the namespaces inside it),
    /// pending saves checked against the disk.
    func liveEntries(under nested: Bool) throws -> [StoreIndex.Entry] {
        guard let root = try Directory.open(path: rootPath) else { return [] }
        let directory = relativeDirectory
        let now = Date().timeIntervalSinceReferenceDate
        return try state.index.withLock { index in
            try catchUp(&index, root: root, rescan: false)
            return index.entries(of: directory, nested: nested).filter { entry in
                !entry.isExpired(at: now) && (!entry.pending || Self.file(of: entry, in: root) != nil)
            }
        }
    }

    /// Brings the index up to date: reads what the journal gained, and on first use (or when the
    /// journal was replaced by one not written by a compaction, is damaged, or `rescan`)
    /// reconciles it with the folders.
    ///
    /// A damaged journal hides every record after the damage, so it is repaired at once: under
    /// the exclusive lock (taken here if it is free and not already held), the folders are
    /// scanned and the journal rewritten from the scan.
    func catchUp(_ index: inout StoreIndex, root: Directory, rescan: Bool, holdingExclusiveLock: Bool = false) throws {
        let damaged = !tail(&index, root: root)
        guard !index.isLoaded || damaged || rescan else { return }
        var lock: FileLock?
        if damaged, !holdingExclusiveLock {
            lock = StoreLock.tryExclusive(in: root, fileMode: state.permissions.fileMode)
        }
        try withExtendedLifetime(lock) {
            try reconcile(&index, root: root)
            // Records appended while the folders were read.
            tail(&index, root: root)
            index.isLoaded = true
            state.indexLoaded.store(true, ordering: .relaxed)
            // A journal to repair, or none while there are values (written by a store before
            // journals, or deleted): write one. An empty store without one stays untouched.
            if damaged || (index.journalIdentity == nil && index.count > 0) {
                compact(&index, root: root, holdingExclusiveLock: holdingExclusiveLock || lock != nil)
            }
        }
    }

    /// Applies the journal's new records; false when it is damaged (a missing journal is not:
    /// the store has not written one yet, or it was deleted, and the scan tells the rest).
    @discardableResult
    func tail(_ index: inout StoreIndex, root: Directory) -> Bool {
        guard
            let contents = StoreJournal.read(
                in: root, from: index.journalOffset, identity: index.journalIdentity)
        else {
            if index.journalIdentity != nil { index.isLoaded = false }  // deleted: scan again
            index.journalIdentity = nil
            index.journalOffset = 0
            return true
        }
        if contents.restarted {
            // Another file. A compaction's snapshot replaces the records read so far; a journal
            // started afresh (the old one deleted) says nothing of the values before it.
            let loaded = index.isLoaded && contents.compacted
            index.removeAllEntries()
            index.isLoaded = loaded
        }
        for record in contents.parsed.records { index.apply(record) }
        index.journalIdentity = contents.identity
        index.journalOffset = contents.parsed.end
        return !contents.parsed.damaged
    }

    /// Makes the index list exactly the key files in the folders: entries without a file go,
    /// files without an entry are read (key and expiry) and added, sizes come from `stat`.
    private func reconcile(_ index: inout StoreIndex, root: Directory) throws {
        let configuration = configuration.withLock { $0 }
        var seen = Set<String>()
        var found: [StoreIndex.Entry] = []
        try scan(root, relative: "", index: &index, seen: &seen, found: &found, configuration: configuration)
        for entry in index.entriesByUse where !seen.contains(entry.path) { index.remove(entry.path) }
        // Oldest first: each entry then goes in at the back of the order, in constant time
        // (the folders list files in no particular order).
        for entry in found.sorted(by: { $0.lastUse < $1.lastUse }) {
            index.remove(entry.path)
            index.put(entry)
        }
    }

    private func scan(
        _ directory: Directory, relative: String, index: inout StoreIndex, seen: inout Set<String>,
        found: inout [StoreIndex.Entry], configuration: StoreConfiguration
    ) throws {
        for name in try directory.entries() {
            let kind = StoreFileName.classify(name)
            switch kind {
            case .key, .hashedKey:
                guard let status = try? directory.status(of: name), status.st_mode & S_IFMT == S_IFREG else { continue }
                let path = StoreJournal.path(directory: relative, fileName: name)
                seen.insert(path)
                let size = Int(status.st_size)
                if var known = index.entry(at: path) {
                    if known.size != size || known.pending {
                        known.size = size
                        known.pending = false
                        found.append(known)
                    }
                    continue
                }
                let record = try? directory.readFile(
                    name, maximumSize: configuration.unarchiverOptions.maximumArchiveSize
                ).flatMap { try StoreRecord($0, path: directory.path(of: name), configuration: configuration) }
                var key: String?
                if case .key(let spelled) = kind { key = spelled }
                if let recorded = record?.key, StoreFileName.keyFileName(for: recorded) == name { key = recorded }
                found.append(
                    StoreIndex.Entry(
                        directory: relative, fileName: name, key: key, size: size, expires: record?.expires,
                        lastUse: Self.modificationTime(status), pending: false))
            case .namespace, .hashedNamespace:
                guard let nested = try Self.nestedDirectory(name, in: directory) else { continue }
                try scan(
                    nested, relative: StoreJournal.path(directory: relative, fileName: name), index: &index,
                    seen: &seen, found: &found, configuration: configuration)
            case .temporary, .other:
                continue
            }
        }
    }

    /// Rewrites the journal as a snapshot of the index, under the exclusive lock (taken if it is
    /// free; given up otherwise). Entries of saves that never confirmed their rename are checked
    /// against the folders first.
    func compact(_ index: inout StoreIndex, root: Directory, holdingExclusiveLock: Bool = false) {
        let lock = holdingExclusiveLock ? nil : StoreLock.tryExclusive(in: root, fileMode: state.permissions.fileMode)
        guard holdingExclusiveLock || lock != nil else { return }
        defer { withExtendedLifetime(lock) {} }
        // Under the exclusive lock nothing is being saved: read the last records first.
        guard tail(&index, root: root) else { return }  // damaged since: the next catch-up repairs it
        var records: [StoreJournal.Record] = []
        for var entry in index.entriesByUse {
            if entry.pending {
                guard let status = Self.file(of: entry, in: root) else {
                    index.remove(entry.path)
                    continue
                }
                entry.size = Int(status.st_size)
                entry.pending = false
                index.put(entry)  // same time: it keeps its place
            }
            records.append(record(of: entry, kind: .snapshot, at: entry.lastUse))
        }
        guard
            let (identity, length) = try? StoreJournal.rewrite(
                records, in: root, mode: UInt32(state.permissions.fileMode), temporaryName: temporaryFileName())
        else { return }
        // Follow the new file from its end: its snapshot is this index.
        index.journalIdentity = identity
        index.journalOffset = length
    }

    /// The status of an entry's file, if it is there as a regular file.
    private static func file(of entry: StoreIndex.Entry, in root: Directory) -> stat? {
        guard let folder = try? open(relative: entry.directory, in: root),
            let status = try? folder.status(of: entry.fileName), status.st_mode & S_IFMT == S_IFREG
        else { return nil }
        return status
    }

    /// Compacts the journal if a record written under a lock found it due.
    func compactIfDue() {
        guard state.compactionDue.exchange(false, ordering: .relaxed),
            let root = try? Directory.open(path: rootPath)
        else { return }
        try? state.index.withLock { index in
            try catchUp(&index, root: root, rescan: false)
            compact(&index, root: root)
        }
    }

    /// Whether the store is past its limits by what the index knows (brought up to date
    /// first); with `announced`, once that save is counted.
    func isPastLimits(root: Directory, saving announced: StoreJournal.Record? = nil) -> Bool {
        let limits = state.limits
        let now = announced?.time ?? Date().timeIntervalSinceReferenceDate
        return (try? state.index.withLock { index in
            try catchUp(&index, root: root, rescan: false)
            return index.isBeyond(limits, at: now, saving: announced?.path, size: announced?.size ?? 0)
        }) ?? false
    }

    /// Before a save past the limits (the caller holds the exclusive lock): announces the save
    /// and removes what ``StoreIndex/victims(for:at:protecting:)`` chooses with the saved value
    /// counted, recording it all in one write to the journal.
    ///
    /// - Returns: the file of a victim in `directory`, to be reused for the saved value (see
    ///   ``ReusedFile``); nil when there is none to reuse.
    func makeRoom(for announced: StoreJournal.Record, in directory: Directory, root: Directory) -> ReusedFile? {
        let uses = state.takePendingUses()
        return state.index.withLock { index in
            // Damage hides what other processes saved since: repair first (the lock is held).
            try? catchUp(&index, root: root, rescan: false, holdingExclusiveLock: true)
            for use in uses { index.apply(use) }
            index.apply(announced)
            let (removed, reused) = evict(
                &index, root: root, protecting: announced.path,
                reusingFileIn: (relativeDirectory, directory, temporaryFileName()))
            record(uses + [announced] + removed, root: root, appliedTo: &index)
            return reused
        }
    }

    /// After a save: when the store is past its limits (a save of another instance or process
    /// raced with this one; a save that expected to pass them made room first), removes what
    /// ``StoreIndex/victims(for:at:protecting:)`` chooses, under the exclusive lock.
    ///
    /// Best effort: the save is done and durable whatever happens here; a removal that fails
    /// (a folder that cannot be read or a file that cannot be deleted) is left for the next
    /// save or ``trim()``.
    func enforceLimits(root: Directory, protecting path: String) {
        guard isPastLimits(root: root), let lock = try? StoreLock.acquire(.exclusive, in: root, fileMode: state.permissions.fileMode)
        else { return }
        defer { withExtendedLifetime(lock) {} }
        record(state.takePendingUses(), root: root)
        try? state.index.withLock { index in
            // Damage hides what other processes saved since: repair first (the lock is held).
            try catchUp(&index, root: root, rescan: false, holdingExclusiveLock: true)
            record(evict(&index, root: root, protecting: path).records, root: root, appliedTo: &index)
        }
    }

    /// Removes the victims of the store's limits (the caller holds the exclusive lock) from
    /// the folders and the index. A file that cannot be removed is skipped.
    ///
    /// - Parameter reuse: a folder (relative path and directory) and a temporary name: the first
    ///   victim in that folder is renamed to that name and returned instead of being deleted.
    /// - Returns: the records of the removals (for the caller to write), and the reused file.
    private func evict(
        _ index: inout StoreIndex, root: Directory, protecting path: String?,
        reusingFileIn reuse: (relative: String, directory: Directory, temporaryName: String)? = nil
    ) -> (records: [StoreJournal.Record], reused: ReusedFile?) {
        let now = Date().timeIntervalSinceReferenceDate
        let victims = index.victims(for: state.limits, at: now, protecting: path)
        guard !victims.isEmpty else { return ([], nil) }
        let configuration = configuration.withLock { $0 }
        var folders: [String: Directory] = [:]
        if let reuse { folders[reuse.relative] = reuse.directory }
        var records: [StoreJournal.Record] = []
        var reused: ReusedFile?
        for (entry, expired) in victims {
            guard StoreJournal.isValidPlace(directory: entry.directory, fileName: entry.fileName) else {
                index.remove(entry.path)
                continue
            }
            guard let folder = folders[entry.directory] ?? (try? Self.open(relative: entry.directory, in: root)) else {
                index.remove(entry.path)  // its folder is gone, and the file with it
                continue
            }
            folders[entry.directory] = folder
            if expired {
                // The index's expiry is the one the file was saved with; check it before deleting.
                guard
                    let data = try? folder.readFile(
                        entry.fileName, maximumSize: configuration.unarchiverOptions.maximumArchiveSize),
                    let stored = try? StoreRecord(data, path: folder.path(of: entry.fileName), configuration: configuration),
                    stored.isExpired(at: Date(timeIntervalSinceReferenceDate: now))
                else { continue }
            }
            if reused == nil, let reuse, entry.directory == reuse.relative {
                // As below, a file already gone is recorded all the same.
                switch ReusedFile.take(entry.fileName, in: folder, as: reuse.temporaryName) {
                case .reused(let file): reused = file
                case .removed: break
                case .failed: continue
                }
            } else {
                // A file already gone (another process evicted it) is recorded all the same.
                guard (try? folder.removeFile(entry.fileName)) != nil else { continue }
            }
            state.memory.withLock { $0.remove(entry.path) }
            index.remove(entry.path)
            records.append(record(of: entry, kind: expired ? .expired : .evicted, at: now))
        }
        // The removals are not flushed to disk here. Before a save, the save's flush of its
        // folder makes those in that folder durable. A value evicted just before a power loss
        // that comes back is harmless: the next scan counts it, the next save past the limits
        // evicts it again.
        return (records, reused)
    }

    private func record(of entry: StoreIndex.Entry, kind: StoreJournal.Kind, at time: Double) -> StoreJournal.Record {
        StoreJournal.Record(
            kind: kind, time: time, size: entry.size, expires: entry.expires, directory: entry.directory,
            fileName: entry.fileName, key: entry.key ?? "")
    }

    /// The record of an event on `key`'s file (`fileName`, when the caller has it) in this namespace.
    func journalRecord(
        _ kind: StoreJournal.Kind, key: String, fileName: String? = nil, size: Int = 0, expires: Double? = nil
    ) -> StoreJournal.Record {
        StoreJournal.Record(
            kind: kind, time: Date().timeIntervalSinceReferenceDate, size: size, expires: expires,
            directory: relativeDirectory, fileName: fileName ?? StoreFileName.keyFileName(for: key), key: key)
    }

    /// Appends `records` to the journal (best effort, see ``StoreJournal/append(_:in:mode:)``)
    /// and applies them to the index, unless records it has not read came before them (then it
    /// reads them all at its next catch-up).
    ///
    /// Takes the index's lock: never called with it held (see ``record(_:root:appliedTo:)``).
    func record(_ records: [StoreJournal.Record], root: Directory) {
        guard let appended = append(records, root: root), state.indexLoaded.load(ordering: .relaxed) else { return }
        state.index.withLock { index in
            guard index.follows(appended) else { return }
            for record in records { index.apply(record) }
            index.journalOffset = appended.end
        }
    }

    /// ``record(_:root:)`` for records already applied to `index` (the caller holds its lock).
    func record(_ records: [StoreJournal.Record], root: Directory, appliedTo index: inout StoreIndex) {
        guard let appended = append(records, root: root), index.follows(appended) else { return }
        index.journalOffset = appended.end
    }

    /// Appends `records` to the journal, and marks a compaction due once the journal has grown
    /// well past its snapshot (done by ``compactIfDue()`` once the caller's locks are released).
    private func append(_ records: [StoreJournal.Record], root: Directory) -> StoreJournal.Appended? {
        guard !records.isEmpty,
            let appended = StoreJournal.append(records, in: root, mode: UInt32(state.permissions.fileMode))
        else { return nil }
        markCompactionIfDue(length: appended.end, root: root)
        return appended
    }

    private func markCompactionIfDue(length: Int, root: Directory) {
        guard length > StoreJournal.compactionThreshold,
            // The header is read only when the snapshot length last seen says a compaction may
            // be due (one from another process that shrank it only delays the next one).
            length / 3 > state.snapshotLength.load(ordering: .relaxed),
            let snapshot = StoreJournal.snapshotLength(in: root)
        else { return }
        state.snapshotLength.store(snapshot, ordering: .relaxed)
        if length / 3 > snapshot { state.compactionDue.store(true, ordering: .relaxed) }
    }

    /// The folder at `relative` (`ns-a/ns-b`) inside `root`, without following links; nil if gone.
    static func open(relative: String, in root: Directory) throws -> Directory? {
        var directory = root
        for component in relative.split(separator: "/") {
            guard let next = try nestedDirectory(String(component), in: directory) else { return nil }
            directory = next
        }
        return directory
    }

    private static func modificationTime(_ status: stat) -> Double {
        #if canImport(Darwin)
        let time = status.st_mtimespec
        #else
        let time = status.st_mtim
        #endif
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9 - Date.timeIntervalBetween1970AndReferenceDate
    }
}

// MARK: - Uses and the memory tier

extension ArchiveStore {
    /// Records a load of `key`: at once in this instance's index; in the journal at once for a
    /// load from disk (`batched` false), else with the next batch (see ``StoreState/pendingUses``),
    /// so a hit in memory costs no write.
    func noteUse(of key: String, batched: Bool = false, fileName: String? = nil) {
        let use = journalRecord(.used, key: key, fileName: fileName)
        if state.indexLoaded.load(ordering: .relaxed) {
            state.index.withLock { index in
                if index.isLoaded { index.touch(use.path, at: use.time) }
            }
        }
        let batch = state.pendingUses.withLock { $0.add(use, writeNow: !batched) }
        if !batch.isEmpty, let root = try? Directory.open(path: rootPath) { record(batch, root: root) }
        compactIfDue()
    }

    /// The path of `key`'s file relative to the root.
    private func relativePath(of key: String) -> String {
        StoreJournal.path(directory: relativeDirectory, fileName: StoreFileName.keyFileName(for: key))
    }

    /// The value of `key` from the memory tier, if it holds one for `type` that its file still matches.
    func memoryHit<T>(_ type: T.Type, forKey key: String, configuration: StoreConfiguration) throws -> T? {
        guard state.keepsValuesInMemory else { return nil }
        let name = MemoryTier.Name(directory: relativeDirectory, key: Array(key.utf8))
        guard let (path, item) = state.memory.withLock({ $0.item(named: name) }) else { return nil }
        let fileName = item.fileName
        let now = Date().timeIntervalSinceReferenceDate
        guard item.expires.map({ now < $0 }) ?? true, FileIdentity.of(path: item.file) == item.identity else {
            state.memory.withLock { $0.remove(path) }
            return nil
        }
        switch item.content {
        case .value(let value, let storedType):
            guard storedType == T.self, let typed = value as? T else { return nil }
            state.memoryHits.add(1, ordering: .relaxed)
            noteUse(of: key, batched: true, fileName: fileName)
            return typed
        case .archive(let data):
            let record = try StoreRecord(data, path: item.file, configuration: configuration)
            let value = try record.decodeValue(type)
            state.memoryHits.add(1, ordering: .relaxed)
            noteUse(of: key, batched: true, fileName: fileName)
            if MemoryTier.isSelfContained(value) {
                state.memory.withLock { tier in
                    var kept = item
                    kept.content = .value(value, type: T.self)
                    tier.keep(kept, at: path)
                }
            }
            return value
        }
    }

    /// Keeps a value just loaded from disk: as it is when it holds no class instance, else its bytes.
    func keepInMemory<T>(forKey key: String, record: StoreRecord, status: stat, value: T) {
        guard state.keepsValuesInMemory else { return }
        let content: MemoryTier.Content =
            MemoryTier.isSelfContained(value) ? .value(value, type: T.self) : .archive(record.data)
        keepInMemory(forKey: key, content: content, status: status, expires: record.expires)
    }

    func keepInMemory(forKey key: String, content: MemoryTier.Content, status: stat, expires: Double?) {
        guard state.keepsValuesInMemory else { return }
        let fileName = StoreFileName.keyFileName(for: key)
        let path = StoreJournal.path(directory: relativeDirectory, fileName: fileName)
        let item = MemoryTier.Item(
            content: content, name: MemoryTier.Name(directory: relativeDirectory, key: Array(key.utf8)),
            fileName: fileName, file: rootPath + "/" + path, identity: FileIdentity(status), size: Int(status.st_size),
            expires: expires)
        state.memory.withLock { $0.keep(item, at: path) }
    }

    /// What the memory tier holds, and how many loads it answered (for tests and tuning).
    package var memoryTierStatistics: (items: Int, bytes: Int, hits: Int) {
        let hits = state.memoryHits.load(ordering: .relaxed)
        return state.memory.withLock { ($0.count, $0.bytes, hits) }
    }

    func forgetInMemory(_ key: String) {
        guard state.keepsValuesInMemory else { return }
        let path = relativePath(of: key)
        state.memory.withLock { $0.remove(path) }
    }
}

// MARK: - Data protection (Apple platforms)

extension ArchiveStore {
    /// Gives the folder at `path` the store's data protection class, which the files created in
    /// it inherit. Only where data protection exists (iOS, iPadOS, tvOS, watchOS, visionOS); a
    /// file system that does not support it is left as it is.
    static func protect(folderAt path: String, _ protection: FileProtection) {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        let type: FileProtectionType =
            switch protection {
            case .complete: .complete
            case .completeUnlessOpen: .completeUnlessOpen
            case .completeUntilFirstUserAuthentication: .completeUntilFirstUserAuthentication
            case .none: .none
            }
        try? FileManager.default.setAttributes([.protectionKey: type], ofItemAtPath: path)
        #endif
    }
}
