// Unsafe code in this file: Scripts/flush-shim.c's two functions, found with `dlsym`, are cast to their C signatures.

import ArchiveStore
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `KeyedArchiveBenchmarks store-io SCENARIO [COUNT]`: what one way of keeping values costs in
/// flushes to the drive, write calls and time, in a process of its own, as one tab-separated line:
///
///     scenario  operations  seconds  µs/operation  flushes  flushes/operation  writes  writes/operation
///
/// The counts come from `Scripts/flush-shim.c` when the process runs with it in `LD_PRELOAD`
/// (`Scripts/measure-store-io.sh` does that and makes the table); without it they are `-`.
/// Only the timed phase is counted: each scenario prepares its files first, uncounted.
///
/// Every scenario works in a temporary directory of its own, removed at the end, and the
/// `UserDefaults` scenarios remove their suite.
enum StoreIOCommand {
    /// The rows. Each is one case here and one in ``prepare(_:count:in:)``.
    enum Scenario: String, CaseIterable {
        /// `ArchiveStore.set(_:forKey:)` of an `Int` over 50 keys, one thread.
        case setInt = "set-int"
        /// The same at ``ArchiveStore/Durability/buffered``: no flush.
        case setIntBuffered = "set-int-buffered"
        /// ≈1 KB saves from 8 threads at once, 10 keys per thread.
        case threads
        /// Batches of 100 ≈1 KB saves (`ArchiveStore.batch`), one thread; an operation is a batch.
        case batch
        /// Loads of 50 saved ≈1 KB values, from a store without limits.
        case loads
        /// The same loads from a store with a count limit, which keeps the recency of every value.
        case loadsLimited = "loads-limited"
        /// `UserDefaults.set(_:forKey:)` of an `Int`, each followed by `synchronize()`.
        case defaultsSync = "defaults-sync"
        /// `UserDefaults.set(_:forKey:)` of an `Int`, with one `synchronize()` at the end.
        case defaults
        /// The least a replace of a file can cost: write a new file, rename it over the old one.
        case floorRename = "floor-rename"
        /// The least a durable replace can cost: the same with a flush of the file before the
        /// rename and of the folder after it (what `ArchiveStore` promises for each save).
        case floorFlushed = "floor-flushed"
        /// ``floorRename`` with the bytes of a ≈1 KB value, the floor of ``threads``.
        case floorRename1K = "floor-rename-1k"
        /// ``floorFlushed`` with the bytes of a ≈1 KB value, the floor of ``threads``.
        case floorFlushed1K = "floor-flushed-1k"
    }

    /// A prepared scenario: the timed work, and how many operations it does.
    struct Phase {
        var operations: Int
        var run: () throws -> Void
        /// Undoes what the scenario made outside its temporary directory; run after the counts.
        var cleanUp: () -> Void = {}
    }

    static let defaultCount = 1_000
    static let threadCount = 8
    static let keyCount = 50

    static func run(_ arguments: [String]) -> Int32 {
        guard let name = arguments.first, let scenario = Scenario(rawValue: name), arguments.count <= 2 else {
            return usage()
        }
        var count = defaultCount
        if let text = arguments.dropFirst().first {
            guard let number = Int(text), number > 0 else { return usage() }
            count = number
        }
        // The thread scenario splits its saves evenly, so that every thread does the same work
        // and the operation count printed is the one asked for.
        if scenario == .threads, count % threadCount != 0 {
            FileHandle.standardError.write(Data("store-io threads: COUNT must be a multiple of \(threadCount)\n".utf8))
            return 2
        }
        let root = FileManager.default.temporaryDirectory.appending(path: "keyed-archive-store-io-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let phase = try prepare(scenario, count: count, in: root)
            defer { phase.cleanUp() }
            let counter = ShimCounter()
            counter?.reset()
            let start = ContinuousClock.now
            try phase.run()
            let elapsed = ContinuousClock.now - start
            let counts = counter?.counts()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let operations = Double(phase.operations)
            var fields = [
                scenario.rawValue, String(phase.operations),
                String(format: "%.6f", seconds), String(format: "%.2f", seconds * 1e6 / operations),
            ]
            if let counts {
                fields += [
                    String(counts.flushes), String(format: "%.3f", Double(counts.flushes) / operations),
                    String(counts.writes), String(format: "%.3f", Double(counts.writes) / operations),
                ]
            } else {
                fields += ["-", "-", "-", "-"]
            }
            print(fields.joined(separator: "\t"))
            return 0
        } catch {
            FileHandle.standardError.write(Data("store-io \(scenario.rawValue): \(error)\n".utf8))
            return 1
        }
    }

    private static func usage() -> Int32 {
        let names = Scenario.allCases.map(\.rawValue).joined(separator: "|")
        FileHandle.standardError.write(Data("usage: KeyedArchiveBenchmarks store-io \(names) [COUNT]\n".utf8))
        return 2
    }

    /// Builds a scenario's files in `root` and returns its timed phase of `count` operations.
    ///
    /// Every store scenario makes one save before the timed phase, so the store's folder, lock
    /// file and journal exist and the phase measures saves into a store in use, not its creation.
    static func prepare(_ scenario: Scenario, count: Int, in root: URL) throws -> Phase {
        typealias Contact = StoreWorkloads.Contact
        switch scenario {
        case .setInt, .setIntBuffered:
            let durability: ArchiveStore.Durability = scenario == .setInt ? .full : .buffered
            let store = try ArchiveStore(directory: root.appending(path: "store"), durability: durability)
            try store.set(-1, forKey: "k0")
            return Phase(operations: count) {
                for i in 0..<count { try store.set(i, forKey: "k\(i % keyCount)") }
            }

        case .threads:
            let store = try ArchiveStore(directory: root.appending(path: "store"))
            try store.save(Contact.sample(0), forKey: "warm-up")
            let perThread = count / threadCount
            let saves = ParallelRun(threads: threadCount) { thread in
                for i in 0..<perThread { try store.save(Contact.sample(i), forKey: "c\(thread)-\(i % 10)") }
            }
            return Phase(operations: count) { try saves.run() }

        case .batch:
            let store = try ArchiveStore(directory: root.appending(path: "store"))
            try store.save(Contact.sample(0), forKey: "warm-up")
            let batches = max(1, count / 100)
            let contacts = (0..<100).map(Contact.sample)
            return Phase(operations: batches) {
                for _ in 0..<batches {
                    try store.batch { batch in
                        for (i, contact) in contacts.enumerated() { try batch.save(contact, forKey: "c\(i)") }
                    }
                }
            }

        case .loads, .loadsLimited:
            let directory = root.appending(path: "store")
            let limits: ArchiveStore.Limits = scenario == .loadsLimited ? .init(maximumCount: 1_000) : .unlimited
            do {
                let writer = try ArchiveStore(directory: directory, limits: limits)
                for i in 0..<keyCount { try writer.save(Contact.sample(i), forKey: "c\(i)") }
            }
            // The loads go through a store opened afterwards, as an app's next launch would:
            // nothing of the saves is left in its memory.
            let store = try ArchiveStore(directory: directory, limits: limits)
            return Phase(operations: count) {
                for i in 0..<count {
                    guard try store.load(Contact.self, forKey: "c\(i % keyCount)")?.id == i % keyCount else {
                        throw BenchmarkFailure("the store lost c\(i % keyCount)")
                    }
                }
            }

        case .defaultsSync, .defaults:
            let suite = "KeyedArchiveBenchmarks.store-io.\(UUID().uuidString)"
            guard let defaults = UserDefaults(suiteName: suite) else { throw BenchmarkFailure("no UserDefaults suite \(suite)") }
            defaults.set(-1, forKey: "k0")
            defaults.synchronize()
            let synchronizingEach = scenario == .defaultsSync
            return Phase(
                operations: count,
                run: {
                    for i in 0..<count {
                        defaults.set(i, forKey: "k\(i % keyCount)")
                        if synchronizingEach { defaults.synchronize() }
                    }
                    if !synchronizingEach { defaults.synchronize() }
                    guard defaults.integer(forKey: "k\((count - 1) % keyCount)") == count - 1 else {
                        throw BenchmarkFailure("UserDefaults lost a value")
                    }
                },
                cleanUp: { removeSuite(suite, of: defaults) })

        case .floorRename, .floorFlushed, .floorRename1K, .floorFlushed1K:
            // The exact bytes the store writes for one value: an Int of set-int, or a Contact.
            let sample = try ArchiveStore(directory: root.appending(path: "sample"))
            let key = "sample"
            if scenario == .floorRename || scenario == .floorFlushed {
                try sample.set(1, forKey: key)
            } else {
                try sample.save(Contact.sample(1), forKey: key)
            }
            let bytes = try Data(contentsOf: root.appending(path: "sample/key-\(key).archive"))
            let folder = try FloorFolder(path: root.appending(path: "floor").path(percentEncoded: false))
            let flushing = scenario == .floorFlushed || scenario == .floorFlushed1K
            try folder.replace(with: bytes, number: -1, flushing: flushing)
            return Phase(operations: count) {
                for i in 0..<count { try folder.replace(with: bytes, number: i, flushing: flushing) }
            }
        }
    }

    /// Removes a `UserDefaults` suite: its values, then its file, which a removed domain may
    /// leave behind. Apple's systems keep it in ~/Library/Preferences; swift-corelibs-foundation
    /// keeps it in $XDG_CONFIG_HOME, else ~/.config.
    private static func removeSuite(_ suite: String, of defaults: UserDefaults) {
        defaults.removePersistentDomain(forName: suite)
        defaults.synchronize()
        let home = FileManager.default.homeDirectoryForCurrentUser
        var folders = [home.appending(path: "Library/Preferences"), home.appending(path: ".config")]
        if let configuration = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"], !configuration.isEmpty {
            folders.append(URL(filePath: configuration, directoryHint: .isDirectory))
        }
        for folder in folders { try? FileManager.default.removeItem(at: folder.appending(path: "\(suite).plist")) }
    }
}

/// The two functions of `Scripts/flush-shim.c`, when the process runs with it in `LD_PRELOAD`.
struct ShimCounter {
    private let resetFunction: @convention(c) () -> Void
    private let countsFunction: @convention(c) (UnsafeMutablePointer<Int>?, UnsafeMutablePointer<Int>?) -> Void

    /// nil when the library is not loaded.
    init?() {
        // RTLD_DEFAULT: the whole process's symbols. glibc defines it as 0, which Swift does not
        // import; Darwin's overlay has it.
        #if canImport(Darwin)
        let everywhere = RTLD_DEFAULT
        #else
        let everywhere: UnsafeMutableRawPointer? = nil
        #endif
        guard let reset = dlsym(everywhere, "flush_shim_reset"), let counts = dlsym(everywhere, "flush_shim_counts") else {
            return nil
        }
        resetFunction = unsafeBitCast(reset, to: (@convention(c) () -> Void).self)
        countsFunction = unsafeBitCast(
            counts, to: (@convention(c) (UnsafeMutablePointer<Int>?, UnsafeMutablePointer<Int>?) -> Void).self)
    }

    func reset() { resetFunction() }

    func counts() -> (flushes: Int, writes: Int) {
        var flushes = 0
        var writes = 0
        countsFunction(&flushes, &writes)
        return (flushes, writes)
    }
}

/// Threads started before the timed phase and held at a gate, so that ``run()`` times only their
/// work, all of them at once. (`DispatchQueue.concurrentPerform` would run no more at once than
/// there are cores, and the point is many threads saving together.)
final class ParallelRun: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let done = DispatchGroup()
    private let failure = Mutex<(any Error)?>(nil)
    private let threads: Int

    init(threads: Int, work: @escaping @Sendable (Int) throws -> Void) {
        self.threads = threads
        for thread in 0..<threads {
            done.enter()
            Thread { [self] in
                gate.wait()
                do { try work(thread) } catch { failure.withLock { $0 = $0 ?? error } }
                done.leave()
            }.start()
        }
    }

    /// Opens the gate, waits for every thread, and throws the first error one of them threw.
    func run() throws {
        for _ in 0..<threads { gate.signal() }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// A folder in which the floors replace one file, with the file system's calls and nothing else.
final class FloorFolder {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw FloorFolder.failure("mkdir", path) }
        descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FloorFolder.failure("open", path) }
    }

    deinit { close(descriptor) }

    /// Writes `bytes` to a new file and renames it over `value`; with `flushing`, flushes the
    /// file before the rename and the folder after it, as a durable save must.
    func replace(with bytes: Data, number: Int, flushing: Bool) throws {
        let temporary = "value.\(number).tmp"
        let file = openat(descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw FloorFolder.failure("open", temporary) }
        let written = bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let result = write(file, buffer.baseAddress! + done, buffer.count - done)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                done += result
            }
            return true
        }
        guard written else { close(file); throw FloorFolder.failure("write", temporary) }
        if flushing { guard Self.flush(file) else { close(file); throw FloorFolder.failure("flush", temporary) } }
        close(file)
        guard renameat(descriptor, temporary, descriptor, "value") == 0 else { throw FloorFolder.failure("rename", temporary) }
        if flushing { guard Self.flush(descriptor) else { throw FloorFolder.failure("flush", path) } }
    }

    /// The flush the store makes: `F_FULLFSYNC` on Apple's systems (where `fsync` leaves the data
    /// in the drive's cache), `fsync` elsewhere.
    private static func flush(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
        #endif
        return fsync(descriptor) == 0
    }

    private static func failure(_ call: String, _ path: String) -> BenchmarkFailure {
        BenchmarkFailure("\(call) \(path): \(String(cString: strerror(errno)))")
    }
}
