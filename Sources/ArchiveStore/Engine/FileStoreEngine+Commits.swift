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

// The durable writer: every save, removal and batch of a store goes through it.
//
// A commit is written in four steps, each done for a whole group of commits at once:
// 1. each new value is written to a temporary file in its key's folder (nothing is flushed);
// 2. at `.full` durability, the temporary files are flushed together (see `Flush`: one
//    `syncfs` on Linux for several files, `F_BARRIERFSYNC` each on Apple platforms, which orders
//    them before the renames without flushing the drive's cache);
// 3. each temporary file is renamed over its key's file, removed keys' files are deleted, and
//    the journal gets one record of each change (one write for the group);
// 4. at `.full`, the folders that changed are flushed (`fsync`, one `syncfs` for several
//    folders, `F_FULLFSYNC` on Apple platforms: the one cache flush of the group).
// Then every commit of the group is acknowledged. At `.buffered` steps 2 and 4 are left out: a
// rename is atomic, and the kernel keeps what a killed process wrote, so a kill leaves each key
// with its old value or its new one, but an operating-system crash or a power loss may lose
// recent writes.
//
// Group commit: callers queue their commits, and one of them (the leader) writes the group of
// everything queued while the previous group was being written, then hands each caller its
// outcome. At `.full` the leader first waits, for at most `CommitQueue.gatheringLimit` (1 ms),
// for the saves that other threads have started (they are encoding their values) and for as
// many commits as recent groups held, so that threads saving together share one round of
// flushes instead of taking turns. A thread saving alone never waits (its groups hold one
// commit). Across processes nothing is shared: each process's writer flushes for its own groups
// (a `syncfs` of one also covers what another wrote before it, which is harmless).
//
// A batch (`atomic`) also writes a manifest of its renames and removals (see `BatchManifest`)
// and publishes it as `.batch` before its first rename; readers that find `.batch` wait for it
// to go, and whoever finds it left by a killed process finishes the batch from it. Several
// batches in one group share one manifest.

extension FileStoreEngine {
    /// Writes `commit` with the store's durability (see the notes at the top of this file).
    ///
    /// - Parameter announced: ``CommitQueue/announce()`` was called for it.
    /// - Throws: `ArchiveError` `.io` when a file cannot be written, renamed or flushed; the
    ///   keys it changes then keep their previous values (for a batch: all of them), unless the
    ///   failure came after the renames (a failed flush of a folder).
    func commit(_ commit: Commit, announced: Bool) throws {
        // Nothing to remove, and no lock file to create, when a removal's namespace has no folder.
        if commit.changes.count == 1, case .remove = commit.changes[0].action,
            try openDirectories(commit.changes[0].place, creating: false) == nil
        {
            if announced { commits.withdraw() }
            return
        }
        try commits.submit(commit, announced: announced, gathering: durability == .full) { group in
            self.write(group)
        }
        compactIfDue()
    }

    /// Writes a group of commits; one outcome per commit.
    private func write(_ group: [Commit]) -> [Result<Void, ArchiveError>] {
        var outcomes = [Result<Void, ArchiveError>](repeating: .success(()), count: group.count)
        func failAll(_ error: Error) -> [Result<Void, ArchiveError>] {
            let failure = error as? ArchiveError ?? ArchiveError(.io, reason: "\(error)")
            return group.map { _ in .failure(failure) }
        }
        let root: Directory
        do { root = try openOrCreateRoot() } catch { return failAll(error) }
        followKeptSettings(root: root)
        let durability = self.durability
        let time = group.map(\.time).max() ?? 0
        let saving = group.flatMap { commit in
            commit.changes.compactMap { change -> StoreJournal.Record? in
                guard case .save(let content, let expires) = change.action else { return nil }
                return StoreJournal.Record.event(
                    .saving, key: change.key, in: change.place, at: commit.time, size: content.count, expires: expires)
            }
        }
        let protected = Set(group.flatMap { $0.changes.map(\.path) })
        // The group's removals leave room: they count as gone when room is made for its saves.
        let removing = Set(
            group.flatMap { commit in
                commit.changes.compactMap { change -> String? in
                    guard case .remove = change.action else { return nil }
                    return change.path
                }
            })

        var written: [(commit: Int, change: FileChange, file: WrittenFile)] = []
        var touched: [String: Directory] = [:]
        var manifest = BatchManifest(durable: durability == .full)
        var marker: BatchMarker?
        var keepsMarker = false
        do {
            // Making room takes the lock exclusive for a moment; then shared, so that any number
            // of writers run at once and the sweeps (exclusive) never see a commit half done.
            let evicting = limits.limitsDisk && isPastLimits(root: root, saving: saving, removing: removing, at: time)
            let lock = try StoreLock.acquire(evicting ? .exclusive : .shared, in: root, fileMode: permissions.fileMode)
            defer { withExtendedLifetime(lock) {} }
            // A single save that evicts writes its value into the file of a value it evicted from
            // its own folder (see `ReusedFile`: no inode freed and another allocated).
            var reused: (path: String, file: ReusedFile)?
            var folders: [String: Directory] = [:]
            if evicting {
                var reuse: (relative: String, directory: Directory, temporaryName: String)?
                if saving.count == 1, let change = group.lazy.flatMap(\.changes).first(where: { $0.path == saving[0].path }),
                    let directory = try subdirectory(change.place, from: root, creating: true)
                {
                    folders[change.place.directory] = directory
                    reuse = (change.place.directory, directory, temporaryFileName())
                }
                // Announces the saves with the removals (see `makeRoom`).
                if let file = makeRoom(
                    announcing: saving, removing: removing, root: root, protecting: protected, at: time,
                    reusingFileIn: reuse)
                {
                    reused = (saving[0].path, file)
                }
                try lock.downgrade(in: root)
            }

            // 1. Temporary files.
            for (position, commit) in group.enumerated() {
                do {
                    for change in commit.changes {
                        guard case .save(let content, _) = change.action else {
                            // A removal's folder is not created: with no folder there is nothing to remove.
                            if folders[change.place.directory] == nil,
                                let opened = try subdirectory(change.place, from: root, creating: false)
                            {
                                folders[change.place.directory] = opened
                            }
                            continue
                        }
                        let directory: Directory
                        if let known = folders[change.place.directory] {
                            directory = known
                        } else {
                            guard let opened = try subdirectory(change.place, from: root, creating: true) else {
                                throw ArchiveError.io(errno: ENOENT, "open the namespace directory", path: rootPath)
                            }
                            folders[change.place.directory] = opened
                            directory = opened
                        }
                        var file: WrittenFile?
                        if let taken = reused, taken.path == change.path {
                            // A new file instead if anything fails.
                            file = try? taken.file.write(content, mode: fileMode)
                            reused = nil
                        }
                        if file == nil { file = try directory.writeNewFile(temporaryFileName(), content: content, mode: fileMode) }
                        if let file { written.append((position, change, file)) }
                    }
                } catch {
                    outcomes[position] = .failure(error as? ArchiveError ?? ArchiveError(.io, reason: "\(error)"))
                    for item in written where item.commit == position { item.file.discard() }
                    written.removeAll { $0.commit == position }
                }
            }
            // A batch's manifest, written with the values it names.
            for (position, commit) in group.enumerated() where commit.atomic && outcomes[position].isSuccess {
                for change in commit.changes {
                    switch change.action {
                    case .save(let content, let expires):
                        guard let file = written.first(where: { $0.commit == position && $0.change.path == change.path })?.file
                        else { continue }
                        manifest.renames.append(
                            .init(directory: change.place.directory, temporaryName: file.name, fileName: change.fileName))
                        manifest.records.append(
                            StoreJournal.Record.event(
                                .saved, key: change.key, in: change.place, at: commit.time, size: content.count,
                                expires: expires))
                    case .remove:
                        manifest.removals.append(.init(directory: change.place.directory, fileName: change.fileName))
                        manifest.records.append(StoreJournal.Record.event(.removed, key: change.key, in: change.place, at: commit.time))
                    }
                }
            }
            if !manifest.isEmpty {
                marker = try BatchMarker.prepare(manifest, in: root, temporaryName: temporaryFileName(), mode: fileMode)
            }

            // 2. The values' bytes reach the drive before any name points at them.
            if durability == .full {
                let descriptors = written.map(\.file.descriptor) + (marker.map { [$0.descriptor] } ?? [])
                if let number = Flush.flush(descriptors, for: .ordered) {
                    throw ArchiveError.io(errno: number, "flush to disk the new files in", path: rootPath)
                }
            }
            if let marker {
                try marker.publish(in: root) { try self.finishBatch(left: $0, root: root) }
                // The manifest is on the drive before the first rename it announces.
                if durability == .full, let number = Flush.flush([root.descriptor], for: .ordered) {
                    throw ArchiveError.io(errno: number, "flush to disk", path: rootPath)
                }
            }

            // 3. Renames and removals, announced to the journal first when limits count them
            // (a killed writer then leaves the index counting at least what is on disk).
            if limits.limitsDisk, !evicting {
                record(takePendingUses() + saving.filter { isLive($0, written) }, root: root)
            }
            var done: [StoreJournal.Record] = []
            for (position, commit) in group.enumerated() where outcomes[position].isSuccess {
                var failure: ArchiveError?
                for change in commit.changes {
                    guard let directory = folders[change.place.directory] else { continue }
                    forgetInMemory(change.path)
                    switch change.action {
                    case .save(let content, let expires):
                        guard let file = written.first(where: { $0.commit == position && $0.change.path == change.path })?.file
                        else { continue }
                        do {
                            try directory.rename(file.name, to: change.fileName)
                        } catch {
                            failure = failure ?? (error as? ArchiveError)
                            if commit.atomic {
                                // Published: the batch is finished from its manifest later.
                                keepsMarker = true
                            } else {
                                file.discard()
                                // The announced save did not happen: tell the journal what is there instead.
                                done.append(recordOfFile(change, in: directory, at: commit.time))
                            }
                            continue
                        }
                        touched[change.place.directory] = directory
                        done.append(
                            StoreJournal.Record.event(
                                .saved, key: change.key, in: change.place, at: commit.time, size: content.count,
                                expires: expires))
                        keepInMemory(change, content: content, expires: expires, written: file.status, in: directory)
                    case .remove:
                        do {
                            if try directory.removeFile(change.fileName) {
                                touched[change.place.directory] = directory
                                done.append(StoreJournal.Record.event(.removed, key: change.key, in: change.place, at: commit.time))
                            }
                        } catch {
                            failure = failure ?? (error as? ArchiveError)
                            if commit.atomic { keepsMarker = true }
                        }
                    }
                }
                if let failure {
                    outcomes[position] = .failure(
                        commit.atomic
                            ? ArchiveError(
                                failure.code,
                                reason: "\(failure.reason); the batch is recorded in \(rootPath)/\(BatchMarker.fileName) and is completed when the store is next used")
                            : failure)
                }
            }
            record(done, root: root)
        } catch {
            for item in written { item.file.discard() }
            marker?.abandon(in: root)
            return failAll(error)
        }

        // 4. The renames are durable before anyone is told the commits are done.
        if durability == .full, !touched.isEmpty {
            let folders = touched.keys.sorted().compactMap { touched[$0] }
            if let number = Flush.flush(folders.map(\.descriptor), for: .durable) {
                let error = ArchiveError.io(errno: number, "flush to disk", path: folders[0].path)
                marker?.withdraw(in: root)
                return failAll(error)
            }
        }
        if keepsMarker {
            marker?.leave()
        } else {
            marker?.withdraw(in: root)
        }
        if limits.limitsDisk { enforceLimits(root: root, protecting: protected, at: time) }
        sweepTemporaryFilesIfIdle(root: root)
        return outcomes
    }

    /// Writes `change` (a save) only if its key's file is still the one with identity
    /// `expected` (the file an upgrade read), holding the lock exclusive so that no other
    /// commit comes between the check and the rename. Makes no room: an upgrade rewrites a
    /// value in place.
    ///
    /// - Returns: whether it wrote.
    func rewrite(_ change: FileChange, ifUnchanged expected: StoredVersion, at time: Double) throws -> Bool {
        guard case .save(let content, let expires) = change.action,
            let root = try Directory.open(path: rootPath)
        else { return false }
        let lock = try StoreLock.acquire(.exclusive, in: root, fileMode: permissions.fileMode)
        defer { withExtendedLifetime(lock) {} }
        try settleBatch(in: root)
        guard let directory = try subdirectory(change.place, from: root, creating: false),
            let status = try directory.status(of: change.fileName), .file(FileIdentity(status)) == expected
        else { return false }
        let file = try directory.writeNewFile(temporaryFileName(), content: content, mode: fileMode)
        do {
            if durability == .full, let number = Flush.flush([file.descriptor], for: .ordered) {
                throw ArchiveError.io(errno: number, "flush to disk", path: directory.path(of: file.name))
            }
            forgetInMemory(change.path)
            try directory.rename(file.name, to: change.fileName)
        } catch {
            file.discard()
            throw error
        }
        record(
            [StoreJournal.Record.event(.saved, key: change.key, in: change.place, at: time, size: content.count, expires: expires)],
            root: root)
        if durability == .full, let number = Flush.flush([directory.descriptor], for: .durable) {
            throw ArchiveError.io(errno: number, "flush to disk", path: directory.path)
        }
        return true
    }

    /// Whether the save `record` announced still has its temporary file (its commit did not fail).
    private func isLive(_ record: StoreJournal.Record, _ written: [(commit: Int, change: FileChange, file: WrittenFile)]) -> Bool {
        written.contains { $0.change.path == record.path }
    }

    /// A record of what the file of `change` holds now: `restated` with its size and expiry, or
    /// `removed` when there is none (after a save that failed before its rename).
    private func recordOfFile(_ change: FileChange, in directory: Directory, at time: Double) -> StoreJournal.Record {
        let configuration = configuration.withLock { $0 }
        guard
            let (data, status) = try? directory.readFileAndStatus(
                change.fileName, maximumSize: configuration.unarchiverOptions.maximumArchiveSize)
        else { return StoreJournal.Record.event(.removed, key: change.key, in: change.place, at: time) }
        let stored = try? StoreRecord(data, path: directory.path(of: change.fileName), configuration: configuration)
        return StoreJournal.Record.event(
            .restated, key: change.key, in: change.place, at: time, size: Int(status.st_size), expires: stored?.expires)
    }

    /// Keeps a value just saved in the memory tier, if the file in place is still this save's
    /// (same inode).
    private func keepInMemory(
        _ change: FileChange, content: Data, expires: Double?, written: stat, in directory: Directory
    ) {
        guard keepsValuesInMemory, let status = try? directory.status(of: change.fileName),
            status.st_ino == written.st_ino, status.st_dev == written.st_dev
        else { return }
        keepInMemory(forKey: change.key, in: change.place, content: .archive(content), status: status, expires: expires)
    }

    /// Finishes the batch a killed process left published (see ``BatchMarker``): renames what
    /// it did not rename, deletes what it did not delete, flushes as it would have, and writes
    /// its records to the journal (again, if it got that far: an observer may see its changes
    /// twice).
    func finishBatch(left manifest: BatchManifest, root: Directory) throws {
        var touched: [String: Directory] = [:]
        for rename in manifest.renames {
            guard let directory = try FileStoreEngine.open(relative: rename.directory, in: root) else { continue }
            if renameat(directory.descriptor, rename.temporaryName, directory.descriptor, rename.fileName) == 0 {
                touched[rename.directory] = directory
            } else if errno != ENOENT {
                throw ArchiveError.io(errno: errno, "rename \(directory.path(of: rename.temporaryName)) to", path: directory.path(of: rename.fileName))
            }
        }
        for removal in manifest.removals {
            guard let directory = try FileStoreEngine.open(relative: removal.directory, in: root) else { continue }
            if try directory.removeFile(removal.fileName) { touched[removal.directory] = directory }
        }
        for record in manifest.records { forgetInMemory(record.path) }
        if manifest.durable, !touched.isEmpty,
            let number = Flush.flush(touched.keys.sorted().compactMap { touched[$0]?.descriptor }, for: .durable)
        {
            throw ArchiveError.io(errno: number, "flush to disk", path: rootPath)
        }
        record(manifest.records, root: root)
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
