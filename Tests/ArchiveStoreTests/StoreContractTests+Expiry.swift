import ArchiveStore
import Foundation
import KeyedArchive
import Testing

// Expiry, limits and eviction, on both kinds of store, with time moved by the test's clock.

extension StoreContractTests {
    // MARK: - Expiry

    @Test("a value saved to expire after 60 s loads until 59.9 s later and is gone at 60 s", arguments: StoreKind.allCases)
    func expiryAtItsTime(kind: StoreKind) async throws {
        try await kind.withStore { store, clock in
            let changes = Observed(store.changes())
            defer { changes.stop() }
            let saved = clock.now
            try store.save("fresh", forKey: "feed", expiresAfter: .seconds(60))
            try store.save("forever", forKey: "other")
            try store.set(5, forKey: "typed")

            clock.now = saved.addingTimeInterval(59.9)
            #expect(try store.load(String.self, forKey: "feed") == "fresh")
            #expect(store.contains("feed"))
            #expect(store.keys == ["feed", "other", "typed"])
            #expect(store.count == 3)
            #expect(store.string(forKey: "feed") == "fresh")

            // Exactly 60 s after the save: expired, however it is asked for.
            clock.now = saved.addingTimeInterval(60)
            #expect(!store.contains("feed"))
            #expect(store.keys == ["other", "typed"])
            #expect(store.count == 2)
            #expect(store.totalBytes == (try storedSize(of: "forever", forKey: "other")) + (try storedSize(of: 5, forKey: "typed")))
            #expect(store.string(forKey: "feed") == nil)
            #expect(try store.load(String.self, forKey: "feed") == nil)
            #expect(try store.load(String.self, forKey: "other") == "forever")

            // The load deleted it: with the clock moved back, it is still gone.
            clock.now = saved
            #expect(try store.load(String.self, forKey: "feed") == nil)
            await changes.expectFirst([
                .init(key: "feed", kind: .saved), .init(key: "other", kind: .saved), .init(key: "typed", kind: .saved),
                .init(key: "feed", kind: .expired),
            ])
        }
    }

    @Test("saving again without expiry keeps the value for good", arguments: StoreKind.allCases)
    func savingAgainWithoutExpiry(kind: StoreKind) throws {
        try kind.withStore { store, clock in
            try store.save(1, forKey: "k", expiresAfter: .seconds(10))
            try store.save(2, forKey: "k")
            clock.advance(by: .seconds(3_600))
            #expect(try store.load(Int.self, forKey: "k") == 2)
        }
    }

    @Test("removeExpired deletes the expired values of a namespace and its nested ones, and no others", arguments: StoreKind.allCases)
    func removeExpired(kind: StoreKind) async throws {
        try await kind.withStore { store, clock in
            let a = store.namespace("a")
            let ab = a.namespace("b")
            let c = store.namespace("c")
            let saved = clock.now
            for target in [store, a, ab, c] {
                try target.save(1, forKey: "old", expiresAfter: .seconds(10))
                try target.save(2, forKey: "new", expiresAfter: .seconds(3_600))
                try target.save(3, forKey: "kept")
            }
            let changesOfA = Observed(a.changes())
            let changesOfRoot = Observed(store.changes())
            defer {
                changesOfA.stop()
                changesOfRoot.stop()
            }
            clock.advance(by: .seconds(20))
            try a.removeExpired()
            // With the clock moved back, what removeExpired deleted stays deleted and the rest is back.
            clock.now = saved
            for target in [a, ab] {
                #expect(try target.load(Int.self, forKey: "old") == nil)
                #expect(target.keys == ["kept", "new"])
            }
            for target in [store, c] {
                #expect(try target.load(Int.self, forKey: "old") == 1)
                #expect(target.keys == ["kept", "new", "old"])
            }
            clock.advance(by: .seconds(20))
            try store.removeExpired()
            clock.now = saved
            for target in [store, c] { #expect(try target.load(Int.self, forKey: "old") == nil) }
            #expect(store.count == 8)
            await changesOfA.expectFirst([.init(key: "old", kind: .expired)])
            await changesOfRoot.expectFirst([.init(key: "old", kind: .expired)])
        }
    }

    // MARK: - Limits and eviction

    @Test("maximumCount evicts the least recently used value; loads and typed reads count as use", arguments: StoreKind.allCases)
    func maximumCountEvictsLeastRecentlyUsed(kind: StoreKind) async throws {
        try await kind.withStore(limits: .init(maximumCount: 3)) { store, clock in
            let changes = Observed(store.changes())
            defer { changes.stop() }
            for key in ["a", "b", "c"] {
                try store.save(key, forKey: key)
                clock.advance(by: .seconds(1))
            }
            // "a" was saved first but is loaded now: "b" is the least recently used.
            #expect(try store.load(String.self, forKey: "a") == "a")
            clock.advance(by: .seconds(1))
            try store.save("d", forKey: "d")
            #expect(store.keys == ["a", "c", "d"])
            #expect(try store.load(String.self, forKey: "b") == nil)
            clock.advance(by: .seconds(1))
            // Order of use now: c, a, d. Saving "c" again and reading "a" with a typed getter
            // make "d" the least recently used.
            try store.save("c2", forKey: "c")
            clock.advance(by: .seconds(1))
            #expect(store.string(forKey: "a") == "a")
            clock.advance(by: .seconds(1))
            try store.save("e", forKey: "e")
            #expect(store.keys == ["a", "c", "e"])
            #expect(store.count == 3)
            // Each removal is reported before the save that made room with it.
            await changes.expectFirst([
                .init(key: "a", kind: .saved), .init(key: "b", kind: .saved), .init(key: "c", kind: .saved),
                .init(key: "b", kind: .evicted), .init(key: "d", kind: .saved),
                .init(key: "c", kind: .saved),
                .init(key: "d", kind: .evicted), .init(key: "e", kind: .saved),
            ])
        }
    }

    @Test("maximumCount counts the values of every namespace", arguments: StoreKind.allCases)
    func limitsCountNamespaces(kind: StoreKind) throws {
        try kind.withStore(limits: .init(maximumCount: 2)) { store, clock in
            try store.save(1, forKey: "root")
            clock.advance(by: .seconds(1))
            try store.namespace("x").save(2, forKey: "nested")
            clock.advance(by: .seconds(1))
            try store.namespace("y").namespace("z").save(3, forKey: "deep")
            #expect(store.count == 2)
            #expect(store.keys == [])
            #expect(store.namespace("x").keys == ["nested"])
            #expect(store.namespace("y").namespace("z").keys == ["deep"])
        }
    }

    @Test("maximumBytes keeps the total within it; a value larger than the limit is kept, alone", arguments: StoreKind.allCases)
    func maximumBytes(kind: StoreKind) async throws {
        let value = [Int](repeating: 7, count: 10)
        let size = try storedSize(of: value, forKey: "k0")
        try await kind.withStore(limits: .init(maximumBytes: size * 4)) { store, clock in
            for i in 0..<10 {
                try store.save(value, forKey: "k\(i)")
                clock.advance(by: .seconds(1))
            }
            #expect(store.keys == ["k6", "k7", "k8", "k9"])
            #expect(store.totalBytes == size * 4)

            let changes = Observed(store.changes())
            defer { changes.stop() }
            let huge = [Int](repeating: 1, count: 5_000)
            try store.save(huge, forKey: "huge")
            #expect(store.keys == ["huge"])
            #expect(store.totalBytes == (try storedSize(of: huge, forKey: "huge")))
            #expect(try store.load([Int].self, forKey: "huge") == huge)
            await changes.expectFirst(["k6", "k7", "k8", "k9"].map { .init(key: $0, kind: .evicted) } + [
                .init(key: "huge", kind: .saved)
            ])
        }
    }

    @Test("maximumAge removes values unused for longer, at the next save or trim()", arguments: StoreKind.allCases)
    func maximumAge(kind: StoreKind) async throws {
        try await kind.withStore(limits: .init(maximumAge: .seconds(300))) { store, clock in
            let changes = Observed(store.changes())
            defer { changes.stop() }
            try store.save(1, forKey: "old")
            try store.save(2, forKey: "kept")
            clock.advance(by: .seconds(200))
            #expect(try store.load(Int.self, forKey: "kept") == 2)
            clock.advance(by: .seconds(200))
            // "old" went unused for 400 s, "kept" for 200 s.
            #expect(store.keys == ["kept", "old"])  // nothing happens until a save or a trim
            try store.save(3, forKey: "new")
            #expect(store.keys == ["kept", "new"])

            // 300 s unused is not longer than the limit; a moment more is.
            clock.advance(by: .seconds(100))  // "kept" unused for 300 s
            try store.save(4, forKey: "probe")
            #expect(store.keys == ["kept", "new", "probe"])
            clock.advance(by: .seconds(0.5))
            try store.save(5, forKey: "probe 2")
            #expect(store.keys == ["new", "probe", "probe 2"])

            // One trim: a folder store rewrites its journal at each trim, and an observer that
            // has not caught up with one rewrite when the next comes misses the changes between
            // them (a known defect of the folder store's observation).
            clock.advance(by: .seconds(500))
            try store.trim()
            #expect(store.keys == [])
            await changes.expectFirst([
                .init(key: "old", kind: .saved), .init(key: "kept", kind: .saved),
                .init(key: "old", kind: .evicted), .init(key: "new", kind: .saved),
                .init(key: "probe", kind: .saved),
                .init(key: "kept", kind: .evicted), .init(key: "probe 2", kind: .saved),
                .init(key: "new", kind: .evicted), .init(key: "probe", kind: .evicted), .init(key: "probe 2", kind: .evicted),
            ])
        }
    }

    @Test("expired values go first, reported as .expired, before the least recently used", arguments: StoreKind.allCases)
    func expiredValuesGoFirst(kind: StoreKind) async throws {
        try await kind.withStore(limits: .init(maximumCount: 3)) { store, clock in
            let changes = Observed(store.changes())
            defer { changes.stop() }
            try store.save(1, forKey: "a")
            clock.advance(by: .seconds(1))
            try store.save(2, forKey: "short", expiresAfter: .seconds(100))
            clock.advance(by: .seconds(1))
            try store.save(3, forKey: "b")
            clock.advance(by: .seconds(200))
            // Four values for three places: the expired one goes, not "a", the least recently used.
            try store.save(4, forKey: "c")
            #expect(store.keys == ["a", "b", "c"])
            #expect(try store.load(Int.self, forKey: "a") == 1)
            await changes.expectFirst([
                .init(key: "a", kind: .saved), .init(key: "short", kind: .saved), .init(key: "b", kind: .saved),
                .init(key: "short", kind: .expired), .init(key: "c", kind: .saved),
            ])
        }
    }

    @Test("trim() applies the limits now; without limits it only removes expired values", arguments: StoreKind.allCases)
    func trimWithoutLimits(kind: StoreKind) async throws {
        try await kind.withStore { store, clock in
            for i in 0..<5 { try store.save(i, forKey: "k\(i)") }
            try store.save(0, forKey: "short", expiresAfter: .seconds(10))
            let changes = Observed(store.changes())
            defer { changes.stop() }
            clock.advance(by: .seconds(10_000))
            try store.trim()
            #expect(store.count == 5)
            #expect(store.limits == .unlimited)
            await changes.expectFirst([.init(key: "short", kind: .expired)])
            clock.now = StoreKind.start
            #expect(try store.load(Int.self, forKey: "short") == nil)  // deleted, not only hidden
        }
    }
}
