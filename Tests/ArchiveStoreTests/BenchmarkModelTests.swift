import ArchiveStore
import Foundation
import KeyedArchive
import Testing

/// The model offered to the benchmark executable: about 1 KB of data (JSON ≈ 0.9–1.1 KB, stored
/// archive ≈ 1.5 KB with its class description), kept here so its size stays checked.
struct BenchmarkContact: Archivable, Codable, Equatable {
    static var archiveClassName: String? { "Bench.Contact" }
    var id = 0
    var name = ""
    var phone = ""
    var email = ""
    var tags: [String] = []
    var scores: [Double] = []
    var notes = ""
    var updated = Date(timeIntervalSinceReferenceDate: 0)

    static func sample(_ id: Int) -> BenchmarkContact {
        var contact = BenchmarkContact()
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

/// Saves and loads `BenchmarkContact.sample` `iterations` times in `store`; returns operations
/// (one save plus one load) per second.
func archiveStoreSaveLoadRate(_ store: ArchiveStore, iterations: Int) throws -> Double {
    let contact = BenchmarkContact.sample(1)
    let start = ContinuousClock.now
    for index in 0..<iterations {
        try store.save(contact, forKey: "contact-\(index % 16)")
        guard try store.load(BenchmarkContact.self, forKey: "contact-\(index % 16)") == contact else {
            throw ArchiveError(.io, reason: "benchmark value did not round-trip")
        }
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Double(iterations) / seconds
}

@Suite("ArchiveStore benchmark model")
struct BenchmarkModelTests {
    @Test func theBenchmarkModelIsAboutOneKilobyteAndRoundTrips() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(BenchmarkContact.sample(1), forKey: "contact-0")
        let size = try Data(contentsOf: fixture.file(forKey: "contact-0")).count
        #expect((1_000...2_000).contains(size), "stored size \(size)")
        #expect((900...1_100).contains(try JSONEncoder().encode(BenchmarkContact.sample(1)).count))
        let json = try JSONEncoder().encode(BenchmarkContact.sample(1)).count
        let rate = try archiveStoreSaveLoadRate(fixture.store, iterations: 50)
        print("ArchiveStore benchmark model: \(size) bytes stored (JSON \(json)), \(Int(rate)) save+load/s (debug)")
    }
}
