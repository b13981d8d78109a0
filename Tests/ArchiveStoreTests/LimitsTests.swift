import ArchiveStore
import Foundation
import KeyedArchive
import Testing

@Suite("ArchiveStore limits and eviction")
struct LimitsTests {
    /// A store on the fixture's folder with `limits`, as a relaunched app would open it.
    private func open(
        _ fixture: borrowing StoreFixture, _ limits: ArchiveStore.Limits, clock: ArchiveStore.ManualClock? = nil
    ) throws -> ArchiveStore {
        try ArchiveStore(directory: fixture.directory, limits: limits, clock: clock?.clock ?? .system)
    }

    /// The size of the file `key` is stored in.
    private func fileSize(_ fixture: borrowing StoreFixture, _ key: String, in store: ArchiveStore? = nil) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.file(forKey: key, in: store).path)
        return (attributes[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test func theLeastRecentlyUsedGoFirstAndALoadCountsAsUse() throws {
        let fixture = try StoreFixture()
        let store = try open(fixture, .init(maximumCount: 3))
        for key in ["a", "b", "c"] { try store.save(key, forKey: key) }
        // "a" was saved first but is loaded now: "b" is the least recently used.
        #expect(try store.load(String.self, forKey: "a") == "a")
        try store.save("d", forKey: "d")
        #expect(store.keys == ["a", "c", "d"])
        #expect(try store.load(String.self, forKey: "b") == nil)
        // Saving again counts as use too.
        try store.save("c2", forKey: "c")
        try store.save("e", forKey: "e")
        // Order of use now: a (loaded), d, c (saved again): "a" goes.
        #expect(store.keys == ["c", "d", "e"])
        #expect(store.count == 3)
    }

    @Test func theByteLimitAloneKeepsTheTotalWithinItAndNeverRemovesTheValueBeingSaved() throws {
        let fixture = try StoreFixture()
        try fixture.store.save([Int](repeating: 7, count: 10), forKey: "probe")
        let size = try fileSize(fixture, "probe")
        try fixture.store.remove(forKey: "probe")
        let store = try open(fixture, .init(maximumBytes: size * 4))
        for i in 0..<10 { try store.save([Int](repeating: 7, count: 10), forKey: "k\(i)") }
        #expect(store.totalBytes <= size * 4)
        #expect(store.keys == ["k6", "k7", "k8", "k9"])
        // A value larger than the whole limit is kept, alone.
        try store.save([Int](repeating: 1, count: 5_000), forKey: "huge")
        #expect(store.keys == ["huge"])
        #expect(try store.load([Int].self, forKey: "huge")?.count == 5_000)
    }

    @Test func theAgeLimitRemovesValuesNotUsedWithinIt() throws {
        let fixture = try StoreFixture()
        let clock = ArchiveStore.ManualClock()
        let store = try open(fixture, .init(maximumAge: .seconds(300)), clock: clock)
        try store.save(1, forKey: "old")
        try store.save(2, forKey: "kept")
        clock.advance(by: .seconds(200))
        #expect(try store.load(Int.self, forKey: "kept") == 2)
        clock.advance(by: .seconds(101))
        try store.save(3, forKey: "new")
        #expect(store.keys == ["kept", "new"])
        clock.advance(by: .seconds(400))
        try store.trim()
        #expect(store.keys.isEmpty)
        #expect(StoreFixture.tree(at: fixture.directory).filter { $0.hasPrefix("key-") }.isEmpty)
    }

    @Test func limitsTogetherApplyTheStrictestAndExpiredValuesGoFirst() throws {
        let fixture = try StoreFixture()
        let clock = ArchiveStore.ManualClock()
        let store = try open(fixture, .init(maximumBytes: 1 << 20, maximumCount: 3), clock: clock)
        try store.save(1, forKey: "a")
        try store.save(2, forKey: "short", expiresAfter: .seconds(100))
        try store.save(3, forKey: "b")
        clock.advance(by: .seconds(100))
        // Four values for three places: the expired one goes, not "a", the least recently used.
        try store.save(4, forKey: "c")
        #expect(store.keys == ["a", "b", "c"])
        #expect(try store.load(Int.self, forKey: "a") == 1)
    }

    @Test func recencyAndLimitsSurviveARelaunch() throws {
        let fixture = try StoreFixture()
        do {
            let first = try open(fixture, .init(maximumCount: 3))
            for key in ["a", "b", "c"] { try first.save(key, forKey: key) }
            #expect(try first.load(String.self, forKey: "a") == "a")
        }
        // A new instance (as after a relaunch) knows "b" is the least recently used.
        let second = try open(fixture, .init(maximumCount: 3))
        #expect(second.count == 3)
        try second.save("d", forKey: "d")
        #expect(second.keys == ["a", "c", "d"])
    }

    @Test func twoInstancesOnOneFolderSeeEachOthersSavesAndUses() throws {
        let fixture = try StoreFixture()
        let one = try open(fixture, .init(maximumCount: 2))
        let other = try open(fixture, .init(maximumCount: 2))
        try one.save(1, forKey: "a")
        try other.save(2, forKey: "b")
        #expect(try other.load(Int.self, forKey: "a") == 1)  // "a" used through the other instance
        try one.save(3, forKey: "c")
        #expect(one.keys == ["a", "c"])
        #expect(other.keys == ["a", "c"])
    }

    @Test func countTotalBytesAndKeysCoverNamespacesAsTheLimitsDo() throws {
        let fixture = try StoreFixture()
        let clock = ArchiveStore.ManualClock()
        let store = try ArchiveStore(directory: fixture.directory, clock: clock.clock)
        try store.save(1, forKey: "a")
        try store.namespace("alice").save(2, forKey: "b")
        try store.namespace("alice").namespace("x").save(3, forKey: "c")
        try store.save(4, forKey: "gone", expiresAfter: .seconds(50))
        clock.advance(by: .seconds(50))
        let sizes = [
            try fileSize(fixture, "a"), try fileSize(fixture, "b", in: store.namespace("alice")),
            try fileSize(fixture, "c", in: store.namespace("alice").namespace("x")),
        ]
        #expect(store.count == 3)
        #expect(store.totalBytes == sizes.reduce(0, +))
        #expect(store.keys == ["a"])
        #expect(store.namespace("alice").count == 2)
        #expect(store.namespace("alice").totalBytes == sizes[1] + sizes[2])
        #expect(store.namespace("nobody").count == 0)
    }

    @Test func aDeletedOrDamagedJournalIsRebuiltFromTheFiles() throws {
        let fixture = try StoreFixture()
        let journal = fixture.directory.appending(path: ".journal")
        let clock = ArchiveStore.ManualClock()
        do {
            let store = try open(fixture, .init(maximumCount: 10), clock: clock)
            for i in 0..<5 { try store.save(i, forKey: "k\(i)", expiresAfter: i == 4 ? .seconds(50) : nil) }
        }
        clock.advance(by: .seconds(50))
        try FileManager.default.removeItem(at: journal)
        let rebuilt = try open(fixture, .init(maximumCount: 10), clock: clock)
        #expect(rebuilt.keys == ["k0", "k1", "k2", "k3"])  // the expiry was read from the file
        #expect(FileManager.default.fileExists(atPath: journal.path))

        // Garbage in the middle of the journal: the next instance scans the folder again.
        var bytes = try Data(contentsOf: journal)
        bytes.append(contentsOf: [0xFF, 0x00, 0x00, 0x00, 0xDE, 0xAD, 0xBE, 0xEF] + [UInt8](repeating: 0x41, count: 300))
        try bytes.write(to: journal)
        let afterDamage = try open(fixture, .init(maximumCount: 10), clock: clock)
        #expect(afterDamage.keys == ["k0", "k1", "k2", "k3"])
        try afterDamage.save(9, forKey: "k9")
        #expect(afterDamage.count == 5)
        for i in 0..<4 { #expect(try afterDamage.load(Int.self, forKey: "k\(i)") == i) }
    }

    @Test func trimTakesFilesAddedByHandAndRemovedByHandIntoAccount() throws {
        let fixture = try StoreFixture()
        let store = try open(fixture, .init(maximumCount: 2))
        try store.save(1, forKey: "a")
        try store.save(2, forKey: "b")
        // Another copy of the store's file under a third key, and one removed behind its back.
        let data = try KeyedArchiver.archivedData(withRootObject: 3)
        try data.write(to: fixture.file(forKey: "c"))
        try FileManager.default.removeItem(at: fixture.file(forKey: "a"))
        try store.trim()
        #expect(store.keys == ["b", "c"])
        try store.save(4, forKey: "d")
        #expect(store.count == 2)
    }

    @Test func withoutLimitsNothingIsEvictedAndTrimOnlyRemovesExpiredValues() throws {
        let fixture = try StoreFixture()
        let clock = ArchiveStore.ManualClock()
        let store = try ArchiveStore(directory: fixture.directory, clock: clock.clock)
        for i in 0..<50 { try store.save(i, forKey: "k\(i)") }
        try store.save(0, forKey: "short", expiresAfter: .seconds(50))
        clock.advance(by: .seconds(50))
        try store.trim()
        #expect(store.count == 50)
        #expect(!FileManager.default.fileExists(atPath: fixture.file(forKey: "short").path))
        #expect(fixture.store.limits == .unlimited)
    }

    @Test func limitsAreCheckedAndClamped() {
        let limits = ArchiveStore.Limits(maximumBytes: -5, maximumCount: -1, maximumAge: .seconds(-3))
        #expect(limits.maximumBytes == 0)
        #expect(limits.maximumCount == 0)
        #expect(limits.maximumAge == .zero)
        #expect(ArchiveStore.Limits() == .unlimited)
    }
}
