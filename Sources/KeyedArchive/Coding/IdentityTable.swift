import Synchronization

/// The archiver's class instances and their UIDs, by instance address.
///
/// Every instance of a class written to an archive is looked up once and, the first time,
/// registered: an ``IndexMap`` from address to UID does both with one probe sequence and no
/// `Hasher`. The instances themselves are kept alive, in registration order, so no address is
/// reused while the archive is being written. The owner calls ``free()`` once.
struct IdentityTable {
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

    /// Frees the map and lets go of the instances, a cache-sized run at a time.
    mutating func free() {
        uids.free()
        while !objects.isEmpty {
            let run = min(objects.count, touchRun)
            objects.withUnsafeBufferPointer { touchInstances(UnsafeRawPointer($0.baseAddress! + ($0.count - run)), count: run) }
            objects.removeLast(run)
        }
    }
}

/// Reads the header of each of `count` object references stored from `references` on (plain
/// `AnyObject` or `AnyObject?` slots), so that releasing them next finds them in cache.
///
/// A release is an atomic write, which waits for its cache line before anything after it can
/// go on: releasing the instances of a large archive one after another, long after they were
/// last used, would wait for memory once per instance. Plain loads of the same lines do not
/// wait for each other, so this pass brings them in at the memory's pace instead. Nothing is
/// retained or released here.
func touchInstances(_ references: UnsafeRawPointer?, count: Int) {
    guard let references else { return }
    var sum: UInt = 0
    for i in 0..<count { sum &+= instanceHeaderWord(references + i * MemoryLayout<UnsafeRawPointer>.stride) }
    keepTouched(sum)
}

/// The reference-count word of the object whose reference is stored at `slot` (0 for nil).
@inline(__always)
func instanceHeaderWord(_ slot: UnsafeRawPointer) -> UInt {
    guard let object = slot.load(as: UnsafeRawPointer?.self) else { return 0 }
    return object.load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.stride, as: UInt.self)
}

/// Keeps what a touching pass read, so its loads are not optimised away.
@inline(__always)
func keepTouched(_ sum: UInt) {
    touchedSum.store(sum, ordering: .relaxed)
}

/// How many instances are touched, then released, at a time: their lines fit in cache together.
let touchRun = 4096

/// Where ``touchInstances(_:count:)`` leaves what it read, so its loads are not optimised away.
private let touchedSum = Atomic<UInt>(0)
