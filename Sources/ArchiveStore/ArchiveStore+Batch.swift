import ArchiveFileSystem
import Foundation
import KeyedArchive

extension ArchiveStore {
    /// Saves and removes several values of a store all or nothing.
    ///
    /// ```swift
    /// try settings.batch { batch in
    ///     try batch.set("dark", forKey: "theme")
    ///     try batch.set(14, forKey: "fontSize")
    ///     try batch.save(layout, forKey: "layout")
    ///     batch.remove(forKey: "legacyTheme")
    /// }
    /// ```
    ///
    /// The changes are gathered while the closure runs (each value is encoded at once, so an
    /// unencodable value throws from its `save`) and made when it returns:
    /// - **All or nothing.** If the closure throws, nothing is changed. Once the batch is made,
    ///   every change is; a process killed at any moment leaves all of them or none (a batch
    ///   published before the kill is finished by the next load or opening of the folder, in any
    ///   process).
    /// - **Seen whole.** Once any change of a batch can be seen, every later load, in this
    ///   process or another, sees all of them: a load that meets a batch being made waits for it
    ///   (for as long as its renames and, at ``Durability/full``, one flush take).
    /// - **Durable as one.** At ``Durability/full`` a batch of any size costs three flushes: its
    ///   values and its manifest together, the manifest's name, then every folder it changed.
    /// - Observers (``changes()``) see its changes after it is made; the limits are applied
    ///   once, after it, and never evict one of its values to make room for another.
    ///
    /// A key changed twice in one batch keeps the last change. Use the batch only inside the
    /// closure: its methods throw `.misuse` once the batch is made.
    public final class Batch {
        private let store: ArchiveStore
        private var changes: [FileChange] = []
        private var finished = false

        fileprivate init(store: ArchiveStore) {
            self.store = store
        }

        /// Saves `value` under `key` when the batch is made (see ``ArchiveStore/save(_:forKey:expiresAfter:)``).
        ///
        /// - Throws: the archiver's errors when the value cannot be archived (then the batch is
        ///   not made, unless the closure catches the error).
        public func save<T>(_ value: T, forKey key: String, expiresAfter: Duration? = nil) throws {
            try checkOpen()
            changes.append(try store.saving(value, forKey: key, expiresAfter: expiresAfter))
        }

        /// Saves an integer under `key` when the batch is made.
        public func set(_ value: Int, forKey key: String) throws { try save(value, forKey: key) }
        /// Saves a real number under `key` when the batch is made.
        public func set(_ value: Double, forKey key: String) throws { try save(value, forKey: key) }
        /// Saves a single-precision real number under `key` when the batch is made.
        public func set(_ value: Float, forKey key: String) throws { try save(value, forKey: key) }
        /// Saves a Boolean under `key` when the batch is made.
        public func set(_ value: Bool, forKey key: String) throws { try save(value, forKey: key) }
        /// Saves a string under `key` when the batch is made.
        public func set(_ value: String, forKey key: String) throws { try save(value, forKey: key) }
        /// Saves a URL under `key` when the batch is made.
        public func set(_ value: URL, forKey key: String) throws { try save(value, forKey: key) }
        /// Saves a date under `key` when the batch is made.
        public func set(_ value: Date, forKey key: String) throws { try save(value, forKey: key) }
        /// Saves bytes under `key` when the batch is made.
        public func set(_ value: Data, forKey key: String) throws { try save(value, forKey: key) }

        /// Saves `value` under `key`, or removes the key's value when it is nil, as
        /// the store's `set(_:forKey:)` does.
        public func set(_ value: Any?, forKey key: String) throws {
            guard let value, !isNil(value) else { return try remove(forKey: key) }
            try save(value, forKey: key)
        }

        /// Saves `value` under a typed key (`nil`, for a key of an Optional type, removes it).
        public func set<Value>(_ value: Value, for key: Key<Value>) throws {
            if isNil(value) { return try remove(forKey: key.name) }
            try save(value, forKey: key.name)
        }

        /// Removes the value under a typed key.
        public func remove<Value>(for key: Key<Value>) throws {
            try remove(forKey: key.name)
        }

        /// Removes the value under `key` when the batch is made (an absent key is not an error).
        public func remove(forKey key: String) throws {
            try checkOpen()
            changes.append(FileChange(place: store.place, key: key, action: .remove))
        }

        private func checkOpen() throws {
            guard !finished else {
                throw ArchiveError(
                    .misuse, reason: "this batch was already made; use a batch only inside the closure given to batch(_:)")
            }
        }

        /// The changes to make, the last one of each key only, in the order they were asked for.
        fileprivate func finish() -> [FileChange] {
            finished = true
            var last: [String: Int] = [:]
            for (position, change) in changes.enumerated() { last[change.path] = position }
            return changes.enumerated().filter { last[$0.element.path] == $0.offset }.map(\.element)
        }
    }

    /// Runs `body` with a ``Batch`` and then makes every change it asked for, all or nothing
    /// (see ``Batch``).
    ///
    /// - Parameter body: Gathers the changes; the batch is made when it returns.
    /// - Returns: What `body` returns.
    /// - Throws: `body`'s error (nothing is changed); `ArchiveError` `.io` when the batch cannot
    ///   be written (nothing is changed, unless the failure came after the batch was published:
    ///   the error then says so, and the batch is finished by the next load).
    @discardableResult
    public func batch<Result>(_ body: (Batch) throws -> Result) throws -> Result {
        let (result, changes) = try collectBatch(body)
        try commitBatch(changes)
        return result
    }

    /// Runs `body` on a new batch: its result and the changes it made, nothing written yet.
    func collectBatch<Result>(_ body: (Batch) throws -> Result) throws -> (Result, [FileChange]) {
        let batch = Batch(store: self)
        let result: Result
        do {
            result = try body(batch)
        } catch {
            _ = batch.finish()
            throw error
        }
        return (result, batch.finish())
    }

    /// Makes the changes of a batch, all or none.
    func commitBatch(_ changes: [FileChange]) throws {
        guard !changes.isEmpty else { return }
        try engine.commit(Commit(changes: changes, atomic: true, time: now), announced: false)
    }
}

// MARK: - Test hooks

extension ArchiveStore {
    /// Leaves a batch as a process killed in the middle of making it would: its values written
    /// to temporary files, its manifest published as `.batch`, the first `renamed` of its saves
    /// renamed into place and nothing else done (for tests of finishing it).
    package func leaveHalfMadeBatch(saving values: [(key: String, value: Int)], removing keys: [String], renamed: Int) throws {
        guard let engine = engine as? FileStoreEngine else { return }
        let root = try engine.openOrCreateRoot()
        // Held as a writer holds it; released as a killed process's is.
        let lock = try StoreLock.acquire(.shared, in: root, fileMode: permissions.fileMode)
        defer { withExtendedLifetime(lock) {} }
        guard let directory = try engine.subdirectory(place, from: root, creating: true) else { return }
        var manifest = BatchManifest(durable: durability == .full)
        for (key, value) in values {
            let content = try StoreRecord.encode(value, key: key, expires: nil)
            let file = try directory.writeNewFile(engine.temporaryFileName(), content: content, mode: engine.fileMode)
            manifest.renames.append(
                .init(directory: place.directory, temporaryName: file.name, fileName: StoreFileName.keyFileName(for: key)))
            manifest.records.append(StoreJournal.Record.event(.saved, key: key, in: place, at: now, size: content.count))
        }
        for key in keys {
            manifest.removals.append(.init(directory: place.directory, fileName: StoreFileName.keyFileName(for: key)))
            manifest.records.append(StoreJournal.Record.event(.removed, key: key, in: place, at: now))
        }
        let marker = try BatchMarker.prepare(manifest, in: root, temporaryName: engine.temporaryFileName(), mode: engine.fileMode)
        try marker.publish(in: root) { try engine.finishBatch(left: $0, root: root) }
        for rename in manifest.renames.prefix(renamed) { try directory.rename(rename.temporaryName, to: rename.fileName) }
        marker.leave()
    }

    /// The bytes of a batch manifest removing `key`'s file in the folder `directory` (relative
    /// to the root, as written; `".."` is a place no manifest may name), for tests of `.batch`.
    package static func batchManifest(removing key: String, inFolder directory: String, durable: Bool) -> [UInt8] {
        var manifest = BatchManifest(durable: durable)
        manifest.removals.append(.init(directory: directory, fileName: StoreFileName.keyFileName(for: key)))
        manifest.records.append(
            StoreJournal.Record(
                kind: .removed, time: 5, size: 0, expires: nil, directory: directory,
                fileName: StoreFileName.keyFileName(for: key), key: key))
        return manifest.encoded()
    }

    /// Whether `bytes` read back as a manifest the store would act on, equal to what was written.
    package static func isAcceptedBatchManifest(_ bytes: [UInt8]) -> Bool {
        guard let manifest = BatchManifest(decoding: bytes) else { return false }
        return manifest.encoded() == bytes
    }
}
