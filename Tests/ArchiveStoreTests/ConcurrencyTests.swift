import ArchiveStore
import Foundation
import KeyedArchive
import Synchronization
import TestSupport
import Testing

@Suite("ArchiveStore concurrency")
struct ConcurrencyTests {
    static let threadCount = 8
    static let operationsPerThread = 2_000
    static let keys = [
        "k0", "k1", "k2", "k3", "k4", "k5", "K5", "caf\u{E9}", "cafe\u{301}", "", "a/b",
        String(repeating: "long", count: 100),
    ]

    /// What a save writes: the key (so a load can check it got its own key's value), thread and step.
    static func value(key: Int, thread: Int, step: Int) -> String { "\(keys[key])|\(thread)|\(step)" }

    /// The (thread, step) of a stored value, if it is well formed and belongs to `key`.
    static func origin(of value: String, key: Int) -> (thread: Int, step: Int)? {
        let prefix = Array(keys[key].utf8) + [UInt8(ascii: "|")]
        let utf8 = Array(value.utf8)
        guard utf8.starts(with: prefix) else { return nil }
        let parts = String(decoding: utf8[prefix.count...], as: UTF8.self).split(separator: "|")
        guard parts.count == 2, let thread = Int(parts[0]), let step = Int(parts[1]) else { return nil }
        return (thread, step)
    }

    /// Keys a child process saves growing `[0, 1, …, n-1]` values under meanwhile (limited runs).
    static let childKeys = ["child-a", "child-b"]
    static let limits = ArchiveStore.Limits(maximumCount: 8, memoryBytes: 64 << 10)

    /// `limited`: both stores evict beyond eight values and keep a memory tier, while another
    /// process saves on the same folder.
    @Test(arguments: [false, true])
    func eightThreadsOfMixedOperationsLeaveOnlySavedValues(limited: Bool) throws {
        let fixture = try StoreFixture()
        let stores =
            limited
            ? [try ArchiveStore(directory: fixture.directory, limits: Self.limits),
                try ArchiveStore(directory: fixture.directory, limits: Self.limits)]
            : [fixture.store, try ArchiveStore(directory: fixture.directory)]
        #if os(macOS) || os(Linux)
        let child = limited ? try Self.startChild(in: fixture.directory) : nil
        defer {
            if let child {
                kill(child.processIdentifier, SIGKILL)
                child.waitUntilExit()
            }
        }
        #endif
        let seed: UInt64 = 0xC0FF_EE00
        let problems = Mutex<[String]>([])
        /// saved[thread] = the (key, step, expired) of each save that returned, in order.
        let saved = Mutex<[[(key: Int, step: Int, expired: Bool)]]>(Array(repeating: [], count: Self.threadCount))
        let done = DispatchGroup()
        let start = ContinuousClock.now

        for thread in 0..<Self.threadCount {
            done.enter()
            let worker = Thread {
                defer { done.leave() }
                var generator = SplitMix64(seed: seed &+ UInt64(thread))
                var mine: [(key: Int, step: Int, expired: Bool)] = []
                func report(_ text: String) { problems.withLock { $0.append("thread \(thread): \(text)") } }
                for step in 0..<Self.operationsPerThread {
                    let store = stores[step % 2]
                    let key = Int.random(in: 0..<Self.keys.count, using: &generator)
                    let roll = Int.random(in: 0..<1000, using: &generator)
                    do {
                        switch roll {
                        case 0..<350:
                            try store.save(Self.value(key: key, thread: thread, step: step), forKey: Self.keys[key])
                            mine.append((key, step, false))
                        case 350..<400:
                            try store.save(
                                Self.value(key: key, thread: thread, step: step), forKey: Self.keys[key],
                                expiresAfter: .seconds(-1))
                            mine.append((key, step, true))
                        case 400..<800:
                            if let value = try store.load(String.self, forKey: Self.keys[key]),
                                Self.origin(of: value, key: key) == nil
                            {
                                report("load of key #\(key) read \(value.debugDescription)")
                            }
                        case 800..<950:
                            try store.remove(forKey: Self.keys[key])
                        case 950..<970:
                            _ = store.contains(Self.keys[key])
                            _ = store.string(forKey: Self.keys[key])
                        case 970..<990:
                            // The other process's values: complete whenever they are read.
                            let childKey = Self.childKeys[key % Self.childKeys.count]
                            if let value = try store.load([Int].self, forKey: childKey), value != Array(0..<value.count) {
                                report("load of \(childKey) read an incomplete value of \(value.count) elements")
                            }
                            if limited, step % 7 == 0 { _ = (store.count, store.totalBytes) }
                        case 990..<996:
                            let listed = store.keys
                            if !listed.allSatisfy({ name in
                                (Self.keys + Self.childKeys).contains { $0.utf8.elementsEqual(name.utf8) }
                            }) {
                                report("keys listed an unknown key: \(listed)")
                            }
                        default:
                            if limited, step % 2 == 0 { try store.trim() } else { try store.removeExpired() }
                        }
                    } catch {
                        report("step \(step) failed: \(error)")
                    }
                }
                saved.withLock { $0[thread] = mine }
            }
            worker.stackSize = 1 << 20
            worker.start()
        }
        done.wait()
        let elapsed = ContinuousClock.now - start

        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0.prefix(10) })")
        let allSaved = saved.withLock { $0 }
        #expect(allSaved.map(\.count).reduce(0, +) > Self.threadCount * Self.operationsPerThread / 3)
        for key in Self.keys.indices {
            guard let value = try fixture.store.load(String.self, forKey: Self.keys[key]) else { continue }
            guard let origin = Self.origin(of: value, key: key) else {
                Issue.record("final value of key #\(key) is \(value.debugDescription)")
                continue
            }
            let wasSaved = allSaved[origin.thread].contains { $0.key == key && $0.step == origin.step && !$0.expired }
            #expect(wasSaved, "final value \(value.debugDescription) was never saved (unexpired)")
        }
        if limited {
            #if os(macOS) || os(Linux)
            if let child {
                kill(child.processIdentifier, SIGKILL)
                child.waitUntilExit()
            }
            #endif
            // The child saved without limits; the next trim brings the store within them.
            try stores[0].trim()
            #expect(stores[0].count <= Self.limits.maximumCount!)
        }
        #expect(fixture.temporaryFiles().isEmpty)
        let listed = fixture.store.keys
        #expect(
            listed.allSatisfy { name in
                (Self.keys + Self.childKeys).contains { $0.utf8.elementsEqual(name.utf8) }
            })
        print(
            "ArchiveStore concurrency\(limited ? " (limits, memory tier, a second process)" : ""): \(Self.threadCount) threads × \(Self.operationsPerThread) operations in \(elapsed)"
        )
    }

    #if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow
    /// The crash child's save loop on ``childKeys``, running until killed.
    static func startChild(in directory: URL) throws -> Process {
        let executable = try #require(CrashChild.executable, "archive-store-crash-child was not built next to the tests")
        let process = Process()
        process.executableURL = executable
        process.arguments = ["loop", directory.path] + childKeys
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
    #endif
}
