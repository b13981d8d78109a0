/// What a store knows about its files without reading them: each value's size, expiry and last
/// use, in least-recently-used order, for the whole store (every namespace).
///
/// Built once per store instance from a scan of the directories, then kept current from the
/// ``StoreJournal``, which every process using the store appends to. Eviction takes its victims
/// from the front of the order.
struct StoreIndex {
    struct Entry {
        /// The directory relative to the root (`""`, `ns-a`, `ns-a/ns-b`).
        var directory: String
        var fileName: String
        /// The key; nil for a damaged file whose (hashed) name does not tell it.
        var key: String?
        /// Bytes on disk; during a save, the larger of the old and the new size.
        var size: Int
        var expires: Double?
        /// Seconds since 2001 of the last save or load.
        var lastUse: Double
        /// A save announced its rename and has not confirmed it: the file may not be there.
        var pending: Bool
        /// Neighbours in the order of use (slots), kept by the index.
        var previous = -1
        var next = -1

        var path: String { StoreJournal.path(directory: directory, fileName: fileName) }

        func isExpired(at now: Double) -> Bool {
            guard let expires else { return false }
            return now >= expires
        }
    }

    private var slots: [Entry?] = []
    private var freeSlots: [Int] = []
    private var slotByPath: [String: Int] = [:]
    /// Least recently used first.
    private var head = -1
    private var tail = -1
    private(set) var totalBytes = 0
    /// No entry expires before this (a lower bound, raised by each scan for expired entries).
    private var nextExpiry = Double.infinity

    /// Set once the index was reconciled with the directories.
    var isLoaded = false
    /// Which journal file the index follows, and how far it has read it.
    var journalIdentity: StoreJournal.Identity?
    var journalOffset = 0

    var count: Int { slotByPath.count }

    func entry(at path: String) -> Entry? {
        slotByPath[path].flatMap { slots[$0] }
    }

    /// Every entry, least recently used first.
    var entriesByUse: [Entry] {
        var result: [Entry] = []
        result.reserveCapacity(count)
        var slot = head
        while slot >= 0, let entry = slots[slot] {
            result.append(entry)
            slot = entry.next
        }
        return result
    }

    /// The entries of one directory (not of the namespaces inside it).
    func entries(in directory: String) -> [Entry] {
        slots.compactMap { $0 }.filter { $0.directory == directory }
    }

    /// The entries of a directory and of every namespace inside it.
    func entries(under directory: String) -> [Entry] {
        if directory.isEmpty { return slots.compactMap { $0 } }
        let prefix = directory + "/"
        return slots.compactMap { $0 }.filter { $0.directory == directory || $0.directory.hasPrefix(prefix) }
    }

    mutating func removeAllEntries() {
        self = StoreIndex()
    }

    // MARK: Changes

    /// Records a save or load: the entry moves to the back of the order.
    mutating func put(_ entry: Entry) {
        var entry = entry
        if let slot = slotByPath[entry.path] {
            unlink(slot)
            totalBytes -= slots[slot]!.size
            totalBytes += entry.size
            entry.previous = -1
            entry.next = -1
            slots[slot] = entry
            append(slot)
        } else {
            let slot: Int
            if let free = freeSlots.popLast() {
                slot = free
                slots[slot] = entry
            } else {
                slot = slots.count
                slots.append(entry)
            }
            slotByPath[entry.path] = slot
            totalBytes += entry.size
            append(slot)
        }
        if let expires = entry.expires { nextExpiry = min(nextExpiry, expires) }
    }

    /// Marks the entry used at `time` (moved to the back); nothing for an unknown path.
    mutating func touch(_ path: String, at time: Double) {
        guard let slot = slotByPath[path] else { return }
        unlink(slot)
        slots[slot]!.lastUse = max(slots[slot]!.lastUse, time)
        append(slot)
    }

    @discardableResult
    mutating func remove(_ path: String) -> Entry? {
        guard let slot = slotByPath.removeValue(forKey: path), let entry = slots[slot] else { return nil }
        unlink(slot)
        slots[slot] = nil
        freeSlots.append(slot)
        totalBytes -= entry.size
        return entry
    }

    mutating func removeAll(under directory: String) {
        for entry in entries(under: directory) { remove(entry.path) }
    }

    /// Applies one journal record.
    mutating func apply(_ record: StoreJournal.Record) {
        switch record.kind {
        case .saving:
            let old = entry(at: record.path)?.size ?? 0
            put(
                Entry(
                    directory: record.directory, fileName: record.fileName, key: record.key,
                    size: max(old, record.size), expires: record.expires, lastUse: record.time, pending: true))
        case .saved, .snapshot:
            put(
                Entry(
                    directory: record.directory, fileName: record.fileName, key: record.key, size: record.size,
                    expires: record.expires, lastUse: record.time, pending: false))
        case .used:
            touch(record.path, at: record.time)
        case .removed, .expired, .evicted:
            remove(record.path)
        case .cleared:
            removeAll(under: record.directory)
        }
    }

    // MARK: Limits

    /// Whether the store is past `limits` at `now`, or holds an expired value.
    func isBeyond(_ limits: ArchiveStore.Limits, at now: Double) -> Bool {
        if let maximumCount = limits.maximumCount, count > maximumCount { return true }
        if let maximumBytes = limits.maximumBytes, totalBytes > maximumBytes { return true }
        if let maximumAge = limits.maximumAge, head >= 0, let oldest = slots[head],
            now - oldest.lastUse > maximumAge.seconds
        {
            return true
        }
        return nextExpiry <= now
    }

    /// What to remove to be within `limits` at `now`, in order: expired values, values unused
    /// for longer than the maximum age, then the least recently used until the count and the
    /// bytes are within their maximums. The entry at `protected` (the one being saved) is never
    /// chosen.
    mutating func victims(
        for limits: ArchiveStore.Limits, at now: Double, protecting protected: String?
    ) -> [(entry: Entry, expired: Bool)] {
        var chosen: [(entry: Entry, expired: Bool)] = []
        var chosenSlots = Set<Int>()
        var bytes = totalBytes
        var remaining = count
        func choose(_ slot: Int, expired: Bool) {
            guard let entry = slots[slot], !chosenSlots.contains(slot), entry.path != protected else { return }
            chosenSlots.insert(slot)
            chosen.append((entry, expired))
            bytes -= entry.size
            remaining -= 1
        }
        if nextExpiry <= now {
            var earliest = Double.infinity
            for slot in slots.indices {
                guard let entry = slots[slot], let expires = entry.expires else { continue }
                if expires <= now, entry.path != protected { choose(slot, expired: true) } else { earliest = min(earliest, expires) }
            }
            nextExpiry = earliest
        }
        if let maximumAge = limits.maximumAge?.seconds {
            var slot = head
            while slot >= 0, let entry = slots[slot], now - entry.lastUse > maximumAge {
                choose(slot, expired: false)
                slot = entry.next
            }
        }
        var slot = head
        while slot >= 0, let entry = slots[slot],
            limits.maximumCount.map({ remaining > $0 }) == true || limits.maximumBytes.map({ bytes > $0 }) == true
        {
            choose(slot, expired: false)
            slot = entry.next
        }
        return chosen
    }

    // MARK: Order

    private mutating func unlink(_ slot: Int) {
        let previous = slots[slot]!.previous
        let next = slots[slot]!.next
        if previous >= 0 { slots[previous]!.next = next } else { head = next }
        if next >= 0 { slots[next]!.previous = previous } else { tail = previous }
        slots[slot]!.previous = -1
        slots[slot]!.next = -1
    }

    private mutating func append(_ slot: Int) {
        slots[slot]!.previous = tail
        slots[slot]!.next = -1
        if tail >= 0 { slots[tail]!.next = slot } else { head = slot }
        tail = slot
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
