import Synchronization

/// What the root store and every namespace made from it share besides the configuration: the
/// limits and permissions it was made with, and the index of its files.
final class StoreState: Sendable {
    let limits: ArchiveStore.Limits
    let permissions: ArchiveStore.Permissions
    /// Held only for work in memory and on the journal, never while waiting for the file lock.
    let index = Mutex(StoreIndex())

    init(limits: ArchiveStore.Limits, permissions: ArchiveStore.Permissions) {
        self.limits = limits
        self.permissions = permissions
    }
}
