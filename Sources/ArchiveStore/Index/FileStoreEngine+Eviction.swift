import ArchiveFileSystem
import Foundation
import KeyedArchive

// The limits: deciding from the index that the store is past them, and removing the least
// recently used values (expired ones first) until it is within them again.

extension FileStoreEngine {
    /// Whether the store is past its limits by what the index knows (brought up to date
    /// first), once the saves `saving` announces are counted and the values at `removing` are not.
    func isPastLimits(root: Directory, saving: [StoreJournal.Record] = [], removing: Set<String> = [], at now: Double) -> Bool {
        (try? index.withLock { index in
            try catchUp(&index, root: root, rescan: false)
            return index.isBeyond(limits, at: now, saving: saving.map { ($0.path, $0.size) }, removing: removing)
        }) ?? false
    }

    /// Before saves that take the store past its limits (the caller holds the exclusive lock):
    /// announces the saves and removes what ``StoreIndex/victims(for:at:protecting:)`` chooses
    /// with them counted, recording it all in one write to the journal. The values being saved
    /// (`protected`) are never chosen.
    ///
    /// - Parameter reuse: a folder (relative path and directory) and a temporary name: the first
    ///   victim in that folder is taken over (``ReusedFile``) instead of being deleted.
    /// - Returns: the victim's file taken over, if any.
    func makeRoom(
        announcing saving: [StoreJournal.Record], removing: Set<String> = [], root: Directory,
        protecting protected: Set<String>, at now: Double,
        reusingFileIn reuse: (relative: String, directory: Directory, temporaryName: String)? = nil
    ) -> ReusedFile? {
        let uses = takePendingUses()
        return index.withLock { index in
            // Damage hides what other processes saved since: repair first (the lock is held).
            try? catchUp(&index, root: root, rescan: false, holdingExclusiveLock: true)
            for use in uses { index.apply(use) }
            for record in saving { index.apply(record) }
            let (removed, reused) = evict(
                &index, root: root, protecting: protected, removing: removing, at: now, reusingFileIn: reuse)
            record(uses + saving + removed, root: root, appliedTo: &index)
            return reused
        }
    }

    /// After a commit: when the store is past its limits (a save of another instance or
    /// process raced with this one), removes what ``StoreIndex/victims(for:at:protecting:)``
    /// chooses, under the exclusive lock.
    ///
    /// Best effort: the commit is done and durable whatever happens here; a removal that fails
    /// (a folder that cannot be read or a file that cannot be deleted) is left for the next
    /// save or ``ArchiveStore/trim()``.
    func enforceLimits(root: Directory, protecting protected: Set<String>, at now: Double) {
        guard isPastLimits(root: root, at: now),
            let lock = try? StoreLock.acquire(.exclusive, in: root, fileMode: permissions.fileMode)
        else { return }
        defer { withExtendedLifetime(lock) {} }
        record(takePendingUses(), root: root)
        try? index.withLock { index in
            // Damage hides what other processes saved since: repair first (the lock is held).
            try catchUp(&index, root: root, rescan: false, holdingExclusiveLock: true)
            record(evict(&index, root: root, protecting: protected, at: now).records, root: root, appliedTo: &index)
        }
    }

    /// Removes the victims of the store's limits (the caller holds the exclusive lock) from
    /// the folders and the index. A file that cannot be removed is skipped.
    ///
    /// - Parameter reuse: a folder and a temporary name: the first victim in that folder is
    ///   renamed to that name and returned (``ReusedFile``) instead of being deleted.
    /// - Returns: the records of the removals, for the caller to write, and the file taken over.
    func evict(
        _ index: inout StoreIndex, root: Directory, protecting protected: Set<String>, removing: Set<String> = [],
        at now: Double, reusingFileIn reuse: (relative: String, directory: Directory, temporaryName: String)? = nil
    ) -> (records: [StoreJournal.Record], reused: ReusedFile?) {
        let victims = index.victims(for: limits, at: now, protecting: protected, removing: removing)
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
            forgetInMemory(entry.path)
            index.remove(entry.path)
            records.append(StoreJournal.Record.of(entry, kind: expired ? .expired : .evicted, at: now))
        }
        // The removals are not flushed to disk here. Before a save, the save's flush of its
        // folder makes those in that folder durable. A value evicted just before a power loss
        // that comes back is harmless: the next scan counts it, the next save past the limits
        // evicts it again.
        return (records, reused)
    }
}
