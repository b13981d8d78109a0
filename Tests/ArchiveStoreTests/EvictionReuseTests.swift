import ArchiveStore
import Foundation
import KeyedArchive
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A save past the limits writes its value into the file of the value it evicts (see
/// ARCHITECTURE.md's store section): what that file may be, and what a load racing with it sees.
@Suite("ArchiveStore eviction reusing the evicted file")
struct EvictionReuseTests {
    private static func hardLink(_ existing: String, _ new: String) -> Int32 { link(existing, new) }

    private func status(_ url: URL) throws -> stat {
        var status = stat()
        try #require(lstat(url.path, &status) == 0, "no file at \(url.path)")
        return status
    }

    @Test func aSavePastTheLimitWritesIntoTheEvictedValuesFile() throws {
        let fixture = try StoreFixture()
        let store = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 2))
        try store.save(String(repeating: "a", count: 5_000), forKey: "a")
        try store.save("b", forKey: "b")
        let evicted = try status(fixture.file(forKey: "a"))
        try store.save("c", forKey: "c")
        let saved = try status(fixture.file(forKey: "c"))
        #expect(saved.st_ino == evicted.st_ino)
        #expect(saved.st_mode & 0o7777 == 0o600)
        // The old value's longer bytes are gone: the file is exactly the new value's.
        #expect(try store.load(String.self, forKey: "c") == "c")
        let fresh = try ArchiveStore(directory: fixture.directory)
        #expect(try fresh.load(String.self, forKey: "c") == "c")
        #expect(try fresh.load(String.self, forKey: "a") == nil)
        #expect(store.keys == ["b", "c"])
        #expect(fixture.temporaryFiles().isEmpty)
        // Its modification time is the save's, not the evicted value's.
        #expect(modified(saved) > modified(evicted))
    }

    @Test func aVictimWithASecondLinkIsDeletedAndTheLinkKeepsItsBytes() throws {
        let fixture = try StoreFixture()
        let store = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 2))
        try store.save("a", forKey: "a")
        try store.save("b", forKey: "b")
        let link = fixture.parent.appending(path: "backup-of-a")
        try #require(Self.hardLink(fixture.file(forKey: "a").path, link.path) == 0)
        let before = try Data(contentsOf: link)
        try store.save("c", forKey: "c")
        #expect(try Data(contentsOf: link) == before)
        #expect(try status(fixture.file(forKey: "c")).st_ino != status(link).st_ino)
        #expect(try store.load(String.self, forKey: "a") == nil)
        #expect(try store.load(String.self, forKey: "c") == "c")
        #expect(fixture.temporaryFiles().isEmpty)
    }

    @Test func aVictimInAnotherNamespaceIsDeleted() throws {
        let fixture = try StoreFixture()
        let store = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 2))
        let other = store.namespace("other")
        try other.save("x", forKey: "x")
        try store.save("y", forKey: "y")
        // Held open, the evicted file shows what happened to it: deleted, its bytes untouched.
        let held = try FileHandle(forReadingFrom: fixture.file(forKey: "x", in: other))
        defer { try? held.close() }
        let before = try Data(contentsOf: fixture.file(forKey: "x", in: other))
        try store.save("z", forKey: "z")
        #expect(try other.load(String.self, forKey: "x") == nil)
        var heldStatus = stat()
        #expect(fstat(held.fileDescriptor, &heldStatus) == 0 && heldStatus.st_nlink == 0)
        #expect(try held.readToEnd() == before)
        #expect(try store.load(String.self, forKey: "z") == "z")
        #expect(store.count == 2)
        #expect(fixture.temporaryFiles().isEmpty && fixture.temporaryFiles(in: other.directory).isEmpty)
    }

    /// Loads from another instance while one thread saves new values past the limit, each
    /// load of the value the next save will most likely evict (the least recently used: the
    /// reader tracks the uses it and the writer made), so loads race with the reuse of the
    /// file they read: each returns its own key's value or nil, never another key's value or a
    /// mix of two, and never fails.
    @Test func loadsRacingWithReuseSeeTheirOwnValueOrNothing() throws {
        let fixture = try StoreFixture()
        let limit = 4
        let writer = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: limit))
        let reader = try ArchiveStore(directory: fixture.directory)
        // 8 MB values: a read takes long enough to be overlapped by the reuse's write (with
        // 4 MB no run saw a torn read even without the readers' check; with 8 MB, every run
        // without it did). Each value is its key's alone.
        @Sendable func value(_ i: Int) -> Data { Data(repeating: UInt8(truncatingIfNeeded: i % 251), count: 8 << 20) }
        let saves = 60
        let uses = Guarded((saved: 0, lastUse: [Int: Int](), clock: 0))
        let outcomes = Guarded((found: 0, absent: 0, wrong: [String]()))
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            if thread == 0 {
                for i in 0..<saves {
                    // Give the reader a turn every few saves, so loads race the saves however the
                    // threads are scheduled (a busy machine may otherwise run every save first).
                    let deadline = Date().addingTimeInterval(5)
                    while outcomes.withLock({ $0.found + $0.absent + $0.wrong.count }) < i / 4, Date() < deadline {
                        Thread.sleep(forTimeInterval: 0.000_1)
                    }
                    do { try writer.save(value(i), forKey: "k\(i)") } catch {
                        outcomes.withLock { $0.wrong.append("save \(i): \(error)") }
                    }
                    uses.withLock {
                        $0.saved = i + 1
                        $0.clock += 1
                        $0.lastUse[i] = $0.clock
                    }
                }
                return
            }
            while true {
                let (done, key) = uses.withLock { uses in
                    let stored = max(0, uses.saved - limit)..<uses.saved
                    return (uses.saved == saves, stored.min { uses.lastUse[$0, default: 0] < uses.lastUse[$1, default: 0] })
                }
                if done { break }
                guard let key else { continue }
                do {
                    let loaded = try reader.load(Data.self, forKey: "k\(key)")
                    uses.withLock {
                        $0.clock += 1
                        $0.lastUse[key] = $0.clock
                    }
                    outcomes.withLock {
                        if loaded == nil { $0.absent += 1 } else if loaded == value(key) { $0.found += 1 } else {
                            $0.wrong.append("k\(key) held bytes \(Set(loaded!).sorted())")
                        }
                    }
                } catch {
                    outcomes.withLock { $0.wrong.append("load k\(key): \(error)") }
                }
            }
        }
        let result = outcomes.withLock { $0 }
        #expect(result.wrong.isEmpty, "\(result.wrong.prefix(5))")
        #expect(result.found > 0, "\(result.found) found, \(result.absent) absent")
        #expect(writer.count == limit)
    }
}

/// A value behind an `NSLock` (which ThreadSanitizer follows on Linux; it reports false races
/// on `Synchronization.Mutex` there).
private final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// A file's modification time in nanoseconds since 1970.
private func modified(_ status: stat) -> Int {
    #if canImport(Darwin)
    let time = status.st_mtimespec
    #else
    let time = status.st_mtim
    #endif
    return time.tv_sec * 1_000_000_000 + time.tv_nsec
}
