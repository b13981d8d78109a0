// Unsafe code in this file: before a run of instances is released, `touchInstances` reads the first words of each
// (instances the table itself keeps alive) to bring them into cache; nothing is written.

import Synchronization

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

    /// Lets go of the instances, a cache-sized run at a time (faster than letting the array go
    /// at once; see ``touchInstances(count:slot:)``).
    mutating func releaseInstances() {
        while !objects.isEmpty {
            let run = min(objects.count, touchRun)
            objects.withUnsafeBufferPointer { buffer in
                let first = UnsafeRawPointer(buffer.baseAddress! + (buffer.count - run))
                touchInstances(count: run) { first + $0 * MemoryLayout<AnyObject>.stride }
            }
            objects.removeLast(run)
        }
    }
}

/// How many instances are touched, then released, at a time: their lines fit in cache together.
let touchRun = 4096

/// Reads the header of each of `count` instances, the `i`th referenced from the `AnyObject` or
/// `AnyObject?` slot at `slot(i)` (nil slots are skipped), so that releasing them next finds
/// them in cache.
///
/// A release is an atomic write, which waits for its cache line before anything after it can
/// go on: releasing the instances of a large archive one after another, long after they were
/// last used, would wait for memory once per instance. Plain loads of the same lines do not
/// wait for each other, so this pass brings them in at the memory's pace instead. Nothing is
/// retained or released here.
@inline(__always)
func touchInstances(count: Int, slot: (Int) -> UnsafeRawPointer) {
    var sum: UInt = 0
    for i in 0..<count {
        if let object = slot(i).load(as: UnsafeRawPointer?.self) {
            sum &+= object.load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.stride, as: UInt.self)
        }
    }
    // Stored where nothing reads it, so the loads are not optimised away.
    touchedSum.store(sum, ordering: .relaxed)
}

private let touchedSum = Atomic<UInt>(0)
