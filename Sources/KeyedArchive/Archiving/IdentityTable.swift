/// The archiver's class instances and their UIDs, by instance address.
///
/// Every instance of a class written to an archive is looked up once and, the first time,
/// registered: an ``IndexMap`` from address to UID does both with one probe sequence and no
/// `Hasher`. The instances themselves are kept alive, in registration order, so no address is
/// reused while the archive is being written.
struct IdentityTable: ~Copyable {
    private var uids: IndexMap
    /// Registered instances, in order.
    private(set) var objects: [AnyObject] = []

    /// A table with room for `expected` instances before it grows (for an archiver that expects
    /// as many as the last archive held).
    init(expecting expected: Int = 0) {
        uids = IndexMap(expecting: expected)
        objects.reserveCapacity(expected)
    }

    var count: Int { objects.count }

    /// The UID of `object`, if it was registered.
    func uid(of object: AnyObject) -> Int? {
        uid(of: ObjectIdentifier(object))
    }

    func uid(of identity: ObjectIdentifier) -> Int? {
        uids.value(for: Int(bitPattern: identity)).map(Int.init)
    }

    /// Registers `object` (not registered yet) under `uid` (below 2^31, as every writer UID is).
    mutating func insert(_ object: AnyObject, uid: Int) {
        objects.append(object)
        uids.set(Int32(uid), for: Int(bitPattern: ObjectIdentifier(object)))
    }

    /// Forgets the instances registered from the `count`th on (after a failed top-level encode).
    mutating func truncate(to count: Int) {
        guard count < objects.count else { return }
        let kept = objects[..<count].map { (key: Int(bitPattern: ObjectIdentifier($0)), uid: uid(of: $0)!) }
        objects.removeSubrange(count...)
        uids.removeAll()
        for (key, uid) in kept { uids.set(Int32(uid), for: key) }
    }

    /// Lets go of the instances.
    mutating func releaseInstances() {
        objects.removeAll()
    }
}
