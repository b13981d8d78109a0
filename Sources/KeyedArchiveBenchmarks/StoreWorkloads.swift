import ArchiveFileSystem
import ArchiveStore
import Foundation
import KeyedArchive

/// `store-1k`: save then load one ≈1 KB model, through `ArchiveStore` (a durable write: temporary
/// file, fsync, rename, fsync of the folder), against `JSONEncoder` + `Data.write(options: .atomic)`
/// + `JSONDecoder` (atomic rename, no fsync) and `UserDefaults` (set + synchronize, then read back).
/// One operation = one save and one load of the same key.
enum StoreWorkloads {
    static var all: [Workload] {
        [
            Workload(
                name: "store-1k", summary: "save + load of a ≈1 KB model: ArchiveStore vs JSON + atomic write vs UserDefaults",
                operations: ["save+load"], prepare: prepare)
        ]
    }

    struct Contact: Archivable, Codable, Equatable {
        static var archiveClassName: String? { "Bench.Contact" }
        var id = 0
        var name = ""
        var phone = ""
        var email = ""
        var tags: [String] = []
        var scores: [Double] = []
        var notes = ""
        var updated = Date(timeIntervalSinceReferenceDate: 0)

        static func sample(_ id: Int) -> Contact {
            var contact = Contact()
            contact.id = id
            contact.name = "Contact \(id)"
            contact.phone = "+44 20 7946 \(1000 + id % 9000)"
            contact.email = "contact\(id)@example.com"
            contact.tags = (0..<8).map { "tag-\($0)-\(id % 7)" }
            contact.scores = (0..<16).map { Double($0) * 1.5 + Double(id) }
            contact.notes = String(repeating: "Notes about this contact. ", count: 28)
            contact.updated = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(id))
            return contact
        }
    }

    static func prepare() throws -> PreparedWorkload {
        let contact = Contact.sample(1)
        let root = FileManager.default.temporaryDirectory.appending(path: "keyed-archive-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let store = try ArchiveStore(directory: root.appending(path: "store"))
        let jsonURL = root.appending(path: "contact.json")
        let suite = "KeyedArchiveBenchmarks.\(UUID().uuidString)"
        let defaults = UserDefaults(suiteName: suite) ?? .standard
        let json = try JSONEncoder().encode(contact)

        func ours() throws -> Int {
            try store.save(contact, forKey: "contact")
            guard let back = try store.load(Contact.self, forKey: "contact") else { throw BenchmarkFailure("store lost the value") }
            return back.id
        }
        func jsonFile() throws -> Int {
            try JSONEncoder().encode(contact).write(to: jsonURL, options: .atomic)
            return try JSONDecoder().decode(Contact.self, from: Data(contentsOf: jsonURL)).id
        }
        func userDefaults() throws -> Int {
            defaults.set(try JSONEncoder().encode(contact), forKey: "contact")
            defaults.synchronize()
            guard let data = defaults.data(forKey: "contact") else { throw BenchmarkFailure("UserDefaults lost the value") }
            return try JSONDecoder().decode(Contact.self, from: data).id
        }
        let comparison = Comparison(
            workload: "store-1k", operation: "save+load", documentBytes: json.count,
            contenders: [
                Contender(
                    id: "ours", name: "ArchiveStore (fsync)",
                    verify: {
                        _ = try ours()
                        guard try store.load(Contact.self, forKey: "contact") == contact else {
                            throw BenchmarkFailure("ArchiveStore returned another value")
                        }
                    },
                    run: ours),
                Contender(
                    id: "json", name: "JSONEncoder + atomic write",
                    verify: {
                        _ = try jsonFile()
                        guard try JSONDecoder().decode(Contact.self, from: Data(contentsOf: jsonURL)) == contact else {
                            throw BenchmarkFailure("JSON file returned another value")
                        }
                    },
                    run: jsonFile),
                Contender(id: "defaults", name: "UserDefaults (JSON data)", verify: { _ = try userDefaults() }, run: userDefaults),
            ],
            goals: [])
        return PreparedWorkload(
            comparisons: [comparison],
            facts: {
                let file = try FileManager.default.contentsOfDirectory(atPath: root.appending(path: "store").path)
                    .filter { $0.hasSuffix(".archive") }.first
                let size = try file.map {
                    try FileManager.default.attributesOfItem(atPath: root.appending(path: "store").appending(path: $0).path)[.size] as? Int
                } ?? nil
                return ["JSON bytes": String(json.count), "stored file bytes": size.map(String.init) ?? "?"]
            })
    }
}
