import ArchiveFileSystem
import Foundation
import KeyedArchive

extension ArchiveStore {
    /// Something that happened to a stored value: reported by ``changes()``, ``changes(forKey:)``.
    public struct Change: Sendable, Equatable, Hashable {
        /// What happened to the value.
        public enum Kind: Sendable, Equatable, Hashable {
            /// A new value was saved (``save(_:forKey:expiresAfter:)``, `set`).
            case saved
            /// The value was removed (``remove(forKey:)``, ``removeAll()``).
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
    public func changes() -> some AsyncSequence<Change, Never> & Sendable {
        changes(matching: nil)
    }

    /// The changes to the value under `key`, as ``changes()``.
    public func changes(forKey key: String) -> some AsyncSequence<Change, Never> & Sendable {
        changes(matching: key)
    }

    /// The changes to the value under a typed key, as ``changes()``.
    public func changes<Value>(for key: Key<Value>) -> some AsyncSequence<Change, Never> & Sendable {
        changes(matching: key.name)
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
    /// Each value is loaded when its change arrives; a slow reader gets the newest. Ending the
    /// iteration releases the watch.
    public func values<T>(of type: T.Type, forKey key: String) -> ValueSequence<T?> {
        watchValue(forKey: key) { store in try? store.load(T.self, forKey: key) }
    }

    /// The value under a typed key now, then after each change, as `store[key]` reads it: the
    /// stored value, else the registered default, else the key's (failures reported as
    /// `store[key]` reports them).
    public func values<Value: Sendable>(for key: Key<Value>) -> ValueSequence<Value> {
        watchValue(forKey: key.name) { store in store[key] }
    }

    /// A sequence of `read(self)`, now and after every change to `key`.
    private func watchValue<Element>(
        forKey key: String, _ read: @escaping @Sendable (ArchiveStore) -> Element
    ) -> ValueSequence<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let reader = ValueReader(store: self, read: read, continuation: continuation)
        defer { reader.yieldCurrent() }  // after the watch starts: no change falls in between
        let watcher = watchKey(key) { reader.yieldCurrent() }
        guard let watcher else {
            continuation.finish()
            return ValueSequence(stream: stream)
        }
        continuation.onTermination = { _ in watcher.stop() }
        return ValueSequence(stream: stream)
    }

    /// The values of one key over time: the current one, then one after each change (made by
    /// ``values(of:forKey:)`` and ``values(for:)``). It never throws; a reader that falls behind
    /// gets the newest value. `Sendable` when its values are.
    public struct ValueSequence<Element>: AsyncSequence {
        /// It never throws.
        public typealias Failure = Never
        fileprivate let stream: AsyncStream<Element>

        /// An iterator over the values, from the current one on.
        public func makeAsyncIterator() -> Iterator {
            Iterator(base: stream.makeAsyncIterator())
        }

        /// Gives the values one by one.
        public struct Iterator: AsyncIteratorProtocol {
            /// It never throws.
            public typealias Failure = Never
            fileprivate var base: AsyncStream<Element>.Iterator

            /// The next value: the current one first, then one after each change; nil once the
            /// iteration's task is cancelled.
            public mutating func next() async -> Element? {
                await base.next()
            }

            /// ``next()``, on the caller's actor.
            public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
                await base.next(isolation: actor)
            }
        }
    }

    /// Calls `changed` after every change to the value under `key` in this namespace (nil when
    /// the folder cannot be watched).
    func watchKey(_ key: String, _ changed: @escaping @Sendable () -> Void) -> (any StoreWatch)? {
        engine.watch { [directory = place.directory] records in
            let relevant = records.contains { record in
                record.directory == directory && StoreIndex.key(of: record) == key
                    && Change.Kind(record.kind) != nil
            }
            if relevant { changed() }
        }
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

/// Reads the observed value and yields it; one read at a time, on its own queue.
private final class ValueReader<Element>: @unchecked Sendable {
    // @unchecked: the store and the closure are Sendable; the values cross to the consumer
    // through the continuation, each one a fresh read that nothing else holds.
    private let store: ArchiveStore
    private let read: @Sendable (ArchiveStore) -> Element
    private let continuation: AsyncStream<Element>.Continuation
    private let queue = DispatchQueue(label: "ArchiveStore.values")

    init(store: ArchiveStore, read: @escaping @Sendable (ArchiveStore) -> Element, continuation: AsyncStream<Element>.Continuation) {
        self.store = store
        self.read = read
        self.continuation = continuation
    }

    func yieldCurrent() {
        queue.async { [self] in continuation.yield(read(store)) }
    }
}

extension ArchiveStore {
    /// Observation watchers alive in this process and the descriptors they hold (for tests).
    package static var observationResources: Int {
        JournalWatcher.resources.withLock { $0.values.reduce(0, +) }
    }

    /// ``observationResources`` of this store's folder only (for tests that run beside others).
    package var folderObservationResources: Int {
        guard let path = (engine as? FileStoreEngine)?.rootPath else { return 0 }
        return JournalWatcher.resources.withLock { $0[path, default: 0] }
    }
}

extension ArchiveStore.ValueSequence: Sendable where Element: Sendable {}
