#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The writer's string uniquing index: open addressing over a hash of the UTF-8 bytes.
///
/// Strings are the most common objects in an archive and most are short; `Hasher`'s SipHash
/// costs more than the rest of adding such a string. This index hashes eight bytes per step with
/// multiply-mix rounds keyed by a per-process random seed (so crafted strings cannot be aimed at
/// one bucket across processes), keeps each entry's hash to skip most mismatches without
/// touching the string, and compares bytes only on a full hash match.
struct StringIndex {
    /// Per bucket: the table index + 1 of the string there, 0 for empty.
    private var buckets: [Int]
    /// Per bucket: the hash of the string there.
    private var hashes: [UInt64]
    private var count = 0
    private var mask: Int

    private static let seed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x5EED)
        return UInt64(UInt(bitPattern: hasher.finalize()))
    }()

    init() {
        buckets = Array(repeating: 0, count: 64)
        hashes = Array(repeating: 0, count: 64)
        mask = 63
    }

    /// The table index of a string equal to `utf8`, or `candidate` (recorded) if there is none.
    /// `stringAt` gives the string stored at a table index.
    @inline(__always)
    mutating func index(of utf8: UnsafeBufferPointer<UInt8>, candidate: Int, stringAt: (Int) -> String) -> Int {
        let hash = Self.hash(UnsafeRawBufferPointer(utf8))
        var bucket = Int(truncatingIfNeeded: hash) & mask
        while buckets[bucket] != 0 {
            if hashes[bucket] == hash {
                let index = buckets[bucket] - 1
                var stored = stringAt(index)
                let equal = stored.withUTF8 { other in
                    other.count == utf8.count
                        && (other.count == 0 || memcmp(other.baseAddress!, utf8.baseAddress!, other.count) == 0)
                }
                if equal { return index }
            }
            bucket = (bucket + 1) & mask
        }
        buckets[bucket] = candidate + 1
        hashes[bucket] = hash
        count += 1
        if count * 4 > buckets.count * 3 { grow() }
        return candidate
    }

    private mutating func grow() {
        let oldBuckets = buckets
        let oldHashes = hashes
        buckets = Array(repeating: 0, count: oldBuckets.count * 2)
        hashes = Array(repeating: 0, count: oldBuckets.count * 2)
        mask = buckets.count - 1
        for i in oldBuckets.indices where oldBuckets[i] != 0 {
            var bucket = Int(truncatingIfNeeded: oldHashes[i]) & mask
            while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
            buckets[bucket] = oldBuckets[i]
            hashes[bucket] = oldHashes[i]
        }
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
    /// Per bucket: the table index + 1 of the value there, 0 for empty.
    private var buckets: [Int]
    private var keys: [UInt64]
    private var count = 0
    private var mask: Int

    private static let seed: UInt64 = {
        var hasher = Hasher()
        hasher.combine(0x3011)
        return UInt64(UInt(bitPattern: hasher.finalize())) | 1
    }()

    init() {
        buckets = Array(repeating: 0, count: 32)
        keys = Array(repeating: 0, count: 32)
        mask = 31
    }

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
        var bucket = Self.hash(key) & mask
        while buckets[bucket] != 0 {
            if keys[bucket] == key { return buckets[bucket] - 1 }
            bucket = (bucket + 1) & mask
        }
        buckets[bucket] = candidate + 1
        keys[bucket] = key
        count += 1
        if count * 2 > buckets.count { grow() }
        return candidate
    }

    private mutating func grow() {
        let oldBuckets = buckets
        let oldKeys = keys
        buckets = Array(repeating: 0, count: oldBuckets.count * 2)
        keys = Array(repeating: 0, count: oldBuckets.count * 2)
        mask = buckets.count - 1
        for i in oldBuckets.indices where oldBuckets[i] != 0 {
            var bucket = Self.hash(oldKeys[i]) & mask
            while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
            buckets[bucket] = oldBuckets[i]
            keys[bucket] = oldKeys[i]
        }
    }
}
