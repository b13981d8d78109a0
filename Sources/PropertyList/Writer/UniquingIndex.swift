/// The writer's uniquing index for strings and data: open addressing over a hash of their
/// encoded bytes (marker, count and payload, as in the file), which the table computes
/// (``BPlistTable/encodedHash(_:)``) and compares.
///
/// Strings are the most common objects in an archive and most are short; `Hasher`'s SipHash
/// costs more than the rest of adding such a string, so the table hashes eight bytes per step
/// with multiply-mix rounds keyed by a per-process random seed (so crafted strings cannot be aimed
/// at one bucket across processes). The index keeps some bits of each entry's hash to skip almost
/// every mismatch without touching the bytes, and asks the table to compare bytes only when those
/// bits match. Equal encodings are equal values: the encoding is exact (no normalisation) and its
/// marker tells strings from data.
struct EncodedIndex {
    /// Per bucket: the object's table index and some bits of its hash.
    private var buckets = OpenBuckets(capacity: 64)

    /// Objects recorded.
    var count: Int { buckets.count }

    /// Room for `count` objects in all without growing; `hashAt` gives the hash of the object at a table index.
    mutating func reserve(_ count: Int, hashAt: (Int) -> UInt64) {
        buckets.reserve(count) { Self.tag(hashAt($0)) }
    }

    @inline(__always)
    private static func tag(_ hash: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: hash >> 32)
    }

    /// The table index of an object whose encoding hashes to `hash` and that `isEqual` says is
    /// the one at a table index, or `candidate` (recorded) if there is none.
    @inline(__always)
    mutating func index(hash: UInt64, candidate: Int, isEqual: (Int) -> Bool, hashAt: (Int) -> UInt64) -> Int {
        let tag = Self.tag(hash)
        var bucket = buckets.start(tag)
        let check = buckets.check(tag)
        while let (index, stored) = buckets.entry(bucket) {
            if stored == check, isEqual(index) { return index }
            bucket = buckets.next(bucket)
        }
        buckets.fill(bucket, slot: candidate, tag: tag) { Self.tag(hashAt($0)) }
        return candidate
    }
}

/// The writer's uniquing index for 64-bit values (integers, and the bit patterns of reals and
/// dates): open addressing over a seeded multiply-mix of the value, instead of `Hasher`.
///
/// A bucket keeps some bits of the mix, not the value: on a match the value is read back from
/// the table (`valueAt`), so the index takes a quarter of the memory of one that stores values.
package struct WordIndex {
    /// Per bucket: the value's table index and some bits of its mix.
    private var buckets = OpenBuckets(capacity: 32)

    init() {}

    /// An index whose buckets start with room for table indexes below 2^(32 - `tagBits`) only, so
    /// tests can watch it keep fewer hash bits as indexes grow without adding 2^24 objects.
    package init(tagBits: UInt32) {
        buckets = OpenBuckets(capacity: 32, tagBits: tagBits)
    }

    /// Values recorded.
    package var count: Int { buckets.count }

    /// Room for `count` values in all without growing.
    package mutating func reserve(_ count: Int, valueAt: (Int) -> UInt64) {
        buckets.reserve(count) { Self.tag(valueAt($0)) }
    }

    private static let seed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x3011)
        return UInt64(UInt(bitPattern: hasher.finalize())) | 1
    }()

    @inline(__always)
    private static func tag(_ key: UInt64) -> UInt32 {
        var h = (key ^ seed) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 31
        h = h &* 0x94D0_49BB_1331_11EB
        h ^= h >> 29
        return UInt32(truncatingIfNeeded: h >> 32)
    }

    /// The table index recorded for `key`, or `candidate` (now recorded) if there is none.
    /// `valueAt` gives the value of the object at a table index.
    @inline(__always)
    package mutating func index(of key: UInt64, candidate: Int, valueAt: (Int) -> UInt64) -> Int {
        let tag = Self.tag(key)
        var bucket = buckets.start(tag)
        let check = buckets.check(tag)
        while let (index, stored) = buckets.entry(bucket) {
            if stored == check, valueAt(index) == key { return index }
            bucket = buckets.next(bucket)
        }
        buckets.fill(bucket, slot: candidate, tag: tag) { Self.tag(valueAt($0)) }
        return candidate
    }
}

/// The buckets of the uniquing indexes: linear probing over a power-of-two table of 4-byte
/// buckets, each a table index and as many bits of the entry's 32-bit hash as the index leaves
/// room for (8 while tables stay below 2^24 objects). The low bits of the hash choose where an
/// entry's probe starts; the stored bits are its high ones, which skip almost every mismatch
/// without reading the entry back.
///
/// Four bytes a bucket keep the indexes of a large archive half the size they would be with the
/// whole hash stored, so more of them stay in cache while the archive streams past. The price is
/// that the hash is not all kept: growing the table, or widening the index part, asks the owner
/// for the hash of each entry again (`tagOf`, from the table index).
struct OpenBuckets {
    /// Per bucket: the table index + 1 above the low `tagBits` bits, the hash's top bits below
    /// (0 for empty).
    private var buckets: [UInt32]
    private(set) var count = 0
    private var mask: Int
    /// How many bits of each entry's hash a bucket keeps (from 8 down to 1 as indexes grow).
    private var tagBits: UInt32 = 8

    init(capacity: Int, tagBits: UInt32 = 8) {
        precondition(tagBits >= 1 && tagBits <= 31, "a bucket keeps 1 to 31 bits of hash")
        buckets = Array(repeating: 0, count: capacity)
        mask = capacity - 1
        self.tagBits = tagBits
    }

    /// Where the probe for an entry with hash `tag` starts.
    @inline(__always)
    func start(_ tag: UInt32) -> Int {
        Int(tag) & mask
    }

    @inline(__always)
    func next(_ bucket: Int) -> Int {
        (bucket + 1) & mask
    }

    /// The bits of hash `tag` a bucket keeps, to compare with ``entry(_:)``'s.
    @inline(__always)
    func check(_ tag: UInt32) -> UInt32 {
        tag >> (32 - tagBits)
    }

    /// The table index and kept hash bits in `bucket`, or nil when it is empty.
    @inline(__always)
    func entry(_ bucket: Int) -> (index: Int, tag: UInt32)? {
        let entry = buckets[bucket]
        return entry == 0 ? nil : (Int(entry >> tagBits) - 1, entry & ((1 << tagBits) - 1))
    }

    /// Fills the empty `bucket` with the entry for table index `slot` and hash `tag`, growing the
    /// table first if that would make it more than three quarters full. `tagOf` gives the hash of
    /// a recorded entry from its table index (the new entry is not asked for: it may not exist yet).
    @inline(__always)
    mutating func fill(_ bucket: Int, slot: Int, tag: UInt32, tagOf: (Int) -> UInt32) {
        var bucket = bucket
        if !Self.fits(count + 1, in: buckets.count) || slot + 1 >= 1 << (32 - tagBits) {
            bucket = makeRoom(for: slot, tag: tag, tagOf: tagOf)
        }
        buckets[bucket] = UInt32(truncatingIfNeeded: slot + 1) << tagBits | check(tag)
        count += 1
    }

    /// Grows the table, or keeps fewer hash bits per bucket until table index `slot` fits beside
    /// them; returns the empty bucket for the entry with hash `tag` in the rebuilt table.
    private mutating func makeRoom(for slot: Int, tag: UInt32, tagOf: (Int) -> UInt32) -> Int {
        var bits = tagBits
        while slot + 1 >= 1 << (32 - bits) {
            precondition(bits > 1, "a uniquing index cannot record table index \(slot)")
            bits -= 1
        }
        rebuild(capacity: Self.capacity(holding: count + 1, from: buckets.count), tagBits: bits, tagOf: tagOf)
        return emptyBucket(for: tag)
    }

    /// Room for `entries` in all without growing (the table stays at most three quarters full).
    mutating func reserve(_ entries: Int, tagOf: (Int) -> UInt32) {
        let capacity = Self.capacity(holding: entries, from: buckets.count)
        if capacity > buckets.count { rebuild(capacity: capacity, tagBits: tagBits, tagOf: tagOf) }
    }

    /// The smallest capacity, `from` doubled as often as needed, that holds `entries` at most
    /// three quarters full.
    private static func capacity(holding entries: Int, from capacity: Int) -> Int {
        var capacity = capacity
        while !fits(entries, in: capacity) { capacity *= 2 }
        return capacity
    }

    /// Whether `entries` leave `capacity` buckets at most three quarters full.
    @inline(__always)
    private static func fits(_ entries: Int, in capacity: Int) -> Bool {
        entries * 4 <= capacity * 3
    }

    /// The first empty bucket of the probe for an entry with hash `tag`.
    private func emptyBucket(for tag: UInt32) -> Int {
        var bucket = start(tag)
        while buckets[bucket] != 0 { bucket = next(bucket) }
        return bucket
    }

    private mutating func rebuild(capacity: Int, tagBits newBits: UInt32, tagOf: (Int) -> UInt32) {
        let old = buckets
        let oldBits = tagBits
        buckets = Array(repeating: 0, count: capacity)
        mask = capacity - 1
        tagBits = newBits
        for entry in old where entry != 0 {
            let slot = Int(entry >> oldBits) - 1
            let tag = tagOf(slot)
            buckets[emptyBucket(for: tag)] = UInt32(truncatingIfNeeded: slot + 1) << tagBits | check(tag)
        }
    }
}
