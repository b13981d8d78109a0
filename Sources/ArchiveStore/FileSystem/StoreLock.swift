import ArchiveFileSystem

/// The store's lock: an advisory `flock(2)` lock on the `.lock` file of its root directory.
///
/// - Every save holds it **shared** from creating its temporary file until the rename is done.
/// - Read-modify-write operations hold it **exclusive**: deleting an expired value (checked
///   again under the lock, so a value saved meanwhile is never deleted), `removeExpired()`,
///   `removeAll()` and the sweep of temporary files left by killed processes (under the
///   exclusive lock every temporary file belongs to a dead save), which a store opening its
///   folder tries without waiting (``ArchiveStore/sweepTemporaryFilesIfIdle(root:)``).
///
/// Each lock opens the file anew, so the lock excludes threads of one process as well as other
/// processes. Loads take no lock: a rename replaces a file atomically, so a reader sees the old
/// file or the new one.
enum StoreLock {
    typealias Mode = FileLock.Mode

    /// Waits for and takes the lock of the store whose root directory is `root`; `fileMode` is
    /// the lock file's mode if this call creates it.
    static func acquire(_ mode: Mode, in root: Directory, fileMode: UInt16) throws -> FileLock {
        try FileLock.acquire(mode, named: StoreFormat.lockFileName, in: root, fileMode: fileMode)
    }

    /// Takes the exclusive lock if no one holds the lock now; nil otherwise (or if the lock file
    /// cannot be opened, as in a read-only directory, or is absent and `creating` is false).
    static func tryExclusive(in root: Directory, fileMode: UInt16, creating: Bool = true) -> FileLock? {
        FileLock.tryExclusive(named: StoreFormat.lockFileName, in: root, fileMode: fileMode, creating: creating)
    }
}
