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

// The index of the store's files (``StoreIndex``), kept current from the journal
// (``StoreJournal``): catching up with what other instances and processes appended, scanning
// the folders when the journal cannot say, and compacting the journal into a snapshot.

extension FileStoreEngine {
    /// The unexpired entries of `place` (`nested`: and of the namespaces inside it), pending
    /// saves checked against the disk.
    func liveEntries(of place: StorePlace, nested: Bool, now: Date) throws -> [StoreIndex.Entry] {
        guard let root = try openRoot() else { return [] }
        let directory = place.directory
        let now = now.timeIntervalSinceReferenceDate
        return try index.withLock { index in
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
            lock = StoreLock.tryExclusive(in: root, fileMode: permissions.fileMode)
        }
        try withExtendedLifetime(lock) {
            try reconcile(&index, root: root)
            // Records appended while the folders were read.
            tail(&index, root: root)
            index.isLoaded = true
            indexLoaded.store(true, ordering: .relaxed)
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
        let lock = holdingExclusiveLock ? nil : StoreLock.tryExclusive(in: root, fileMode: permissions.fileMode)
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
            records.append(StoreJournal.Record.of(entry, kind: .snapshot, at: entry.lastUse))
        }
        guard
            let (identity, length) = try? StoreJournal.rewrite(
                records, in: root, mode: UInt32(permissions.fileMode), temporaryName: temporaryFileName())
        else { return }
        // Follow the new file from its end: its snapshot is this index.
        index.journalIdentity = identity
        index.journalOffset = length
    }

    /// The status of an entry's file, if it is there as a regular file.
    static func file(of entry: StoreIndex.Entry, in root: Directory) -> stat? {
        guard let folder = try? open(relative: entry.directory, in: root),
            let status = try? folder.status(of: entry.fileName), status.st_mode & S_IFMT == S_IFREG
        else { return nil }
        return status
    }

    /// Compacts the journal if a record written under a lock found it due.
    func compactIfDue() {
        guard compactionDue.exchange(false, ordering: .relaxed),
            let root = try? Directory.open(path: rootPath)
        else { return }
        try? self.index.withLock { index in
            try catchUp(&index, root: root, rescan: false)
            compact(&index, root: root)
        }
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
