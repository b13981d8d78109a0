#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The writer's uniquing index for strings and data: open addressing over a hash of their
/// encoded bytes (marker, count and payload, as in the file).
///
/// Strings are the most common objects in an archive and most are short; `Hasher`'s SipHash
/// costs more than the rest of adding such a string. This index hashes eight bytes per step with
/// multiply-mix rounds keyed by a per-process random seed (so crafted strings cannot be aimed at
/// one bucket across processes), keeps each entry's hash to skip most mismatches without
/// touching the bytes, and compares bytes only on a full hash match. Equal encodings are equal
/// values: the encoding is exact (no normalisation) and its marker tells strings from data.
struct EncodedIndex {
    /// Per bucket: the object's table index and 32 bits of its hash.
    private var buckets = OpenBuckets(capacity: 64)

    /// Objects recorded.
    var count: Int { buckets.count }

    /// Room for `count` objects in all without growing.
    mutating func reserve(_ count: Int) { buckets.reserve(count) }

    private static let seed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x5EED)
        return UInt64(UInt(bitPattern: hasher.finalize()))
    }()

    /// The table index of an object encoded as `bytes`, or `candidate` (recorded) if there is
    /// none. `bytesAt` gives the encoded bytes of the object at a table index.
    @inline(__always)
    mutating func index(of bytes: UnsafeRawBufferPointer, candidate: Int, bytesAt: (Int) -> UnsafeRawBufferPointer) -> Int {
        let tag = UInt32(truncatingIfNeeded: Self.hash(bytes) >> 32)
        var bucket = buckets.start(tag)
        while let (index, stored) = buckets.entry(bucket) {
            if stored == tag {
                let candidateBytes = bytesAt(index)
                if candidateBytes.count == bytes.count && memcmp(candidateBytes.baseAddress!, bytes.baseAddress!, bytes.count) == 0 {
                    return index
                }
            }
            bucket = buckets.next(bucket)
        }
        buckets.fill(bucket, slot: candidate, tag: tag)
        return candidate
    }

    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        var h = seed ^ (UInt64(count) &* 0x9E37_79B9_7F4A_7C15)
        var i = 0
        while i + 8 <= count {
            h = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
            i += 8
        }
        if i < count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < count {
                tail |= UInt64(bytes[i]) << shift
                shift += 8
                i += 1
            }
            h = (h ^ tail) &* 0x94D0_49BB_1331_11EB
        }
        h ^= h >> 29
        h = h &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 32
        return h
    }
}

/// The writer's uniquing index for 64-bit values (integers, and the bit patterns of reals and
/// dates): open addressing over a seeded multiply-mix of the value, instead of `Hasher`.
///
/// A bucket keeps 32 bits of the mix, not the value: on a match the value is read back from the
/// table (`valueAt`), so the index takes half the memory of one that stores values.
struct WordIndex {
    /// Per bucket: the value's table index and 32 bits of its mix.
    private var buckets = OpenBuckets(capacity: 32)

    /// Values recorded.
    var count: Int { buckets.count }

    /// Room for `count` values in all without growing.
    mutating func reserve(_ count: Int) { buckets.reserve(count) }

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
    mutating func index(of key: UInt64, candidate: Int, valueAt: (Int) -> UInt64) -> Int {
        let tag = Self.tag(key)
        var bucket = buckets.start(tag)
        while let (index, stored) = buckets.entry(bucket) {
            if stored == tag, valueAt(index) == key { return index }
            bucket = buckets.next(bucket)
        }
        buckets.fill(bucket, slot: candidate, tag: tag)
        return candidate
    }
}

/// The buckets of the uniquing indexes: linear probing over a power-of-two table of 8-byte
/// buckets, each a table index and 32 bits of the entry's hash (which also chooses where its
/// probe starts, so the table grows without going back to the entries).
struct OpenBuckets {
    /// Per bucket: the hash bits above, the table index + 1 below (0 for empty; tables stay
    /// below 2^31 objects).
    private var buckets: [UInt64]
    private(set) var count = 0
    private var mask: Int

    init(capacity: Int) {
        buckets = Array(repeating: 0, count: capacity)
        mask = capacity - 1
    }

    /// Where the probe for an entry with hash bits `tag` starts.
    @inline(__always)
    func start(_ tag: UInt32) -> Int {
        Int(tag) & mask
    }

    @inline(__always)
    func next(_ bucket: Int) -> Int {
        (bucket + 1) & mask
    }

    /// The table index and hash bits in `bucket`, or nil when it is empty.
    @inline(__always)
    func entry(_ bucket: Int) -> (index: Int, tag: UInt32)? {
        let entry = buckets[bucket]
        let slot = UInt32(truncatingIfNeeded: entry)
        return slot == 0 ? nil : (Int(slot) - 1, UInt32(truncatingIfNeeded: entry >> 32))
    }

    /// Fills the empty `bucket`, then grows the table at three quarters full.
    @inline(__always)
    mutating func fill(_ bucket: Int, slot: Int, tag: UInt32) {
        buckets[bucket] = UInt64(tag) << 32 | UInt64(UInt32(truncatingIfNeeded: slot + 1))
        count += 1
        if count * 4 > buckets.count * 3 { grow() }
    }

    /// Room for `entries` in all without growing (the table stays at most three quarters full).
    mutating func reserve(_ entries: Int) {
        var capacity = buckets.count
        while entries * 4 > capacity * 3 { capacity *= 2 }
        if capacity > buckets.count { rebuild(capacity: capacity) }
    }

    private mutating func grow() {
        rebuild(capacity: buckets.count * 2)
    }

    private mutating func rebuild(capacity: Int) {
        let old = buckets
        buckets = Array(repeating: 0, count: capacity)
        mask = capacity - 1
        for entry in old where UInt32(truncatingIfNeeded: entry) != 0 {
            var bucket = start(UInt32(truncatingIfNeeded: entry >> 32))
            while buckets[bucket] != 0 { bucket = next(bucket) }
            buckets[bucket] = entry
        }
    }
}
