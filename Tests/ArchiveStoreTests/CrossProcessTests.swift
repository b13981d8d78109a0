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

@Suite("ArchiveStore across processes")
struct CrossProcessTests {
    @Test func twoProcessesShareADirectoryWhileOneSweeps() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let executable = try #require(
            CrashChild.executable, "archive-store-crash-child was not built next to the tests")
        let childKeys = CrashSafetyTests.keys
        let process = Process()
        process.executableURL = executable
        process.arguments = ["loop", fixture.directory.path] + childKeys
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let acks = AckReader(output.fileHandleForReading.fileDescriptor)
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }

        // While the child saves, this process saves its own keys, reads the child's, and sweeps
        // (removeExpired takes the exclusive lock the child's saves take shared).
        var generator = SplitMix64(seed: 0xF0F0)
        let deadline = ContinuousClock.now + .seconds(2)
        var rounds = 0
        while ContinuousClock.now < deadline || acks.count < 20 {
            _ = acks.pump(timeout: 0)
            let index = Int.random(in: 0..<8, using: &generator)
            try store.save(index, forKey: "parent-\(index)", expiresAfter: .seconds(index.isMultiple(of: 2) ? -1 : 600))
            let child = childKeys[Int.random(in: 0..<childKeys.count, using: &generator)]
            let value = try store.load([Int].self, forKey: child) ?? []
            #expect(value == Array(0..<value.count))
            if rounds.isMultiple(of: 5) { try store.removeExpired() }
            rounds += 1
            try #require(process.isRunning, "the child stopped by itself")
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        while acks.pump(timeout: 1_000) {}

        #expect(acks.count >= 20)
        for (index, key) in childKeys.enumerated() {
            let value = try #require(try store.load([Int].self, forKey: key))
            #expect(value == Array(0..<value.count))
            #expect(value.count >= acks.longest[index])
        }
        try store.removeExpired()
        let parentKeys = store.keys.filter { $0.hasPrefix("parent-") }
        #expect(parentKeys.allSatisfy { Int($0.dropFirst("parent-".count)).map { !$0.isMultiple(of: 2) } ?? false })
        #expect(fixture.temporaryFiles().isEmpty)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
                .filter { $0.hasPrefix("key-parent-") }.count == parentKeys.count)
    }
}
#endif
