import ArchiveStore
import Foundation
import KeyedArchive
import Testing

/// What every store promises, whatever keeps its values: each test runs once against a store on
/// a folder and once against a store in memory (``StoreKind``), and expects the same answers of
/// both, except where the kinds differ by design (``StoreContractTests/whatOnlyFilesHave(kind:)``).
///
/// The tests are spread over several files by subject: values, keys and namespaces here; typed
/// values, expiry and limits, batches and observation, upgrades and configuration in the others.
@Suite("ArchiveStore contract: a folder store and a memory store answer alike")
struct StoreContractTests {
    // MARK: - Values

    @Test("structs, strings, arrays and dictionaries load back as they were saved", arguments: StoreKind.allCases)
    func valuesRoundTrip(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            let profile = Profile(name: "Ada", phone: "+44 20 7946 0958", tags: ["vip", "early"])
            let settings = Settings(theme: "dark", fontSize: 18)
            let items = [FeedItem(id: 1, title: "One", score: 0.5), FeedItem(id: 2, title: "Two", score: -3)]
            let text = "caf\u{E9} \u{2615}\u{FE0F} line\nbreak and a NUL \u{0} inside"
            let board: [String: [Int]] = ["a": [1, 2], "b": [], "c": [Int.min, Int.max]]
            let nested: [[String: FeedItem]] = [["first": items[0]], [:], ["second": items[1]]]
            try store.save(profile, forKey: "archivable class")
            try store.save(settings, forKey: "archivable struct")
            try store.save(items, forKey: "codable array")
            try store.save(Point(x: 1.5, y: -2), forKey: "keyed coding")
            try store.save(text, forKey: "string")
            try store.save(board, forKey: "dictionary")
            try store.save(nested, forKey: "nested")
            try store.save(Data([0, 1, 2, 255]), forKey: "data")
            try store.save(Optional<Int>.none, forKey: "nil")

            let loadedProfile = try #require(try store.load(Profile.self, forKey: "archivable class"))
            #expect(loadedProfile.name == "Ada")
            #expect(loadedProfile.phone == "+44 20 7946 0958")
            #expect(loadedProfile.tags == ["vip", "early"])
            #expect(loadedProfile.joined == Date(timeIntervalSinceReferenceDate: 0))
            #expect(loadedProfile !== profile)  // a fresh decode, not the saved instance
            #expect(try store.load(Settings.self, forKey: "archivable struct") == settings)
            #expect(try store.load([FeedItem].self, forKey: "codable array") == items)
            #expect(try store.load(Point.self, forKey: "keyed coding") == Point(x: 1.5, y: -2))
            #expect(sameBytes(try store.load(String.self, forKey: "string"), text))
            #expect(try store.load([String: [Int]].self, forKey: "dictionary") == board)
            #expect(try store.load([[String: FeedItem]].self, forKey: "nested") == nested)
            #expect(try store.load(Data.self, forKey: "data") == Data([0, 1, 2, 255]))
            #expect(try store.load(Int?.self, forKey: "nil") == .some(nil))
            #expect(store.count == 9)
        }
    }

    @Test("an absent key loads nil and is in no listing or count", arguments: StoreKind.allCases)
    func absentKeys(kind: StoreKind) throws {
        try kind.withStore { store, _ throws in
            #expect(try store.load(Profile.self, forKey: "nobody") == nil)
            #expect(try store.load(Int.self, forKey: "") == nil)
            #expect(!store.contains("nobody"))
            #expect(store.keys == [])
            #expect(store.namespaces == [])
            #expect(store.count == 0)
            #expect(store.totalBytes == 0)
        }
    }

    @Test("a value read as another type throws .typeMismatch naming where it is kept, and stays", arguments: StoreKind.allCases)
    func wrongType(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            try store.save("text", forKey: "value")
            let error = try #require(throws: ArchiveError.self) { try store.load([Int].self, forKey: "value") }
            // The unarchiver's own error, its reason prefixed by the value's place.
            let expected = try decodingError(reading: "text", forKey: "value", as: [Int].self)
            #expect(error.code == .typeMismatch)
            #expect(error.reason == "\(place(ofKey: "value", in: store, kind: kind)): \(expected.reason)")
            #expect(error.keyPath == expected.keyPath)
            #expect(try store.load(String.self, forKey: "value") == "text")
            #expect(store.contains("value"))
        }
    }

    @Test("saving again replaces the value; the count and bytes follow", arguments: StoreKind.allCases)
    func saveReplaces(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            try store.save([1, 2, 3], forKey: "numbers")
            #expect(store.totalBytes == (try storedSize(of: [1, 2, 3], forKey: "numbers")))
            try store.save([4], forKey: "numbers")
            #expect(try store.load([Int].self, forKey: "numbers") == [4])
            #expect(store.keys == ["numbers"])
            #expect(store.count == 1)
            #expect(store.totalBytes == (try storedSize(of: [4], forKey: "numbers")))
        }
    }

    // MARK: - Keys

    /// Keys that a file name could confuse: spellings Swift's `==` equates, separators, dots,
    /// the empty string, a NUL, case, and keys far longer than a file name.
    static let oddKeys: [String] = [
        "caf\u{E9}",  // NFC
        "cafe\u{301}",  // NFD: the same text, other bytes
        "", "a/b", ".", "..", "A", "a", "nul\u{0}byte",
        // 1,000 characters (1,800 bytes) each, equal but for the last character.
        String(repeating: "ключ/", count: 199) + "ключ1",
        String(repeating: "ключ/", count: 199) + "ключ2",
    ]

    @Test("keys of any bytes are distinct: NFC and NFD, empty, a/b, dots, NUL, 1,000 characters", arguments: StoreKind.allCases)
    func oddKeysAreDistinct(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            #expect(Self.oddKeys[9].count == 1_000)
            for (position, key) in Self.oddKeys.enumerated() { try store.save(position, forKey: key) }
            for (position, key) in Self.oddKeys.enumerated() {
                #expect(try store.load(Int.self, forKey: key) == position, "\(bytes([key]))")
                #expect(store.contains(key), "\(bytes([key]))")
            }
            #expect(store.count == Self.oddKeys.count)
            // Ordered by UTF-8 bytes: the NFD spelling ("cafe" + U+0301) before the NFC one
            // ("caf" + U+00E9, whose first byte 0xC3 is above "e"), Cyrillic after ASCII.
            let expected = [
                "", ".", "..", "A", "a", "a/b", "cafe\u{301}", "caf\u{E9}", "nul\u{0}byte", Self.oddKeys[9], Self.oddKeys[10],
            ]
            #expect(bytes(store.keys) == bytes(expected))

            // Removing one spelling leaves the other.
            try store.remove(forKey: "caf\u{E9}")
            #expect(!store.contains("caf\u{E9}"))
            #expect(try store.load(Int.self, forKey: "cafe\u{301}") == 1)
            try store.remove(forKey: Self.oddKeys[10])
            #expect(try store.load(Int.self, forKey: Self.oddKeys[9]) == 9)
            #expect(bytes(store.keys) == bytes(expected.filter { !sameBytes($0, "caf\u{E9}") && !sameBytes($0, Self.oddKeys[10]) }))
        }
    }

    @Test("contains and remove; removing an absent key is no error", arguments: StoreKind.allCases)
    func containsAndRemove(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            try store.save(1, forKey: "one")
            try store.save(2, forKey: "two")
            #expect(store.contains("one"))
            #expect(!store.contains("One"))
            try store.remove(forKey: "one")
            #expect(!store.contains("one"))
            #expect(try store.load(Int.self, forKey: "one") == nil)
            try store.remove(forKey: "one")
            try store.remove(forKey: "never saved")
            #expect(store.keys == ["two"])
            #expect(store.count == 1)
            #expect(store.totalBytes == (try storedSize(of: 2, forKey: "two")))
        }
    }

    @Test("save(_:) and load(_:) use the type's archive class name as the key", arguments: StoreKind.allCases)
    func byTypeName(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            #expect(try store.load(Profile.self) == nil)
            try store.save(Profile(name: "Linus", phone: "1"))
            try store.save(Point(x: 3, y: 4))
            try store.save(Settings(theme: "dark", fontSize: 9))
            try store.save(FeedItem(id: 7, title: "t", score: 1))
            #expect(try store.load(Profile.self) == Profile(name: "Linus", phone: "1"))
            #expect(try store.load(Point.self) == Point(x: 3, y: 4))
            #expect(try store.load(Settings.self) == Settings(theme: "dark", fontSize: 9))
            #expect(try store.load(FeedItem.self) == FeedItem(id: 7, title: "t", score: 1))
            #expect(store.keys == ["ArchiveStoreTests.FeedItem", "ArchiveStoreTests.Settings", "Contacts.Profile", "Geometry.Point"])
            #expect(try store.load(Point.self, forKey: "Geometry.Point") == Point(x: 3, y: 4))
            // Saving again replaces the one value of the type.
            try store.save(Point(x: 5, y: 6))
            #expect(try store.load(Point.self) == Point(x: 5, y: 6))
            #expect(store.count == 4)
        }
    }

    @Test("a renamed type loads from its old name, and its next save(_:) removes the old key", arguments: StoreKind.allCases)
    func byTypeNameAfterARename(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            try store.save(OldMemo(title: "Memo", words: 2))  // as a build before the rename saved it
            #expect(store.keys == ["Upgrade.Memo"])
            let loaded = try #require(try store.load(Note.self))
            #expect(loaded == Note(title: "Memo", words: "2"))
            try store.save(loaded)
            #expect(store.keys == ["Upgrade.Note"])
            #expect(try store.load(Note.self) == Note(title: "Memo", words: "2"))
            #expect(store.count == 1)
        }
    }

    // MARK: - Namespaces

    @Test("namespaces keep the same key apart from each other and from their parent", arguments: StoreKind.allCases)
    func namespacesIsolate(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            let alice = store.namespace("alice")
            let bob = store.namespace("bob")
            try store.save("root", forKey: "profile")
            try alice.save("alice", forKey: "profile")
            try bob.save("bob", forKey: "profile")
            try alice.save(1, forKey: "only alice")
            #expect(try store.load(String.self, forKey: "profile") == "root")
            #expect(try alice.load(String.self, forKey: "profile") == "alice")
            #expect(try bob.load(String.self, forKey: "profile") == "bob")
            #expect(store.keys == ["profile"])
            #expect(alice.keys == ["only alice", "profile"])
            #expect(!store.contains("only alice") && !bob.contains("only alice"))
            // Asking again for a name gives the same namespace.
            #expect(try store.namespace("alice").load(Int.self, forKey: "only alice") == 1)
            try alice.remove(forKey: "profile")
            #expect(try store.load(String.self, forKey: "profile") == "root")
            #expect(try bob.load(String.self, forKey: "profile") == "bob")
            // A namespace and a key of the same name do not collide.
            try store.namespace("profile").save(2, forKey: "profile")
            #expect(try store.load(String.self, forKey: "profile") == "root")
            #expect(store.keys == ["profile"])
        }
    }

    @Test("namespaces nest, differ by exact bytes and are listed once they hold a value", arguments: StoreKind.allCases)
    func namespacesNestAndAreListed(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            let unused = store.namespace("never saved in")
            #expect(try unused.load(Int.self, forKey: "k") == nil)
            try unused.remove(forKey: "k")
            try unused.removeAll()
            try unused.removeExpired()
            #expect(store.namespaces == [])

            try store.namespace("a").namespace("b").save(1, forKey: "k")
            #expect(store.namespaces == ["a"])  // the parent of a nested namespace is listed too
            #expect(store.namespace("a").namespaces == ["b"])
            #expect(store.namespace("a").keys == [])
            #expect(try store.namespace("a").load(Int.self, forKey: "k") == nil)
            #expect(try store.namespace("a/b").load(Int.self, forKey: "k") == nil)

            for name in ["a/b", "caf\u{E9}", "cafe\u{301}", ""] { try store.namespace(name).save(name.utf8.count, forKey: "k") }
            #expect(bytes(store.namespaces) == bytes(["", "a", "a/b", "cafe\u{301}", "caf\u{E9}"]))
            #expect(try store.namespace("caf\u{E9}").load(Int.self, forKey: "k") == 5)
            #expect(try store.namespace("cafe\u{301}").load(Int.self, forKey: "k") == 6)
            #expect(try store.namespace("").load(Int.self, forKey: "k") == 0)
            #expect(store.keys == [])

            // Removing a namespace's values one by one leaves it listed, empty.
            try store.namespace("a/b").remove(forKey: "k")
            #expect(bytes(store.namespaces) == bytes(["", "a", "a/b", "cafe\u{301}", "caf\u{E9}"]))
        }
    }

    @Test("removeAll of a namespace removes it and its nested ones, and leaves its parent's values", arguments: StoreKind.allCases)
    func removeAllOfANamespace(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            let a = store.namespace("a")
            let ab = a.namespace("b")
            let c = store.namespace("c")
            for (index, target) in [store, a, ab, c].enumerated() {
                try target.save(index, forKey: "k")
                try target.set(true, forKey: "flag")
            }
            #expect(store.namespaces == ["a", "c"])
            #expect(store.count == 8)
            try a.removeAll()
            #expect(a.keys == [] && ab.keys == [])
            #expect(try ab.load(Int.self, forKey: "k") == nil)
            #expect(store.namespaces == ["c"])
            #expect(a.namespaces == [])
            #expect(try store.load(Int.self, forKey: "k") == 0)
            #expect(try c.load(Int.self, forKey: "k") == 3)
            #expect(store.bool(forKey: "flag") && c.bool(forKey: "flag"))
            #expect(store.count == 4)
            #expect(a.count == 0)

            // The namespace is usable again, and listed again once it holds a value.
            try ab.save(9, forKey: "k")
            #expect(try ab.load(Int.self, forKey: "k") == 9)
            #expect(store.namespaces == ["a", "c"])

            // At the root, removeAll empties everything.
            try store.removeAll()
            #expect(store.keys == [] && store.namespaces == [])
            #expect(store.count == 0 && store.totalBytes == 0)
            #expect(try c.load(Int.self, forKey: "k") == nil)
        }
    }

    @Test("count and totalBytes of the root cover its namespaces; a namespace's cover its nested ones", arguments: StoreKind.allCases)
    func countAndBytesCoverNamespaces(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            let alice = store.namespace("alice")
            let nested = alice.namespace("x")
            try store.save(1, forKey: "a")
            try alice.save("two", forKey: "b")
            try nested.save([3, 3, 3], forKey: "c")
            let sizes = [
                try storedSize(of: 1, forKey: "a"), try storedSize(of: "two", forKey: "b"),
                try storedSize(of: [3, 3, 3], forKey: "c"),
            ]
            #expect(store.count == 3)
            #expect(store.totalBytes == sizes[0] + sizes[1] + sizes[2])
            #expect(alice.count == 2)
            #expect(alice.totalBytes == sizes[1] + sizes[2])
            #expect(nested.count == 1)
            #expect(nested.totalBytes == sizes[2])
            #expect(store.namespace("nobody").count == 0)
            #expect(store.keys == ["a"])
        }
    }
}
