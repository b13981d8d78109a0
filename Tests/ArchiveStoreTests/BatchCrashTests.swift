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

/// Batches killed at random moments, with another process reading all along: each batch is
/// seen whole or not at all, and once seen, seen from then on; what is on disk after each kill
/// is what the batches made up to the newest one left there, which is never older than the
/// last one acknowledged.
///
/// The writer is the crash child's `batches` mode, the reader its `check-batches` mode and the
/// check after each kill its `verify-batches` mode (BatchModes.swift says what each checks).
/// Serialized: each test keeps a writer and a reader busy, and two at once would halve the
/// kills that land inside a batch.
@Suite("ArchiveStore crash safety of batches", .serialized)
struct BatchCrashTests {
    /// `ARCHIVE_STORE_BATCH_KILLS` raises it (Scripts/crash-soak.sh asks for 1,000); the
    /// `.buffered` pass gets three tenths as many.
    static let kills = ProcessInfo.processInfo.environment["ARCHIVE_STORE_BATCH_KILLS"].flatMap { Int($0) } ?? 100

    @Test func killedBatchesAreWholeOrAbsentAndNoAcknowledgedBatchIsLost() throws {
        try run(kills: Self.kills, buffered: false, seed: 0xBA7C_4ED5)
    }

    /// A process kill loses nothing the kernel was given, so even at `.buffered` no acknowledged
    /// batch is lost here (an operating-system crash could lose the last ones).
    @Test func killedBufferedBatchesAreWholeOrAbsentAndNoAcknowledgedBatchIsLost() throws {
        try run(kills: max(1, Self.kills * 3 / 10), buffered: true, seed: 0xB0FF_E4ED)
    }

    func run(kills: Int, buffered: Bool, seed defaultSeed: UInt64) throws {
        let fixture = try StoreFixture()
        let executable = try #require(CrashChild.executable, "archive-store-crash-child was not built next to the tests")
        let seed = ProcessInfo.processInfo.environment["ARCHIVE_STORE_CRASH_SEED"].flatMap { UInt64($0) } ?? defaultSeed
        let label = buffered ? "batches at .buffered" : "batches at .full"
        print("ArchiveStore crash safety of \(label): seed \(seed) (ARCHIVE_STORE_CRASH_SEED replays it)")
        var generator = SplitMix64(seed: seed)
        let clock = ContinuousClock()
        let start = clock.now

        // The reader runs from before the first batch until after the last kill. Its memory
        // tier is on at `.buffered`, so that loads answered from memory are checked too.
        let stopFile = fixture.parent.appending(path: "stop-reader")
        let reader = Process()
        reader.executableURL = executable
        reader.arguments =
            ["check-batches", fixture.directory.path, "--until-file", stopFile.path, "--interval-ms", "1"]
            + (buffered ? ["--memory-bytes", String(1 << 20)] : [])
        let readerOutput = Pipe()
        let readerErrors = Pipe()
        reader.standardOutput = readerOutput
        reader.standardError = readerErrors
        try reader.run()
        defer {
            if reader.isRunning { kill(reader.processIdentifier, SIGKILL) }
        }
        func readerReport() -> String {
            let output = String(decoding: readerOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let errors = String(decoding: readerErrors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (output + errors).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        var next = 0  // the batch the next writer starts at: the one after the newest on disk
        var lastAcknowledged = -1
        var acknowledged = 0
        // Where the kills landed, as far as the test can tell: after the batch in flight was
        // published (it is then on disk after the kill, made whole by a load if need be), with
        // its `.batch` still there when the test looked (the reader may have finished it
        // first), and with temporary files left (values or a manifest not yet renamed).
        var killsAfterPublication = 0
        var killsWithBatchPublished = 0
        var killsWithTemporaryFiles = 0
        for round in 0..<kills {
            guard reader.isRunning else {
                reader.waitUntilExit()
                Issue.record("kill #\(round) (seed \(seed)): the reader stopped: \(readerReport())")
                return
            }
            let writer = Process()
            writer.executableURL = executable
            writer.arguments = ["batches", fixture.directory.path, String(next)] + (buffered ? ["--buffered"] : [])
            let output = Pipe()
            let errors = Pipe()
            writer.standardOutput = output
            writer.standardError = errors
            try writer.run()
            let acks = LineReader(output.fileHandleForReading.fileDescriptor)
            if generator.chance(9, in: 10) {
                // Usually let it make a batch first, so that most kills land among batches.
                let deadline = clock.now + .seconds(20)
                while acks.lines.isEmpty, acks.pump(timeout: 50), clock.now < deadline {}
            }
            usleep(UInt32.random(in: 0..<60_000, using: &generator))
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
            while acks.pump(timeout: 200) {}
            let writerErrors = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            try #require(
                writer.terminationReason == .uncaughtSignal && writer.terminationStatus == SIGKILL,
                "kill #\(round): the writer ended by itself (status \(writer.terminationStatus)): \(writerErrors)")
            let acked = acks.lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }
            #expect(acked == Array(next..<(next + acked.count)), "kill #\(round): acknowledgements out of order")
            acknowledged += acked.count
            lastAcknowledged = acked.last ?? lastAcknowledged
            let inFlight = (acked.last ?? next - 1) + 1

            if FileManager.default.fileExists(atPath: fixture.directory.appending(path: ".batch").path) {
                killsWithBatchPublished += 1
            }
            if !fixture.temporaryFiles().isEmpty { killsWithTemporaryFiles += 1 }

            // What the kill left, read by another process (which finishes a published batch).
            let verified = try CrashChild.run(["verify-batches", fixture.directory.path, String(lastAcknowledged)])
            let newest = verified.output.split(separator: "\n").compactMap {
                $0.hasPrefix("newest ") ? Int($0.dropFirst(7)) : nil
            }.first
            let killed = "kill #\(round) (seed \(seed)), batches \(next)...\(inFlight) (last acknowledged \(lastAcknowledged))"
            try #require(verified.status == 0 && newest != nil, "\(killed): \(verified.error)")
            let newestOnDisk = try #require(newest)
            #expect(
                newestOnDisk <= inFlight, "kill #\(round): batch \(newestOnDisk) is on disk, but \(inFlight) was the last begun")
            if newestOnDisk == inFlight { killsAfterPublication += 1 }
            // A killed batch that was never published is made again, the same, so that the
            // batches made have no gaps (the reader's reasoning depends on it).
            next = newestOnDisk + 1
        }

        try Data().write(to: stopFile)
        let deadline = clock.now + .seconds(30)
        while reader.isRunning, clock.now < deadline { usleep(10_000) }
        try #require(!reader.isRunning, "the reader did not stop")
        let report = readerReport()
        #expect(reader.terminationReason == .exit && reader.terminationStatus == 0, "seed \(seed): \(report)")
        let checked = report.split(separator: "\n").last { $0.hasPrefix("checked ") }?.split(separator: " ")
        let rounds = checked.flatMap { $0.count == 3 ? Int($0[1]) : nil } ?? 0
        let loads = checked.flatMap { $0.count == 3 ? Int($0[2]) : nil } ?? 0
        #expect(rounds > kills, "the reader read too little to check anything: \(report)")

        // The next store to open the folder and sweep it leaves neither a manifest nor a killed
        // batch's files behind.
        let store = try ArchiveStore(directory: fixture.directory)
        try store.removeExpired()
        #expect(fixture.temporaryFiles().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.appending(path: ".batch").path))
        #expect(acknowledged > kills / 2, "too few batches were made to test anything")
        print(
            "ArchiveStore crash safety of \(label): \(kills) kills, \(acknowledged) batches acknowledged"
                + " (newest on disk \(next - 1)); kills after the batch in flight was published and before its"
                + " acknowledgement: \(killsAfterPublication), of which \(killsWithBatchPublished) left .batch for a load"
                + " to finish; \(killsWithTemporaryFiles) left temporary files; reader: \(rounds) rounds, \(loads) loads;"
                + " \(clock.now - start), seed \(seed)")
    }
}
#endif
