import ArchiveStore
import Foundation
import KeyedArchive
import Synchronization
import Testing

/// The two kinds of store the contract tests run against: one on a folder, one in memory.
///
/// Each test makes its store through ``withStore(limits:_:)``, which gives it a ``ManualClock``
/// standing at ``start``, so that expiry, maximum age and the order of use follow the test's
/// own moves of the clock and never the time the machine takes.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case folder
    case memory

    /// Where every test's clock starts: a whole number of seconds, so that a clock moved by
    /// whole seconds reads exactly the times a store computes from it (no rounding between a
    /// value's expiry and the moment the test sets).
    static let start = Date(timeIntervalSinceReferenceDate: 800_000_000)

    var testDescription: String { rawValue }

    /// Runs `body` with a new, empty store of this kind and its clock. A folder store lives in
    /// a fresh temporary directory, removed when `body` returns or throws.
    func withStore<Result>(
        limits: ArchiveStore.Limits = .unlimited, _ body: (ArchiveStore, ArchiveStore.ManualClock) throws -> Result
    ) throws -> Result {
        let clock = ArchiveStore.ManualClock(startingAt: Self.start)
        let folder = Self.temporaryFolder()
        defer { Self.remove(folder) }
        return try body(try makeStore(limits: limits, clock: clock, folder: folder), clock)
    }

    /// ``withStore(limits:_:)`` for a test that awaits.
    func withStore<Result>(
        limits: ArchiveStore.Limits = .unlimited, _ body: (ArchiveStore, ArchiveStore.ManualClock) async throws -> Result
    ) async throws -> Result {
        let clock = ArchiveStore.ManualClock(startingAt: Self.start)
        let folder = Self.temporaryFolder()
        defer { Self.remove(folder) }
        return try await body(try makeStore(limits: limits, clock: clock, folder: folder), clock)
    }

    /// A store of this kind; a folder store keeps its values in `folder` (created on demand).
    private func makeStore(limits: ArchiveStore.Limits, clock: ArchiveStore.ManualClock, folder: URL) throws -> ArchiveStore {
        switch self {
        case .folder: try ArchiveStore(directory: folder, limits: limits, clock: clock.clock)
        case .memory: ArchiveStore.inMemory(limits: limits, clock: clock.clock)
        }
    }

    /// A new path in the temporary directory; nothing is created there until a folder store
    /// opens it (a memory store never does).
    private static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory
            .appending(path: "archive-store-contract-\(UUID().uuidString)", directoryHint: .isDirectory)
    }

    private static func remove(_ folder: URL) {
        try? FileManager.default.removeItem(at: folder)
    }
}

// MARK: - What the contract expects of stored bytes and messages

/// The size of the stored form of `value` under `key`: the documented stored file, a keyed
/// archive with the value under `root`, the key under `key` and the expiry under `expires`.
/// What ``ArchiveStore/totalBytes`` and ``ArchiveStore/Limits/maximumBytes`` count, for either kind.
func storedSize<T>(of value: T, forKey key: String, expires: Date? = nil) throws -> Int {
    try storedArchive(of: value, forKey: key, expires: expires).count
}

/// The bytes of the stored form of `value` under `key` (see ``storedSize(of:forKey:expires:)``).
func storedArchive<T>(of value: T, forKey key: String, expires: Date? = nil) throws -> Data {
    let archiver = KeyedArchiver()
    try archiver.encode(value, forKey: "root")
    try archiver.encode(key, forKey: "key")
    if let expires { try archiver.encode(expires.timeIntervalSinceReferenceDate, forKey: "expires") }
    return try archiver.encodedData
}

/// The error the unarchiver gives reading the stored form of `value` under `key` as `type`:
/// a store's load gives the same one, its reason prefixed with where the value is kept.
func decodingError<Stored, Read>(reading value: Stored, forKey key: String, as type: Read.Type) throws -> ArchiveError {
    let unarchiver = try KeyedUnarchiver(forReadingFrom: storedArchive(of: value, forKey: key))
    return try #require(throws: ArchiveError.self) { _ = try unarchiver.decode(type, forKey: "root") }
}

/// Where a store's messages say the value of `key` (lower-case letters only, which the
/// documented layout stores as `key-<key>.archive`) is kept: the path of its file in a folder
/// store; the store's `archive-store-memory:` URL followed by the same file name in a memory store.
func place(ofKey key: String, in store: ArchiveStore, kind: StoreKind) -> String {
    let name = "key-\(key).archive"
    switch kind {
    case .folder: return store.directory.appending(path: name).path(percentEncoded: false)
    case .memory: return store.directory.absoluteString + name
    }
}

// MARK: - Waiting for what observers see

/// Collects what an asynchronous sequence yields, from the moment it is made, so that a test
/// can make its changes and then wait (with a deadline, never a fixed pause) until the elements
/// it expects have arrived.
final class Observed<Element: Sendable>: Sendable {
    /// What arrived, apart from the task that gathers it (which must not keep this alive).
    private final class Elements: Sendable {
        let list = Mutex<[Element]>([])
    }

    private let elements = Elements()
    private let task: Task<Void, Never>

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Element {
        let elements = elements
        task = Task {
            do {
                for try await element in sequence { elements.list.withLock { $0.append(element) } }
            } catch {}
        }
    }

    deinit { task.cancel() }

    /// Everything yielded so far.
    var seen: [Element] { elements.list.withLock { $0 } }

    /// How long an expectation waits for its elements before it fails. Only a failure waits this
    /// long; it is generous because the suite's long synchronous tests can hold the cooperative
    /// threads the store's observation tasks run on (10 seconds was exceeded twice in full runs on
    /// two busy cores, by values that then arrived).
    static var patience: Duration { .seconds(60) }

    /// Waits until at least `count` elements have arrived, and returns the first `count`;
    /// records an issue and returns what arrived after `timeout`.
    func first(
        _ count: Int, within timeout: Duration = patience, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> [Element] {
        let deadline = ContinuousClock.now + timeout
        while seen.count < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        let all = seen
        if all.count < count {
            Issue.record("\(all.count) of \(count) elements arrived within \(timeout): \(all)", sourceLocation: sourceLocation)
        }
        return Array(all.prefix(count))
    }

    /// Waits for as many elements as `expected` holds and expects them to be those: a failure
    /// shows what arrived.
    func expectFirst(
        _ expected: [Element], within timeout: Duration = patience, sourceLocation: SourceLocation = #_sourceLocation
    ) async where Element: Equatable {
        let seen = await first(expected.count, within: timeout, sourceLocation: sourceLocation)
        #expect(seen == expected, sourceLocation: sourceLocation)
    }

    /// Ends the iteration by cancelling its task, which stops the store's watch (at any moment:
    /// see `observersCancelledWhileChangesArriveEnd`).
    func stop() { task.cancel() }
}
