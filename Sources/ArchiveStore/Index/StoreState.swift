import ArchiveFileSystem
import KeyedArchive
import Synchronization

/// What the root store and every namespace made from it share besides the configuration: the
/// limits and permissions it was made with, and the index of its files.
final class StoreState: Sendable {
    let limits: ArchiveStore.Limits
    let permissions: ArchiveStore.Permissions
    /// Held for work in memory and on the journal (reading it, scanning the folders), never
    /// while waiting for the file lock. `Locked`, not `Synchronization.Mutex`: see `Locked`.
    let index = Locked(StoreIndex())
    /// The memory tier (of capacity zero, unused, unless ``ArchiveStore/Limits/memoryBytes`` asks
    /// for one).
    let memory: Locked<MemoryTier>
    /// Whether the store keeps values in memory.
    let keepsValuesInMemory: Bool
    /// Uses (hits in the memory tier) not yet written to the journal, the last one per value:
    /// written with the next save, trim, eviction or load from disk, once ``usesPerWrite`` values
    /// or a second have gathered, and when the store goes away. Until then other instances and
    /// processes do not see them.
    let pendingUses = Locked(PendingUses())
    static let usesPerWrite = 64
    /// Loads answered from memory (for tests and tuning).
    let memoryHits = Atomic<Int>(0)
    /// Set once the index was first loaded: until then a use has no entry to move.
    let indexLoaded = Atomic<Bool>(false)
    /// Set when a record written under a lock found the journal due for compaction.
    let compactionDue = Atomic<Bool>(false)
    /// The journal's snapshot length as last read from its header (0 until then).
    let snapshotLength = Atomic<Int>(0)
    /// Set until the temporary files of killed saves were swept once since the store was opened
    /// (see ``ArchiveStore/sweepTemporaryFilesIfIdle(root:)``).
    let temporaryFilesDue = Atomic<Bool>(true)
    let rootPath: String

    init(rootPath: String, limits: ArchiveStore.Limits, permissions: ArchiveStore.Permissions) {
        self.rootPath = rootPath
        self.limits = limits
        self.permissions = permissions
        memory = Locked(MemoryTier(capacity: limits.memoryBytes ?? 0))
        keepsValuesInMemory = (limits.memoryBytes ?? 0) > 0
    }

    deinit {
        let uses = pendingUses.withLock { $0.records }
        guard !uses.isEmpty, let root = try? Directory.open(path: rootPath) else { return }
        StoreJournal.append(uses, in: root, mode: UInt32(permissions.fileMode))
    }

    /// Takes the uses not yet written, to write them before other records.
    func takePendingUses() -> [StoreJournal.Record] {
        pendingUses.withLock { $0.take() }
    }
}

/// Uses not yet written to the journal: the last one of each value only (only the last use of a
/// value matters to the order), written once there are ``StoreState/usesPerWrite`` values or the
/// oldest waited a second.
struct PendingUses: Sendable {
    private var byPath: [String: StoreJournal.Record] = [:]
    private var since = Double.infinity

    var records: [StoreJournal.Record] { byPath.values.sorted { $0.time < $1.time } }

    /// Adds `use`; the records to write now, if the batch is full or old enough (else empty).
    mutating func add(_ use: StoreJournal.Record, writeNow: Bool) -> [StoreJournal.Record] {
        byPath[use.path] = use
        since = min(since, use.time)
        guard writeNow || byPath.count >= StoreState.usesPerWrite || use.time - since >= 1 else { return [] }
        return take()
    }

    mutating func take() -> [StoreJournal.Record] {
        defer {
            byPath.removeAll(keepingCapacity: true)
            since = .infinity
        }
        return records
    }
}
