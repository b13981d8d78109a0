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

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

@Suite("ArchiveStore crash safety with eviction")
struct EvictionCrashTests {
    static let maximumBytes = 8 << 10
    /// `ARCHIVE_STORE_EVICTION_KILLS` raises it (Scripts/crash-soak.sh asks for 1,000).
    static let kills = ProcessInfo.processInfo.environment["ARCHIVE_STORE_EVICTION_KILLS"].flatMap { Int($0) } ?? 100

    /// The value the child saves as item-`n` (its `evictingLoopSize`).
    static func value(_ n: Int) -> [Int] { Array(0..<(20 + (37 * n) % 200)) }

    /// The items' numbers in the folder, and the bytes their files take, from a listing.
    static func onDisk(_ directory: URL) throws -> (items: [Int], bytes: Int) {
        var items: [Int] = []
        var bytes = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where name.hasPrefix("key-") && name.hasSuffix(".archive") {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appending(path: name).path)
            bytes += (attributes[.size] as? NSNumber)?.intValue ?? 0
            let stem = name.dropFirst(4).dropLast(8)
            if stem.hasPrefix("item-"), let n = Int(stem.dropFirst(5)) { items.append(n) }
        }
        return (items.sorted(), bytes)
    }

    @Test func killedMidSaveAndMidEvictionTheStoreStaysWholeAndWithinItsLimits() throws {
        let fixture = try StoreFixture()
        let executable = try #require(CrashChild.executable, "archive-store-crash-child was not built next to the tests")
        let store = try ArchiveStore(directory: fixture.directory, limits: .init(maximumBytes: Self.maximumBytes))
        let seed = ProcessInfo.processInfo.environment["ARCHIVE_STORE_CRASH_SEED"].flatMap { UInt64($0) } ?? 0x5EED
        var generator = SplitMix64(seed: seed)
        var next = 0
        var acknowledged = Set<Int>()
        var evictedSeen = 0
        for round in 0..<Self.kills {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["evicting-loop", fixture.directory.path, String(Self.maximumBytes), String(next)]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let acks = LineReader(output.fileHandleForReading.fileDescriptor)
            if generator.chance(9, in: 10) {
                let deadline = ContinuousClock.now + .seconds(20)
                while acks.lines.isEmpty, acks.pump(timeout: 50), ContinuousClock.now < deadline {}
            }
            usleep(UInt32.random(in: 0..<15_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            while acks.pump(timeout: 200) {}
            try #require(process.terminationReason == .uncaughtSignal, "the child ended by itself")
            let acked = acks.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }
            acknowledged.formUnion(acked)
            let attempted = (acked.max() ?? next - 1) + 1  // the save in progress when killed, if any
            next = attempted + 1

            // Every value left loads whole, and is one the child saved.
            let (items, _) = try Self.onDisk(fixture.directory)
            for n in items {
                #expect(n <= attempted, "kill #\(round): item-\(n) was never saved")
                let loaded = try store.load([Int].self, forKey: "item-\(n)")
                #expect(loaded == Self.value(n), "kill #\(round): item-\(n) is not whole")
            }
            // Only the least recently used (the oldest saves) are missing.
            let present = Set(items).intersection(acknowledged)
            if let oldestPresent = present.min() {
                let missingNewer = acknowledged.filter { $0 > oldestPresent && !present.contains($0) }
                #expect(missingNewer.isEmpty, "kill #\(round): newer saves missing while older ones stay: \(missingNewer.sorted().prefix(5))")
                evictedSeen = max(evictedSeen, acknowledged.filter { $0 < oldestPresent }.count)
            }
            // The next save brings the store within its limits.
            try store.save([round], forKey: "parent")
            let (_, bytes) = try Self.onDisk(fixture.directory)
            #expect(bytes <= Self.maximumBytes, "kill #\(round): \(bytes) bytes after the next save")
            #expect(try store.load([Int].self, forKey: "parent") == [round])
        }
        #expect(evictedSeen > 0, "the child's saves never evicted anything")
        try store.trim()
        #expect(fixture.temporaryFiles().isEmpty)
        print("ArchiveStore crash safety with eviction: \(Self.kills) kills, \(acknowledged.count) saves acknowledged, \(evictedSeen) evicted")
    }
}

/// Reads a child's output lines from a pipe.
final class LineReader {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    private(set) var lines: [String] = []

    init(_ descriptor: Int32) { self.descriptor = descriptor }

    /// Waits up to `timeout` milliseconds for output and reads what is there. False at end of file.
    func pump(timeout: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeout)
        if ready == 0 { return true }
        if ready < 0 { return errno == EINTR }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let length = read(descriptor, &buffer, buffer.count)
        if length <= 0 { return length < 0 && errno == EINTR }
        pending += buffer[..<length]
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        return true
    }
}
#endif
