import ArchiveFileSystem
import Foundation
import KeyedArchive

/// What a store does with its values, on a medium: the folder of files (``FileStoreEngine``) or
/// memory (``MemoryStoreEngine``). The ``ArchiveStore`` façade adds a namespace (``StorePlace``)
/// and a clock to every call, and each engine gives the same answers: the same stored bytes
/// (``StoreRecord``), the same index and eviction (``StoreIndex``), the same journal records for
/// observers (``StoreJournal/Record``).
protocol StoreEngine: AnyObject, Sendable {
    /// Registered types, class names, unarchiver options and registered defaults.
    var configuration: Locked<StoreConfiguration> { get }
    /// Where the non-throwing calls on this folder report what went wrong.
    var failures: FailureChannel { get }
    var limits: ArchiveStore.Limits { get }
    var permissions: ArchiveStore.Permissions { get }
    var durability: ArchiveStore.Durability { get }
    /// What the memory tier holds, and how many loads it answered.
    var memoryTierStatistics: (items: Int, bytes: Int, hits: Int) { get }

    /// The directory of `place` (for a store in memory, a URL that names no folder).
    func directory(of place: StorePlace) -> URL
    /// Says that a save is on its way (its value is being encoded): a writer gathering a group
    /// may wait for it. ``commit(_:announced:)`` or ``withdrawCommit()`` follows.
    func announceCommit()
    /// Takes back ``announceCommit()`` for a save whose value could not be encoded.
    func withdrawCommit()
    /// Makes `commit`'s changes (a batch: all of them or none), as durably as ``durability`` says.
    func commit(_ commit: Commit, announced: Bool) throws
    /// Writes `change` only if its key's value is still the version `expected` (an upgrade).
    func rewrite(_ change: FileChange, ifUnchanged expected: StoredVersion, at time: Double) throws -> Bool

    func load<T>(_ type: T.Type, forKey key: String, in place: StorePlace, now: Date) throws -> T?
    /// The unexpired stored record of `key` and its version; nil when there is none or it expired.
    func storedRecord(
        forKey key: String, in place: StorePlace, now: Date, configuration: StoreConfiguration
    ) throws -> (record: StoreRecord, version: StoredVersion)?
    func contains(_ key: String, in place: StorePlace, now: Date) -> Bool
    /// Remembers a load of `key` (for a store with limits on its values).
    func noteUse(of key: String, in place: StorePlace, at now: Date)
    func keys(in place: StorePlace, now: Date) throws -> [String]
    func namespaces(in place: StorePlace) throws -> [String]
    /// The unexpired entries of `place` (`nested`: and of the namespaces inside it).
    func liveEntries(of place: StorePlace, nested: Bool, now: Date) throws -> [StoreIndex.Entry]

    func removeAll(in place: StorePlace, now: Date) throws
    func removeExpired(in place: StorePlace, now: Date) throws
    func trim(now: Date) throws

    /// Hands every change record, from now on, to `deliver` (on a queue of the engine's), until
    /// the watch is stopped; nil when changes cannot be watched.
    func watch(_ deliver: @escaping @Sendable ([StoreJournal.Record]) -> Void) -> (any StoreWatch)?
}

/// A watch started by ``StoreEngine/watch(_:)``.
protocol StoreWatch: Sendable {
    /// Stops the watch, without waiting for a delivery under way (which may still finish): it
    /// is called as an observing task ends, while that task may be waiting for the delivery.
    func stop()
}

/// One version of a stored value: a file's identity, or a value's number in memory.
enum StoredVersion: Equatable, Sendable {
    case file(FileIdentity)
    case memory(UInt64)
}

extension StoreJournal.Record {
    /// The record of an event on `key`'s file in `place`.
    static func event(
        _ kind: StoreJournal.Kind, key: String, in place: StorePlace, at time: Double, size: Int = 0,
        expires: Double? = nil
    ) -> StoreJournal.Record {
        StoreJournal.Record(
            kind: kind, time: time, size: size, expires: expires, directory: place.directory,
            fileName: StoreFileName.keyFileName(for: key), key: key)
    }

    /// The record of `kind` for an index entry.
    static func of(_ entry: StoreIndex.Entry, kind: StoreJournal.Kind, at time: Double) -> StoreJournal.Record {
        StoreJournal.Record(
            kind: kind, time: time, size: entry.size, expires: entry.expires, directory: entry.directory,
            fileName: entry.fileName, key: entry.key ?? "")
    }
}

/// Where a namespace's values live in a store: its names from the root, and its folder relative
/// to the root (`""` for the root, `ns-a/ns-b`).
struct StorePlace: Sendable {
    let namespacePath: [String]
    let directory: String

    static let root = StorePlace(namespacePath: [])

    init(namespacePath: [String]) {
        self.namespacePath = namespacePath
        directory = namespacePath.map(StoreFileName.namespaceDirectoryName(for:)).joined(separator: "/")
    }

    /// The namespace `name` inside this one.
    func appending(_ name: String) -> StorePlace {
        StorePlace(namespacePath: namespacePath + [name])
    }

    /// The path of `key`'s file relative to the root: its identity in the index and the journal.
    func path(ofKey key: String) -> String {
        StoreJournal.path(directory: directory, fileName: StoreFileName.keyFileName(for: key))
    }
}

/// Loads not yet written to the journal: the last one of each value only (only the last use of a
/// value matters to the order), written once ``usesPerWrite`` loads have gathered or the oldest
/// waited ``secondsPerWrite``, with the next save, trim or eviction, and when the store goes away.
///
/// So a store with limits writes at most one journal record per hundred loads, or per second,
/// instead of one per load. A kill forgets the uses not yet written: eviction then takes those
/// values for a little less recently used than they were, and nothing else changes; no value is
/// lost, and other instances and processes see the uses once they are written.
struct PendingUses: Sendable {
    static let usesPerWrite = 100
    static let secondsPerWrite = 1.0

    private var byPath: [String: StoreJournal.Record] = [:]
    private var loads = 0
    private var since = Double.infinity

    var isEmpty: Bool { byPath.isEmpty }

    /// Adds `use`; the records to write now, if enough loads gathered or the oldest is old
    /// enough (else empty).
    mutating func add(_ use: StoreJournal.Record) -> [StoreJournal.Record] {
        byPath[use.path] = use
        loads += 1
        since = min(since, use.time)
        guard loads >= Self.usesPerWrite || use.time - since >= Self.secondsPerWrite else { return [] }
        return take()
    }

    mutating func take() -> [StoreJournal.Record] {
        defer {
            byPath.removeAll(keepingCapacity: true)
            loads = 0
            since = .infinity
        }
        return byPath.values.sorted { $0.time < $1.time }
    }
}

/// One change to one key's file.
struct FileChange: Sendable {
    enum Action: Sendable {
        /// Write `content` (an encoded stored file), which expires at `expires` (seconds since 2001).
        case save(Data, expires: Double?)
        case remove
    }

    let place: StorePlace
    let key: String
    let action: Action

    var fileName: String { StoreFileName.keyFileName(for: key) }
    var path: String { place.path(ofKey: key) }
}

/// A save, a removal or a batch handed to the durable writer.
struct Commit: Sendable {
    let changes: [FileChange]
    /// A batch: all of its changes become visible together, or none does.
    let atomic: Bool
    /// The caller's time (its store's clock), for the journal's records and the limits.
    let time: Double
}
