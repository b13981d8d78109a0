import ArchiveStore
import Foundation
import KeyedArchive
import Testing

@Suite("ArchiveStore memory tier")
struct MemoryTierTests {
    private func open(
        _ fixture: borrowing StoreFixture, memoryBytes: Int = 1 << 20, clock: ArchiveStore.Clock = .system
    ) throws -> ArchiveStore {
        try ArchiveStore(directory: fixture.directory, limits: .init(memoryBytes: memoryBytes), clock: clock)
    }

    @Test func aLoadAfterASaveOrALoadIsAnsweredFromMemory() throws {
        let fixture = try StoreFixture()
        let store = try open(fixture)
        let settings = Settings(theme: "dark", fontSize: 17)
        try store.save(settings, forKey: "settings")
        #expect(store.memoryTierStatistics.items == 1)
        #expect(try store.load(Settings.self, forKey: "settings") == settings)  // decodes the saved bytes
        #expect(try store.load(Settings.self, forKey: "settings") == settings)  // the decoded value
        #expect(store.memoryTierStatistics.hits == 2)
        // Another type goes to the disk and fails there as it would without the tier (the type
        // is not registered for Any), rather than being answered with the cached Settings.
        let error = expectArchiveError(.unknownClass) { _ = try store.load(Any.self, forKey: "settings") }
        #expect(error?.reason.contains("ArchiveStoreTests.Settings") == true)
        #expect(store.memoryTierStatistics.hits == 2)
    }

    @Test func aSaveThroughAnotherInstanceIsSeen() throws {
        let fixture = try StoreFixture()
        let store = try open(fixture)
        let other = try ArchiveStore(directory: fixture.directory)
        try store.save([1, 2, 3], forKey: "k")
        #expect(try store.load([Int].self, forKey: "k") == [1, 2, 3])
        try other.save([4], forKey: "k")
        #expect(try store.load([Int].self, forKey: "k") == [4])
        try other.remove(forKey: "k")
        #expect(try store.load([Int].self, forKey: "k") == nil)
        #expect(store.memoryTierStatistics.items == 0)
    }

    #if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow
    @Test func aSaveFromAnotherProcessIsSeen() throws {
        let fixture = try StoreFixture()
        let store = try open(fixture)
        try store.save([9, 9], forKey: "k")
        #expect(try store.load([Int].self, forKey: "k") == [9, 9])
        let result = try CrashChild.run(["save", fixture.directory.path, "k", "5"])
        #expect(result.output == "saved\n", "\(result.error)")
        #expect(try store.load([Int].self, forKey: "k") == [0, 1, 2, 3, 4])
        // Same length as before, saved again from outside: still seen.
        _ = try CrashChild.run(["save", fixture.directory.path, "k", "5"])
        #expect(try store.load([Int].self, forKey: "k") == [0, 1, 2, 3, 4])
    }
    #endif

    @Test func classInstancesAreDecodedAfreshOnEveryHit() throws {
        let fixture = try StoreFixture()
        let store = try open(fixture)
        try store.save(Profile(name: "Ada", phone: "1"), forKey: "p")
        let first = try #require(try store.load(Profile.self, forKey: "p"))
        first.name = "changed by a caller"
        let second = try #require(try store.load(Profile.self, forKey: "p"))
        #expect(first !== second)
        #expect(second.name == "Ada")
        #expect(store.memoryTierStatistics.hits == 2)
    }

    @Test func theLeastRecentlyUsedLeaveMemoryFirstAndExpiredValuesAreNotReturned() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(0, forKey: "probe")
        let size = try #require(
            (try FileManager.default.attributesOfItem(atPath: fixture.file(forKey: "probe").path)[.size] as? NSNumber)?
                .intValue)
        let clock = ArchiveStore.ManualClock()
        let store = try open(fixture, memoryBytes: size * 2, clock: clock.clock)
        try store.save(1, forKey: "a")
        try store.save(2, forKey: "b")
        _ = try store.load(Int.self, forKey: "a")
        try store.save(3, forKey: "c")  // "b" leaves memory
        #expect(store.memoryTierStatistics.items == 2)
        let hits = store.memoryTierStatistics.hits
        #expect(try store.load(Int.self, forKey: "b") == 2)
        #expect(store.memoryTierStatistics.hits == hits)
        try store.save(4, forKey: "short", expiresAfter: .seconds(50))
        clock.advance(by: .seconds(50))
        #expect(try store.load(Int.self, forKey: "short") == nil)
        #expect(store.memoryTierStatistics.hits == hits)
    }

    @Test func withoutMemoryBytesNothingIsKept() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(1, forKey: "k")
        _ = try fixture.store.load(Int.self, forKey: "k")
        #expect(fixture.store.memoryTierStatistics.items == 0)
    }
}
