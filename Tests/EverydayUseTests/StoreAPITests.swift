import ArchiveStore
import Foundation
import KeyedArchive
import Testing

// The store's API as an app meets it, one test per finding of the settings-screen trial:
// defaults, UserDefaults parity, writing through a key, visible failures, sequence types,
// labels, deep graphs and upgrades. Public API only.

extension ArchiveStore.Key {
    fileprivate static var apiFontSize: ArchiveStore.Key<Int> { .init("fontsize", default: 13) }
    fileprivate static var apiTheme: ArchiveStore.Key<String> { .init("theme", default: "light") }
    fileprivate static var nickname: ArchiveStore.Key<String?> { .init("nickname", default: nil) }
}

/// A reply thread: each reply holds the replies to it.
private final class Reply: Archivable, Equatable {
    var author = ""
    var replies: [Reply] = []
    required init() {}

    static func == (lhs: Reply, rhs: Reply) -> Bool { lhs.author == rhs.author && lhs.replies == rhs.replies }

    /// A thread `depth` replies deep.
    static func thread(depth: Int) -> Reply {
        let root = Reply()
        var last = root
        for level in 0..<depth {
            let reply = Reply()
            reply.author = "user\(level)"
            last.replies = [reply]
            last = reply
        }
        return root
    }
}

@Suite("ArchiveStore's API as apps use it")
struct StoreAPITests {
    // MARK: 1. One defaults system

    @Test("every reader of a key gives the same answer in every state: stored, nothing, expired, unreadable, another kind")
    func oneDefaultsSystem() async throws {
        let folder = try TemporaryDirectory()
        let clock = ArchiveStore.ManualClock(startingAt: Date(timeIntervalSinceReferenceDate: 1_000))
        let store = try ArchiveStore(directory: folder.url, clock: clock.clock)
        func answers() async throws -> [Int] {
            var values = store.values(for: .apiFontSize).makeAsyncIterator()
            let observed = store.observable(.apiFontSize).value
            return [store.integer(forKey: "fontsize"), store[.apiFontSize], try store.value(for: .apiFontSize), observed,
                await values.next() ?? -1]
        }

        // Without a registration, the key's default: the string getter knows it once the key is used.
        #expect(store[.apiFontSize] == 13)
        #expect(try await answers() == [13, 13, 13, 13, 13])

        // A registered default wins over the key's.
        store.register(defaults: ["fontsize": 20])
        #expect(try await answers() == [20, 20, 20, 20, 20])

        try store.set(30, for: .apiFontSize)
        #expect(try await answers() == [30, 30, 30, 30, 30])

        try store.save(31, forKey: "fontsize", expiresAfter: .seconds(10))
        #expect(try await answers() == [31, 31, 31, 31, 31])
        clock.advance(by: .seconds(11))
        #expect(try await answers() == [20, 20, 20, 20, 20])

        try store.set("17", forKey: "fontsize")  // a string converts as UserDefaults converts it
        #expect(try await answers() == [17, 17, 17, 17, 17])

        // A kind that does not convert, and a damaged file: the default, and value(for:) throws.
        for (label, write) in [
            ("array", { try store.save([1, 2], forKey: "fontsize") }),
            ("damaged", { try Data("not an archive".utf8).write(to: store.directory.appending(path: "key-fontsize.archive")) }),
        ] as [(String, () throws -> Void)] {
            try write()
            #expect(store.integer(forKey: "fontsize") == 20, "\(label)")
            #expect(store[.apiFontSize] == 20, "\(label)")
            #expect(store.observable(.apiFontSize).value == 20, "\(label)")
            var values = store.values(for: .apiFontSize).makeAsyncIterator()
            #expect(await values.next() == 20, "\(label)")
            let error = try #require(throws: ArchiveError.self, "\(label)") { try store.value(for: .apiFontSize) }
            #expect(error.code == (label == "array" ? .typeMismatch : .notPropertyList), "\(label)")
        }
    }

    // MARK: 2. UserDefaults parity

    @Test("object, array, dictionary and stringArray read as UserDefaults reads them; set(nil, forKey:) removes")
    func userDefaultsParity() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        let suite = "store-api-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        let values: [String: Any] = [
            "int": 5, "real": 2.5, "flag": true, "text": "x", "strings": ["a", "b"], "mixed": [1, "a"],
            "dict": ["k": 1], "nested": ["a": [1, 2]], "data": Data([1]),
        ]
        for (key, value) in values {
            defaults.set(value, forKey: key)
            try store.set(value, forKey: key)
        }
        for key in values.keys.sorted() {
            // UserDefaults on Linux wraps each element of an array in an Optional; compare the
            // values themselves.
            func unwrapped(_ element: Any) -> Any {
                let mirror = Mirror(reflecting: element)
                guard mirror.displayStyle == .optional else { return element }
                return mirror.children.first.map { unwrapped($0.value) } ?? "nil"
            }
            let ours = store.array(forKey: key).map { "\($0)" }
            let theirs = defaults.array(forKey: key).map { "\($0.map(unwrapped))" }
            #expect(ours == theirs, "array \(key)")
            #expect(store.stringArray(forKey: key) == defaults.stringArray(forKey: key), "stringArray \(key)")
            #expect((store.dictionary(forKey: key) == nil) == (defaults.dictionary(forKey: key) == nil), "dictionary \(key)")
            #expect((store.object(forKey: key) == nil) == (defaults.object(forKey: key) == nil), "object \(key)")
        }
        #expect(store.object(forKey: "int") as? Int == 5)
        #expect(store.object(forKey: "real") as? Double == 2.5)
        #expect(store.object(forKey: "flag") as? Bool == true)
        #expect(store.dictionary(forKey: "dict") as? [String: Int] == ["k": 1])
        #expect(store.dictionary(forKey: "nested") as? [String: [Int]] == ["a": [1, 2]])
        #expect(store.stringArray(forKey: "strings") == ["a", "b"])
        #expect(store.stringArray(forKey: "mixed") == nil)
        #expect(store.object(forKey: "absent") == nil)

        // Registered defaults answer every getter, arrays and dictionaries included.
        store.register(defaults: ["recent": ["q"], "limits": ["n": 3]])
        #expect(store.stringArray(forKey: "recent") == ["q"])
        #expect(store.array(forKey: "recent") as? [String] == ["q"])
        #expect(store.dictionary(forKey: "limits") as? [String: Int] == ["n": 3])
        #expect(store.object(forKey: "recent") as? [String] == ["q"])

        try store.set(nil, forKey: "text")
        #expect(!store.contains("text"))
        #expect(store.object(forKey: "text") == nil)
        let optional: Int? = nil
        try store.set(optional, forKey: "int")
        #expect(!store.contains("int"))
    }

    @Test("store[key] = value writes through a typed key; nil removes an Optional key's value")
    func writeThroughAKey() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        store[.apiTheme] = "dark"
        #expect(store[.apiTheme] == "dark")
        #expect(try ArchiveStore(directory: folder.url).load(String.self, forKey: "theme") == "dark")
        store[.nickname] = "ada"
        #expect(store[.nickname] == "ada")
        store[.nickname] = nil
        #expect(!store.contains("nickname"))
        #expect(store[.nickname] == nil)
        try store.remove(for: .apiTheme)
        #expect(store[.apiTheme] == "light")
    }

    // MARK: 4. Nothing swallowed

    @Test("a failed write through a key, a damaged value and a failed listing are reported to failures()")
    func failuresAreVisible() async throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url.appending(path: "store"))
        var failures = store.failures().makeAsyncIterator()

        // A save that cannot rename over the key's file: the setter reports it, the value stays.
        let blocked = store.directory.appending(path: "key-theme.archive")
        try FileManager.default.createDirectory(at: blocked.appending(path: "inside"), withIntermediateDirectories: true)
        store[.apiTheme] = "dark"
        var failure = try #require(await failures.next())
        while failure.operation != .write { failure = try #require(await failures.next()) }
        #expect(failure.key == "theme")
        #expect(failure.error.code == .io)
        #expect(failure.description.hasPrefix("ArchiveStore: could not save \"theme\" in \(store.directory.path(percentEncoded: false).dropLast())"))
        #expect(throws: ArchiveError.self) { try store.set("dark", for: .apiTheme) }
        try FileManager.default.removeItem(at: blocked)

        // A damaged file: the getter gives the default and reports why.
        try Data("damaged".utf8).write(to: blocked)
        #expect(store[.apiTheme] == "light")
        failure = try #require(await failures.next())
        #expect(failure.operation == .read)
        #expect(failure.key == "theme")
        #expect(failure.error.code == .notPropertyList)

        // A store whose folder became a file: the properties answer empty and report it; the
        // throwing forms throw.
        try FileManager.default.removeItem(at: store.directory)
        try Data().write(to: store.directory)
        #expect(store.keys == [])
        failure = try #require(await failures.next())
        #expect(failure.operation == .list)
        #expect(failure.key == nil)
        #expect(throws: ArchiveError.self) { try store.listKeys() }
        #expect(throws: ArchiveError.self) { try store.listNamespaces() }
        #expect(throws: ArchiveError.self) { try store.size() }
    }

    @Test("listKeys, listNamespaces and size answer like the properties when the folder reads")
    func throwingListings() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        try store.set(1, forKey: "a")
        try store.namespace("n").set(2, forKey: "b")
        #expect(try store.listKeys() == ["a"])
        #expect(store.keys == ["a"])
        #expect(try store.listNamespaces() == ["n"])
        #expect(store.namespaces == ["n"])
        let size = try store.size()
        #expect(size.count == 2)
        #expect(size.count == store.count && size.bytes == store.totalBytes && size.bytes > 0)
    }

    // MARK: 5. Sequence types

    @Test("values(for:) is a named, Sendable sequence; changes() an opaque Sendable one")
    func sequenceTypes() async throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        let values: ArchiveStore.ValueSequence<String> = store.values(for: .apiTheme)
        let first = Task { () -> String? in
            for await theme in values { return theme }
            return nil
        }
        #expect(await first.value == "light")
        let changes = store.changes(for: .apiTheme)
        let next = Task { () -> ArchiveStore.Change? in
            for await change in changes { return change }
            return nil
        }
        // The watch starts when changes(for:) returns, so this save is seen.
        store[.apiTheme] = "dark"
        #expect(await next.value == ArchiveStore.Change(key: "theme", kind: .saved))
    }

    // MARK: 7. Deep graphs

    @Test("archiverOptions let a store save a thread deeper than the default depth; the error's key path is short")
    func deepGraphs() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        let thread = Reply.thread(depth: 300)
        let error = try #require(throws: ArchiveError.self) { try store.save(thread, forKey: "thread") }
        #expect(error.code == .depthLimit)
        #expect(error.description.count < 400, "\(error.description.count) characters")
        #expect(error.description.contains("(.replies[0] ×"), "\(error)")

        store.archiverOptions.maximumDepth = 2_048
        store.unarchiverOptions.maximumDepth = 2_048
        try store.save(thread, forKey: "thread")
        #expect(try store.load(Reply.self, forKey: "thread") == thread)

        store.archiverOptions.outputFormat = .xml
        try store.save(thread, forKey: "xml")
        let bytes = try Data(contentsOf: store.directory.appending(path: "key-xml.archive"))
        #expect(bytes.starts(with: Data("<?xml".utf8)))
        #expect(try store.load(Reply.self, forKey: "xml") == thread)
    }

    // MARK: 8. upgradeAll

    @Test("upgradeAll upgrades every value it can and lists the damaged files it skipped")
    func upgradeSkipsDamagedFiles() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        try store.save(Reply.thread(depth: 1), forKey: "b")
        try Data("damaged cache entry".utf8).write(to: store.directory.appending(path: "key-a.archive"))
        let result = try store.upgradeAll(Reply.self)
        #expect(result.rewritten == 0)  // already current
        #expect(result.skipped.map(\.key) == ["a"])
        #expect(result.skipped.first?.error.code == .notPropertyList)
        #expect(try Data(contentsOf: store.directory.appending(path: "key-a.archive")) == Data("damaged cache entry".utf8))
    }
}
