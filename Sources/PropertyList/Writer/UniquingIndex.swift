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
    /// Per bucket: the object's table index and its hash.
    private var buckets = OpenBuckets(capacity: 64)

    private static let seed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x5EED)
        return UInt64(UInt(bitPattern: hasher.finalize()))
    }()

    /// The table index of an object encoded as `bytes`, or `candidate` (recorded) if there is
    /// none. `bytesAt` gives the encoded bytes of the object at a table index.
    @inline(__always)
    mutating func index(of bytes: UnsafeRawBufferPointer, candidate: Int, bytesAt: (Int) -> UnsafeRawBufferPointer) -> Int {
        let hash = Self.hash(bytes)
        var bucket = Int(truncatingIfNeeded: hash) & buckets.mask
        while let index = buckets.slot(bucket) {
            if buckets.word(bucket) == hash {
                let stored = bytesAt(index)
                if stored.count == bytes.count && memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0 {
                    return index
                }
            }
            bucket = (bucket + 1) & buckets.mask
        }
        buckets.fill(bucket, slot: candidate, word: hash) { Int(truncatingIfNeeded: $0) }
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
struct WordIndex {
    /// Per bucket: the value's table index and the value.
    private var buckets = OpenBuckets(capacity: 32)

    private static let seed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x3011)
        return UInt64(UInt(bitPattern: hasher.finalize())) | 1
    }()

    @inline(__always)
    private static func hash(_ key: UInt64) -> Int {
        var h = (key ^ seed) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 31
        h = h &* 0x94D0_49BB_1331_11EB
        h ^= h >> 29
        return Int(truncatingIfNeeded: h)
    }

    /// The table index recorded for `key`, or `candidate` (now recorded) if there is none.
    @inline(__always)
    mutating func index(of key: UInt64, candidate: Int) -> Int {
        var bucket = Self.hash(key) & buckets.mask
        while let index = buckets.slot(bucket) {
            if buckets.word(bucket) == key { return index }
            bucket = (bucket + 1) & buckets.mask
        }
        buckets.fill(bucket, slot: candidate, word: key, start: Self.hash)
        return candidate
    }
}

/// The buckets of the uniquing indexes: linear probing over a power-of-two table, each bucket
/// holding a table index and a 64-bit word (a string's hash, or the value itself) side by side,
/// so a probe touches one cache line however large the table grows.
struct OpenBuckets {
    private struct Bucket {
        /// The word (a string's hash or the value itself).
        var word: UInt64
        /// The table index + 1 of the entry here, 0 for empty (tables stay below 2^31 objects).
        var slot: UInt32
    }

    private var buckets: [Bucket]
    private var count = 0
    private(set) var mask: Int

    init(capacity: Int) {
        buckets = Array(repeating: Bucket(word: 0, slot: 0), count: capacity)
        mask = capacity - 1
    }

    /// The table index in `bucket`, or nil when it is empty.
    @inline(__always)
    func slot(_ bucket: Int) -> Int? {
        let slot = buckets[bucket].slot
        return slot == 0 ? nil : Int(slot) - 1
    }

    /// The word kept in `bucket`.
    @inline(__always)
    func word(_ bucket: Int) -> UInt64 {
        buckets[bucket].word
    }

    /// Fills the empty `bucket`, then grows the table at three quarters full, placing each
    /// entry again from `start(word)`.
    @inline(__always)
    mutating func fill(_ bucket: Int, slot: Int, word: UInt64, start: (UInt64) -> Int) {
        buckets[bucket] = Bucket(word: word, slot: UInt32(truncatingIfNeeded: slot + 1))
        count += 1
        if count * 4 > buckets.count * 3 { grow(start: start) }
    }

    private mutating func grow(start: (UInt64) -> Int) {
        let old = buckets
        buckets = Array(repeating: Bucket(word: 0, slot: 0), count: old.count * 2)
        mask = buckets.count - 1
        for entry in old where entry.slot != 0 {
            var bucket = start(entry.word) & mask
            while buckets[bucket].slot != 0 { bucket = (bucket + 1) & mask }
            buckets[bucket] = entry
        }
    }
}
