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

/// The working parts of a store, shared by the store made with ``ArchiveStore/init(directory:limits:permissions:durability:clock:)``
/// and every namespace made from it; the ``ArchiveStore`` façade adds a namespace and a clock.
///
/// Its parts, one file each:
/// - this file: the folder, its directories and the names of temporary files;
/// - `FileStoreEngine+Commits.swift`: the durable writer (group commit, batches, durability levels);
/// - `BatchManifest.swift`: how a batch is made visible all at once, and finished after a kill;
/// - `FileStoreEngine+Reading.swift`: loads, the memory tier, and remembering uses;
/// - `FileStoreEngine+Removing.swift`: removals, expiry and the sweep of killed saves' files;
/// - `Index/FileStoreEngine+Index.swift`: the journal-backed index (catch-up, scans, compaction);
/// - `Index/FileStoreEngine+Eviction.swift`: the limits (making room, eviction).
final class FileStoreEngine: StoreEngine {
    /// The store's root directory: the root of every namespace, home of `.lock` and `.journal`.
    let rootPath: String
    /// The path of the root's `.batch` file (see ``BatchMarker``), which every load looks for.
    let batchMarkerPath: String
    /// The limits, permissions and durability: the last opener's (see ``open(rootPath:settings:)``).
    private let settings: Locked<StoreSettings>
    /// Registered types, class names, unarchiver options and registered defaults.
    let configuration = Locked(StoreConfiguration())
    let failures = FailureChannel()
    /// The one watcher of the folder's journal, shared by every observer in this process.
    private let watchHub: WatchHub
    /// Held for work in memory and on the journal (reading it, scanning the folders), never
    /// while waiting for the file lock.
    let index = Locked(StoreIndex())
    /// The memory tier (of capacity zero, unused, unless ``ArchiveStore/Limits/memoryBytes`` asks
    /// for one).
    let memory: Locked<MemoryTier>
    /// Loads not yet written to the journal (see ``PendingUses``); only a store with limits on
    /// its files remembers uses at all.
    let pendingUses = Locked(PendingUses())
    /// Loads answered from memory (for tests and tuning).
    let memoryHits = Atomic<Int>(0)
    /// Set once the index was first loaded: until then a use has no entry to move.
    let indexLoaded = Atomic<Bool>(false)
    /// Set when a record written under a lock found the journal due for compaction.
    let compactionDue = Atomic<Bool>(false)
    /// The journal's snapshot length as last read from its header (0 until then).
    let snapshotLength = Atomic<Int>(0)
    /// Set until the temporary files of killed saves were swept once since the store was opened
    /// (see ``sweepTemporaryFilesIfIdle(root:)``).
    let temporaryFilesDue = Atomic<Bool>(true)
    /// Numbers temporary file names (with the process id and a random part).
    private let temporaryFileCount = Atomic<UInt64>(0)
    /// Saves, removals and batches waiting for the durable writer (see `FileStoreEngine+Commits.swift`).
    let commits = CommitQueue()

    private init(rootPath: String, settings: StoreSettings) {
        watchHub = WatchHub(rootPath: rootPath)
        self.rootPath = rootPath
        batchMarkerPath = rootPath + "/" + BatchMarker.fileName
        self.settings = Locked(settings)
        memory = Locked(MemoryTier(capacity: settings.limits.memoryBytes ?? 0))
    }

    /// The engine of the store in `rootPath` in this process: the one already open there, given
    /// `settings` (they change for every instance open on the folder), or a new one.
    ///
    /// So instances opened separately on one folder share their registrations, class names,
    /// unarchiver options, registered defaults, index, memory tier and writer, as the namespaces
    /// of one instance do. The engine lives while an instance uses it.
    static func open(rootPath: String, settings: StoreSettings) -> FileStoreEngine {
        openEngines.withLock { engines in
            if let engine = engines[rootPath]?.engine {
                engine.apply(settings)
                return engine
            }
            engines = engines.filter { $0.value.engine != nil }
            let engine = FileStoreEngine(rootPath: rootPath, settings: settings)
            engines[rootPath] = WeakEngine(engine: engine)
            return engine
        }
    }

    private struct WeakEngine: @unchecked Sendable {
        // @unchecked: a weak reference to a Sendable class, only read under the registry's lock.
        weak var engine: FileStoreEngine?
    }

    /// The engines open in this process, by root path.
    private static let openEngines = Locked<[String: WeakEngine]>([:])

    private func apply(_ new: StoreSettings) {
        settings.withLock { $0 = new }
        memory.withLock { $0.resize(to: new.limits.memoryBytes ?? 0) }
    }

    /// The identity of the `.configuration` file whose settings this engine applies (nil: none).
    private let keptIdentity = Locked<FileIdentity?>(nil)

    /// Makes `settings` the folder's: written to `.configuration` unless it keeps them already
    /// (best effort: a folder that cannot be written keeps what it had, and this process uses
    /// `settings` all the same), and applied here.
    func keep(_ settings: StoreSettings, kept: (settings: StoreSettings, identity: FileIdentity)?, root: Directory) {
        var identity = kept?.identity
        if settings != (kept?.settings ?? .implicit) {
            if (try? settings.keep(in: root, temporaryName: temporaryFileName())) != nil {
                identity = StoreSettings.identity(in: root)
            }
        }
        keptIdentity.withLock { $0 = identity }
        apply(settings)
    }

    /// Applies the settings the folder keeps if an opener (in any process) changed them since
    /// this engine last looked: one `lstat`, at each group of commits and each trim.
    func followKeptSettings(root: Directory) {
        let identity = StoreSettings.identity(in: root)
        guard identity != keptIdentity.withLock({ $0 }) else { return }
        guard let kept = StoreSettings.kept(in: root) else {
            keptIdentity.withLock { $0 = identity }
            return
        }
        keptIdentity.withLock { $0 = kept.identity }
        apply(kept.settings)
    }

    /// Opened again by a new instance: another process may have been killed mid-save since this
    /// process last looked, and files may have been put in the folder by hand: sweep now if no
    /// save is running, and scan the folders at the next use of the index.
    func reopen(root: Directory) {
        temporaryFilesDue.store(true, ordering: .relaxed)
        index.withLock { $0.isLoaded = false }
        sweepTemporaryFilesIfIdle(root: root)
    }

    var memoryTierStatistics: (items: Int, bytes: Int, hits: Int) {
        let hits = memoryHits.load(ordering: .relaxed)
        return memory.withLock { ($0.count, $0.bytes, hits) }
    }

    func directory(of place: StorePlace) -> URL {
        place.namespacePath.map(StoreFileName.namespaceDirectoryName(for:)).reduce(
            URL(fileURLWithPath: rootPath, isDirectory: true)
        ) { $0.appending(path: $1, directoryHint: .isDirectory) }
    }

    func announceCommit() { commits.announce() }
    func withdrawCommit() { commits.withdraw() }

    func watch(_ deliver: @escaping @Sendable ([StoreJournal.Record]) -> Void) -> (any StoreWatch)? {
        watchHub.watch(deliver)
    }

    var limits: ArchiveStore.Limits { settings.withLock { $0.limits } }
    var permissions: ArchiveStore.Permissions { settings.withLock { $0.permissions } }
    var durability: ArchiveStore.Durability { settings.withLock { $0.durability } }
    /// Whether the store keeps values in memory.
    var keepsValuesInMemory: Bool { (limits.memoryBytes ?? 0) > 0 }

    deinit {
        let uses = pendingUses.withLock { $0.take() }
        guard !uses.isEmpty, let root = try? Directory.open(path: rootPath) else { return }
        StoreJournal.append(uses, in: root, mode: UInt32(permissions.fileMode))
    }

    var fileMode: UInt32 { UInt32(permissions.fileMode) }

    // MARK: - Directories

    /// The root directory and `place`'s directory; nil when one of them does not exist and
    /// `creating` is false.
    func openDirectories(_ place: StorePlace, creating: Bool) throws -> (root: Directory, directory: Directory)? {
        guard let root = creating ? try openOrCreateRoot() : try Directory.open(path: rootPath),
            let directory = try subdirectory(place, from: root, creating: creating)
        else { return nil }
        return (root, directory)
    }

    /// The root directory, created again if it was deleted since the store was opened.
    func openOrCreateRoot() throws -> Directory {
        if let root = try Directory.open(path: rootPath) { return root }
        try Directory.create(path: rootPath, mode: UInt32(permissions.directoryMode))
        guard let root = try Directory.open(path: rootPath) else {
            throw ArchiveError.io(errno: ENOENT, "open the directory", path: rootPath)
        }
        return root
    }

    /// `place`'s directory, walked from `root` one namespace at a time without following links.
    ///
    /// When `creating`, missing directories are created, and each namespace directory with a
    /// hashed name gets its `.namespace` file (the caller holds the lock shared).
    func subdirectory(_ place: StorePlace, from root: Directory, creating: Bool) throws -> Directory? {
        var directory = root
        for name in place.namespacePath {
            let directoryName = StoreFileName.namespaceDirectoryName(for: name)
            guard
                let next = try directory.subdirectory(
                    directoryName, create: creating, mode: permissions.directoryMode,
                    created: { ArchiveStore.protect(folderAt: $0, self.permissions.fileProtection) })
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
            mode: fileMode)
        try directory.sync()
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

    /// The namespace directory `name`, or nil if it is gone or is not a directory (a symbolic
    /// link planted under a namespace's name is never followed).
    static func nestedDirectory(_ name: String, in directory: Directory) throws -> Directory? {
        guard let status = try directory.status(of: name), status.st_mode & S_IFMT == S_IFDIR else { return nil }
        return try directory.subdirectory(name, create: false)
    }

    /// `.tmp-<pid>-<count>-<random>`: unique among the threads and processes saving here.
    func temporaryFileName() -> String {
        let count = temporaryFileCount.wrappingAdd(1, ordering: .relaxed).newValue
        let random = String(UInt32.random(in: .min ... .max), radix: 16)
        return "\(StoreFormat.temporaryPrefix)\(getpid())-\(count)-\(random)"
    }

    // MARK: - Journal records

    /// Appends `records` to the journal (best effort, see ``StoreJournal/append(_:in:mode:)``)
    /// and applies them to the index, unless records it has not read came before them (then it
    /// reads them all at its next catch-up).
    ///
    /// Takes the index's lock: never called with it held (see ``record(_:root:appliedTo:)``).
    func record(_ records: [StoreJournal.Record], root: Directory) {
        guard let appended = append(records, root: root), indexLoaded.load(ordering: .relaxed) else { return }
        index.withLock { index in
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
        guard !records.isEmpty, let appended = StoreJournal.append(records, in: root, mode: fileMode) else { return nil }
        markCompactionIfDue(length: appended.end, root: root)
        return appended
    }

    private func markCompactionIfDue(length: Int, root: Directory) {
        guard length > StoreJournal.compactionThreshold,
            // The header is read only when the snapshot length last seen says a compaction may
            // be due (one from another process that shrank it only delays the next one).
            length / 3 > snapshotLength.load(ordering: .relaxed),
            let snapshot = StoreJournal.snapshotLength(in: root)
        else { return }
        snapshotLength.store(snapshot, ordering: .relaxed)
        if length / 3 > snapshot { compactionDue.store(true, ordering: .relaxed) }
    }

    /// Takes the uses not yet written, to write them before other records.
    func takePendingUses() -> [StoreJournal.Record] {
        pendingUses.withLock { $0.take() }
    }
}

