import ArchiveStore
import Foundation
import KeyedArchive
import Testing

@Suite("ArchiveStore namespaces")
struct NamespaceTests {
    @Test func namespacesIsolateTheSameKey() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let alice = store.namespace("+15551234567")
        let bob = store.namespace("+15559876543")
        try store.save("root", forKey: "profile")
        try alice.save("alice", forKey: "profile")
        try bob.save("bob", forKey: "profile")
        #expect(try store.load(String.self, forKey: "profile") == "root")
        #expect(try alice.load(String.self, forKey: "profile") == "alice")
        #expect(try bob.load(String.self, forKey: "profile") == "bob")
        #expect(store.keys == ["profile"])
        #expect(alice.keys == ["profile"])
        try alice.remove(forKey: "profile")
        #expect(try bob.load(String.self, forKey: "profile") == "bob")
        #expect(try store.load(String.self, forKey: "profile") == "root")
    }

    @Test func aNamespaceAndAKeyWithTheSameNameDoNotCollide() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(1, forKey: "profile")
        try fixture.store.namespace("profile").save(2, forKey: "profile")
        try fixture.store.namespace("key-profile.archive").save(3, forKey: "x")
        #expect(try fixture.store.load(Int.self, forKey: "profile") == 1)
        #expect(try fixture.store.namespace("profile").load(Int.self, forKey: "profile") == 2)
        #expect(fixture.store.keys == ["profile"])
    }

    @Test func namespacesNestAndDifferByExactBytes() throws {
        let fixture = try StoreFixture()
        let nested = fixture.store.namespace("a").namespace("b")
        try nested.save(1, forKey: "k")
        #expect(try fixture.store.namespace("a").load(Int.self, forKey: "k") == nil)
        #expect(try fixture.store.namespace("a/b").load(Int.self, forKey: "k") == nil)
        #expect(try fixture.store.namespace("a").namespace("b").load(Int.self, forKey: "k") == 1)
        try fixture.store.namespace("caf\u{E9}").save(1, forKey: "k")
        #expect(try fixture.store.namespace("cafe\u{301}").load(Int.self, forKey: "k") == nil)
    }

    @Test func namespaceCreatesNothingUntilASave() throws {
        let fixture = try StoreFixture()
        let before = StoreFixture.tree(at: fixture.parent)
        let namespace = fixture.store.namespace("later")
        #expect(namespace.keys.isEmpty)
        #expect(try namespace.load(Int.self, forKey: "k") == nil)
        try namespace.remove(forKey: "k")
        try namespace.removeAll()
        try namespace.removeExpired()
        #expect(StoreFixture.tree(at: fixture.parent) == before)
    }

    @Test func removeAllClearsThisNamespaceAndNestedOnesOnly() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let a = store.namespace("a")
        let ab = a.namespace("b")
        let c = store.namespace("c")
        for (index, target) in [store, a, ab, c].enumerated() {
            try target.save(index, forKey: "k")
            try target.set(true, forKey: "flag")
        }
        try a.removeAll()
        #expect(a.keys.isEmpty)
        #expect(ab.keys.isEmpty)
        #expect(try store.load(Int.self, forKey: "k") == 0)
        #expect(try c.load(Int.self, forKey: "k") == 3)
        #expect(store.bool(forKey: "flag") && c.bool(forKey: "flag"))
        #expect(!FileManager.default.fileExists(atPath: a.directory.path))
        // The namespace is usable again afterwards.
        try ab.save(9, forKey: "k")
        #expect(try ab.load(Int.self, forKey: "k") == 9)
    }

    @Test func removeAllAtTheRootClearsEverythingButForeignFiles() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.save(1, forKey: "k")
        try store.namespace("a").namespace("b").save(2, forKey: "k")
        let readme = fixture.directory.appending(path: "README.txt")
        try Data("mine".utf8).write(to: readme)
        let foreignInNamespace = store.namespace("c").directory
        try store.namespace("c").save(3, forKey: "k")
        try Data("mine".utf8).write(to: foreignInNamespace.appending(path: "notes.txt"))
        try store.removeAll()
        #expect(store.keys.isEmpty)
        #expect(try store.namespace("a").namespace("b").load(Int.self, forKey: "k") == nil)
        #expect(try store.namespace("c").load(Int.self, forKey: "k") == nil)
        #expect(StoreFixture.tree(at: fixture.directory) == [".journal", ".lock", "README.txt", "ns-c", "ns-c/notes.txt"])
    }
}
