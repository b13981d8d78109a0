import Foundation
import KeyedArchive

extension ArchiveStore {
    /// The store's calls that touch the disk, as `async` functions whose file work runs off the
    /// caller's actor: for callers that must not wait for a flush or a read on their actor (the
    /// main actor above all).
    ///
    /// ```swift
    /// @MainActor func saveDraft() async throws {
    ///     try await store.async.save(draft, forKey: "draft")    // the UI keeps running during the flush
    ///     let theme = try await store.async.value(for: .theme)
    /// }
    /// ```
    ///
    /// The store's own methods are all synchronous and keep one meaning everywhere: in
    /// synchronous code, in an `async` function and in top-level code, `try store.save(…)`
    /// saves on the calling thread and needs no `await`. The `async` forms are reached only
    /// through this view, so neither can be picked for the other by accident.
    ///
    /// Values are archived on the caller's actor (archiving reads them, and they may belong to
    /// it), and the file work — writing, flushing, renaming, reading, listing — runs on the
    /// global concurrent executor; a read decodes there into a new value handed back to the
    /// caller. Each call behaves, throws and reports as the synchronous call of the same name.
    public var async: Asynchronous { Asynchronous(store: self) }

    /// The `async` forms of a store's calls that touch the disk (see ``ArchiveStore/async``).
    public struct Asynchronous: Sendable {
        /// The store these calls act on.
        public let store: ArchiveStore

        // MARK: Saving and removing

        /// ``ArchiveStore/save(_:forKey:expiresAfter:)``, the file work off the caller's actor.
        nonisolated(nonsending) public func save<T>(_ value: T, forKey key: String, expiresAfter: Duration? = nil) async throws {
            let change = try store.saving(value, forKey: key, expiresAfter: expiresAfter)
            let commit = Commit(changes: [change], atomic: false, time: store.now)
            try await Self.run { [store] in try store.engine.commit(commit, announced: false) }
        }

        /// ``ArchiveStore/save(_:)``, the file work off the caller's actor.
        nonisolated(nonsending) public func save<T>(_ value: T) async throws {
            let earlier = try await Self.run { [store] in try store.earlierKeys(for: T.self) }
            guard !earlier.isEmpty else { return try await save(value, forKey: ArchiveStore.defaultKey(for: T.self)) }
            let (_, changes) = try store.collectBatch { batch in
                try store.savingUnderTypeName(value, replacing: earlier, in: batch)
            }
            try await Self.run { [store] in try store.commitBatch(changes) }
            store.forgetMovedKeys(for: T.self)
        }

        /// The store's `set(_:forKey:)` for any value (nil removes), the file work off the caller's actor.
        nonisolated(nonsending) public func set(_ value: Any?, forKey key: String) async throws {
            guard let value, !isNil(value) else { return try await remove(forKey: key) }
            try await save(value, forKey: key)
        }

        /// ``ArchiveStore/set(_:for:)``, the file work off the caller's actor.
        nonisolated(nonsending) public func set<Value>(_ value: Value, for key: ArchiveStore.Key<Value>) async throws {
            if isNil(value) { return try await remove(forKey: key.name) }
            try await save(value, forKey: key.name)
        }

        /// ``ArchiveStore/batch(_:)``: `body` runs on the caller's actor, the commit off it.
        nonisolated(nonsending) public func batch<Result>(_ body: (Batch) throws -> Result) async throws -> Result {
            let (result, changes) = try store.collectBatch(body)
            try await Self.run { [store] in try store.commitBatch(changes) }
            return result
        }

        /// ``ArchiveStore/remove(forKey:)``, off the caller's actor.
        public func remove(forKey key: String) async throws {
            try await Self.run { [store] in try store.remove(forKey: key) }
        }

        /// ``ArchiveStore/remove(for:)``, off the caller's actor.
        public func remove<Value>(for key: ArchiveStore.Key<Value>) async throws {
            try await remove(forKey: key.name)
        }

        /// ``ArchiveStore/removeAll()``, off the caller's actor.
        public func removeAll() async throws {
            try await Self.run { [store] in try store.removeAll() }
        }

        /// ``ArchiveStore/removeExpired()``, off the caller's actor.
        public func removeExpired() async throws {
            try await Self.run { [store] in try store.removeExpired() }
        }

        /// ``ArchiveStore/trim()``, off the caller's actor.
        public func trim() async throws {
            try await Self.run { [store] in try store.trim() }
        }

        /// ``ArchiveStore/upgradeAll(_:)``, off the caller's actor.
        @discardableResult
        public func upgradeAll<T>(_ type: T.Type) async throws -> UpgradeResult {
            try await Self.run { [store] in try store.upgradeAll(type) }
        }

        // MARK: Reading

        /// ``ArchiveStore/load(_:forKey:)``, the file work and the decoding off the caller's actor.
        public func load<T>(_ type: T.Type, forKey key: String) async throws -> sending T? {
            try await Self.read { [store] in try store.load(type, forKey: key) }
        }

        /// ``ArchiveStore/load(_:)``, the file work and the decoding off the caller's actor.
        public func load<T>(_ type: T.Type) async throws -> sending T? {
            try await Self.read { [store] in try store.load(type) }
        }

        /// ``ArchiveStore/value(for:)``, off the caller's actor.
        public func value<Value>(for key: ArchiveStore.Key<Value>) async throws -> sending Value {
            let box = KeyBox(key: key)
            return try await Self.read { [store] in try store.value(for: box.key) }
        }

        /// ``ArchiveStore/contains(_:)``, off the caller's actor.
        public func contains(_ key: String) async -> Bool {
            await Self.get { [store] in store.contains(key) }
        }

        /// ``ArchiveStore/listKeys()``, off the caller's actor.
        public func listKeys() async throws -> [String] {
            try await Self.run { [store] in try store.listKeys() }
        }

        /// ``ArchiveStore/listNamespaces()``, off the caller's actor.
        public func listNamespaces() async throws -> [String] {
            try await Self.run { [store] in try store.listNamespaces() }
        }

        /// ``ArchiveStore/size()``, off the caller's actor.
        public func size() async throws -> Size {
            try await Self.run { [store] in try store.size() }
        }

        /// ``ArchiveStore/integer(forKey:)``, off the caller's actor.
        public func integer(forKey key: String) async -> Int { await Self.get { [store] in store.integer(forKey: key) } }
        /// ``ArchiveStore/double(forKey:)``, off the caller's actor.
        public func double(forKey key: String) async -> Double { await Self.get { [store] in store.double(forKey: key) } }
        /// ``ArchiveStore/float(forKey:)``, off the caller's actor.
        public func float(forKey key: String) async -> Float { await Self.get { [store] in store.float(forKey: key) } }
        /// ``ArchiveStore/bool(forKey:)``, off the caller's actor.
        public func bool(forKey key: String) async -> Bool { await Self.get { [store] in store.bool(forKey: key) } }
        /// ``ArchiveStore/string(forKey:)``, off the caller's actor.
        public func string(forKey key: String) async -> String? { await Self.get { [store] in store.string(forKey: key) } }
        /// ``ArchiveStore/url(forKey:)``, off the caller's actor.
        public func url(forKey key: String) async -> URL? { await Self.get { [store] in store.url(forKey: key) } }
        /// ``ArchiveStore/date(forKey:)``, off the caller's actor.
        public func date(forKey key: String) async -> Date? { await Self.get { [store] in store.date(forKey: key) } }
        /// ``ArchiveStore/data(forKey:)``, off the caller's actor.
        public func data(forKey key: String) async -> Data? { await Self.get { [store] in store.data(forKey: key) } }
        /// ``ArchiveStore/stringArray(forKey:)``, off the caller's actor.
        public func stringArray(forKey key: String) async -> [String]? {
            await Self.get { [store] in store.stringArray(forKey: key) }
        }
        /// ``ArchiveStore/object(forKey:)``, off the caller's actor.
        public func object(forKey key: String) async -> sending Any? {
            try! await Self.read { [store] in store.object(forKey: key) }
        }
        /// ``ArchiveStore/array(forKey:)``, off the caller's actor.
        public func array(forKey key: String) async -> sending [Any]? {
            try! await Self.read { [store] in store.array(forKey: key) }
        }
        /// ``ArchiveStore/dictionary(forKey:)``, off the caller's actor.
        public func dictionary(forKey key: String) async -> sending [String: Any]? {
            try! await Self.read { [store] in store.dictionary(forKey: key) }
        }

        // MARK: Hops

        @concurrent
        private static func run<R: Sendable>(_ body: @Sendable () throws -> R) async throws -> R {
            try body()
        }

        @concurrent
        private static func get<R: Sendable>(_ body: @Sendable () -> R) async -> R {
            body()
        }

        /// Runs `body` off the caller's actor and hands its new value, which nothing else holds,
        /// to the caller.
        @concurrent
        private static func read<R>(_ body: @Sendable () throws -> R) async throws -> sending R {
            let value = try body()
            return UncheckedTransfer(value).take()
        }
    }
}

/// A key whose default is not `Sendable`, carried to a read off the caller's actor: the read
/// only copies the default into the value it returns, which then goes back to the caller alone.
private struct KeyBox<Value>: @unchecked Sendable {
    let key: ArchiveStore.Key<Value>
}

/// A value made by one read and handed to its one caller.
private struct UncheckedTransfer<Value>: @unchecked Sendable {
    private let value: Value
    init(_ value: Value) { self.value = value }
    consuming func take() -> sending Value { value }
}
