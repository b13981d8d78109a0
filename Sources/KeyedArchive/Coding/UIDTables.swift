@_spi(Reader) import PropertyList
import Synchronization

/// A fixed-length column of values owned by an unarchiver (one per UID or per bplist object),
/// read and written through a pointer: lookups are an index, and a `let` column needs no
/// exclusivity bookkeeping on each write. The owner calls ``free()`` once.
struct Column<Element> {
    private let base: UnsafeMutablePointer<Element>
    let count: Int

    init(count: Int, repeating value: Element) {
        self.count = count
        base = .allocate(capacity: max(count, 1))
        base.initialize(repeating: value, count: count)
    }

    subscript(index: Int) -> Element {
        @inline(__always) get {
            precondition(index >= 0 && index < count, "column index out of range")
            return base[index]
        }
        @inline(__always) nonmutating set {
            precondition(index >= 0 && index < count, "column index out of range")
            base[index] = newValue
        }
    }

    func fill(_ value: Element) {
        for i in 0..<count { base[i] = value }
    }

    func free() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// The UIDs being decoded now (to catch cycles through values), one flag per UID.
struct UIDSet {
    private let flags: Column<Bool>
    /// How many flags are set, so clearing an idle set costs nothing.
    private let active = Column<Int>(count: 1, repeating: 0)

    init(count: Int) { flags = Column(count: count, repeating: false) }

    /// Adds `uid`; false if it was already there.
    func insert(_ uid: Int) -> Bool {
        if flags[uid] { return false }
        flags[uid] = true
        active[0] += 1
        return true
    }

    func remove(_ uid: Int) {
        if flags[uid] {
            flags[uid] = false
            active[0] -= 1
        }
    }

    func removeAll() {
        guard active[0] > 0 else { return }
        flags.fill(false)
        active[0] = 0
    }

    func free() {
        flags.free()
        active.free()
    }
}

/// Process-wide numbers for archive keys (escaped, as stored), so a field's key is matched
/// against an archive's key objects by comparing two integers.
///
/// A field layout numbers its keys once when it is built; an unarchiver looks up each distinct
/// key object of its archive once. Keys no field uses get no number and match nothing.
///
/// Numbers are only ever added, so a reader that found no number for a key remembers how many
/// numbers existed then (``count``) and looks again once more exist (a layout built later in the
/// same decode may use that key).
enum ArchiveKeyIDs {
    static let classKey: Int32 = 0
    static let objectsKey: Int32 = 1
    static let keysKey: Int32 = 2
    static let timeKey: Int32 = 3

    private static let table = Mutex<[String: Int32]>([
        ArchiveFormat.classKey: classKey, ArchiveFormat.objectsField: objectsKey,
        ArchiveFormat.keysField: keysKey, ArchiveFormat.timeField: timeKey,
    ])
    private static let assigned = Atomic<Int32>(4)

    /// How many numbers have been given out so far.
    static var count: Int32 { assigned.load(ordering: .acquiring) }

    /// The number of `key`, assigning the next one if it has none.
    static func id(for key: String) -> Int32 {
        table.withLock { table in
            if let id = table[key] { return id }
            let id = Int32(table.count)
            table[key] = id
            assigned.store(id + 1, ordering: .releasing)
            return id
        }
    }

    /// The number of `key`, or -1 when no field uses it.
    static func existingID(for key: String) -> Int32 {
        table.withLock { $0[key] ?? -1 }
    }
}
