import ArchiveStore
import Foundation
import KeyedArchive
import Testing

/// The journal is written by every process using the store, so it is input like any file:
/// whatever it holds, the store neither crashes nor touches anything outside its folder, and
/// the values on disk stay the truth.
@Suite("ArchiveStore journal robustness")
struct JournalRobustnessTests {
    /// One record in the journal's documented layout (see StoreJournal).
    static func record(
        kind: UInt8, size: UInt64, directory: String, fileName: String, key: String, time: Double = 1e9
    ) -> [UInt8] {
        var body: [UInt8] = [kind]
        func integer<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { body.append(contentsOf: $0) } }
        integer(time.bitPattern)
        integer(size)
        integer(Double.nan.bitPattern)
        for text in [directory, fileName, key] {
            integer(UInt32(text.utf8.count))
            body.append(contentsOf: text.utf8)
        }
        var hash: UInt32 = 0x811C_9DC5
        for byte in body { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        var bytes: [UInt8] = []
        withUnsafeBytes(of: UInt32(body.count).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: hash.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes + body
    }

    private func append(_ bytes: [UInt8], toJournalOf fixture: borrowing StoreFixture) throws {
        let handle = try FileHandle(forWritingTo: fixture.directory.appending(path: ".journal"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
        try handle.close()
    }

    @Test func aRecordNamingAPlaceOutsideTheStoreIsIgnoredAndNothingOutsideIsDeleted() throws {
        let fixture = try StoreFixture()
        let outside = fixture.parent.appending(path: "key-victim.archive")
        try Data("not the store's".utf8).write(to: outside)
        let store = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 2))
        try store.save(1, forKey: "a")
        // A huge value "saved" one folder up and one in a path: the most recently used, too big to keep.
        try append(
            Self.record(kind: 2, size: 1 << 40, directory: "..", fileName: "key-victim.archive", key: "victim")
                + Self.record(kind: 2, size: 1 << 40, directory: "", fileName: "../key-victim.archive", key: "victim"),
            toJournalOf: fixture)
        let fresh = try ArchiveStore(directory: fixture.directory, limits: .init(maximumBytes: 1 << 20, maximumCount: 2))
        try fresh.save(2, forKey: "b")
        try store.save(3, forKey: "c")
        #expect(FileManager.default.fileExists(atPath: outside.path))
        #expect(fresh.keys == ["b", "c"])
        #expect(try fresh.load(Int.self, forKey: "b") == 2)
    }

    @Test func hugeSizesAndGarbageNeverCrashAndTheFilesStayTheTruth() throws {
        let fixture = try StoreFixture()
        let store = try ArchiveStore(directory: fixture.directory, limits: .init(maximumBytes: 1 << 20))
        for i in 0..<3 { try store.save(i, forKey: "k\(i)") }
        var garbage: [UInt8] = []
        for i in 0..<5 {
            garbage += Self.record(kind: 2, size: UInt64.max >> 1, directory: "", fileName: "key-k\(i).archive", key: "k\(i)")
        }
        garbage += Self.record(kind: 1, size: 1 << 62, directory: "", fileName: "key-k0.archive", key: "k0")
        try append(garbage, toJournalOf: fixture)
        // The header claims an absurd snapshot length as well.
        let journal = fixture.directory.appending(path: ".journal")
        var bytes = try Data(contentsOf: journal)
        bytes.replaceSubrange(8..<16, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
        try bytes.write(to: journal)
        let fresh = try ArchiveStore(directory: fixture.directory, limits: .init(maximumBytes: 1 << 20))
        #expect(fresh.count == 3)
        try fresh.save(9, forKey: "k9")
        #expect(fresh.keys == ["k0", "k1", "k2", "k9"])
        #expect(fresh.totalBytes < 1 << 20)
        for i in 0..<3 { #expect(try fresh.load(Int.self, forKey: "k\(i)") == i) }
    }

    @Test func aJournalDeletedAndStartedAgainMakesRunningStoresScanTheFolders() throws {
        let fixture = try StoreFixture()
        let running = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 100))
        for i in 0..<5 { try running.save(i, forKey: "k\(i)") }
        #expect(running.count == 5)
        try FileManager.default.removeItem(at: fixture.directory.appending(path: ".journal"))
        let other = try ArchiveStore(directory: fixture.directory)
        try other.save(5, forKey: "k5")  // starts a new journal holding one record
        #expect(running.count == 6)
        #expect(running.keys == (0...5).map { "k\($0)" })
    }

    @Test func aTruncatedJournalIsReadFromTheStart() throws {
        let fixture = try StoreFixture()
        let store = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 100))
        for i in 0..<4 { try store.save(i, forKey: "k\(i)") }
        #expect(store.count == 4)
        let journal = fixture.directory.appending(path: ".journal")
        let handle = try FileHandle(forWritingTo: journal)
        try handle.truncate(atOffset: 20)
        try handle.close()
        #expect(store.count == 4)
        try store.save(4, forKey: "k4")
        #expect(store.count == 5)
    }

    @Test func keysTooLongForARecordAreListedFromTheirFiles() throws {
        let fixture = try StoreFixture()
        let store = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 10))
        let long = String(repeating: "long key ", count: 10_000)  // 90 KB
        try store.save(1, forKey: long)
        try store.save(2, forKey: "short")
        let fresh = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 10))
        #expect(fresh.count == 2)
        let keys = fresh.keys
        #expect(keys.count == 2 && keys.first == long && keys.last == "short", "\(keys.map(\.count))")
        #expect(try fresh.load(Int.self, forKey: long) == 1)
    }

    #if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow
    @Test func aSaveThatFailsLeavesNoPhantomInTheIndex() throws {
        let fixture = try StoreFixture()
        let store = try ArchiveStore(directory: fixture.directory, limits: .init(maximumBytes: 1 << 20))
        try store.save([0, 1, 2], forKey: "k")
        let before = store.totalBytes
        let result = try CrashChild.run([
            "save", fixture.directory.path, "k", "20000", "--file-size-limit", "4096", "--maximum-bytes", "1048576",
        ])
        #expect(result.output.hasPrefix("error io\t"), "\(result.output)")
        #expect(store.totalBytes == before)
        let fresh = try ArchiveStore(directory: fixture.directory, limits: .init(maximumBytes: 1 << 20))
        #expect(fresh.totalBytes == before)
        #expect(fresh.keys == ["k"])
    }
    #endif
}
