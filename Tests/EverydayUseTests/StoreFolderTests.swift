import ArchiveStore
import Foundation
import KeyedArchive
import Testing

/// Exact UTF-8 bytes, so that NFC and NFD spellings (equal to Swift's `==`) stay different.
private func bytes(_ names: [String]) -> [[UInt8]] { names.map { Array($0.utf8) } }

/// The path without a trailing slash.
private func path(_ url: URL) -> String {
    var path = url.standardizedFileURL.path(percentEncoded: false)
    while path.count > 1, path.hasSuffix("/") { path.removeLast() }
    return path
}

@Suite("A store's folder and its namespaces")
struct StoreFolderTests {
    @Test func directoryIsTheStoresFolderAndANamespacesOwnFolderInsideIt() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url.appending(path: "data/../store"))
        #expect(path(store.directory) == path(folder.url.appending(path: "store")))
        try store.save("root", forKey: "k")
        #expect(FileManager.default.fileExists(atPath: store.directory.appending(path: "key-k.archive").path))

        let alice = store.namespace("alice")
        #expect(!FileManager.default.fileExists(atPath: alice.directory.path))  // nothing saved yet
        try alice.save(Data(count: 10_000), forKey: "photo")
        let nested = alice.namespace("drafts")
        try nested.set(1, forKey: "count")
        #expect(path(alice.directory.deletingLastPathComponent()) == path(store.directory))
        #expect(path(nested.directory.deletingLastPathComponent()) == path(alice.directory))

        // The folder is where the bytes are: an app can measure it.
        let names = try FileManager.default.contentsOfDirectory(atPath: alice.directory.path)
        let file = try #require(names.first { $0.hasPrefix("key-") })
        let attributes = try FileManager.default.attributesOfItem(atPath: alice.directory.appending(path: file).path)
        #expect((attributes[.size] as? Int ?? 0) > 10_000)

        try alice.removeAll()
        #expect(!FileManager.default.fileExists(atPath: alice.directory.path))
        #expect(FileManager.default.fileExists(atPath: store.directory.path))
    }

    @Test func namespacesListsExactlyTheNamesGiven() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        let long = String(repeating: "ü", count: 300) + "-end"
        let names = [
            "+44 20 7946 0001", "Zoë", "caf\u{E9}", "cafe\u{301}", "日本語の名前", "👩‍👩‍👧", "a/b", "..", "", "UPPER",
            long, long + "2",
        ]
        #expect(store.namespaces.isEmpty)
        for name in names { try store.namespace(name).save(name, forKey: "name") }
        try store.save(1, forKey: "not a namespace")
        try store.namespace("parent").namespace("child").set(true, forKey: "flag")

        let expected = (names + ["parent"]).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(bytes(store.namespaces) == bytes(expected))
        #expect(bytes(store.namespace("parent").namespaces) == bytes(["child"]))
        #expect(store.namespace("parent").namespace("child").namespaces.isEmpty)
        #expect(store.namespace("nobody").namespaces.isEmpty)
        // Each listed name opens its own values again.
        for name in store.namespaces where name != "parent" {
            let value = try store.namespace(name).load(String.self, forKey: "name")
            #expect(value.map { Array($0.utf8) } == Array(name.utf8))
        }
    }

    @Test func aNamespaceIsListedUntilRemoveAllRemovesIt() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        let long = String(repeating: "long name ", count: 40)
        for name in ["short", long] {
            let namespace = store.namespace(name)
            try namespace.save(1, forKey: "k")
            try namespace.remove(forKey: "k")
            #expect(bytes(store.namespaces) == bytes([name]))  // emptied, still there
            try namespace.save(2, forKey: "k")
            try namespace.removeAll()
            #expect(store.namespaces.isEmpty)
        }
        try store.namespace(long).namespace("inner").save(3, forKey: "k")
        #expect(bytes(store.namespaces) == bytes([long]))
        try store.removeAll()
        #expect(store.namespaces.isEmpty)
    }
}
