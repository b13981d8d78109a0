/// The archiver's class instances and their UIDs, by instance address.
///
/// Every instance of a class written to an archive is looked up once and, the first time,
/// registered. An open-addressing table over the address (multiply-mix, linear probing) does
/// both with one probe sequence and no `Hasher`; the instances themselves are kept alive, in
/// registration order, so no address is reused while the archive is being written.
struct IdentityTable {
    /// An instance's address (0 = empty) and its UID, side by side so a probe reads one cache line.
    private struct Bucket {
        var address: UInt
        var uid: Int
    }

    private var buckets: [Bucket]
    private var mask: Int
    /// Registered instances, in order.
    private(set) var objects: [AnyObject] = []

    /// A table with room for `expected` instances before it grows (for an archiver that expects
    /// as many as the last archive held).
    init(expecting expected: Int = 0) {
        var capacity = 64
        while expected * 2 > capacity { capacity *= 2 }
        buckets = Array(repeating: Bucket(address: 0, uid: 0), count: capacity)
        mask = capacity - 1
        objects.reserveCapacity(expected)
    }

    var count: Int { objects.count }

    @inline(__always)
    private func bucket(of address: UInt) -> Int {
        var h = UInt64(address) &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 29
        return Int(truncatingIfNeeded: h) & mask
    }

    /// The UID of `object`, if it was registered.
    func uid(of object: AnyObject) -> Int? {
        uid(ofAddress: UInt(bitPattern: Int(bitPattern: ObjectIdentifier(object))))
    }

    func uid(of identity: ObjectIdentifier) -> Int? {
        uid(ofAddress: UInt(bitPattern: Int(bitPattern: identity)))
    }

    private func uid(ofAddress address: UInt) -> Int? {
        var bucket = bucket(of: address)
        while true {
            let stored = buckets[bucket]
            if stored.address == address { return stored.uid }
            if stored.address == 0 { return nil }
            bucket = (bucket + 1) & mask
        }
    }

    /// Registers `object` (not registered yet) under `uid`.
    mutating func insert(_ object: AnyObject, uid: Int) {
        objects.append(object)
        place(UInt(bitPattern: Int(bitPattern: ObjectIdentifier(object))), uid: uid)
        if objects.count * 2 > buckets.count { grow() }
    }

    private mutating func place(_ address: UInt, uid: Int) {
        var bucket = bucket(of: address)
        while buckets[bucket].address != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = Bucket(address: address, uid: uid)
    }

    private mutating func grow() {
        let old = buckets
        buckets = Array(repeating: Bucket(address: 0, uid: 0), count: old.count * 2)
        mask = buckets.count - 1
        for entry in old where entry.address != 0 { place(entry.address, uid: entry.uid) }
    }

    /// Forgets the instances registered from the `count`th on (after a failed top-level encode).
    mutating func truncate(to count: Int) {
        guard count < objects.count else { return }
        var kept: [(UInt, Int)] = []
        kept.reserveCapacity(count)
        for object in objects[..<count] {
            let address = UInt(bitPattern: Int(bitPattern: ObjectIdentifier(object)))
            kept.append((address, uid(ofAddress: address)!))
        }
        objects.removeSubrange(count...)
        for i in buckets.indices { buckets[i] = Bucket(address: 0, uid: 0) }
        for (address, uid) in kept { place(address, uid: uid) }
    }
}
