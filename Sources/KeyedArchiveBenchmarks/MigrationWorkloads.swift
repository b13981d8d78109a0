import Foundation
import KeyedArchive

/// What a migration costs: `keyed-migrate-1k/decode` reads 1,000 records archived at version 0
/// (one field renamed since, one an `Int` that became a `String`, one removed) as today's version
/// 2, against the same 1,000 records archived at version 2 and read with no migration. The
/// difference per record is the cost of migrating one object.
enum MigrationWorkloads {
    static var all: [Workload] {
        [
            Workload(
                name: "keyed-migrate-1k",
                summary: "1,000 records archived at version 0 read as version 2 (alias, Int → String, removed field) vs archived at version 2",
                operations: ["decode"], prepare: prepare)
        ]
    }

    /// A record as version 0 wrote it.
    struct RecordV0: Archivable {
        var id = 0
        var fullName = ""
        var age = 0
        var legacyFlag = false
        var tags: [String] = []
        static var archiveClassName: String? { "Bench.Record" }
    }

    /// Today's record: `fullName` read through an alias as `name`, `age` a string, the flag gone.
    struct Record: Archivable, Equatable {
        var id = 0
        var name = ""
        var age = ""
        var tags: [String] = []
        static var archiveClassName: String? { "Bench.Record" }
        static var archiveVersion: Int { 2 }
        static var archiveKeyAliases: [String: [String]] { ["name": ["fullName"]] }
        static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
            switch version {
            case 0: object.removeField("legacyFlag")
            case 1: try object.set(String(try object.decode(Int.self, forKey: "age")), forKey: "age")
            default: break
            }
        }
    }

    static func prepare() throws -> PreparedWorkload {
        let count = 1_000
        let old = (0..<count).map { RecordV0(id: $0, fullName: "Person \($0)", age: 20 + $0 % 60, legacyFlag: $0 % 2 == 0, tags: ["a", "b"]) }
        let expected = (0..<count).map { Record(id: $0, name: "Person \($0)", age: String(20 + $0 % 60), tags: ["a", "b"]) }
        let oldData = try KeyedArchiver.archivedData(withRootObject: old)
        let currentData = try KeyedArchiver.archivedData(withRootObject: expected)
        func decode(_ data: Data) throws -> [Record] { try KeyedUnarchiver.unarchivedObject(ofType: [Record].self, from: data) }
        func check(_ data: Data) throws {
            guard try decode(data) == expected else { throw BenchmarkFailure("the records decoded differ from the expected ones") }
        }
        let comparison = Comparison(
            workload: "keyed-migrate-1k", operation: "decode", documentBytes: oldData.count,
            contenders: [
                Contender(id: "ours", name: "archived at version 2, no migration", verify: { try check(currentData) }, run: { try decode(currentData).count }),
                Contender(id: "migrated", name: "archived at version 0, migrated", verify: { try check(oldData) }, run: { try decode(oldData).count }),
            ],
            goals: [], itemCount: count, itemName: "records")
        return PreparedWorkload(comparisons: [comparison], facts: { ["version 0 bytes": "\(oldData.count)", "version 2 bytes": "\(currentData.count)"] })
    }
}
