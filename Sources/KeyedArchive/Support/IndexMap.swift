@_spi(Reader) import PropertyList

/// A map from non-negative integers (bplist object indexes, UIDs, instance addresses) to `Int32`,
/// by open addressing: linear probing from the top bits of the key's Fibonacci hash, each key
/// beside its value so a probe reads one cache line. It grows with what is stored in it, never
/// with the size of an archive.
struct IndexMap: ~Copyable {
    private struct Bucket {
        /// -1 for an empty bucket.
        var key: Int
        var value: Int32
    }

    private var buckets: RawBuffer<Bucket>
    /// `64 - log2(capacity)`.
    private var shift: UInt64
    private(set) var count = 0

    /// A map with room for `expected` keys before it grows.
    init(expecting expected: Int = 0) {
        var capacity = 16
        shift = 60
        while Self.isCrowded(expected, capacity) {
            capacity *= 2
            shift -= 1
        }
        buckets = Self.emptyBuckets(capacity)
    }

    private static func emptyBuckets(_ capacity: Int) -> RawBuffer<Bucket> {
        RawBuffer(count: capacity, repeating: Bucket(key: -1, value: 0))
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
        let mask = buckets.count - 1
        var slot = home(key)
        while true {
            let found = buckets[slot]
            if found.key == key { return found.value }
            if found.key < 0 { return nil }
            slot = (slot + 1) & mask
        }
    }

    /// Stores `value` for `key` (≥ 0), replacing any value it had.
    mutating func set(_ value: Int32, for key: Int) {
        precondition(key >= 0, "IndexMap keys are non-negative")
        if Self.isCrowded(count + 1, buckets.count) { grow() }
        let mask = buckets.count - 1
        var slot = home(key)
        while buckets[slot].key >= 0, buckets[slot].key != key { slot = (slot + 1) & mask }
        if buckets[slot].key < 0 { count += 1 }
        buckets[slot] = Bucket(key: key, value: value)
    }

    private mutating func grow() {
        var old = Self.emptyBuckets(buckets.count * 2)
        swap(&old, &buckets)
        shift -= 1
        count = 0
        for bucket in old.elements() where bucket.key >= 0 { set(bucket.value, for: bucket.key) }
    }

    /// Forgets every key, keeping the capacity.
    mutating func removeAll() {
        buckets.fill(with: Bucket(key: -1, value: 0))
        count = 0
    }
}
