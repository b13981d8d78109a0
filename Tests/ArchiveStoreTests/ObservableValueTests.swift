import ArchiveStore
import Foundation
import KeyedArchive
import Observation
import Synchronization
import Testing

/// Counts the Observation changes of an observable value: tracking is armed again inside every
/// change notification, so each change of `value` counts exactly once.
private final class ChangeCount<Value: Sendable>: Sendable {
    private let observed: ArchiveStore.ObservableValue<Value>
    private let count = Mutex(0)

    init(_ observed: ArchiveStore.ObservableValue<Value>) {
        self.observed = observed
        track()
    }

    var value: Int { count.withLock { $0 } }

    private func track() {
        withObservationTracking {
            _ = observed.value
        } onChange: { [self] in
            count.withLock { $0 += 1 }
            track()
        }
    }

    /// Waits until `expected` changes were counted, for at most ten seconds: a change from
    /// another instance or process arrives through the folder's watch, an event of the operating
    /// system that no clock of the test can hasten.
    func wait(for expected: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while value < expected, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    }
}

extension ArchiveStore.Key {
    fileprivate static var level: ArchiveStore.Key<Int> { .init("level", default: 1) }
    fileprivate static var numbers: ArchiveStore.Key<[Int]> { .init("numbers", default: []) }
}

@Suite("ObservableValue and @Stored: Observation of stored values, on Linux too")
struct ObservableValueTests {
    @Test("one change notification per committed change: set through the object, store[key], a second instance")
    func oneNotificationPerChange() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let level = store.observable(.level)
        #expect(level.value == 1)
        let changes = ChangeCount(level)

        level.value = 2  // through the object: one change, at once
        #expect(changes.value == 1)
        #expect(store[.level] == 2)  // and saved

        store[.level] = 3  // through the store: arrives through the folder's journal
        try await changes.wait(for: 2)
        #expect(level.value == 3)

        let second = try ArchiveStore(directory: fixture.directory)
        try second.set(4, for: .level)
        try await changes.wait(for: 3)
        #expect(level.value == 4)

        try second.remove(for: .level)  // back to the default
        try await changes.wait(for: 4)
        #expect(level.value == 1)

        // The journal has delivered everything before this last change: no save above was
        // counted twice (the object's own save of 2 came back through the journal too).
        try second.set(5, for: .level)
        try await changes.wait(for: 5)
        #expect(level.value == 5)
        #expect(changes.value == 5)
    }

    #if os(macOS) || os(Linux)  // runs another process, which iOS, tvOS, watchOS and visionOS do not allow
    @Test("a change saved by another process is one change notification")
    func changeFromAnotherProcess() async throws {
        let fixture = try StoreFixture()
        let numbers = fixture.store.observable(.numbers)
        #expect(numbers.value == [])
        let changes = ChangeCount(numbers)
        let result = try CrashChild.run(["save", fixture.directory.path, "numbers", "4"])
        #expect(result.output == "saved\n", "\(result.error)")
        try await changes.wait(for: 1)
        #expect(numbers.value == [0, 1, 2, 3])
        let again = try CrashChild.run(["save", fixture.directory.path, "numbers", "2"])
        #expect(again.output == "saved\n")
        try await changes.wait(for: 2)
        #expect(numbers.value == [0, 1])
        #expect(changes.value == 2)
    }
    #endif

    @Test("a save through the object that fails is reported, and the object goes back to the stored value")
    func failedSave() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        store[.level] = 7
        let level = store.observable(.level)
        var failures = store.failures().makeAsyncIterator()
        // A directory where the key's file goes: the rename of the new file over it fails.
        let file = store.directory.appending(path: "key-level.archive")
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createDirectory(at: file.appending(path: "inside"), withIntermediateDirectories: true)
        level.value = 8
        var failure = try #require(await failures.next())
        while failure.operation != .write { failure = try #require(await failures.next(), "\(failure)") }
        #expect(failure.key == "level")
        #expect(failure.error.code == .io)
        #expect(level.value == 1)  // nothing readable is stored now: the key's default
    }

    @Test("@Stored reads and writes every typed-value kind, and round-trips a model")
    func storedPropertyWrapper() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let url = URL(string: "https://example.com/a?b=1")!
        let date = Date(timeIntervalSinceReferenceDate: 12_345.5)
        struct Preferences {
            @Stored<Int> var count: Int
            @Stored<Double> var ratio: Double
            @Stored<Float> var single: Float
            @Stored<Bool> var flag: Bool
            @Stored<String> var name: String
            @Stored<URL?> var site: URL?
            @Stored<Date?> var when: Date?
            @Stored<Data> var bytes: Data
            @Stored<[String]> var tags: [String]
            @Stored<[String: Int]> var scores: [String: Int]

            init(_ store: ArchiveStore) {
                _count = Stored(.init("count", default: 0), store: store)
                _ratio = Stored(.init("ratio", default: 0.5), store: store)
                _single = Stored(.init("single", default: 1), store: store)
                _flag = Stored(.init("flag", default: false), store: store)
                _name = Stored(.init("name", default: "none"), store: store)
                _site = Stored(.init("site", default: nil), store: store)
                _when = Stored(.init("when", default: nil), store: store)
                _bytes = Stored(.init("bytes", default: Data()), store: store)
                _tags = Stored(.init("tags", default: []), store: store)
                _scores = Stored(.init("scores", default: [:]), store: store)
            }
        }
        let preferences = Preferences(store)
        #expect(preferences.count == 0 && preferences.ratio == 0.5 && preferences.single == 1)
        #expect(!preferences.flag && preferences.name == "none" && preferences.site == nil && preferences.when == nil)
        #expect(preferences.bytes.isEmpty && preferences.tags.isEmpty && preferences.scores.isEmpty)

        preferences.count = 42
        preferences.ratio = 2.25
        preferences.single = 0.1
        preferences.flag = true
        preferences.name = "Ada"
        preferences.site = url
        preferences.when = date
        preferences.bytes = Data([0, 1, 255])
        preferences.tags = ["a", "b"]
        preferences.scores = ["x": 1]

        // Read back by a fresh wrapper set and by the store's own getters.
        let again = Preferences(try ArchiveStore(directory: fixture.directory))
        #expect(again.count == 42 && again.ratio == 2.25 && again.single == 0.1 && again.flag)
        #expect(again.name == "Ada" && again.site == url && again.when == date)
        #expect(again.bytes == Data([0, 1, 255]) && again.tags == ["a", "b"] && again.scores == ["x": 1])
        #expect(store.integer(forKey: "count") == 42)
        #expect(store.float(forKey: "single") == 0.1)
        #expect(store.url(forKey: "site") == url)
        #expect(store.stringArray(forKey: "tags") == ["a", "b"])
        #expect(store.dictionary(forKey: "scores") as? [String: Int] == ["x": 1])

        let siteChanges = ChangeCount(again.$site)
        preferences.site = nil  // nil removes the value of an Optional key
        #expect(!store.contains("site"))
        #expect(preferences.site == nil)
        try await siteChanges.wait(for: 1)  // another instance's object follows through the journal
        #expect(again.site == nil)
    }

    @Test("300 observed keys share the folder's one watcher: a change from another instance reaches the last of them")
    func manyObservers() async throws {
        // Linux allows 128 inotify instances per user by default: one per observer would run out.
        let fixture = try StoreFixture()
        let observed = (0..<300).map { fixture.store.observable(ArchiveStore.Key<Int>("k\($0)", default: -1)) }
        let last = try #require(observed.last)
        let changes = ChangeCount(last)
        try ArchiveStore(directory: fixture.directory).set(299, forKey: "k299")
        try await changes.wait(for: 1)
        #expect(last.value == 299)
        #expect(observed[0].value == -1)
    }

    @Test("@Stored inside an @Observable class is tracked through its ObservableValue")
    func storedInsideObservableClass() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let model = SettingsModel(store: store)
        let fired = Mutex(0)
        withObservationTracking {
            _ = model.isHigh
        } onChange: {
            fired.withLock { $0 += 1 }
        }
        model.level = 9
        #expect(fired.withLock { $0 } == 1)
        #expect(model.isHigh)
        #expect(store[.level] == 9)
    }
}

@Observable
private final class SettingsModel {
    @ObservationIgnored @Stored<Int> var level: Int
    var isHigh: Bool { level > 5 }

    init(store: ArchiveStore) {
        _level = Stored(.level, store: store)
    }
}
