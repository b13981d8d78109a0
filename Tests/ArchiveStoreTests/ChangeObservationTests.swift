import ArchiveStore
import Foundation
import KeyedArchive
import Testing

@Suite("ArchiveStore change observation", .serialized)  // one test counts every watcher of the process
struct ChangeObservationTests {
    /// Collects the first `count` elements of `sequence`, failing after `timeout`.
    static func first<S: AsyncSequence & Sendable>(
        _ count: Int, of sequence: S, timeout: Duration = .seconds(10)
    ) async throws -> [S.Element] where S.Element: Sendable {
        try await withThrowingTaskGroup(of: [S.Element]?.self) { group in
            group.addTask {
                var found: [S.Element] = []
                for try await element in sequence {
                    found.append(element)
                    if found.count == count { break }
                }
                return found
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let result = try await group.next() ?? nil
            group.cancelAll()
            return try #require(result, "timed out waiting for \(count) elements")
        }
    }

    @Test func savesRemovalsExpiriesAndEvictionsArriveInOrder() async throws {
        let fixture = try StoreFixture()
        // Three places for the whole store, the other namespace's value included.
        let clock = ArchiveStore.ManualClock()
        let store = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 3), clock: clock.clock)
        // The watch starts when the sequence is made: every change after this line is reported.
        let changes = store.changes()
        async let seen = Self.first(6, of: changes)
        try store.save(1, forKey: "a")
        try store.save(2, forKey: "short", expiresAfter: .seconds(30))
        try store.namespace("other").save(9, forKey: "elsewhere")  // another namespace: not reported
        clock.advance(by: .seconds(30))
        #expect(try store.load(Int.self, forKey: "short") == nil)  // expired: deleted by the load
        try store.save(3, forKey: "b")
        // Four values for three places: "a" is evicted, before "c" is reported saved (the save
        // makes room first).
        try store.save(4, forKey: "c")
        try store.remove(forKey: "b")
        let all = try await seen
        #expect(all.map(\.key) == ["a", "short", "short", "b", "a", "c"])
        #expect(all.map(\.kind) == [.saved, .saved, .expired, .saved, .evicted, .saved])
    }

    @Test func changesForOneKeyLeaveOthersOutAndRemoveAllReportsEachKey() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let keyChanges = store.changes(forKey: "k")
        let allChanges = store.changes()
        async let forKey = Self.first(2, of: keyChanges)
        async let all = Self.first(4, of: allChanges)
        try store.save(1, forKey: "other")
        try store.save(2, forKey: "k")
        try store.removeAll()
        #expect(try await forKey == [.init(key: "k", kind: .saved), .init(key: "k", kind: .removed)])
        let everything = try await all
        #expect(everything.prefix(2) == [.init(key: "other", kind: .saved), .init(key: "k", kind: .saved)])
        #expect(Set(everything.suffix(2)) == [.init(key: "other", kind: .removed), .init(key: "k", kind: .removed)])
    }

    @Test func valuesYieldTheCurrentValueThenEachNewOne() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.set("light", for: .theme)
        let values = store.values(for: .theme)
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == "light")
        try store.set("dark", for: .theme)
        #expect(await iterator.next() == "dark")
        try store.remove(for: .theme)
        #expect(await iterator.next() == "light")  // removed: the default
        let profiles = store.values(of: Profile.self, forKey: "p")
        var profileIterator = profiles.makeAsyncIterator()
        #expect(await profileIterator.next() == .some(nil))
        try store.save(Profile(name: "Ada", phone: "1"), forKey: "p")
        #expect(await profileIterator.next() == Profile(name: "Ada", phone: "1"))
    }

    #if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow
    @Test func changesFromAnotherProcessAreSeen() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let changes = store.changes(forKey: "k")
        async let seen = Self.first(2, of: changes)
        let first = try CrashChild.run(["save", fixture.directory.path, "k", "3"])
        #expect(first.output == "saved\n")
        let second = try CrashChild.run(["save", fixture.directory.path, "k", "4"])
        #expect(second.output == "saved\n")
        #expect(try await seen == [.init(key: "k", kind: .saved), .init(key: "k", kind: .saved)])
    }
    #endif

    @Test func endingAnIterationReleasesTheWatch() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.save(0, forKey: "k")
        // This store's folder only: tests running beside it watch folders of their own.
        let before = store.folderObservationResources
        var during = 0
        for _ in 0..<20 {
            _ = try await Self.first(1, of: store.values(of: Int.self, forKey: "k"))
            let abandoned = store.changes()  // made and dropped without iterating
            during = max(during, store.folderObservationResources)
            _ = abandoned
        }
        // Cancel handlers run on the watchers' queues: give them a moment.
        var after = store.folderObservationResources
        for _ in 0..<100 where after > before {
            try await Task.sleep(for: .milliseconds(20))
            after = store.folderObservationResources
        }
        #expect(during > before)
        #expect(after == before, "watchers and descriptors before: \(before), after: \(after)")
    }
}
