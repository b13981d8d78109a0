import ArchiveStore
import Foundation
import KeyedArchive
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("ArchiveStore expiry")
struct ExpiryTests {
    @Test func expiredValueLoadsNilAndIsDeleted() throws {
        let fixture = try StoreFixture()
        try fixture.store.save("stale", forKey: "feed", expiresAfter: .seconds(-1))
        #expect(FileManager.default.fileExists(atPath: fixture.file(forKey: "feed").path))
        #expect(!fixture.store.contains("feed"))
        #expect(fixture.store.keys.isEmpty)
        #expect(try fixture.store.load(String.self, forKey: "feed") == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.file(forKey: "feed").path))
    }

    @Test func valueExpiresAfterItsDuration() async throws {
        let fixture = try StoreFixture()
        let clock = ArchiveStore.ManualClock()
        let store = try ArchiveStore(directory: fixture.directory, clock: clock.clock)
        try store.save("fresh", forKey: "feed", expiresAfter: .seconds(300))
        try store.save("forever", forKey: "other")
        clock.advance(by: .milliseconds(299_999))
        #expect(try store.load(String.self, forKey: "feed") == "fresh")
        #expect(store.contains("feed"))
        clock.advance(by: .milliseconds(1))
        #expect(!store.contains("feed"))
        #expect(FileManager.default.fileExists(atPath: fixture.file(forKey: "feed").path))
        #expect(try store.load(String.self, forKey: "feed") == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.file(forKey: "feed").path))
        #expect(try store.load(String.self, forKey: "other") == "forever")
    }

    @Test func savingAgainWithoutExpiryKeepsTheValue() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(1, forKey: "k", expiresAfter: .seconds(-1))
        try fixture.store.save(2, forKey: "k")
        #expect(try fixture.store.load(Int.self, forKey: "k") == 2)
    }

    @Test func expiryIsReadFromTheFileNotItsModificationTime() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(1, forKey: "expired", expiresAfter: .seconds(-1))
        try fixture.store.save(2, forKey: "fresh", expiresAfter: .seconds(3600))
        let future = Date(timeIntervalSinceNow: 86_400 * 365)
        let past = Date(timeIntervalSince1970: 0)
        try FileManager.default.setAttributes(
            [.modificationDate: future], ofItemAtPath: fixture.file(forKey: "expired").path)
        try FileManager.default.setAttributes(
            [.modificationDate: past], ofItemAtPath: fixture.file(forKey: "fresh").path)
        #expect(try fixture.store.load(Int.self, forKey: "expired") == nil)
        #expect(try fixture.store.load(Int.self, forKey: "fresh") == 2)
    }

    @Test func removeExpiredSweepsThisNamespaceAndNestedOnes() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let a = store.namespace("a")
        let ab = a.namespace("b")
        let c = store.namespace("c")
        for target in [store, a, ab, c] {
            try target.save(1, forKey: "old", expiresAfter: .seconds(-1))
            try target.save(2, forKey: "new", expiresAfter: .seconds(3600))
            try target.save(3, forKey: "kept")
        }
        try a.removeExpired()
        for target in [a, ab] {
            #expect(!FileManager.default.fileExists(atPath: fixture.file(forKey: "old", in: target).path))
            #expect(try target.load(Int.self, forKey: "new") == 2)
            #expect(try target.load(Int.self, forKey: "kept") == 3)
        }
        for target in [store, c] {
            #expect(FileManager.default.fileExists(atPath: fixture.file(forKey: "old", in: target).path))
        }
        try store.removeExpired()
        for target in [store, c] {
            #expect(!FileManager.default.fileExists(atPath: fixture.file(forKey: "old", in: target).path))
            #expect(target.keys == ["kept", "new"])
        }
    }

    @Test func anExpiredValueIsNotDeletedWhileTheLockIsHeld() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(1, forKey: "k", expiresAfter: .seconds(-1))
        // Another holder of the lock (a save in progress, in any process).
        let lock = open(fixture.directory.appending(path: ".lock").path, O_RDONLY | O_CLOEXEC)
        #expect(lock >= 0)
        #expect(flock(lock, LOCK_SH) == 0)
        #expect(try fixture.store.load(Int.self, forKey: "k") == nil)
        #expect(FileManager.default.fileExists(atPath: fixture.file(forKey: "k").path))
        close(lock)
        #expect(try fixture.store.load(Int.self, forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.file(forKey: "k").path))
    }

    @Test func longKeysExpireToo() throws {
        let fixture = try StoreFixture()
        let key = String(repeating: "long", count: 1_000)
        try fixture.store.save(1, forKey: key, expiresAfter: .seconds(-1))
        try fixture.store.save(2, forKey: key + "!", expiresAfter: .seconds(60))
        #expect(bytes(fixture.store.keys) == bytes([key + "!"]))
        try fixture.store.removeExpired()
        #expect(!FileManager.default.fileExists(atPath: fixture.file(forKey: key).path))
        #expect(try fixture.store.load(Int.self, forKey: key + "!") == 2)
    }
}
