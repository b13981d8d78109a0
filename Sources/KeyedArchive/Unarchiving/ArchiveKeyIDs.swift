import Synchronization

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

    private static let table = Locked<[String: Int32]>([
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
