import ArchiveStore
import Foundation
import KeyedArchive
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files of killed saves are deleted when a store next opens the folder, never
/// those of a save in progress (which holds the store's lock shared), and without anyone
/// calling `trim()`.
@Suite("ArchiveStore temporary files of killed saves")
struct TemporaryFileSweepTests {
    /// A namespace whose folder name is cut and hashed.
    static let longNamespace = String(repeating: "long namespace ", count: 30)

    /// Writes a temporary file as a killed save leaves it, named with `pid`, in `store`'s folder.
    @discardableResult
    static func leaveTemporaryFile(in store: ArchiveStore, pid: Int32, count: Int) throws -> URL {
        let random = String(UInt32(count) &* 0x9E37_79B9, radix: 16)
        let file = store.directory.appending(path: ".tmp-\(pid)-\(count)-\(random)")
        try Data("half a sav".utf8).write(to: file)
        return file
    }

    @Test func openingTheFolderDeletesTemporaryFilesOfKilledSavesInEveryNamespace() throws {
        let fixture = try StoreFixture()
        // A folder no save has used: opening it creates nothing (no lock file either).
        #expect(StoreFixture.tree(at: fixture.directory).isEmpty)
        let stores = [
            fixture.store, fixture.store.namespace("n"), fixture.store.namespace("n").namespace("m"),
            fixture.store.namespace(Self.longNamespace),
        ]
        for (index, store) in stores.enumerated() { try store.save(Array(0...index), forKey: "k") }
        let before = fixture.parentTree
        // Killed saves' names carry process ids: of a live process too (this one, or a reused
        // id), which says nothing about the save, so the ids are not what decides.
        var left: [URL] = []
        for (index, store) in stores.enumerated() {
            left.append(try Self.leaveTemporaryFile(in: store, pid: getpid(), count: index + 1))
            left.append(try Self.leaveTemporaryFile(in: store, pid: 99_999, count: index + 100))
        }
        left.append(fixture.directory.appending(path: ".tmp-journal-99999-12345"))
        try Data("journal header".utf8).write(to: left[left.count - 1])
        #expect(fixture.temporaryFiles().count == left.count)

        let opened = try ArchiveStore(directory: fixture.directory)
        #expect(fixture.temporaryFiles().isEmpty)
        #expect(fixture.parentTree == before)
        for (index, store) in stores.enumerated() {
            #expect(try store.load([Int].self, forKey: "k") == Array(0...index))
        }
        #expect(opened.namespaces == ["n", Self.longNamespace].sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    @Test func aTemporaryFileOfASaveInProgressOutlivesAStoreOpening() throws {
        let fixture = try StoreFixture()
        let namespace = fixture.store.namespace("n")
        try namespace.save(1, forKey: "k")
        // A save in progress: it holds the store's lock shared, on a descriptor of its own (as a
        // save in another process or thread does), from creating its temporary file to renaming it.
        let lock = open(fixture.directory.appending(path: ".lock").path, O_RDONLY | O_CLOEXEC)
        try #require(lock >= 0)
        #expect(flock(lock, LOCK_SH) == 0)
        let inProgress = [
            try Self.leaveTemporaryFile(in: fixture.store, pid: getpid(), count: 1),
            try Self.leaveTemporaryFile(in: namespace, pid: getpid(), count: 2),
        ]
        let opened = try ArchiveStore(directory: fixture.directory)
        #expect(inProgress.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
        #expect(try opened.namespace("n").load(Int.self, forKey: "k") == 1)
        // The opener's own saves run beside it, and leave its file too.
        try opened.save(2, forKey: "other")
        try opened.namespace("n").save(3, forKey: "k")
        #expect(inProgress.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })

        // The saver is killed: its lock goes, its files stay. The opener, which found a save
        // running when it opened, deletes them after its next save.
        close(lock)
        #expect(fixture.temporaryFiles().count == 2)
        try opened.namespace("n").save(4, forKey: "k")
        #expect(fixture.temporaryFiles().isEmpty)
        #expect(try opened.load(Int.self, forKey: "other") == 2)
        #expect(try namespace.load(Int.self, forKey: "k") == 4)
    }

    #if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow
    @Test(arguments: [nil, "n", longNamespace])
    func aSaveKilledWhileWritingLeavesAFileTheNextOpenerDeletes(namespace: String?) throws {
        let fixture = try StoreFixture()
        let store = namespace.map { fixture.store.namespace($0) } ?? fixture.store
        try store.save([0, 1, 2], forKey: "k")
        // The kernel kills the child (SIGXFSZ) at the write that passes 4 KiB, in the middle of
        // writing its temporary file, with the store's lock held shared.
        let killed = try CrashChild.run(
            ["save", fixture.directory.path, "k", "20000", "--killed-past-file-size", "4096"]
                + (namespace.map { ["--namespace", $0] } ?? []))
        #expect(killed.status == SIGXFSZ, "\(killed.output) \(killed.error)")
        #expect(killed.output.isEmpty)
        let left = fixture.temporaryFiles()
        #expect(left.count == 1)
        #expect(left.allSatisfy { $0.hasPrefix(namespace == nil ? ".tmp-" : "ns-") })

        // The next store to open the folder, in another process, deletes it.
        let opener = try CrashChild.run(["open", fixture.directory.path])
        #expect(opener.output == "opened\n", "\(opener.error)")
        #expect(fixture.temporaryFiles().isEmpty)
        #expect(try store.load([Int].self, forKey: "k") == [0, 1, 2])
    }
    #endif
}
