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

@Suite("ArchiveStore crash safety")
struct CrashSafetyTests {
    /// Keys the child saves: a plain one, one needing escapes, and one with a hashed file name.
    static let keys = ["plain", "Mixed/Case \u{FC}n\u{EF}", String(repeating: "long key ", count: 40)]
    static let minimumKills = 100
    static let timeBudget: Duration = .seconds(45)

    @Test func everyKeyHoldsACompleteSavedValueAfterEachSIGKILL() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let executable = try #require(
            CrashChild.executable, "archive-store-crash-child was not built next to the tests")
        let seed = ProcessInfo.processInfo.environment["ARCHIVE_STORE_CRASH_SEED"].flatMap { UInt64($0) } ?? 0xDEAD_BEEF
        var generator = SplitMix64(seed: seed)
        /// The longest value acknowledged for each key so far: it must never be lost.
        var acknowledged = Array(repeating: 0, count: Self.keys.count)
        var kills = 0
        var killsMidSave = 0
        var loadsVerified = 0
        let clock = ContinuousClock()
        let start = clock.now

        while kills < Self.minimumKills || (kills < Self.minimumKills + 50 && clock.now - start < Self.timeBudget) {
            if kills >= Self.minimumKills, clock.now - start >= Self.timeBudget { break }
            let longestBefore = try Self.keys.map { try store.load([Int].self, forKey: $0)?.count ?? 0 }.max() ?? 0

            let process = Process()
            process.executableURL = executable
            process.arguments = ["loop", fixture.directory.path] + Self.keys
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let acks = AckReader(output.fileHandleForReading.fileDescriptor)

            if generator.chance(9, in: 10) {
                // Usually let it start saving first, so most kills land in the middle of saves.
                let deadline = clock.now + .seconds(20)
                while acks.count == 0, acks.pump(timeout: 50), clock.now < deadline {}
                // Another process reading while the child writes sees complete values.
                for _ in 0..<Int.random(in: 0...2, using: &generator) {
                    let key = Int.random(in: 0..<Self.keys.count, using: &generator)
                    let value = try store.load([Int].self, forKey: Self.keys[key]) ?? []
                    #expect(value == Array(0..<value.count), "concurrent load of key #\(key): incomplete value")
                    loadsVerified += 1
                }
            }
            usleep(UInt32.random(in: 0..<20_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            while acks.pump(timeout: 1_000) {}
            let stderrText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            try #require(
                process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL,
                "the child ended by itself (status \(process.terminationStatus)): \(stderrText)")
            kills += 1
            if acks.count > 0 { killsMidSave += 1 }

            let attemptedMaximum = max(longestBefore, acks.longest.max() ?? 0) + 1
            for (index, key) in Self.keys.enumerated() {
                acknowledged[index] = max(acknowledged[index], acks.longest[index])
                let value: [Int]
                do {
                    value = try store.load([Int].self, forKey: key) ?? []
                } catch {
                    Issue.record("kill #\(kills) (seed \(seed)): key #\(index) does not load: \(error)")
                    continue
                }
                loadsVerified += 1
                #expect(value == Array(0..<value.count), "kill #\(kills) (seed \(seed)): key #\(index) is incomplete")
                #expect(value.count >= acknowledged[index], "kill #\(kills): key #\(index) lost an acknowledged save")
                #expect(value.count <= attemptedMaximum, "kill #\(kills): key #\(index) holds a value never saved")
            }
        }
        #expect(kills >= Self.minimumKills)
        #expect(killsMidSave >= Self.minimumKills / 2)
        // Kills in the middle of writing leave temporary files; the next sweep removes them and nothing else.
        let interruptedWrites = fixture.temporaryFiles().count
        try store.removeExpired()
        #expect(fixture.temporaryFiles().isEmpty)
        #expect(
            bytes(store.keys).sorted { $0.lexicographicallyPrecedes($1) }
                == bytes(Self.keys).sorted { $0.lexicographicallyPrecedes($1) })
        print(
            "ArchiveStore crash safety: \(kills) kills (\(killsMidSave) after saves began, \(interruptedWrites) mid-write), "
                + "\(loadsVerified) loads verified, "
                + "longest value \(acknowledged.max() ?? 0), \(clock.now - start), seed \(seed)")
    }
}

/// Reads the child's "ack <key index> <n>" lines from a pipe.
final class AckReader {
    private let lines: LineReader
    private var parsed = 0
    /// Acknowledgements read so far.
    private(set) var count = 0
    /// The longest value acknowledged per key index.
    private(set) var longest = Array(repeating: 0, count: CrashSafetyTests.keys.count)

    init(_ descriptor: Int32) { lines = LineReader(descriptor) }

    /// Waits up to `timeout` milliseconds for output and reads what is there. False at end of file.
    func pump(timeout: Int32) -> Bool {
        let open = lines.pump(timeout: timeout)
        for line in lines.lines[parsed...] {
            let parts = line.split(separator: " ")
            if parts.count == 3, parts[0] == "ack", let key = Int(parts[1]), let n = Int(parts[2]),
                longest.indices.contains(key)
            {
                longest[key] = max(longest[key], n)
                count += 1
            }
        }
        parsed = lines.lines.count
        return open
    }
}
#endif
