import ArchiveStore
import Foundation
import KeyedArchive
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("ArchiveStore failed saves")
struct FailedSaveTests {
    @Test func unencodableValueThrowsBeforeTouchingTheDisk() throws {
        let fixture = try StoreFixture()
        try fixture.store.save("previous", forKey: "k")
        let before = fixture.parentTree
        let fresh = fixture.store.namespace("fresh")
        let error = expectArchiveError { try fixture.store.save(NotArchivable(), forKey: "k") }
        #expect(error?.code != .io)
        expectArchiveError { try fresh.save(NotArchivable(), forKey: "k", expiresAfter: .seconds(1)) }
        expectArchiveError { try fresh.save(NotArchivable()) }
        #expect(fixture.parentTree == before)
        #expect(try fixture.store.load(String.self, forKey: "k") == "previous")
    }

    #if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow
    @Test func readOnlyDirectoryThrowsIOAndKeepsThePreviousValue() throws {
        let fixture = try StoreFixture()
        let namespace = fixture.store.namespace("read-only")
        try namespace.save([0, 1], forKey: "k")
        // The store's folders let others in (the store made them 0700); the namespace's is read-only.
        #expect(chmod(fixture.parent.path, 0o755) == 0)
        #expect(chmod(fixture.directory.path, 0o755) == 0)
        #expect(chmod(fixture.directory.appending(path: ".lock").path, 0o644) == 0)
        #expect(chmod(namespace.directory.path, 0o555) == 0)
        defer { chmod(namespace.directory.path, 0o755) }
        // Root ignores permissions, so the save runs in a child that switches to "nobody" when root.
        let result = try CrashChild.run([
            "save", fixture.directory.path, "k", "100", "--namespace", "read-only", "--drop-privileges",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("error io\t"), "\(result.output)")
        #expect(result.output.contains(namespace.directory.path), "\(result.output)")
        #expect(result.output.contains("Permission denied"), "\(result.output)")
        #expect(try namespace.load([Int].self, forKey: "k") == [0, 1])
        #expect(fixture.temporaryFiles().isEmpty)
    }

    @Test func fullDiskThrowsIOKeepsThePreviousValueAndRemovesTheTemporaryFile() throws {
        let fixture = try StoreFixture()
        try fixture.store.save([0, 1, 2], forKey: "k")
        // RLIMIT_FSIZE makes write(2) fail part way (EFBIG), as a full disk does (ENOSPC).
        let result = try CrashChild.run(["save", fixture.directory.path, "k", "20000", "--file-size-limit", "4096"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("error io\t"), "\(result.output)")
        #expect(result.output.contains("File too large"), "\(result.output)")
        #expect(try fixture.store.load([Int].self, forKey: "k") == [0, 1, 2])
        #expect(fixture.temporaryFiles().isEmpty)
        // The same save without the limit succeeds.
        let unlimited = try CrashChild.run(["save", fixture.directory.path, "k", "20000"])
        #expect(unlimited.output == "saved\n")
        #expect(try fixture.store.load([Int].self, forKey: "k") == Array(0..<20000))
    }
    #endif

    @Test func missingStoreDirectoryIsRecreatedOnSave() throws {
        let fixture = try StoreFixture()
        try FileManager.default.removeItem(at: fixture.directory)
        #expect(try fixture.store.load(Int.self, forKey: "k") == nil)
        #expect(fixture.store.keys.isEmpty)
        try fixture.store.namespace("n").save(1, forKey: "k")
        #expect(try fixture.store.namespace("n").load(Int.self, forKey: "k") == 1)
    }

    @Test func temporaryFilesOfKilledSavesAreSwept() throws {
        let fixture = try StoreFixture()
        let namespace = fixture.store.namespace("n")
        try namespace.save(1, forKey: "k")
        let orphan = namespace.directory.appending(path: ".tmp-99999-1-dead")
        try Data("half a file".utf8).write(to: orphan)
        #expect(namespace.keys == ["k"])
        try fixture.store.removeExpired()
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        try Data("half a file".utf8).write(to: orphan)
        try namespace.removeAll()
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
    }
}
