/// What a store knows about its files without reading them: each value's size, expiry and last
/// use, in least-recently-used order, for the whole store (every namespace).
///
/// Built once per store instance from a scan of the directories, then kept current from the
/// ``StoreJournal``, which every process using the store appends to. Eviction takes its victims
/// from the front of the order.
struct StoreIndex: Sendable {
    struct Entry: Sendable {
        /// The directory relative to the root (`""`, `ns-a`, `ns-a/ns-b`).
        var directory: String
        var fileName: String
        /// The key; nil for a damaged file whose (hashed) name does not tell it.
        var key: String?
        /// Bytes on disk; during a save, the larger of the old and the new size.
        var size: Int
        var expires: Double?
        /// Seconds since 2001 of the last save or load: what ``put(_:)`` places the entry by, and
        /// what the index's accessors report (the order keeps the time; uses only move it).
        var lastUse: Double
        /// A save announced its rename and has not confirmed it: the file may not be there.
        var pending: Bool

        var path: String { StoreJournal.path(directory: directory, fileName: fileName) }

        func isExpired(at now: Double) -> Bool {
            guard let expires else { return false }
            return now >= expires
        }
    }

    private var order = RecencyList<Entry>()
    private(set) var totalBytes = 0
    /// No entry expires before this (a lower bound, raised by each scan for expired entries).
    private var nextExpiry = Double.infinity

    /// Set once the index was reconciled with the directories.
    var isLoaded = false
    /// Which journal file the index follows, and how far it has read it.
    var journalIdentity: StoreJournal.Identity?
    var journalOffset = 0

    var count: Int { order.count }

    /// Whether `appended` comes right after what the index read of the journal: then it has
    /// read every record before them, and they are the last ones.
    func follows(_ appended: StoreJournal.Appended) -> Bool {
        isLoaded && journalIdentity == appended.identity && journalOffset == appended.start
    }

    func entry(at path: String) -> Entry? {
        guard var entry = order[path], let time = order.time(of: path) else { return nil }
        entry.lastUse = time
        return entry
    }

    /// Every entry, least recently used first.
    var entriesByUse: [Entry] {
        order.elementsByUse.map { path, entry, time in
            var entry = entry
            entry.lastUse = time
            return entry
        }
    }

    /// The entries of a directory (`nested`: and of every namespace inside it), least recently
    /// used first.
    func entries(of directory: String, nested: Bool) -> [Entry] {
        let all = nested && directory.isEmpty
        let prefix = directory + "/"
        var result: [Entry] = []
        order.forEachByUse { _, entry, time in
            if all || entry.directory == directory || (nested && entry.directory.hasPrefix(prefix)) {
                var entry = entry
                entry.lastUse = time
                result.append(entry)
            }
            return true
        }
        return result
    }

    mutating func removeAllEntries() {
        self = StoreIndex()
    }

    // MARK: Changes

    /// Records a save (or a scan's find), used at `entry.lastUse`.
    mutating func put(_ entry: Entry) {
        let old = order.put(entry, at: entry.path, time: entry.lastUse)
        // Saturating: sizes come from a journal another process wrote.
        totalBytes = max(0, totalBytes.addingReportingOverflow(entry.size - (old?.size ?? 0)).partialValue)
        if let expires = entry.expires { nextExpiry = min(nextExpiry, expires) }
    }

    /// Marks the entry used at `time`; nothing for an unknown path.
    mutating func touch(_ path: String, at time: Double) {
        order.touch(path, at: time)
    }

    @discardableResult
    mutating func remove(_ path: String) -> Entry? {
        guard let entry = order.remove(path) else { return nil }
        totalBytes = max(0, totalBytes - entry.size)
        return entry
    }

    /// The key of a record: spelled by a reversible file name, else the one recorded (a hashed
    /// name's key is left out of records when it is very long: nil, read from the file when listed).
    static func key(of record: StoreJournal.Record) -> String? {
        if case .key(let spelled) = StoreFileName.classify(record.fileName) { return spelled }
        return record.key.isEmpty ? nil : record.key
    }

    /// Applies one journal record.
    mutating func apply(_ record: StoreJournal.Record) {
        let key = Self.key(of: record)
        switch record.kind {
        case .saving:
            let old = entry(at: record.path)?.size ?? 0
            put(
                Entry(
                    directory: record.directory, fileName: record.fileName, key: key,
                    size: max(old, record.size), expires: record.expires, lastUse: record.time, pending: true))
        case .saved, .snapshot, .restated:
            put(
                Entry(
                    directory: record.directory, fileName: record.fileName, key: key, size: record.size,
                    expires: record.expires, lastUse: record.time, pending: false))
        case .used:
            touch(record.path, at: record.time)
        case .removed, .expired, .evicted:
            remove(record.path)
        }
    }

    // MARK: Limits

    /// Whether the store is past `limits` at `now`, or holds an expired value, once the saves
    /// `saving` (paths and sizes) are counted and the values at `removing` are not.
    func isBeyond(
        _ limits: ArchiveStore.Limits, at now: Double, saving: [(path: String, size: Int)] = [],
        removing: Set<String> = []
    ) -> Bool {
        var added = 0
        var bytes = totalBytes
        var counted = Set<String>()
        for path in removing {
            guard let old = order[path], counted.insert(path).inserted else { continue }
            added -= 1
            bytes -= old.size
        }
        for (path, size) in saving where counted.insert(path).inserted {
            let old = order[path]
            if old == nil { added += 1 }
            bytes += size - (old?.size ?? 0)
        }
        if let maximumCount = limits.maximumCount, count + added > maximumCount { return true }
        if let maximumBytes = limits.maximumBytes, bytes > maximumBytes { return true }
        if let maximumAge = limits.maximumAge, let oldest = order.oldest, now - oldest.time > maximumAge.seconds {
            return true
        }
        return nextExpiry <= now
    }

    /// What to remove to be within `limits` at `now`, in order: expired values, values unused
    /// for longer than the maximum age, then the least recently used until the count and the
    /// bytes are within their maximums. The entries at `protected` (the ones being saved) are
    /// never chosen, and those at `removing` (removed by the same commit) count as gone already.
    mutating func victims(
        for limits: ArchiveStore.Limits, at now: Double, protecting protected: Set<String>,
        removing: Set<String> = []
    ) -> [(entry: Entry, expired: Bool)] {
        var chosen: [(entry: Entry, expired: Bool)] = []
        var chosenPaths = Set<String>()
        var bytes = totalBytes
        var remaining = count
        for path in removing where !protected.contains(path) {
            guard let entry = order[path], chosenPaths.insert(path).inserted else { continue }
            bytes -= entry.size
            remaining -= 1
        }
        func choose(_ entry: Entry, expired: Bool) {
            let path = entry.path
            guard !protected.contains(path), chosenPaths.insert(path).inserted else { return }
            chosen.append((entry, expired))
            bytes -= entry.size
            remaining -= 1
        }
        if nextExpiry <= now {
            var earliest = Double.infinity
            for entry in order.elements {
                guard let expires = entry.expires else { continue }
                if expires <= now, !protected.contains(entry.path) { choose(entry, expired: true) } else { earliest = min(earliest, expires) }
            }
            nextExpiry = earliest
        }
        if let maximumAge = limits.maximumAge?.seconds {
            order.forEachByUse { _, entry, time in
                guard now - time > maximumAge else { return false }
                choose(entry, expired: false)
                return true
            }
        }
        order.forEachByUse { _, entry, _ in
            guard limits.maximumCount.map({ remaining > $0 }) == true || limits.maximumBytes.map({ bytes > $0 }) == true
            else { return false }
            choose(entry, expired: false)
            return true
        }
        return chosen
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
