import ArchiveStore
import Foundation
import KeyedArchive
import Testing

@Suite("ArchiveStore hostile keys")
struct HostileKeyTests {
    /// Every key here must round-trip under exactly itself.
    static let hostileKeys: [String] = [
        "/", "..", "../../etc/passwd", "/etc/passwd", "a/../../b", "nul\u{0}byte", "\u{0}",
        String(repeating: "\u{E9}t\u{E9}/", count: 1_250),  // 5,000 characters
        String(repeating: "k", count: 5_000),
        "caf\u{E9}", "cafe\u{301}", "\u{E9}", "e\u{301}",  // NFC vs NFD
        "A", "a", "", ".", "...", " ", "key-a.archive", "ns-a", ".lock", ".tmp-1-2-3", "~", "%2f", "^a", "CON", "nul",
        "\u{202E}rtl", "\u{1F600}",
    ]

    @Test func eachHostileKeyRoundTripsUnderExactlyItsKey() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let before = StoreFixture.tree(at: fixture.parent).filter { !$0.hasPrefix("store") }
        for (index, key) in Self.hostileKeys.enumerated() {
            try store.save("value \(index)", forKey: key)
        }
        for (index, key) in Self.hostileKeys.enumerated() {
            let loaded = try store.load(String.self, forKey: key)
            #expect(
                sameBytes(loaded, "value \(index)"),
                "key #\(index) \(key.debugDescription.prefix(40)) read \(loaded ?? "nil")")
            #expect(store.contains(key))
        }
        let listed = bytes(store.keys)
        #expect(listed.count == Self.hostileKeys.count)
        #expect(Set(listed) == Set(bytes(Self.hostileKeys)))
        // One file per key, each named inside the store directory.
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).filter {
            $0.hasPrefix("key-")
        }
        #expect(files.count == Self.hostileKeys.count)
        // Nothing next to the store directory.
        #expect(StoreFixture.tree(at: fixture.parent).filter { !$0.hasPrefix("store") } == before)

        for key in Self.hostileKeys { try store.remove(forKey: key) }
        #expect(store.keys.isEmpty)
    }

    @Test func normalisationsAndCaseAreDifferentKeys() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.save(1, forKey: "caf\u{E9}")
        try store.save(2, forKey: "cafe\u{301}")
        try store.save(3, forKey: "A")
        try store.save(4, forKey: "a")
        #expect(try store.load(Int.self, forKey: "caf\u{E9}") == 1)
        #expect(try store.load(Int.self, forKey: "cafe\u{301}") == 2)
        #expect(try store.load(Int.self, forKey: "A") == 3)
        #expect(try store.load(Int.self, forKey: "a") == 4)
        try store.remove(forKey: "cafe\u{301}")
        #expect(try store.load(Int.self, forKey: "caf\u{E9}") == 1)
        #expect(bytes(store.keys) == bytes(["A", "a", "caf\u{E9}"]))
    }

    @Test func aValueStringAndItsKeyInOtherNormalisationsStayApart() throws {
        // The archive uniques strings: the stored key must keep its exact bytes even when the value
        // is the same text in another normalisation.
        let fixture = try StoreFixture()
        try fixture.store.save("caf\u{E9}", forKey: "cafe\u{301}")
        #expect(sameBytes(try fixture.store.load(String.self, forKey: "cafe\u{301}"), "caf\u{E9}"))
        #expect(bytes(fixture.store.keys) == bytes(["cafe\u{301}"]))
    }

    @Test func hostileNamespacesStayInsideTheStoreDirectory() throws {
        let fixture = try StoreFixture()
        let before = StoreFixture.tree(at: fixture.parent)
        for name in ["..", "../..", "/", "/tmp", ".", "", "\u{0}", "A", "a"] {
            try fixture.store.namespace(name).namespace("../x").save(name, forKey: "../k")
        }
        for name in ["..", "../..", "/", "/tmp", ".", "", "\u{0}", "A", "a"] {
            #expect(
                sameBytes(try fixture.store.namespace(name).namespace("../x").load(String.self, forKey: "../k"), name))
        }
        let after = StoreFixture.tree(at: fixture.parent)
        #expect(after.filter { !$0.hasPrefix("store") } == before.filter { !$0.hasPrefix("store") })
        #expect(fixture.store.keys.isEmpty)
    }

    @Test func aSymbolicLinkPlantedAsANamespaceIsNeverFollowed() throws {
        let fixture = try StoreFixture()
        let outside = fixture.parent.appending(path: "outside", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let namespace = fixture.store.namespace("victim")
        try FileManager.default.createSymbolicLink(at: namespace.directory, withDestinationURL: outside)
        let error = expectArchiveError(.io) { try namespace.save(1, forKey: "k") }
        #expect(error?.reason.contains("ns-victim") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        #expect(throws: ArchiveError.self) { _ = try namespace.load(Int.self, forKey: "k") }
        try fixture.store.removeAll()
        try fixture.store.removeExpired()
        #expect(FileManager.default.fileExists(atPath: outside.path))
    }

    @Test func aSymbolicLinkPlantedAsAKeyFileIsNotRead() throws {
        let fixture = try StoreFixture()
        let secret = fixture.parent.appending(path: "secret")
        try Data("secret".utf8).write(to: secret)
        try FileManager.default.createSymbolicLink(at: fixture.file(forKey: "k"), withDestinationURL: secret)
        expectArchiveError(.io) { _ = try fixture.store.load(Data.self, forKey: "k") }
        // Saving replaces the link itself, not its target.
        try fixture.store.save(1, forKey: "k")
        #expect(try fixture.store.load(Int.self, forKey: "k") == 1)
        #expect(try Data(contentsOf: secret) == Data("secret".utf8))
    }
}
