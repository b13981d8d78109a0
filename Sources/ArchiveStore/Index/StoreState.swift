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
    /// Uses (hits in the memory tier) not yet written to the journal: written with the next
    /// save, trim, eviction or load from disk, every ``usesPerWrite`` uses, and when the store
    /// goes away. Until then other instances and processes do not see them.
    let pendingUses = Locked<[StoreJournal.Record]>([])
    static let usesPerWrite = 64
    /// Set when a record written under a lock found the journal due for compaction.
    let compactionDue = Atomic<Bool>(false)
    let rootPath: String

    init(rootPath: String, limits: ArchiveStore.Limits, permissions: ArchiveStore.Permissions) {
        self.rootPath = rootPath
        self.limits = limits
        self.permissions = permissions
        memory = Locked(MemoryTier(capacity: limits.memoryBytes ?? 0))
        keepsValuesInMemory = (limits.memoryBytes ?? 0) > 0
    }

    deinit {
        let uses = pendingUses.withLock { $0 }
        guard !uses.isEmpty, let root = try? Directory.open(path: rootPath) else { return }
        StoreJournal.append(uses, in: root, mode: UInt32(permissions.fileMode))
    }

    /// Takes the uses not yet written, to write them before other records.
    func takePendingUses() -> [StoreJournal.Record] {
        pendingUses.withLock { uses in
            defer { uses.removeAll() }
            return uses
        }
    }
}
