import ArchiveStore
import Foundation
import KeyedArchive
import Testing

// Batches and observation, on both kinds of store. Every observer is made before the changes it
// waits for (a watch starts when `changes()` returns), and waits with a deadline.

extension StoreContractTests {
    struct Cancelled: Error {}

    // MARK: - Batches

    @Test("a batch's saves and removes are all made, and observers get them in order", arguments: StoreKind.allCases)
    func batchSavesAndRemoves(kind: StoreKind) async throws {
        try await kind.withStore { store, _ in
            try store.set("light", forKey: "theme")
            try store.set(true, forKey: "legacy")
            let changes = Observed(store.changes())
            defer { changes.stop() }
            let result = try store.batch { batch in
                try batch.set("dark", forKey: "theme")
                try batch.set(14, forKey: "size")
                try batch.save(Settings(theme: "dark", fontSize: 14), forKey: "settings", expiresAfter: .seconds(3_600))
                try batch.remove(forKey: "legacy")
                try batch.remove(forKey: "never saved")
                return "made"
            }
            #expect(result == "made")
            #expect(store.string(forKey: "theme") == "dark")
            #expect(store.integer(forKey: "size") == 14)
            #expect(try store.load(Settings.self, forKey: "settings") == Settings(theme: "dark", fontSize: 14))
            #expect(!store.contains("legacy"))
            #expect(store.keys == ["settings", "size", "theme"])
            // Removing a key that holds nothing changes nothing, and is not reported.
            await changes.expectFirst([
                .init(key: "theme", kind: .saved), .init(key: "size", kind: .saved), .init(key: "settings", kind: .saved),
                .init(key: "legacy", kind: .removed),
            ])
        }
    }

    @Test("a batch whose closure throws changes nothing and reports nothing", arguments: StoreKind.allCases)
    func throwingBatch(kind: StoreKind) async throws {
        try await kind.withStore { store, _ in
            try store.set("light", forKey: "theme")
            try store.set(1, forKey: "gone")
            let changes = Observed(store.changes())
            defer { changes.stop() }
            #expect(throws: Cancelled.self) {
                try store.batch { batch in
                    try batch.set("dark", forKey: "theme")
                    try batch.set(14, forKey: "size")
                    try batch.remove(forKey: "gone")
                    throw Cancelled()
                }
            }
            let error = try #require(throws: ArchiveError.self) {
                try store.batch { batch in
                    try batch.set(2, forKey: "theme")
                    try batch.save(NotArchivable(), forKey: "bad")
                }
            }
            #expect(error.code == .notArchivable)
            #expect(store.string(forKey: "theme") == "light")
            #expect(!store.contains("size") && !store.contains("bad"))
            #expect(store.integer(forKey: "gone") == 1)
            #expect(store.keys == ["gone", "theme"])
            // The first change observers see is the one made after the failed batches.
            try store.set(true, forKey: "after")
            await changes.expectFirst([.init(key: "after", kind: .saved)])
        }
    }

    @Test("a key changed twice in a batch keeps the last change", arguments: StoreKind.allCases)
    func lastChangeWins(kind: StoreKind) async throws {
        try await kind.withStore { store, _ in
            try store.set(0, forKey: "b")
            try store.set(0, forKey: "c")
            let changes = Observed(store.changes())
            defer { changes.stop() }
            try store.batch { batch in
                try batch.set(1, forKey: "a")
                try batch.set(2, forKey: "a")
                try batch.remove(forKey: "b")
                try batch.set(3, forKey: "b")
                try batch.set(5, forKey: "c")
                try batch.remove(forKey: "c")
            }
            #expect(store.integer(forKey: "a") == 2)
            #expect(store.integer(forKey: "b") == 3)
            #expect(!store.contains("c"))
            #expect(store.keys == ["a", "b"])
            await changes.expectFirst([
                .init(key: "a", kind: .saved), .init(key: "b", kind: .saved), .init(key: "c", kind: .removed),
            ])
        }
    }

    @Test("a batch used after it was made throws .misuse", arguments: StoreKind.allCases)
    func batchMisuse(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            var kept: ArchiveStore.Batch?
            try store.batch { batch in
                kept = batch
                try batch.set(1, forKey: "a")
            }
            let batch = try #require(kept)
            let error = try #require(throws: ArchiveError.self) { try batch.set(2, forKey: "a") }
            #expect(error.code == .misuse)
            #expect(error.reason == "this batch was already made; use a batch only inside the closure given to batch(_:)")
            #expect(throws: ArchiveError.self) { try batch.remove(forKey: "a") }
            #expect(store.integer(forKey: "a") == 1)
        }
    }

    @Test("a batch is never evicted to make room for itself; older values go", arguments: StoreKind.allCases)
    func batchIsNotEvictedForItself(kind: StoreKind) async throws {
        try await kind.withStore(limits: .init(maximumCount: 2)) { store, clock in
            try store.save(0, forKey: "old")
            clock.advance(by: .seconds(1))
            let changes = Observed(store.changes())
            defer { changes.stop() }
            try store.batch { batch in
                for key in ["a", "b", "c"] { try batch.save(key, forKey: key) }
            }
            #expect(store.keys == ["a", "b", "c"])
            #expect(store.count == 3)
            await changes.expectFirst([.init(key: "old", kind: .evicted)] + ["a", "b", "c"].map { .init(key: $0, kind: .saved) })
            changes.stop()  // before the next change (see Observed.stop())
            // The next save brings the store within its limits again.
            clock.advance(by: .seconds(1))
            try store.save("d", forKey: "d")
            #expect(store.count == 2)
            #expect(store.contains("d"))
        }
    }

    @Test("a batch that removes as many values as it adds evicts nothing", arguments: StoreKind.allCases)
    func batchWithinLimitsEvictsNothing(kind: StoreKind) throws {
        try kind.withStore(limits: .init(maximumCount: 3)) { store, clock in
            for key in ["a", "b", "c"] {
                try store.save(key, forKey: key)
                clock.advance(by: .seconds(1))
            }
            try store.batch { batch in
                try batch.remove(forKey: "a")
                try batch.save("d", forKey: "d")
            }
            // The batch's removal leaves the room its save needs: nothing is evicted.
            #expect(store.keys == ["b", "c", "d"])
            #expect(store.count == 3)
        }
    }

    // MARK: - Observation

    /// An observing task cancelled while a change is being handed to it ends, and so does the
    /// store's watch: stopping the watch never waits for the delivery, which itself waits for the
    /// cancelled task.
    @Test(.timeLimit(.minutes(1)), arguments: StoreKind.allCases)
    func observersCancelledWhileChangesArriveEnd(kind: StoreKind) async throws {
        try await kind.withStore { store, _ in
            for round in 0..<40 {
                let observer = Observed(store.changes())
                let values = Observed(store.values(of: Int.self, forKey: "k"))
                for i in 0..<(round % 7 + 1) { try store.save(i, forKey: "k") }
                // Cancelled with changes still on their way to it.
                observer.stop()
                values.stop()
            }
            // The store still tells a new observer about a new change.
            let last = Observed(store.changes(forKey: "last"))
            try store.save(1, forKey: "last")
            await last.expectFirst([.init(key: "last", kind: .saved)])
        }
    }

    @Test("changes() and changes(forKey:) report this namespace's saves and removals in order", arguments: StoreKind.allCases)
    func changesInOrder(kind: StoreKind) async throws {
        try await kind.withStore { store, _ in
            let all = Observed(store.changes())
            let forK = Observed(store.changes(forKey: "k"))
            let nested = Observed(store.namespace("other").changes())
            defer {
                all.stop()
                forK.stop()
                nested.stop()
            }
            try store.save(1, forKey: "other")
            try store.save(2, forKey: "k")
            try store.namespace("other").save(9, forKey: "elsewhere")  // not this namespace's
            try store.remove(forKey: "never saved")  // nothing removed: not reported
            try store.set(3, forKey: "k")
            try store.remove(forKey: "k")
            try store.save(4, forKey: "async")
            try store.removeAll()
            await forK.expectFirst([
                .init(key: "k", kind: .saved), .init(key: "k", kind: .saved), .init(key: "k", kind: .removed),
            ])
            let everything = await all.first(7)
            #expect(
                everything.prefix(5) == [
                    .init(key: "other", kind: .saved), .init(key: "k", kind: .saved), .init(key: "k", kind: .saved),
                    .init(key: "k", kind: .removed), .init(key: "async", kind: .saved),
                ])
            // removeAll reports each value it removed, in no promised order.
            #expect(Set(everything.suffix(2)) == [.init(key: "other", kind: .removed), .init(key: "async", kind: .removed)])
            await nested.expectFirst([.init(key: "elsewhere", kind: .saved), .init(key: "elsewhere", kind: .removed)])
        }
    }

    @Test("values(of:forKey:) yields the value now, then after each change: nil once removed", arguments: StoreKind.allCases)
    func valuesFollowTheKey(kind: StoreKind) async throws {
        try await kind.withStore { store, _ in
            // Each value is read when its change arrives: the test waits for each one before
            // the next change, so that every change yields the value it made.
            let one = FeedItem(id: 1, title: "One", score: 0.5)
            let two = FeedItem(id: 2, title: "Two", score: 1)
            let items = Observed(store.values(of: FeedItem.self, forKey: "item"))
            defer { items.stop() }
            await items.expectFirst([nil])
            try store.save(one, forKey: "item")
            await items.expectFirst([nil, one])
            try store.save(two, forKey: "item")
            await items.expectFirst([nil, one, two])
            try store.save(5, forKey: "unrelated")  // another key: nothing to yield
            try store.remove(forKey: "item")
            await items.expectFirst([nil, one, two, nil])
            try store.save("a string", forKey: "item")  // not a FeedItem: nil
            await items.expectFirst([nil, one, two, nil, nil])
            try store.save(one, forKey: "item")
            await items.expectFirst([nil, one, two, nil, nil, one])

            let theme = ArchiveStore.Key<String>("theme", default: "light")
            try store.set("dark", for: theme)
            let themes = Observed(store.values(for: theme))
            defer { themes.stop() }
            await themes.expectFirst(["dark"])
            try store.remove(for: theme)
            await themes.expectFirst(["dark", "light"])
            try store.set("blue", for: theme)
            await themes.expectFirst(["dark", "light", "blue"])
        }
    }
}
