import Dispatch
import Foundation
import KeyedArchive

/// A store's values in memory, for ``ArchiveStore/inMemory(limits:clock:)``: tests and previews.
///
/// Each value is held as the bytes a file of the folder store would hold (``StoreRecord``), so
/// it decodes, fails to decode, expires and upgrades exactly as it would from a file; the index,
/// the limits and eviction are the folder store's own (``StoreIndex``), and observers get the
/// same change records. What it leaves out is what only files have: durability (nothing
/// outlives the store's last instance), other processes, a memory tier (everything is in
/// memory; ``ArchiveStore/Limits/memoryBytes`` is ignored), temporary files and locks. Every
/// change is made under one lock, so a batch is all or nothing for every reader by construction.
final class MemoryStoreEngine: StoreEngine {
    let configuration = Locked(StoreConfiguration())
    let failures = FailureChannel()
    let limits: ArchiveStore.Limits
    private let identifier = UUID()
    private let state = Locked(State())
    /// Where changes are handed to observers, in order, a moment after they are made (as the
    /// folder store's watchers hand them over).
    private let deliveries = DispatchQueue(label: "ArchiveStore.inMemory.changes")

    private struct Value: Sendable {
        var data: Data
        var expires: Double?
        var version: UInt64
    }

    private struct State: Sendable {
        /// By path relative to the root, as in the folder store (`ns-a/key-b.archive`).
        var values: [String: Value] = [:]
        /// Each namespace folder that exists (from its first save until `removeAll`): its parent
        /// folder and its name.
        var folders: [String: (parent: String, name: String)] = [:]
        var index = StoreIndex()
        var nextVersion: UInt64 = 0
        var watchers: [Int: @Sendable ([StoreJournal.Record]) -> Void] = [:]
        var nextWatcher = 0
    }

    init(limits: ArchiveStore.Limits) {
        self.limits = limits
        state.withLock { $0.index.isLoaded = true }
    }

    var permissions: ArchiveStore.Permissions { .ownerOnly }
    var durability: ArchiveStore.Durability { .buffered }
    var memoryTierStatistics: (items: Int, bytes: Int, hits: Int) { (0, 0, 0) }

    func directory(of place: StorePlace) -> URL {
        place.namespacePath.map(StoreFileName.namespaceDirectoryName(for:)).reduce(
            URL(string: "archive-store-memory://\(identifier.uuidString.lowercased())/")!
        ) { $0.appending(path: $1, directoryHint: .isDirectory) }
    }

    /// A value's place for messages: its store's URL and the file name it would have.
    private func displayPath(_ path: String) -> String {
        "archive-store-memory://\(identifier.uuidString.lowercased())/\(path)"
    }

    func announceCommit() {}
    func withdrawCommit() {}

    // MARK: - Changes

    func commit(_ commit: Commit, announced: Bool) throws {
        let protected = Set(commit.changes.map(\.path))
        let maximumSize = maximumArchiveSize
        let records = state.withLock { state in
            var records: [StoreJournal.Record] = []
            for change in commit.changes {
                switch change.action {
                case .save(let data, let expires):
                    Self.createFolders(of: change.place, in: &state)
                    state.nextVersion += 1
                    state.values[change.path] = Value(data: data, expires: expires, version: state.nextVersion)
                    records.append(
                        .event(.saved, key: change.key, in: change.place, at: commit.time, size: data.count, expires: expires))
                case .remove:
                    guard state.values.removeValue(forKey: change.path) != nil else { continue }
                    records.append(.event(.removed, key: change.key, in: change.place, at: commit.time))
                }
            }
            for record in records { state.index.apply(record) }
            // The removals that make room are reported before the changes that needed it, as
            // the folder store reports them (it makes room before it renames the new files).
            if limits.limitsDisk {
                records.insert(
                    contentsOf: evict(&state, protecting: protected, at: commit.time, maximumSize: maximumSize), at: 0)
            }
            return records
        }
        deliver(records)
    }

    func rewrite(_ change: FileChange, ifUnchanged expected: StoredVersion, at time: Double) throws -> Bool {
        guard case .save(let data, let expires) = change.action else { return false }
        let record: StoreJournal.Record? = state.withLock { state in
            guard let current = state.values[change.path], .memory(current.version) == expected else { return nil }
            state.nextVersion += 1
            state.values[change.path] = Value(data: data, expires: expires, version: state.nextVersion)
            let record = StoreJournal.Record.event(
                .saved, key: change.key, in: change.place, at: time, size: data.count, expires: expires)
            state.index.apply(record)
            return record
        }
        guard let record else { return false }
        deliver([record])
        return true
    }

    private static func createFolders(of place: StorePlace, in state: inout State) {
        var parent = StorePlace.root
        for name in place.namespacePath {
            let folder = parent.appending(name)
            if state.folders[folder.directory] == nil { state.folders[folder.directory] = (parent.directory, name) }
            parent = folder
        }
    }

    /// Removes what the limits ask for (expired values first), never a value at `protected`.
    /// An expired value too large to read (beyond `maximumSize`) stays, as a damaged file does.
    private func evict(
        _ state: inout State, protecting protected: Set<String>, at now: Double, maximumSize: Int
    ) -> [StoreJournal.Record] {
        var records: [StoreJournal.Record] = []
        for (entry, expired) in state.index.victims(for: limits, at: now, protecting: protected) {
            // The folder store reads a value to check its expiry, and leaves one it cannot read.
            if expired, Self.isUnreadable(entry, in: state, maximumSize: maximumSize) { continue }
            state.values[entry.path] = nil
            state.index.remove(entry.path)
            records.append(.of(entry, kind: expired ? .expired : .evicted, at: now))
        }
        return records
    }

    /// The largest value a read accepts (`unarchiverOptions.maximumArchiveSize`); a larger one
    /// is not read, and counts as a damaged file, as it does in a folder.
    private var maximumArchiveSize: Int {
        configuration.withLock { $0.unarchiverOptions.maximumArchiveSize }
    }

    /// Whether the value of `entry` is too large to read.
    private static func isUnreadable(_ entry: StoreIndex.Entry, in state: State, maximumSize: Int) -> Bool {
        (state.values[entry.path]?.data.count ?? 0) > maximumSize
    }

    // MARK: - Reading

    func load<T>(_ type: T.Type, forKey key: String, in place: StorePlace, now: Date) throws -> T? {
        let configuration = configuration.withLock { $0 }
        guard let (record, _) = try storedRecord(forKey: key, in: place, now: now, configuration: configuration) else {
            return nil
        }
        let value = try record.decodeValue(type)
        noteUse(of: key, in: place, at: now)
        return value
    }

    func storedRecord(
        forKey key: String, in place: StorePlace, now: Date, configuration: StoreConfiguration
    ) throws -> (record: StoreRecord, version: StoredVersion)? {
        let path = place.path(ofKey: key)
        guard let value = state.withLock({ $0.values[path] }) else { return nil }
        // The size first, as a folder store checks a file's size before it reads the file: a
        // value too large to read is a damaged file whether or not it expired.
        let maximumSize = configuration.unarchiverOptions.maximumArchiveSize
        guard value.data.count <= maximumSize else {
            throw ArchiveError(
                .sizeLimit,
                reason:
                    "\(displayPath(path)) is \(value.data.count) bytes, more than the maximum of \(maximumSize) the store reads (raise the store's unarchiverOptions.maximumArchiveSize to read it); the value was left in place"
            )
        }
        if let expires = value.expires, now.timeIntervalSinceReferenceDate >= expires {
            removeIfExpired(path, version: value.version, at: now.timeIntervalSinceReferenceDate)
            return nil
        }
        let record = try StoreRecord(value.data, path: displayPath(path), configuration: configuration)
        try record.check(key: key, hashedName: false)
        return (record, .memory(value.version))
    }

    /// Deletes the value at `path` if it is still the expired version a load found.
    private func removeIfExpired(_ path: String, version: UInt64, at now: Double) {
        let record: StoreJournal.Record? = state.withLock { state in
            guard let value = state.values[path], value.version == version, let entry = state.index.entry(at: path)
            else { return nil }
            state.values[path] = nil
            state.index.remove(path)
            return .of(entry, kind: .expired, at: now)
        }
        if let record { deliver([record]) }
    }

    func contains(_ key: String, in place: StorePlace, now: Date) -> Bool {
        guard let value = state.withLock({ $0.values[place.path(ofKey: key)] }) else { return false }
        // A value too large to read counts as a damaged file: present.
        guard value.data.count <= maximumArchiveSize else { return true }
        return value.expires.map { now.timeIntervalSinceReferenceDate < $0 } ?? true
    }

    func noteUse(of key: String, in place: StorePlace, at now: Date) {
        guard limits.limitsDisk else { return }
        state.withLock { $0.index.touch(place.path(ofKey: key), at: now.timeIntervalSinceReferenceDate) }
    }

    func liveEntries(of place: StorePlace, nested: Bool, now: Date) throws -> [StoreIndex.Entry] {
        let now = now.timeIntervalSinceReferenceDate
        return state.withLock { $0.index.entries(of: place.directory, nested: nested) }.filter { !$0.isExpired(at: now) }
    }

    func keys(in place: StorePlace, now: Date) throws -> [String] {
        try liveEntries(of: place, nested: false, now: now).compactMap(\.key)
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    func namespaces(in place: StorePlace) throws -> [String] {
        state.withLock { state in state.folders.values.filter { $0.parent == place.directory }.map(\.name) }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    // MARK: - Removing

    /// Whether `path` (of a value or a folder) is `directory` or inside it.
    private static func isInside(_ path: String, _ directory: String) -> Bool {
        directory.isEmpty || path == directory || path.hasPrefix(directory + "/")
    }

    func removeAll(in place: StorePlace, now: Date) throws {
        let time = now.timeIntervalSinceReferenceDate
        let records = state.withLock { state in
            var records: [StoreJournal.Record] = []
            for entry in state.index.entries(of: place.directory, nested: true) {
                state.values[entry.path] = nil
                state.index.remove(entry.path)
                records.append(.of(entry, kind: .removed, at: time))
            }
            for folder in state.folders.keys where Self.isInside(folder, place.directory) {
                state.folders[folder] = nil
            }
            return records
        }
        deliver(records)
    }

    func removeExpired(in place: StorePlace, now: Date) throws {
        let time = now.timeIntervalSinceReferenceDate
        let maximumSize = maximumArchiveSize
        let records = state.withLock { state in
            var records: [StoreJournal.Record] = []
            // A value too large to read is left, as a damaged file is.
            for entry in state.index.entries(of: place.directory, nested: true)
            where entry.isExpired(at: time) && !Self.isUnreadable(entry, in: state, maximumSize: maximumSize) {
                state.values[entry.path] = nil
                state.index.remove(entry.path)
                records.append(.of(entry, kind: .expired, at: time))
            }
            return records
        }
        deliver(records)
    }

    func trim(now: Date) throws {
        let time = now.timeIntervalSinceReferenceDate
        let maximumSize = maximumArchiveSize
        let records = state.withLock { state in
            // A store without limits only loses its expired values (those it can read).
            let entries = state.index.entries(of: "", nested: true)
            guard limits.limitsDisk else {
                return entries.filter {
                    $0.isExpired(at: time) && !Self.isUnreadable($0, in: state, maximumSize: maximumSize)
                }.map { entry in
                    state.values[entry.path] = nil
                    state.index.remove(entry.path)
                    return StoreJournal.Record.of(entry, kind: .expired, at: time)
                }
            }
            return evict(&state, protecting: [], at: time, maximumSize: maximumSize)
        }
        deliver(records)
    }

    // MARK: - Observation

    func watch(_ deliver: @escaping @Sendable ([StoreJournal.Record]) -> Void) -> (any StoreWatch)? {
        let id = state.withLock { state in
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = deliver
            return state.nextWatcher
        }
        return Watch(engine: self, id: id)
    }

    /// Hands `records` to the watchers there are now, on the delivery queue.
    private func deliver(_ records: [StoreJournal.Record]) {
        guard !records.isEmpty else { return }
        let ids = state.withLock { Array($0.watchers.keys) }
        guard !ids.isEmpty else { return }
        deliveries.async { [state] in
            let targets = state.withLock { state in ids.compactMap { state.watchers[$0] } }
            for target in targets { target(records) }
        }
    }

    private struct Watch: StoreWatch {
        let engine: MemoryStoreEngine
        let id: Int

        func stop() {
            engine.state.withLock { _ = $0.watchers.removeValue(forKey: id) }
        }
    }
}
