import Foundation
import KeyedArchive

/// `async` forms of the calls that touch the disk, for callers that must not wait for `fsync`
/// on their actor (the main actor above all).
///
/// The value is archived on the caller's actor (archiving reads it, and it may belong to that
/// actor); the file work — writing, flushing, renaming, reading — runs on the global concurrent
/// executor, and a load decodes there into a new value handed back to the caller.
///
/// ```swift
/// @MainActor func saveDraft() async throws {
///     try await store.save(draft, forKey: "draft")      // the UI keeps running during fsync
/// }
/// ```
extension ArchiveStore {
    /// ``save(_:forKey:expiresAfter:)-34ndq`` with the file work off the caller's actor.
    public func save<T>(_ value: T, forKey key: String, expiresAfter: Duration? = nil) async throws {
        let change = try saving(value, forKey: key, expiresAfter: expiresAfter)
        let commit = Commit(changes: [change], atomic: false, time: now)
        try await Self.offTheCallersActor { try self.engine.commit(commit, announced: false) }
    }

    /// ``load(_:forKey:)-8yj94`` with the file work and the decoding off the caller's actor.
    public func load<T>(_ type: T.Type, forKey key: String) async throws -> sending T? {
        try await Self.loadOffTheCallersActor(type, forKey: key, from: self)
    }

    /// ``remove(forKey:)-5avmq`` with the file work off the caller's actor.
    public func remove(forKey key: String) async throws {
        try await Self.offTheCallersActor { try self.removeNow(forKey: key) }
    }

    @concurrent
    private static func offTheCallersActor(_ body: @Sendable () throws -> Void) async throws {
        try body()
    }

    @concurrent
    private static func loadOffTheCallersActor<T>(
        _ type: T.Type, forKey key: String, from store: ArchiveStore
    ) async throws -> sending T? {
        try store.loadNow(type, forKey: key)
    }
}
