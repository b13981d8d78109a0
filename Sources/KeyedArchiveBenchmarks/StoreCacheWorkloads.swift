import ArchiveFileSystem
import ArchiveStore
import Foundation
import KeyedArchive

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store as a cache:
/// - `store-memory/load`: 1,000 loads of the ≈1 KB model answered by the memory tier, against
///   the same loads from disk (a store without the tier, in a folder of its own: the tier's size
///   is one of the limits a folder keeps);
/// - `store-100k/count+totalBytes+keys`: the three on a store of 100,000 values, against
///   `FileManager.contentsOfDirectory` plus a `stat` per file; also the first call of a new
///   instance, which scans the folder;
/// - `store-evict/save`: 100 saves into a store held at its count limit (each save evicts one
///   value), against the same saves without limits.
enum StoreCacheWorkloads {
    static var all: [Workload] {
        [
            Workload(
                name: "store-memory", summary: "1,000 loads of a ≈1 KB model: memory tier hit vs disk load",
                operations: ["load"], prepare: prepareMemory),
            Workload(
                name: "store-100k", summary: "count, totalBytes and keys of 100,000 values vs listing + stat per file",
                operations: ["count+totalBytes+keys"], prepare: prepareListing),
            Workload(
                name: "store-evict", summary: "100 saves at the count limit (each evicts one) vs saves without limits",
                operations: ["save"], prepare: prepareEviction),
        ]
    }

    private static func scratch(_ name: String) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appending(path: "keyed-archive-bench-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return root
    }

    static func prepareMemory() throws -> PreparedWorkload {
        let contact = StoreWorkloads.Contact.sample(1)
        let root = try scratch("memory")
        // Two folders: the limits (the memory tier's size among them) belong to a folder.
        let tiered = try ArchiveStore(directory: root.appending(path: "tiered"), limits: .init(memoryBytes: 1 << 20))
        let disk = try ArchiveStore(directory: root.appending(path: "disk"))
        try tiered.save(contact, forKey: "contact")
        try disk.save(contact, forKey: "contact")
        func loads(_ store: ArchiveStore) throws -> Int {
            var sum = 0
            for _ in 0..<1_000 {
                guard let back = try store.load(StoreWorkloads.Contact.self, forKey: "contact") else {
                    throw BenchmarkFailure("the store lost the value")
                }
                sum &+= back.id
            }
            return sum
        }
        func check(_ store: ArchiveStore) throws {
            guard try store.load(StoreWorkloads.Contact.self, forKey: "contact") == contact else {
                throw BenchmarkFailure("the store returned another value")
            }
        }
        let comparison = Comparison(
            workload: "store-memory", operation: "load", documentBytes: 0,
            contenders: [
                Contender(id: "ours", name: "memory tier hit", verify: { try check(tiered) }, run: { try loads(tiered) }),
                Contender(id: "disk", name: "disk load (no memory tier)", verify: { try check(disk) }, run: { try loads(disk) }),
            ],
            // A disk load of a store without limits writes nothing (it appended a use to the
            // journal until the loads stopped writing, and was then a tenth of a hit's speed),
            // and a hit looks for a batch being made (one lstat): 7× is the tier's worth now.
            goals: [Goal(peerID: "disk", minimumRatio: 7)], itemCount: 1_000, itemName: "loads")
        return PreparedWorkload(comparisons: [comparison], facts: { [:] })
    }

    static func prepareListing() throws -> PreparedWorkload {
        let root = try scratch("listing")
        // 100,000 stored files written directly (a store reads plain one-object archives under
        // key names as values): saving them one by one would flush to disk 100,000 times.
        let count = 100_000
        for i in 0..<count {
            // Written in place (FileManager.createFile writes each through a temporary folder).
            try KeyedArchiver.archivedData(withRootObject: "value \(i)").write(to: root.appending(path: "key-item-\(i).archive"))
        }
        let store = try ArchiveStore(directory: root)
        guard store.count == count else { throw BenchmarkFailure("the store counts \(store.count) values") }
        func ours(_ store: ArchiveStore) -> Int { store.count &+ store.totalBytes &+ store.keys.count }
        func listing() throws -> Int {
            var total = 0
            var status = stat()
            let names = try FileManager.default.contentsOfDirectory(atPath: root.path)
            for name in names where stat(root.appending(path: name).path, &status) == 0 {
                total &+= Int(status.st_size)
            }
            return names.count &+ total
        }
        let comparison = Comparison(
            workload: "store-100k", operation: "count+totalBytes+keys", documentBytes: 0,
            contenders: [
                Contender(id: "ours", name: "ArchiveStore (index in memory)", verify: {}, run: { ours(store) }),
                Contender(
                    id: "first", name: "ArchiveStore, first call of a new instance",
                    verify: {}, run: { ours(try ArchiveStore(directory: root)) }),
                Contender(id: "listing", name: "contentsOfDirectory + stat per file", verify: {}, run: listing),
            ],
            goals: [Goal(peerID: "listing", minimumRatio: 0.5)], itemCount: count, itemName: "values")
        return PreparedWorkload(comparisons: [comparison], facts: { [:] })
    }

    static func prepareEviction() throws -> PreparedWorkload {
        let contact = StoreWorkloads.Contact.sample(1)
        let root = try scratch("evict")
        let limited = try ArchiveStore(directory: root.appending(path: "limited"), limits: .init(maximumCount: 1_000))
        let unlimited = try ArchiveStore(directory: root.appending(path: "unlimited"))
        for i in 0..<1_000 { try limited.save(contact, forKey: "c\(i)") }
        var next = 1_000
        func saves(_ store: ArchiveStore) throws -> Int {
            for _ in 0..<100 {
                try store.save(contact, forKey: "c\(next)")
                next += 1
            }
            return 100
        }
        let comparison = Comparison(
            workload: "store-evict", operation: "save", documentBytes: 0,
            contenders: [
                Contender(
                    id: "ours", name: "save at the limit (evicts one each)",
                    verify: {
                        _ = try saves(limited)
                        guard limited.count == 1_000 else { throw BenchmarkFailure("the store holds \(limited.count)") }
                    }, run: { try saves(limited) }),
                Contender(id: "unlimited", name: "save without limits", verify: {}, run: { try saves(unlimited) }),
            ],
            goals: [Goal(peerID: "unlimited", minimumRatio: 1 / 1.2)], itemCount: 100, itemName: "saves")
        return PreparedWorkload(comparisons: [comparison], facts: { [:] })
    }
}
