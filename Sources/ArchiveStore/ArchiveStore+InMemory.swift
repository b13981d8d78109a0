import Foundation
import KeyedArchive

extension ArchiveStore {
    /// A store that keeps its values in memory: the same type and the same behaviour as a store
    /// on a folder, without files, for tests and previews.
    ///
    /// ```swift
    /// let clock = ArchiveStore.ManualClock()
    /// let store = ArchiveStore.inMemory(limits: .init(maximumCount: 100), clock: clock.clock)
    /// try store.namespace("alice").save(profile, forKey: "profile")
    /// ```
    ///
    /// Everything a folder store does, it does: namespaces, typed values and keys, expiry,
    /// limits and eviction, batches, observation (``changes()``, ``values(of:forKey:)``),
    /// upgrades, registered types and defaults. Each value is kept as the bytes its file would
    /// hold, so what decodes, fails to decode or upgrades is exactly what would from a folder.
    /// What only files have is left out: the values live as long as the store (its namespaces
    /// included) and are seen by no other instance or process; ``durability`` reads
    /// ``Durability/buffered`` though nothing survives the process; ``Limits/memoryBytes`` is
    /// ignored; ``directory`` is an `archive-store-memory:` URL that names no folder.
    ///
    /// - Parameters:
    ///   - limits: The most the store keeps (``Limits``); by default none.
    ///   - clock: Where the store reads the time (``Clock``; by default the system's).
    public static func inMemory(limits: Limits = .unlimited, clock: Clock = .system) -> ArchiveStore {
        ArchiveStore(engine: MemoryStoreEngine(limits: limits), place: .root, clock: clock)
    }
}
