/// The archiver's class instances and their UIDs, by instance address.
///
/// Every instance of a class written to an archive is looked up once and, the first time,
/// registered. An open-addressing table over the address (multiply-mix, linear probing) does
/// both with one probe sequence and no `Hasher`; the instances themselves are kept alive, in
/// registration order, so no address is reused while the archive is being written.
struct IdentityTable {
    /// Per bucket: the instance's address (0 = empty) and its UID.
    private var addresses: [UInt]
    private var uids: [Int]
    private var mask: Int
    /// Registered instances, in order.
    private(set) var objects: [AnyObject] = []

    init() {
        addresses = Array(repeating: 0, count: 64)
        uids = Array(repeating: 0, count: 64)
        mask = 63
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
            let stored = addresses[bucket]
            if stored == address { return uids[bucket] }
            if stored == 0 { return nil }
            bucket = (bucket + 1) & mask
        }
    }

    /// Registers `object` (not registered yet) under `uid`.
    mutating func insert(_ object: AnyObject, uid: Int) {
        objects.append(object)
        place(UInt(bitPattern: Int(bitPattern: ObjectIdentifier(object))), uid: uid)
        if objects.count * 2 > addresses.count { grow() }
    }

    private mutating func place(_ address: UInt, uid: Int) {
        var bucket = bucket(of: address)
        while addresses[bucket] != 0 { bucket = (bucket + 1) & mask }
        addresses[bucket] = address
        uids[bucket] = uid
    }

    private mutating func grow() {
        let oldAddresses = addresses
        let oldUIDs = uids
        addresses = Array(repeating: 0, count: oldAddresses.count * 2)
        uids = Array(repeating: 0, count: oldAddresses.count * 2)
        mask = addresses.count - 1
        for i in oldAddresses.indices where oldAddresses[i] != 0 { place(oldAddresses[i], uid: oldUIDs[i]) }
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
        for i in addresses.indices { addresses[i] = 0 }
        for (address, uid) in kept { place(address, uid: uid) }
    }
}
