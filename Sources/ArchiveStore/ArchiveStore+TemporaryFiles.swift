import ArchiveFileSystem
import KeyedArchive

/// The temporary files of saves: `.tmp-<pid>-<count>-<random>`, written, flushed and renamed
/// over a key's file. A process killed between the first and the last step leaves one behind.
extension ArchiveStore {
    /// Deletes the temporary files of killed saves in the whole store, namespaces included, if
    /// no save is running now; otherwise leaves them, and tries again after each of this store's
    /// saves (through any of its namespaces) until one sweep is done.
    ///
    /// Which files are dead is told by the store's lock, never by the process id in their names:
    /// every save holds the lock shared from creating its temporary file to renaming it, a
    /// killed process's lock goes with it, and so whoever holds the lock exclusive sees only
    /// files of saves that are dead. A process id proves nothing: ids are reused, and a process
    /// in another PID namespace (a container sharing the folder) has ids of its own. The lock is
    /// tried, not waited for, so opening a store never waits for a save elsewhere. Without a
    /// lock file no save has run here (a save creates it first); it is not created here.
    ///
    /// Called when a store opens its folder (``init(directory:limits:permissions:)``) and after
    /// a save while ``StoreState/temporaryFilesDue``. Costs a listing of each folder; the
    /// deletions are not flushed: one lost in a power cut is deleted again at the next open.
    /// Best effort: a folder that cannot be read, or a file that cannot be removed (a read-only
    /// folder), leaves the sweep due.
    func sweepTemporaryFilesIfIdle(root: Directory) {
        guard state.temporaryFilesDue.load(ordering: .relaxed),
            let lock = StoreLock.tryExclusive(in: root, fileMode: state.permissions.fileMode, creating: false)
        else { return }
        defer { withExtendedLifetime(lock) {} }
        if (try? Self.sweepTemporaryFiles(in: root, flushing: false)) != nil {
            state.temporaryFilesDue.store(false, ordering: .relaxed)
        }
    }

    /// Deletes the temporary files of killed saves in `directory` and the namespaces inside it
    /// (the caller holds the exclusive lock, so no save is running); with `flushing`, makes the
    /// deletions durable (a flush of each folder that lost a file).
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
