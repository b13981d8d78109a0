import ArchiveStore
import Foundation
import KeyedArchive
import Testing

extension ArchiveStore.Key {
    static var theme: ArchiveStore.Key<String> { .init("theme", default: "light") }
    static var fontSize: ArchiveStore.Key<Int> { .init("fontSize", default: 14) }
    static var recent: ArchiveStore.Key<[String]> { .init("recent", default: []) }
    static var item: ArchiveStore.Key<FeedItem?> { .init("item", default: nil) }
}

@Suite("ArchiveStore typed keys and async calls")
struct TypedKeyAndAsyncTests {
    @Test func aKeyReadsItsDefaultUntilSetAndAfterRemoval() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        #expect(store[.theme] == "light")
        #expect(store[.recent] == [])
        #expect(try store.value(for: .fontSize) == 14)
        try store.set("dark", for: .theme)
        try store.set(["a", "b"], for: .recent)
        try store.set(FeedItem(id: 1, title: "t", score: 0.5), for: .item)
        #expect(store[.theme] == "dark")
        #expect(store[.recent] == ["a", "b"])
        #expect(store[.item] == FeedItem(id: 1, title: "t", score: 0.5))
        #expect(try store.load(String.self, forKey: "theme") == "dark")  // an ordinary stored value
        try store.remove(for: .theme)
        #expect(store[.theme] == "light")
    }

    @Test func aKeyMayHoldAClassThatIsNotSendable() throws {
        let fixture = try StoreFixture()
        let key = ArchiveStore.Key<Profile?>("profile", default: nil)
        #expect(fixture.store[key] == nil)
        try fixture.store.set(Profile(name: "Ada", phone: "1"), for: key)
        #expect(fixture.store[key] == Profile(name: "Ada", phone: "1"))
    }

    @Test func aValueOfAnotherTypeReadsAsTheDefaultOrThrows() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        // A string converts as integer(forKey:) converts it ("not a number" reads as 0).
        try store.save("not a number", forKey: "fontSize")
        #expect(store[.fontSize] == 0)
        #expect(store.integer(forKey: "fontSize") == 0)
        // An array does not convert: the default, and value(for:) says why.
        try store.save([1, 2], forKey: "fontSize")
        #expect(store[.fontSize] == 14)
        #expect(store.integer(forKey: "fontSize") == 14)  // the key's default, known once the key was used
        let error = expectArchiveError(.typeMismatch) { _ = try store.value(for: .fontSize) }
        #expect(error?.reason.hasSuffix("key-font^size.archive: the stored value is an array, which does not read as Int") == true, "\(String(describing: error))")
    }

    @Test func anExpiredValueReadsAsTheDefault() async throws {
        let fixture = try StoreFixture()
        let clock = ArchiveStore.ManualClock()
        let store = try ArchiveStore(directory: fixture.directory, clock: clock.clock)
        try store.save("dark", forKey: "theme", expiresAfter: .seconds(50))
        #expect(store[.theme] == "dark")
        clock.advance(by: .seconds(50))
        #expect(store[.theme] == "light")
    }

    @MainActor
    @Test func asyncCallsFromTheMainActorSaveLoadAndRemove() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let profile = Profile(name: "Ada", phone: "1", tags: ["x"])
        try await store.async.save(profile, forKey: "p")
        let loaded = try await store.async.load(Profile.self, forKey: "p")
        #expect(loaded == profile)
        #expect(loaded !== profile)
        #expect(await store.async.contains("p"))
        try await store.async.remove(forKey: "p")
        #expect(try await store.async.load(Profile.self, forKey: "p") == nil)
        // An unencodable value fails on the caller's side, before any file work.
        await #expect(throws: ArchiveError.self) { try await store.async.save(NotArchivable(), forKey: "bad") }
        #expect(!store.contains("bad"))
    }

    @Test func manyAsyncSavesAtOnceAllLand() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<40 { group.addTask { try await store.async.save([i, i], forKey: "k\(i)") } }
            try await group.waitForAll()
        }
        for i in 0..<40 { #expect(try await store.async.load([Int].self, forKey: "k\(i)") == [i, i]) }
        #expect(store.count == 40)
    }
}
