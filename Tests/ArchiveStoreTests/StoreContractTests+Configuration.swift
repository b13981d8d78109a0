import ArchiveStore
import Foundation
import KeyedArchive
import Testing

// Upgrades, the configuration of reads, and what each kind answers of its own, on both kinds.

/// A base class, a subclass, and a model whose field is declared as the base class.
class ContractVehicle: Archivable {
    var wheels = 4
    required init() {}
}

final class ContractCar: ContractVehicle {
    var seats = 5
}

final class ContractGarage: Archivable {
    var parked = ContractVehicle()
    required init() {}
}

/// A note as another app named its class, and as this one reads it.
struct LegacyJotting: Archivable {
    static var archiveClassName: String? { "LegacyApp.Jotting" }
    var text = ""
}

struct Jotting: Archivable, Equatable {
    static var archiveClassName: String? { "Contract.Jotting" }
    var text = ""
}

extension StoreContractTests {
    // MARK: - Upgrades

    @Test("upgradeAll rewrites the values of an older archiveVersion, here and in namespaces, and counts them", arguments: StoreKind.allCases)
    func upgradeAll(kind: StoreKind) async throws {
        func old(_ n: Int) -> OldNote { OldNote(title: "Note \(n)", words: n * 7, tags: ["t\(n)"]) }
        func current(_ n: Int) -> Note { Note(title: "Note \(n)", words: String(n * 7), tags: ["t\(n)"]) }
        try await kind.withStore { store, clock in
            let user = store.namespace("user")
            let saved = clock.now
            let keepsExpiry = saved.addingTimeInterval(1_000)
            for n in 0..<3 { try store.save(old(n), forKey: "old-\(n)") }
            try store.save(old(3), forKey: "keeps-expiry", expiresAfter: .seconds(1_000))
            try store.save(OldMemo(title: "Memo", words: 2), forKey: "memo")  // the type's name before a rename
            try store.save(current(4), forKey: "current")
            try store.save(42, forKey: "count")
            try store.save(old(5), forKey: "expiring", expiresAfter: .seconds(10))
            try user.save(old(6), forKey: "nested")
            clock.advance(by: .seconds(20))  // "expiring" expires
            let changes = Observed(store.changes())
            defer { changes.stop() }

            #expect(try store.upgradeAll(Note.self).rewritten == 6)  // 3 old, the one that expires later, the memo, the nested one
            for n in 0..<3 { #expect(try store.load(Note.self, forKey: "old-\(n)") == current(n)) }
            #expect(try store.load(Note.self, forKey: "keeps-expiry") == current(3))
            #expect(try store.load(Note.self, forKey: "memo") == Note(title: "Memo", words: "2"))
            #expect(try store.load(Note.self, forKey: "current") == current(4))
            #expect(try store.load(Int.self, forKey: "count") == 42)
            #expect(try user.load(Note.self, forKey: "nested") == current(6))
            // Every value now holds exactly what a save of today's type writes.
            let expected = try [
                storedSize(of: current(0), forKey: "old-0"), storedSize(of: current(1), forKey: "old-1"),
                storedSize(of: current(2), forKey: "old-2"),
                storedSize(of: current(3), forKey: "keeps-expiry", expires: keepsExpiry),
                storedSize(of: Note(title: "Memo", words: "2"), forKey: "memo"), storedSize(of: current(4), forKey: "current"),
                storedSize(of: 42, forKey: "count"), storedSize(of: current(6), forKey: "nested"),
            ]
            #expect(store.totalBytes == expected.reduce(0, +))
            // Observers see each rewrite as a save, in the order of the keys.
            await changes.expectFirst(["keeps-expiry", "memo", "old-0", "old-1", "old-2"].map {
                .init(key: $0, kind: .saved)
            })
            changes.stop()  // before the next change (see Observed.stop())

            #expect(try store.upgradeAll(Note.self).rewritten == 0)  // nothing left to do
            // The expiry stayed as it was.
            clock.now = keepsExpiry
            #expect(try store.load(Note.self, forKey: "keeps-expiry") == nil)
        }
    }

    // MARK: - Configuration

    @Test("register(_:) lets a base-class field hold a subclass, for the store and all its namespaces", arguments: StoreKind.allCases)
    func registerSubclass(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            let garage = ContractGarage()
            let car = ContractCar()
            car.wheels = 3
            car.seats = 7
            garage.parked = car
            try store.save(garage, forKey: "garage")

            let error = try #require(throws: ArchiveError.self) { try store.load(ContractGarage.self, forKey: "garage") }
            let expected = try decodingError(reading: garage, forKey: "garage", as: ContractGarage.self)
            #expect(error.code == .unknownClass)
            #expect(error.reason == "\(place(ofKey: "garage", in: store, kind: kind)): \(expected.reason)")
            #expect(error.keyPath == expected.keyPath)

            store.namespace("anyone").register(ContractCar.self)
            let loaded = try #require(try store.load(ContractGarage.self, forKey: "garage"))
            let parked = try #require(loaded.parked as? ContractCar)
            #expect(parked.wheels == 3)
            #expect(parked.seats == 7)
        }
    }

    @Test("setClass(_:forClassName:) reads a value archived under another class name", arguments: StoreKind.allCases)
    func setClassForClassName(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            try store.save(LegacyJotting(text: "from the old app"), forKey: "jotting")
            let error = try #require(throws: ArchiveError.self) { try store.load(Jotting.self, forKey: "jotting") }
            let expected = try decodingError(reading: LegacyJotting(text: "from the old app"), forKey: "jotting", as: Jotting.self)
            #expect(error.code == .unknownClass)
            #expect(error.reason == "\(place(ofKey: "jotting", in: store, kind: kind)): \(expected.reason)")

            store.setClass(Jotting.self, forClassName: "LegacyApp.Jotting")
            #expect(try store.load(Jotting.self, forKey: "jotting") == Jotting(text: "from the old app"))
            #expect(try store.namespace("other").load(Jotting.self, forKey: "jotting") == nil)
        }
    }

    @Test("unarchiverOptions.maximumArchiveSize makes a larger value's load throw .sizeLimit and leaves it", arguments: StoreKind.allCases)
    func maximumArchiveSize(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            let text = String(repeating: "x", count: 500)
            let size = try storedSize(of: text, forKey: "big")
            try store.save(text, forKey: "big")
            try store.save("small", forKey: "small")
            store.register(defaults: ["big": "registered"])
            store.unarchiverOptions.maximumArchiveSize = 200
            #expect(store.unarchiverOptions.maximumArchiveSize == 200)

            let error = try #require(throws: ArchiveError.self) { try store.load(String.self, forKey: "big") }
            #expect(error.code == .sizeLimit)
            // The message names the value's place, and says what stays: a folder's file, a memory store's value.
            let kept = kind == .folder ? "the file was left in place" : "the value was left in place"
            #expect(
                error.reason
                    == "\(place(ofKey: "big", in: store, kind: kind)) is \(size) bytes, more than the maximum of 200 the store reads (raise the store's unarchiverOptions.maximumArchiveSize to read it); \(kept)"
            )
            #expect(try store.load(String.self, forKey: "small") == "small")
            #expect(store.contains("big"))
            #expect(store.keys == ["big", "small"])
            #expect(store.string(forKey: "big") == "registered")  // no readable value

            store.unarchiverOptions = KeyedUnarchiver.Options()
            #expect(try store.load(String.self, forKey: "big") == text)
        }
    }

    @Test(
        "a value beyond maximumArchiveSize counts as damaged even once expired: it throws and stays",
        arguments: StoreKind.allCases, [nil, 10] as [Int?])
    func oversizedExpiredValue(kind: StoreKind, maximumCount: Int?) throws {
        // With a limit, trim() evicts; without, it only removes expired values: both leave it.
        try kind.withStore(limits: .init(maximumCount: maximumCount)) { store, clock in
            let text = String(repeating: "x", count: 500)
            try store.save(text, forKey: "big", expiresAfter: .seconds(10))
            store.unarchiverOptions.maximumArchiveSize = 200
            clock.advance(by: .seconds(20))
            // The store does not read the value, so it cannot tell that it expired.
            let error = try #require(throws: ArchiveError.self) { try store.load(String.self, forKey: "big") }
            #expect(error.code == .sizeLimit)
            #expect(store.contains("big"))
            try store.removeExpired()
            try store.trim()
            #expect(store.contains("big"))
            #expect(store.string(forKey: "big") == nil)
            // Once it can be read, it is seen to have expired.
            store.unarchiverOptions = KeyedUnarchiver.Options()
            #expect(store.contains("big") == false)
            #expect(try store.load(String.self, forKey: "big") == nil)
        }
    }

    // MARK: - What each kind answers of its own

    @Test("what only files have: the directory, durability, and values that outlive the store", arguments: StoreKind.allCases)
    func whatOnlyFilesHave(kind: StoreKind) throws {
        try kind.withStore(limits: .init(maximumCount: 10)) { store, clock in
            try store.save(1, forKey: "k")
            try store.namespace("a b").save(2, forKey: "k")
            #expect(store.limits == .init(maximumCount: 10))
            #expect(store.permissions == .ownerOnly)
            // A namespace's directory is its parent's with the documented folder name appended.
            #expect(store.namespace("a b").directory == store.directory.appending(path: "ns-a%20b", directoryHint: .isDirectory))
            switch kind {
            case .folder:
                #expect(store.directory.isFileURL)
                #expect(store.directory.lastPathComponent.hasPrefix("archive-store-contract-"))
                #expect(FileManager.default.fileExists(atPath: store.directory.appending(path: "key-k.archive").path))
                #expect(store.durability == .full)
                // Another store on the folder sees the values: they outlive this instance.
                let reopened = try ArchiveStore(directory: store.directory, clock: clock.clock)
                #expect(try reopened.load(Int.self, forKey: "k") == 1)
                #expect(try reopened.namespace("a b").load(Int.self, forKey: "k") == 2)
                #expect(reopened.namespaces == ["a b"])
            case .memory:
                #expect(store.directory.scheme == "archive-store-memory")
                #expect(!store.directory.isFileURL)
                #expect(store.directory.absoluteString.hasSuffix("/"))
                #expect(store.durability == .buffered)
                // Another memory store is another set of values, with a directory of its own.
                let other = ArchiveStore.inMemory(limits: .init(maximumCount: 10), clock: clock.clock)
                #expect(other.directory != store.directory)
                #expect(try other.load(Int.self, forKey: "k") == nil)
                #expect(other.namespaces == [])
                #expect(other.count == 0)
            }
        }
    }
}
