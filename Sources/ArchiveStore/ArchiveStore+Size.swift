import ArchiveFileSystem
import Foundation
import KeyedArchive

extension ArchiveStore {
    // MARK: - Size

    /// How many values this store and the namespaces inside it hold, and the bytes of their
    /// files, expired values left out: what ``Limits/maximumCount`` and ``Limits/maximumBytes``
    /// count.
    public struct Size: Sendable, Equatable, Hashable {
        /// The number of values.
        public var count: Int
        /// The bytes their files take.
        public var bytes: Int

        /// A size of `count` values taking `bytes` bytes.
        public init(count: Int, bytes: Int) {
            self.count = count
            self.bytes = bytes
        }
    }

    /// The values of this store and the namespaces inside it, counted and measured.
    ///
    /// Read from the store's index, not from the files: about the cost of listing the
    /// folders the first time in a process, then of reading what other processes appended to
    /// the journal since.
    ///
    /// - Throws: `ArchiveError` `.io` when a folder or the journal cannot be read.
    public func size() throws -> Size {
        let entries = try engine.liveEntries(of: place, nested: true, now: clock.now)
        return Size(count: entries.count, bytes: entries.reduce(0) { $0 + $1.size })
    }

    /// ``size()``'s count, or zero when it cannot be read; the error is then reported on
    /// standard error and to ``failures()``.
    public var count: Int { reportedSize.count }

    /// ``size()``'s bytes, or zero when they cannot be read; the error is then reported on
    /// standard error and to ``failures()``.
    public var totalBytes: Int { reportedSize.bytes }

    private var reportedSize: Size {
        do { return try size() } catch {
            report(error, .list, key: nil)
            return Size(count: 0, bytes: 0)
        }
    }

    /// Applies the store's limits now: removes expired values, values unused for longer than
    /// ``Limits/maximumAge``, then the least recently used until the store is within its limits.
    ///
    /// Also checks the index against the folders (values added or removed by hand, or by a
    /// process killed mid-save, are taken into account), rewrites the journal from it, finishes
    /// a batch a killed process left half made, and deletes the temporary files of killed saves.
    /// A store without limits only loses its expired values. Holds the store's exclusive lock
    /// while it works.
    ///
    /// - Throws: `ArchiveError` `.io` when a folder cannot be read.
    public func trim() throws {
        try engine.trim(now: clock.now)
    }

    /// What the memory tier holds, and how many loads it answered (for tests and tuning).
    package var memoryTierStatistics: (items: Int, bytes: Int, hits: Int) {
        engine.memoryTierStatistics
    }

    // MARK: - Data protection (Apple platforms)

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

extension FileStoreEngine {
    /// ``ArchiveStore/trim()``.
    func trim(now: Date) throws {
        guard let root = try Directory.open(path: rootPath) else { return }
        followKeptSettings(root: root)
        let lock = try StoreLock.acquire(.exclusive, in: root, fileMode: permissions.fileMode)
        defer { withExtendedLifetime(lock) {} }
        try settleBatch(in: root)
        record(takePendingUses(), root: root)
        try index.withLock { index in
            try catchUp(&index, root: root, rescan: true, holdingExclusiveLock: true)
            try Self.sweepTemporaryFiles(in: root)
            temporaryFilesDue.store(false, ordering: .relaxed)
            record(
                evict(&index, root: root, protecting: [], at: now.timeIntervalSinceReferenceDate).records, root: root,
                appliedTo: &index)
            compact(&index, root: root, holdingExclusiveLock: true)
        }
    }
}
