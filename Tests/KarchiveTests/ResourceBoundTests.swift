import Foundation
import TestSupport
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

/// Hostile files are rejected fast and in little memory: each `karchive validate` runs under a
/// 16 MiB data-segment limit (`ulimit -d`, which also bounds `mmap` on Linux; the Swift runtime
/// itself needs a few MB of it) and must finish within a second. An allocation sized from an
/// untrusted count, or an expansion of shared references, would fail the run by signal.
@Suite("karchive resource bounds", .serialized)
struct ResourceBoundTests {
    static let limitKiB = 16 * 1024

    // Not under AddressSanitizer: its runtime cannot start within the limit (it fails to map a
    // table and exits 1 before karchive runs, which this test would take for a rejection).
    @Test(
        "every hostile file is rejected within a second under a 16 MiB data limit",
        .needsPeerFixtures("bplist/invalid, peers/libplist and peers/libplist-fuzz"),
        .disabled(if: Sanitizer.address, "AddressSanitizer's runtime does not start under a 16 MiB data limit"),
        arguments: KarchiveFixtures.invalidFiles + KarchiveFixtures.fuzzFiles)
    func hostileFileIsBounded(file: String) async throws {
        #if os(Linux)
        let executable = try #require(KarchiveProcess.executable)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -d \(Self.limitKiB) && exec \"$0\" validate \"$1\" 2>/dev/null", executable.path, KarchiveFixtures.path(file)]
        process.standardOutput = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - start
        #expect(process.terminationReason == .exit, "killed by signal \(process.terminationStatus)")
        #expect(process.terminationStatus == 0 || process.terminationStatus == 1, "exit \(process.terminationStatus)")
        #expect(elapsed < .seconds(1), "took \(elapsed)")
        #endif
    }

    @Test("the data limit is tight enough to catch a large allocation")
    func limitCatchesLargeAllocation() throws {
        #if os(Linux)
        // The same limit stops a process that allocates 64 MiB, so the test above can fail.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -d \(Self.limitKiB) && exec python3 -c 'bytearray(64 << 20)' 2>/dev/null"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #endif
    }
}
#endif
