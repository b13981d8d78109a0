import ArchiveFileSystem
import Foundation
import KeyedArchive

extension ArchiveStore {
    /// Something that happened to a stored value: reported by ``changes()``, ``changes(forKey:)``.
    public struct Change: Sendable, Equatable, Hashable {
        /// What happened to the value.
        public enum Kind: Sendable, Equatable, Hashable {
            /// A new value was saved (``save(_:forKey:expiresAfter:)-34ndq``, `set`).
            case saved
            /// The value was removed (``remove(forKey:)-5avmq``, ``removeAll()``).
            case removed
            /// The value expired and was deleted (by a load, ``removeExpired()``, ``trim()`` or a
            /// save past the limits).
            case expired
            /// The value was removed to keep the store within its ``Limits``.
            case evicted
        }

        /// The key, exactly as saved.
        public let key: String
        /// What happened to its value.
        public let kind: Kind

        /// A change of `kind` to the value under `key` (to compare with what a sequence yields).
        public init(key: String, kind: Kind) {
            self.key = key
            self.kind = kind
        }
    }

    /// Every change to this namespace's values (not those of nested namespaces), from now until
    /// the iteration ends, made through any store instance in any process on this folder.
    ///
    /// ```swift
    /// for await change in settings.changes() {
    ///     print(change.key, change.kind)      // "theme" saved
    /// }
    /// ```
    ///
    /// Changes arrive in the order they were made, a few milliseconds after them: the store's
    /// journal, which every save, removal, expiry and eviction is written to, is watched with
    /// inotify (Linux) or a dispatch source (kqueue, Apple platforms). Ending the iteration
    /// (leaving the loop, cancelling its task) stops the watch and closes what it opened. A
    /// folder that cannot be watched gives a sequence that ends at once.
    public func changes() -> AsyncStream<Change> {
        changes(matching: nil)
    }

    /// The changes to the value under `key`, as ``changes()``.
    public func changes(forKey key: String) -> AsyncStream<Change> {
        changes(matching: key)
    }

    /// The value under `key` now, then again after each change to it: nil when there is none,
    /// it expired, or it cannot be read as `type`. As `UserDefaults` observation or Defaults'
    /// `updates`, for keeping a view or a setting in step:
    ///
    /// ```swift
    /// for await profile in store.values(of: Profile.self, forKey: "profile") {
    ///     render(profile)
    /// }
    /// ```
    ///
    /// Each value is loaded when its change arrives. Ending the iteration releases the watch.
    public func values<T>(of type: T.Type, forKey key: String) -> AsyncStream<T?> {
        let (stream, continuation) = AsyncStream<T?>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let store = self
        let reader = ValueReader(store: store, key: key, type: type, continuation: continuation)
        defer { reader.yieldCurrent() }  // after the watch starts: no change falls in between
        let watcher = engine.watch { [directory = place.directory] records in
            let relevant = records.contains { record in
                record.directory == directory && StoreIndex.key(of: record) == key
                    && Change.Kind(record.kind) != nil
            }
            if relevant { reader.yieldCurrent() }
        }
        guard let watcher else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { _ in watcher.stop() }
        return stream
    }

    /// The value under a typed key now, then after each change: its default when none is
    /// stored or it cannot be read.
    public func values<Value: Sendable>(for key: Key<Value>) -> AsyncMapSequence<AsyncStream<Value?>, Value> {
        let fallback = key.defaultValue
        return values(of: Value.self, forKey: key.name).map { $0 ?? fallback }
    }

    private func changes(matching key: String?) -> AsyncStream<Change> {
        let (stream, continuation) = AsyncStream<Change>.makeStream()
        let directory = place.directory
        let watcher = engine.watch { records in
            for record in records where record.directory == directory {
                guard let kind = Change.Kind(record.kind), let recordKey = StoreIndex.key(of: record) else { continue }
                if let key, !recordKey.utf8.elementsEqual(key.utf8) { continue }
                continuation.yield(Change(key: recordKey, kind: kind))
            }
        }
        guard let watcher else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { _ in watcher.stop() }
        return stream
    }
}

extension ArchiveStore.Change.Kind {
    /// The change a journal record reports; nil for records that change no value (a save
    /// announced but not done, a load, a compaction's snapshot, a correction).
    init?(_ kind: StoreJournal.Kind) {
        switch kind {
        case .saved: self = .saved
        case .removed: self = .removed
        case .expired: self = .expired
        case .evicted: self = .evicted
        case .saving, .used, .snapshot, .restated: return nil
        }
    }
}

/// Loads the observed value and yields it; one load at a time, on its own queue.
private final class ValueReader<T>: @unchecked Sendable {
    // @unchecked: the store is Sendable; `T` values cross to the consumer through the
    // continuation, each one a fresh decode that nothing else holds.
    private let store: ArchiveStore
    private let key: String
    private let continuation: AsyncStream<T?>.Continuation
    private let queue = DispatchQueue(label: "ArchiveStore.values")

    init(store: ArchiveStore, key: String, type: T.Type, continuation: AsyncStream<T?>.Continuation) {
        self.store = store
        self.key = key
        self.continuation = continuation
    }

    func yieldCurrent() {
        queue.async { [self] in
            let value = try? store.loadNow(T.self, forKey: key)
            continuation.yield(value ?? nil)
        }
    }
}

extension ArchiveStore {
    /// Observation watchers alive in this process and the descriptors they hold (for tests).
    package static var observationResources: Int {
        JournalWatcher.resources.load(ordering: .relaxed)
    }
}
