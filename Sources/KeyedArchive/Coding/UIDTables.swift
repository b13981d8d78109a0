@_spi(Reader) import PropertyList
import Synchronization

/// A fixed-length column of values owned by an unarchiver (one per UID or per bplist object),
/// read and written through a pointer: lookups are an index, and a `let` column needs no
/// exclusivity bookkeeping on each write. The owner calls ``free()`` once.
struct Column<Element> {
    private let base: UnsafeMutablePointer<Element>
    let count: Int

    init(count: Int, repeating value: Element) {
        self.count = count
        base = .allocate(capacity: max(count, 1))
        base.initialize(repeating: value, count: count)
    }

    subscript(index: Int) -> Element {
        @inline(__always) get {
            precondition(index >= 0 && index < count, "column index out of range")
            return base[index]
        }
        @inline(__always) nonmutating set {
            precondition(index >= 0 && index < count, "column index out of range")
            base[index] = newValue
        }
    }

    func fill(_ value: Element) {
        for i in 0..<count { base[i] = value }
    }

    func free() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// The UIDs being decoded now (to catch cycles through values), one bit per UID.
struct UIDSet {
    private let words: Column<UInt64>
    /// How many bits are set, so clearing an idle set costs nothing.
    private let active = Column<Int>(count: 1, repeating: 0)

    init(count: Int) { words = Column(count: (count + 63) / 64, repeating: 0) }

    /// Adds `uid`; false if it was already there.
    @inline(__always)
    func insert(_ uid: Int) -> Bool {
        let bit: UInt64 = 1 << UInt64(uid & 63)
        let word = words[uid >> 6]
        if word & bit != 0 { return false }
        words[uid >> 6] = word | bit
        active[0] += 1
        return true
    }

    @inline(__always)
    func remove(_ uid: Int) {
        let bit: UInt64 = 1 << UInt64(uid & 63)
        let word = words[uid >> 6]
        if word & bit != 0 {
            words[uid >> 6] = word & ~bit
            active[0] -= 1
        }
    }

    func removeAll() {
        guard active[0] > 0 else { return }
        words.fill(0)
        active[0] = 0
    }

    func free() {
        words.free()
        active.free()
    }
}

/// Class instances by UID. The column is allocated when the first instance is registered, so
/// reading an archive of values (structs, collections, scalars) never pays for one.
struct InstanceColumn {
    private let slot: Column<UnsafeMutablePointer<AnyObject?>?>
    let count: Int

    init(count: Int) {
        self.count = count
        slot = Column(count: 1, repeating: nil)
    }

    subscript(uid: Int) -> AnyObject? {
        @inline(__always) get {
            guard let base = slot[0] else { return nil }
            precondition(uid >= 0 && uid < count, "instance UID out of range")
            return base[uid]
        }
        nonmutating set {
            precondition(uid >= 0 && uid < count, "instance UID out of range")
            if let base = slot[0] {
                base[uid] = newValue
            } else if let newValue {
                let base = UnsafeMutablePointer<AnyObject?>.allocate(capacity: count)
                base.initialize(repeating: nil, count: count)
                base[uid] = newValue
                slot[0] = base
            }
        }
    }

    /// Lets go of the instances at `registered` (every UID whose slot is set) and frees the column.
    func free(registered: [Int]) {
        if let base = slot[0] {
            var start = 0
            while start < registered.count {
                let end = min(start + touchRun, registered.count)
                touchInstances(count: end - start) { UnsafeRawPointer(base + registered[start + $0]) }
                for i in start..<end { base[registered[i]] = nil }
                start = end
            }
            // Every other slot holds nil, which owns nothing.
            base.deallocate()
        }
        slot.free()
    }
}

/// A map from non-negative integers (bplist object indexes, UIDs, instance addresses) to `Int32`,
/// by open addressing: linear probing from the top bits of the key's Fibonacci hash, each key
/// beside its value so a probe reads one cache line. It grows with what is stored in it, never
/// with the size of an archive. The owner calls ``free()`` once.
struct IndexMap {
    private struct Bucket {
        /// -1 for an empty bucket.
        var key: Int
        var value: Int32
    }

    private var buckets: UnsafeMutablePointer<Bucket>
    private var capacity: Int
    /// `64 - log2(capacity)`.
    private var shift: UInt64
    private(set) var count = 0

    /// A map with room for `expected` keys before it grows.
    init(expecting expected: Int = 0) {
        capacity = 16
        shift = 60
        while Self.isCrowded(expected, capacity) {
            capacity *= 2
            shift -= 1
        }
        buckets = Self.emptyBuckets(capacity)
    }

    private static func emptyBuckets(_ capacity: Int) -> UnsafeMutablePointer<Bucket> {
        let buckets = UnsafeMutablePointer<Bucket>.allocate(capacity: capacity)
        buckets.initialize(repeating: Bucket(key: -1, value: 0), count: capacity)
        return buckets
    }

    /// Whether `keys` would fill more than three quarters of `capacity` buckets: beyond that,
    /// linear probing runs get long; below it, a large map (the archiver's identities) stays
    /// small enough to keep more of it in cache.
    @inline(__always)
    private static func isCrowded(_ keys: Int, _ capacity: Int) -> Bool {
        keys * 4 > capacity * 3
    }

    @inline(__always)
    private func home(_ key: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(truncatingIfNeeded: key) &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// The value stored for `key`, if any.
    @inline(__always)
    func value(for key: Int) -> Int32? {
        var slot = home(key)
        while true {
            let found = buckets[slot]
            if found.key == key { return found.value }
            if found.key < 0 { return nil }
            slot = (slot + 1) & (capacity - 1)
        }
    }

    /// Stores `value` for `key` (≥ 0), replacing any value it had.
    mutating func set(_ value: Int32, for key: Int) {
        precondition(key >= 0, "IndexMap keys are non-negative")
        if Self.isCrowded(count + 1, capacity) { grow() }
        var slot = home(key)
        while buckets[slot].key >= 0, buckets[slot].key != key { slot = (slot + 1) & (capacity - 1) }
        if buckets[slot].key < 0 { count += 1 }
        buckets[slot] = Bucket(key: key, value: value)
    }

    private mutating func grow() {
        let (old, oldCapacity) = (buckets, capacity)
        capacity *= 2
        shift -= 1
        buckets = Self.emptyBuckets(capacity)
        count = 0
        for i in 0..<oldCapacity where old[i].key >= 0 { set(old[i].value, for: old[i].key) }
        old.deallocate()
    }

    /// Forgets every key, keeping the capacity.
    mutating func removeAll() {
        buckets.update(repeating: Bucket(key: -1, value: 0), count: capacity)
        count = 0
    }

    func free() {
        buckets.deallocate()
    }
}

/// Process-wide numbers for archive keys (escaped, as stored), so a field's key is matched
/// against an archive's key objects by comparing two integers.
///
/// A field layout numbers its keys once when it is built; an unarchiver looks up each distinct
/// key object of its archive once. Keys no field uses get no number and match nothing.
///
/// Numbers are only ever added, so a reader that found no number for a key remembers how many
/// numbers existed then (``count``) and looks again once more exist (a layout built later in the
/// same decode may use that key).
enum ArchiveKeyIDs {
    static let classKey: Int32 = 0
    static let objectsKey: Int32 = 1
    static let keysKey: Int32 = 2
    static let timeKey: Int32 = 3

    private static let table = Locked<[String: Int32]>([
        ArchiveFormat.classKey: classKey, ArchiveFormat.objectsField: objectsKey,
        ArchiveFormat.keysField: keysKey, ArchiveFormat.timeField: timeKey,
    ])
    private static let assigned = Atomic<Int32>(4)

    /// How many numbers have been given out so far.
    static var count: Int32 { assigned.load(ordering: .acquiring) }

    /// The number of `key`, assigning the next one if it has none.
    static func id(for key: String) -> Int32 {
        table.withLock { table in
            if let id = table[key] { return id }
            let id = Int32(table.count)
            table[key] = id
            assigned.store(id + 1, ordering: .releasing)
            return id
        }
    }

    /// The number of `key`, or -1 when no field uses it.
    static func existingID(for key: String) -> Int32 {
        table.withLock { $0[key] ?? -1 }
    }
}
