import ArchiveStore
import Foundation
import KeyedArchive
import Testing

/// A value set both in a `UserDefaults` suite and in a store, with the setter each offers.
enum StoredSample: Sendable, CustomTestStringConvertible {
    case integer(Int)
    case double(Double)
    case float(Float)
    case bool(Bool)
    case string(String)
    case date(Date)
    /// Set as `Data`; held as an array because the samples are a global, and LeakSanitizer reports
    /// a `Data` kept in a global at exit (`Scripts/lsan.supp` says why).
    case data([UInt8])
    case integers([Int])
    case strings([String])
    case dictionary([String: Int])

    var testDescription: String {
        switch self {
        case .integer(let value): "Int \(value)"
        case .double(let value): "Double \(value)"
        case .float(let value): "Float \(value)"
        case .bool(let value): "Bool \(value)"
        case .string(let value): "String \(value.debugDescription)"
        case .date(let value): "Date \(value.timeIntervalSinceReferenceDate)"
        case .data(let value): "Data of \(value.count) bytes"
        case .integers(let value): "[Int] \(value)"
        case .strings(let value): "[String] \(value)"
        case .dictionary(let value): "[String: Int] \(value)"
        }
    }

    func set(in defaults: UserDefaults, forKey key: String) {
        switch self {
        case .integer(let value): defaults.set(value, forKey: key)
        case .double(let value): defaults.set(value, forKey: key)
        case .float(let value): defaults.set(value, forKey: key)
        case .bool(let value): defaults.set(value, forKey: key)
        case .string(let value): defaults.set(value, forKey: key)
        case .date(let value): defaults.set(value, forKey: key)
        case .data(let value): defaults.set(Data(value), forKey: key)
        case .integers(let value): defaults.set(value, forKey: key)
        case .strings(let value): defaults.set(value, forKey: key)
        case .dictionary(let value): defaults.set(value, forKey: key)
        }
    }

    func set(in store: ArchiveStore, forKey key: String) throws {
        switch self {
        case .integer(let value): try store.set(value, forKey: key)
        case .double(let value): try store.set(value, forKey: key)
        case .float(let value): try store.set(value, forKey: key)
        case .bool(let value): try store.set(value, forKey: key)
        case .string(let value): try store.set(value, forKey: key)
        case .date(let value): try store.set(value, forKey: key)
        case .data(let value): try store.set(Data(value), forKey: key)
        case .integers(let value): try store.save(value, forKey: key)
        case .strings(let value): try store.save(value, forKey: key)
        case .dictionary(let value): try store.save(value, forKey: key)
        }
    }

    /// False for data that is not a keyed archive: `UserDefaults.url(forKey:)` traps on it.
    var userDefaultsReadsURL: Bool {
        if case .data(let value) = self { value == archivedURL } else { true }
    }
}

/// A keyed archive of a URL as Foundation's own archiver writes it.
let archivedURL = [UInt8](
    try! NSKeyedArchiver.archivedData(
        withRootObject: NSURL(string: "https://example.com/feed?page=2")!, requiringSecureCoding: false))

private let samples: [StoredSample] = [
    .integer(42), .integer(0), .integer(1), .integer(-3), .integer(1 << 31), .integer(1 << 53), .integer(Int.min),
    .double(4.5), .double(-4.9), .double(0.1), .double(4.0), .double(0), .double(-0.0), .double(1e20), .double(1e16),
    .double(.leastNonzeroMagnitude), .double(1.0 / 3), .double(.nan), .double(.infinity), .double(-.infinity),
    .double(.greatestFiniteMagnitude),
    .float(4.5), .float(0.1), .float(1e10), .float(1.0 / 3), .float(-0.0), .float(.infinity), .float(3e38),
    .bool(true), .bool(false),
    .string("42"), .string("4.5"), .string("-4.9"), .string(" 7"), .string("7 "), .string("\t7"), .string("\n7"),
    .string("+7"), .string("-7"), .string("- 1"), .string("+-1"), .string("007"), .string("-007"), .string("0x10"),
    .string("1e3"), .string("1E3"), .string("1e"), .string(".5"), .string("-.5"), .string("5."), .string("12abc"),
    .string("1,5"), .string("1_000"), .string("9223372036854775808"), .string("-9223372036854775809"),
    .string("99999999999999999999"), .string("1e400"), .string("1e-400"),
    .string("YES"), .string("yes"), .string("Yes"), .string("Y"), .string("y"), .string("yo"), .string("true"),
    .string("TRUE"), .string("True"), .string("T"), .string("t"), .string("  y"), .string("\ny"), .string("+y"),
    .string("-y"), .string("0y"), .string("1"), .string("0"), .string("00"), .string("000001"), .string("0.5"),
    .string("2"), .string("NO"), .string("no"), .string("n"), .string("false"), .string("f"), .string("abc"),
    .string(""), .string(" "), .string("nan"), .string("NaN"), .string("inf"), .string("infinity"), .string("٤٢"),
    .string("１"),
    .string("~"), .string("~/Documents/x.txt"), .string("~root/x"), .string("~nosuchuser-kx/x"), .string("~x"),
    .string("/tmp/x"), .string("/tmp/"), .string("/"), .string("/a/../b"), .string("relative/path"),
    .string("./a"), .string("../a"), .string("a b"), .string("https://example.com/a"), .string("file:///tmp/x"),
    .date(Date(timeIntervalSinceReferenceDate: 1000)), .date(Date(timeIntervalSinceReferenceDate: -5.25)),
    .data(Array("abc".utf8)), .data(Array("42".utf8)), .data(Array("YES".utf8)), .data([]),
    .data(archivedURL),
    .integers([1, 2]), .integers([]), .strings(["a"]), .dictionary(["a": 1]),
]

/// Reals equal, or both NaN.
private func same(_ lhs: Double, _ rhs: Double) -> Bool { lhs == rhs || (lhs.isNaN && rhs.isNaN) }
private func same(_ lhs: Float, _ rhs: Float) -> Bool { lhs == rhs || (lhs.isNaN && rhs.isNaN) }

/// A fresh `UserDefaults` suite of its own, emptied when the value is released.
private final class DefaultsSuite {
    let name = "archive-store-everyday-\(UUID().uuidString)"
    let defaults: UserDefaults

    init() throws { defaults = try #require(UserDefaults(suiteName: name)) }

    deinit { defaults.removePersistentDomain(forName: name) }
}

// Serialized: Foundation's preferences on Linux are one process-wide store.
@Suite("Typed values convert as UserDefaults does", .serialized)
struct TypedValueConversionTests {
    @Test(arguments: samples)
    func everyGetterAgreesWithUserDefaults(_ sample: StoredSample) throws {
        let suite = try DefaultsSuite()
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        let defaults = suite.defaults
        sample.set(in: defaults, forKey: "value")
        try sample.set(in: store, forKey: "value")

        #expect(store.integer(forKey: "value") == defaults.integer(forKey: "value"), "integer")
        #expect(same(store.double(forKey: "value"), defaults.double(forKey: "value")), "double")
        #expect(same(store.float(forKey: "value"), defaults.float(forKey: "value")), "float")
        #expect(store.bool(forKey: "value") == defaults.bool(forKey: "value"), "bool")
        #expect(store.string(forKey: "value") == defaults.string(forKey: "value"), "string")
        #expect(store.data(forKey: "value") == defaults.data(forKey: "value"), "data")
        #expect(store.date(forKey: "value") == defaults.object(forKey: "value") as? Date, "date")
        if sample.userDefaultsReadsURL {
            #expect(store.url(forKey: "value") == defaults.url(forKey: "value"), "url")
        } else {
            #expect(store.url(forKey: "value") == nil, "url of data that is not an archive")
        }
    }

    @Test func registeredDefaultsConvertAndGiveWayToStoredValues() throws {
        let suite = try DefaultsSuite()
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        let defaults = suite.defaults
        // UserDefaults' registrations are global to the process on Linux: keys of this test only.
        let prefix = "registered-\(UUID().uuidString)-"
        let registered: [String: Any] = [
            "\(prefix)answer": "42", "\(prefix)count": 5, "\(prefix)ratio": 2.5, "\(prefix)single": Float(0.1),
            "\(prefix)flag": true, "\(prefix)yes": "YES", "\(prefix)home": "~/notes", "\(prefix)when":
                Date(timeIntervalSinceReferenceDate: 5),
            "\(prefix)bytes": Data([1, 2]), "\(prefix)number": NSNumber(value: 7.5), "\(prefix)list": [1, 2],
            "\(prefix)site": URL(string: "https://example.com")!,
        ]
        defaults.register(defaults: registered)
        store.register(defaults: registered)
        let keys = registered.keys.sorted()
        func expectAgreement(_ comment: Comment, except skipped: String? = nil) {
            for key in keys where key != skipped {
                #expect(store.integer(forKey: key) == defaults.integer(forKey: key), "\(comment) integer \(key)")
                #expect(same(store.double(forKey: key), defaults.double(forKey: key)), "\(comment) double \(key)")
                #expect(same(store.float(forKey: key), defaults.float(forKey: key)), "\(comment) float \(key)")
                #expect(store.bool(forKey: key) == defaults.bool(forKey: key), "\(comment) bool \(key)")
                #expect(store.string(forKey: key) == defaults.string(forKey: key), "\(comment) string \(key)")
                if key != "\(prefix)bytes" {  // UserDefaults traps on data that is not an archive
                    #expect(store.url(forKey: key) == defaults.url(forKey: key), "\(comment) url \(key)")
                } else {
                    #expect(store.url(forKey: key) == nil, "\(comment) url \(key)")
                }
                #expect(store.data(forKey: key) == defaults.data(forKey: key), "\(comment) data \(key)")
                #expect(store.date(forKey: key) == defaults.object(forKey: key) as? Date, "\(comment) date \(key)")
            }
        }
        expectAgreement("registered")
        #expect(store.integer(forKey: "\(prefix)answer") == 42)
        #expect(store.keys.isEmpty)  // never written
        #expect(try store.load(String.self, forKey: "\(prefix)answer") == nil)

        // A stored value wins when the getter can convert it; removing it brings the default back.
        defaults.set([1], forKey: "\(prefix)answer")
        try store.save([1], forKey: "\(prefix)answer")
        defaults.set("9", forKey: "\(prefix)count")
        try store.set("9", forKey: "\(prefix)count")
        // A stored array does not convert to a number: UserDefaults reads 0 although a default
        // is registered; the store reads the registered default (a deliberate difference).
        expectAgreement("stored", except: "\(prefix)answer")
        #expect(defaults.integer(forKey: "\(prefix)answer") == 0)
        #expect(store.integer(forKey: "\(prefix)answer") == 42)
        #expect(store.string(forKey: "\(prefix)answer") == "42")
        #expect(store.object(forKey: "\(prefix)answer") as? [Int] == [1])
        defaults.removeObject(forKey: "\(prefix)answer")
        try store.remove(forKey: "\(prefix)answer")
        expectAgreement("removed")

        // Registering again replaces one key and keeps the others.
        defaults.register(defaults: ["\(prefix)ratio": "7"])
        store.register(defaults: ["\(prefix)ratio": "7"])
        expectAgreement("registered again")
        #expect(store.integer(forKey: "\(prefix)ratio") == 7)
        #expect(store.integer(forKey: "\(prefix)answer") == 42)
    }

    @Test func registeredDefaultsAreSharedByTheStoresNamespaces() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        let early = store.namespace("early")
        store.namespace("someone").register(defaults: ["theme": "dark", "launches": 0])
        #expect(store.string(forKey: "theme") == "dark")
        #expect(early.string(forKey: "theme") == "dark")
        #expect(store.namespace("late").namespace("nested").string(forKey: "theme") == "dark")
        try early.set("light", forKey: "theme")
        #expect(early.string(forKey: "theme") == "light")
        #expect(store.string(forKey: "theme") == "dark")
        // So is a store opened separately on the same folder in this process.
        #expect(try ArchiveStore(directory: folder.url).string(forKey: "theme") == "dark")
    }

    /// Where the store keeps more than `UserDefaults` on Linux, which stores a URL's path only
    /// and reads `Int.max` back as 0.
    @Test func urlsStayWholeAndIntMaxReadsAsItself() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        let web = URL(string: "https://example.com/a?b=c#d")!
        try store.set(web, forKey: "web")
        #expect(store.url(forKey: "web") == web)
        #expect(store.string(forKey: "web") == nil)
        #expect(store.integer(forKey: "web") == 0)
        let relative = URL(string: "x/y", relativeTo: URL(string: "https://example.com/base/"))!
        try store.set(relative, forKey: "relative")
        #expect(store.url(forKey: "relative")?.absoluteString == "https://example.com/base/x/y")
        try store.set(Int.max, forKey: "max")
        #expect(store.integer(forKey: "max") == Int.max)
        #expect(store.string(forKey: "max") == "9223372036854775807")
        #expect(store.double(forKey: "max") == 0x1p63)
    }
}
