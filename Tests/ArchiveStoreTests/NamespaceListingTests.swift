import ArchiveStore
import Foundation
import KeyedArchive
import Testing

@Suite("ArchiveStore namespace listing and name files")
struct NamespaceListingTests {
    private static let long = String(repeating: "Zoë ", count: 80)

    private func nameFile(of store: ArchiveStore) -> URL {
        store.directory.appending(path: StoreFormat.namespaceNameFileName)
    }

    @Test func onlyHashedNamespaceFoldersKeepTheirNameInAFile() throws {
        let fixture = try StoreFixture()
        let short = fixture.store.namespace("short")
        let long = fixture.store.namespace(Self.long)
        let nested = long.namespace(Self.long + "inner")
        try short.save(1, forKey: "k")
        try nested.save(2, forKey: "k")
        #expect(!FileManager.default.fileExists(atPath: nameFile(of: short).path))
        #expect(try Data(contentsOf: nameFile(of: long)) == Data(Self.long.utf8))
        #expect(try Data(contentsOf: nameFile(of: nested)) == Data((Self.long + "inner").utf8))
        #expect(StoreFileName.isHashed(long.directory.lastPathComponent))
        #expect(fixture.temporaryFiles().isEmpty)
        #expect(fixture.store.namespaces.map { Array($0.utf8) } == [Array(Self.long.utf8), Array("short".utf8)])
        #expect(long.namespaces.map { Array($0.utf8) } == [Array((Self.long + "inner").utf8)])
        // The name file is not a key.
        #expect(long.keys.isEmpty)
    }

    @Test func aLostOrForeignNameFileLeavesTheNamespaceOutUntilTheNextSave() throws {
        let fixture = try StoreFixture()
        let long = fixture.store.namespace(Self.long)
        try long.save(1, forKey: "k")
        try FileManager.default.removeItem(at: nameFile(of: long))
        #expect(fixture.store.namespaces.isEmpty)
        #expect(try long.load(Int.self, forKey: "k") == 1)
        try long.save(2, forKey: "k")
        #expect(fixture.store.namespaces == [Self.long])

        try Data("someone else".utf8).write(to: nameFile(of: long))
        #expect(fixture.store.namespaces.isEmpty)
        try Data([0xFF, 0xFE]).write(to: nameFile(of: long))
        #expect(fixture.store.namespaces.isEmpty)
    }

    @Test func removeAllKeepsTheNameWhileFilesTheStoreDidNotWriteKeepTheFolder() throws {
        let fixture = try StoreFixture()
        let long = fixture.store.namespace(Self.long)
        try long.save(1, forKey: "k")
        try Data("mine".utf8).write(to: long.directory.appending(path: "notes.txt"))
        try fixture.store.removeAll()
        let folder = long.directory.lastPathComponent
        let tree = StoreFixture.tree(at: fixture.directory)
        #expect(tree == [".journal", ".lock", folder, "\(folder)/.namespace", "\(folder)/notes.txt"])
        #expect(fixture.store.namespaces == [Self.long])

        try FileManager.default.removeItem(at: long.directory.appending(path: "notes.txt"))
        try long.removeAll()
        #expect(StoreFixture.tree(at: fixture.directory) == [".journal", ".lock"])
        #expect(fixture.store.namespaces.isEmpty)
    }

    @Test func foldersTheStoreDidNotWriteAreNotListed() throws {
        let fixture = try StoreFixture()
        let manager = FileManager.default
        for name in ["ns-%ff", "ns-A", "ns-a~0123", "other"] {
            try manager.createDirectory(at: fixture.directory.appending(path: name), withIntermediateDirectories: true)
        }
        try Data().write(to: fixture.directory.appending(path: "ns-file"))
        let outside = fixture.parent.appending(path: "outside")
        try manager.createDirectory(at: outside, withIntermediateDirectories: true)
        try manager.createSymbolicLink(at: fixture.directory.appending(path: "ns-link"), withDestinationURL: outside)
        #expect(fixture.store.namespaces.isEmpty)
        try fixture.store.namespace("real").save(1, forKey: "k")
        #expect(fixture.store.namespaces == ["real"])
    }
}
