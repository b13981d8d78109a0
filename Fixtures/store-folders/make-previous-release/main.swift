import ArchiveStore
import Foundation
import KeyedArchive

// Writes Fixtures/store-folders/previous-release: an ArchiveStore folder as the release before
// the store's engine changes (commit c4b876b) leaves it. Builds against that commit only:
// Fixtures/store-folders/make-previous-release/make.sh compiles it as the executable
// `PreviousReleaseApp` of a scratch package that depends on a checkout of c4b876b, and runs it.
// Tests/ArchiveStoreTests/PreviousReleaseFolderTests.swift declares the same models.
//
// Usage: PreviousReleaseApp <folder>   (the folder must not exist)

// MARK: - Models (the same declarations as in PreviousReleaseFolderTests.swift)

enum PreviousReleaseTheme: String {
    case light, dark, system
}

/// Reflection-coded, nested in ``PreviousReleaseProfile``.
struct PreviousReleaseAddress: Archivable, Equatable {
    static var archiveClassName: String? { "PreviousRelease.Address" }
    var street = ""
    var city = ""
    var postcode: String? = nil
}

/// Reflection-coded (`Archivable`), with a nested model, optionals, a raw-value enum, a date,
/// a list and a dictionary.
struct PreviousReleaseProfile: Archivable, Equatable {
    static var archiveClassName: String? { "PreviousRelease.Profile" }
    var name = ""
    var age = 0
    var height = 0.0
    var isAdmin = false
    var email: String? = nil
    var nickname: String? = nil
    var tags: [String] = []
    var address = PreviousReleaseAddress()
    var joined = Date(timeIntervalSinceReferenceDate: 0)
    var theme = PreviousReleaseTheme.light
    var highScores: [String: Int] = [:]
}

/// Saved with `save(_:)`: its key is its archive class name, `PreviousRelease.AppSettings`.
struct PreviousReleaseAppSettings: Archivable, Equatable {
    static var archiveClassName: String? { "PreviousRelease.AppSettings" }
    var fontSize = 14
    var showsHints = true
    var recentFiles: [String] = []
}

/// Coded through `Codable`. A `Codable` type has no `archiveClassName`: it is archived under
/// its module-qualified name, here `PreviousReleaseApp.PreviousReleasePreferences`, and the case
/// of its enum with payloads under `PreviousReleaseApp.PreviousReleasePreferences.Sort`.
struct PreviousReleasePreferences: Codable, Equatable {
    enum Sort: Codable, Equatable {
        case byDate(ascending: Bool)
        case byName
    }
    var language: String
    var notifications: Bool
    var quietHours: [Int]
    var fontScale: Double
    var sort: Sort
    var lastExport: Date?
    var signature: String?
}

// MARK: - The values

let longKey = "https://example.com/search?q=" + String(repeating: "x", count: 271)  // 300 characters
let longNamespace = String(repeating: "Shared Workspace ", count: 18)  // 306 characters
let mixedKey = "Mixed/Case \u{FC}n\u{EF}"  // "Mixed/Case ünï", precomposed

let profile = PreviousReleaseProfile(
    name: "Ann Example", age: 42, height: 1.68, isAdmin: true, email: "ann@example.com", nickname: nil,
    tags: ["admin", "beta"],
    address: PreviousReleaseAddress(street: "1 Long Road", city: "Leeds", postcode: "LS1 1AA"),
    joined: Date(timeIntervalSinceReferenceDate: 700_000_000.5), theme: .dark,
    highScores: ["chess": 1850, "go": -3])
let aliceProfile = PreviousReleaseProfile(
    name: "Alice", age: 29, height: 0, isAdmin: false, email: nil, nickname: "al", tags: [],
    address: PreviousReleaseAddress(street: "", city: "Paris", postcode: nil),
    joined: Date(timeIntervalSinceReferenceDate: 0), theme: .system, highScores: [:])
let preferences = PreviousReleasePreferences(
    language: "en-GB", notifications: false, quietHours: [22, 23, 0, 1, 2, 3, 4, 5, 6], fontScale: 1.25,
    sort: .byDate(ascending: false), lastExport: Date(timeIntervalSinceReferenceDate: 786_000_000), signature: nil)
let metadata: [String: Any] = [
    "title": "Quarterly report", "pages": 12, "ratio": 0.75, "draft": false,
    "created": Date(timeIntervalSinceReferenceDate: 786_000_000), "thumbnail": Data([0xDE, 0xAD, 0xBE, 0xEF]),
    "authors": ["Ann", "Bo"], "bounds": ["min": -3, "max": 10],
]
let settings = PreviousReleaseAppSettings(fontSize: 17, showsHints: false, recentFiles: ["/tmp/a.txt", "notes.md"])

// MARK: - Writing

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: PreviousReleaseApp <folder that does not exist>\n".utf8))
    exit(2)
}
let folder = URL(fileURLWithPath: CommandLine.arguments[1], isDirectory: true)
guard !FileManager.default.fileExists(atPath: folder.path) else {
    FileHandle.standardError.write(Data("\(folder.path) exists; remove it first\n".utf8))
    exit(2)
}

// 20 values at most, the whole store counted (namespaces included).
let store = try ArchiveStore(directory: folder, limits: .init(maximumCount: 20))
let alice = store.namespace("alice@example.com")
let drafts = alice.namespace("drafts")
let workspace = store.namespace(longNamespace)

// 1. Two values that will not stay: one evicted by the limits, one removed.
try store.save("a value the limits evict", forKey: "scratch")
try store.save("a value removed by hand", forKey: "obsolete")

// 2. Eighteen values: 20 in the store, its limit.
try store.save(profile, forKey: "profile")
try store.save(preferences, forKey: "preferences")
try store.save("Hello, world! Gr\u{FC}\u{DF}e \u{1F44B}", forKey: "greeting")
try store.save([3, 1, 4, 1, 5, 9, 2, 6, -535, Int.max, Int.min], forKey: "scores")
try store.save(metadata, forKey: "metadata")
try store.save(Date(timeIntervalSinceReferenceDate: 786_000_000.25), forKey: "lastSync")
try store.save(Data((0...255).map { UInt8($0) }), forKey: "avatar")
try store.save(URL(string: "https://example.com/docs/start?lang=en#intro")!, forKey: "homepage")
try store.set(42, forKey: "launchCount")
try store.set(0.8, forKey: "volume")
try store.set(true, forKey: "onboarded")
try store.set("dark", forKey: "theme")
try store.save("token-7f3a", forKey: "session", expiresAfter: .seconds(100 * 365 * 86_400))
try store.save("odd bytes in the key", forKey: mixedKey)
try store.save(settings)
try alice.save(aliceProfile, forKey: "profile")
try alice.save(["apples", "pears"], forKey: "cart")
try drafts.save("Dear Bob,", forKey: "draft-1")

// 3. Loads: each one a `used` record in the journal. "lastSync" first: the least recently
// used value of the folder from now on.
_ = try store.load(Date.self, forKey: "lastSync")
_ = try store.load(PreviousReleaseProfile.self, forKey: "profile")
_ = try store.load(PreviousReleasePreferences.self, forKey: "preferences")
_ = try store.load(String.self, forKey: "greeting")
_ = try store.load([Int].self, forKey: "scores")
_ = try store.load([String: Any].self, forKey: "metadata")
_ = try store.load(Data.self, forKey: "avatar")
_ = try store.load(URL.self, forKey: "homepage")
_ = try store.load(Int.self, forKey: "launchCount")
_ = try store.load(Double.self, forKey: "volume")
_ = try store.load(Bool.self, forKey: "onboarded")
_ = try store.load(String.self, forKey: "theme")
_ = try store.load(String.self, forKey: "session")
_ = try store.load(String.self, forKey: mixedKey)
_ = try store.load(PreviousReleaseAppSettings.self)
_ = try alice.load(PreviousReleaseProfile.self, forKey: "profile")
_ = try alice.load([String].self, forKey: "cart")
_ = try drafts.load(String.self, forKey: "draft-1")

// 4. A removal (19 values), then two saves: the second takes the store past its limit, and
// "scratch", saved first and never used, is evicted.
try store.remove(forKey: "obsolete")
try store.save(["q": "x", "page": 1] as [String: Any], forKey: longKey)
try workspace.save("Shared note", forKey: "note")

print("count \(store.count), \(store.totalBytes) bytes")
print("keys \(store.keys.map { $0.count > 40 ? String($0.prefix(40)) + "…" : $0 })")
print("namespaces \(store.namespaces.map { $0.count > 40 ? String($0.prefix(40)) + "…" : $0 })")
