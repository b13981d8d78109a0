import ArchiveStore
import Foundation
import KeyedArchive
import Testing

/// `ArchiveStore.batch(_:)`: all or nothing, for this instance, other instances and a batch
/// left half made by a killed process.
@Suite("ArchiveStore batches")
struct BatchTests {
    struct Layout: Archivable, Equatable {
        var columns = 0
        var sidebar = false
    }

    @Test func aBatchSavesAndRemovesTogether() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.set("light", forKey: "theme")
        try store.set(true, forKey: "legacyTheme")
        try store.batch { batch in
            try batch.set("dark", forKey: "theme")
            try batch.set(14, forKey: "fontSize")
            try batch.save(Layout(columns: 3, sidebar: true), forKey: "layout", expiresAfter: .seconds(3_600))
            try batch.remove(forKey: "legacyTheme")
            try batch.remove(forKey: "neverSaved")
        }
        #expect(store.string(forKey: "theme") == "dark")
        #expect(store.integer(forKey: "fontSize") == 14)
        #expect(try store.load(Layout.self, forKey: "layout") == Layout(columns: 3, sidebar: true))
        #expect(!store.contains("legacyTheme"))
        #expect(store.keys == ["fontSize", "layout", "theme"])
        #expect(fixture.temporaryFiles().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.appending(path: ".batch").path))
        // Another instance on the folder sees the same.
        let other = try ArchiveStore(directory: fixture.directory)
        #expect(other.integer(forKey: "fontSize") == 14)
    }

    @Test func aBatchWhoseClosureThrowsChangesNothing() throws {
        struct Cancelled: Error {}
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.set("light", forKey: "theme")
        #expect(throws: Cancelled.self) {
            try store.batch { batch in
                try batch.set("dark", forKey: "theme")
                try batch.set(14, forKey: "fontSize")
                throw Cancelled()
            }
        }
        #expect(store.string(forKey: "theme") == "light")
        #expect(!store.contains("fontSize"))
        #expect(fixture.temporaryFiles().isEmpty)
    }

    @Test func anUnencodableValueStopsTheBatchBeforeAnythingIsWritten() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.set(1, forKey: "a")
        let error = #expect(throws: ArchiveError.self) {
            try store.batch { batch in
                try batch.set(2, forKey: "a")
                try batch.save(Thread(), forKey: "b")
            }
        }
        #expect(error?.code == .notArchivable)
        #expect(store.integer(forKey: "a") == 1)
        #expect(!store.contains("b"))
    }

    @Test func theLastChangeOfAKeyInABatchWins() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.batch { batch in
            try batch.set(1, forKey: "a")
            try batch.remove(forKey: "a")
            try batch.set(3, forKey: "a")
            try batch.set(4, forKey: "b")
            try batch.remove(forKey: "b")
        }
        #expect(store.integer(forKey: "a") == 3)
        #expect(!store.contains("b"))
    }

    @Test func aBatchIsUsableOnlyInsideItsClosure() throws {
        let fixture = try StoreFixture()
        var kept: ArchiveStore.Batch?
        let answer = try fixture.store.batch { batch in
            kept = batch
            try batch.set(1, forKey: "a")
            return 42
        }
        #expect(answer == 42)
        let error = #expect(throws: ArchiveError.self) { try kept?.set(2, forKey: "a") }
        #expect(error?.code == .misuse)
        #expect(error?.reason == "this batch was already made; use a batch only inside the closure given to batch(_:)")
        #expect(fixture.store.integer(forKey: "a") == 1)
    }

    @Test func aBatchInANamespaceStaysInIt() throws {
        let fixture = try StoreFixture()
        let alice = fixture.store.namespace("alice")
        try alice.batch { batch in
            try batch.set(1, forKey: "a")
            try batch.set(2, forKey: "b")
        }
        #expect(alice.keys == ["a", "b"])
        #expect(fixture.store.keys.isEmpty)
    }

    @Test func aBatchIsNeverEvictedToMakeRoomForItself() throws {
        let fixture = try StoreFixture()
        let store = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 3))
        try store.set(0, forKey: "old")
        try store.batch { batch in
            for key in ["a", "b", "c", "d"] { try batch.set(1, forKey: key) }
        }
        // The batch is kept whole, everything else gives way; the next save evicts as usual.
        #expect(store.keys == ["a", "b", "c", "d"])
        try store.set(2, forKey: "e")
        #expect(store.count == 3)
        #expect(store.contains("e"))
    }

    /// A process killed after publishing its batch (`.batch` in place, some renames done): the
    /// next load finishes it, and every key reads its new value.
    @Test func aBatchLeftHalfMadeIsFinishedByTheNextLoad() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        for key in ["a", "b", "c", "gone"] { try store.set(0, forKey: key) }
        try store.leaveHalfMadeBatch(saving: [("a", 1), ("b", 2), ("c", 3)], removing: ["gone"], renamed: 1)
        #expect(FileManager.default.fileExists(atPath: fixture.directory.appending(path: ".batch").path))

        #expect(store.integer(forKey: "b") == 2)
        #expect(store.integer(forKey: "a") == 1)
        #expect(store.integer(forKey: "c") == 3)
        #expect(!store.contains("gone"))
        #expect(fixture.temporaryFiles().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.appending(path: ".batch").path))
    }

    /// The same found by a store opening the folder, which finishes it before it sweeps the
    /// temporary files of killed saves (the batch's own must not be taken for those).
    @Test func openingTheFolderFinishesABatchBeforeSweeping() throws {
        let fixture = try StoreFixture()
        try fixture.store.namespace("alice").leaveHalfMadeBatch(saving: [("a", 1), ("b", 2)], removing: [], renamed: 0)
        let reopened = try ArchiveStore(directory: fixture.directory).namespace("alice")
        #expect(fixture.temporaryFiles().isEmpty)
        #expect(reopened.integer(forKey: "a") == 1)
        #expect(reopened.integer(forKey: "b") == 2)
    }

    /// A `.batch` that is not a manifest (damage, or planted) renames and deletes nothing, and goes.
    @Test func aDamagedBatchFileIsRemovedWithoutTouchingValues() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.set(1, forKey: "a")
        var bytes = ArchiveStore.batchManifest(removing: "a", inFolder: "", durable: false)
        #expect(ArchiveStore.isAcceptedBatchManifest(bytes))
        bytes[bytes.count - 1] ^= 0xFF  // checksum broken
        #expect(!ArchiveStore.isAcceptedBatchManifest(bytes))
        try Data(bytes).write(to: fixture.directory.appending(path: ".batch"))
        #expect(store.integer(forKey: "a") == 1)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.appending(path: ".batch").path))

        // A manifest naming a place outside the store's files is refused as a whole.
        #expect(!ArchiveStore.isAcceptedBatchManifest(ArchiveStore.batchManifest(removing: "a", inFolder: "..", durable: true)))
        #expect(ArchiveStore.isAcceptedBatchManifest(ArchiveStore.batchManifest(removing: "a", inFolder: "ns-alice", durable: true)))
        // Cut anywhere, it is refused.
        let whole = ArchiveStore.batchManifest(removing: "a", inFolder: "ns-alice", durable: true)
        for length in 0..<whole.count { #expect(!ArchiveStore.isAcceptedBatchManifest(Array(whole.prefix(length)))) }
    }

    @Test func durabilityIsTheOpenersAndEachStandardStoreHasItsDefault() throws {
        let fixture = try StoreFixture()
        #expect(fixture.store.durability == .full)
        let buffered = try ArchiveStore(directory: fixture.directory, durability: .buffered)
        #expect(buffered.durability == .buffered)
        try buffered.set(5, forKey: "n")
        #expect(try ArchiveStore(directory: fixture.directory, durability: .buffered).integer(forKey: "n") == 5)
        #expect(buffered.namespace("x").durability == .buffered)
    }
}
