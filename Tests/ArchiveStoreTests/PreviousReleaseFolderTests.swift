import ArchiveStore
import Foundation
import KeyedArchive
import Testing
import TestSupport

// MARK: - The models of the folder (the same declarations as its maker's)

enum PreviousReleaseTheme: String {
    case light, dark, system
}

struct PreviousReleaseAddress: Archivable, Equatable {
    static var archiveClassName: String? { "PreviousRelease.Address" }
    var street = ""
    var city = ""
    var postcode: String? = nil
}

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

struct PreviousReleaseAppSettings: Archivable, Equatable {
    static var archiveClassName: String? { "PreviousRelease.AppSettings" }
    var fontSize = 14
    var showsHints = true
    var recentFiles: [String] = []
}

/// A `Codable` type has no `archiveClassName`: it is archived under its module-qualified name,
/// and the folder's maker was the module `PreviousReleaseApp` (see
/// ``PreviousReleaseFolderTests/mapCodableNames(in:)``).
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

/// `Fixtures/store-folders/previous-release`: a store folder written by the release before the
/// store's engine changes (commit c4b876b; see `Fixtures/store-folders/README.md`). Today's
/// store opens a copy of it, never the folder in place (opening may write the journal, sweep,
/// or keep a `.configuration`), and reads every value.
@Suite("ArchiveStore: a folder written by the previous release")
struct PreviousReleaseFolderTests {
    static let fixture = Fixtures.own("store-folders/previous-release")
    /// The limits the folder was made with.
    static let madeWith = ArchiveStore.Limits(maximumCount: 20)

    /// Lets `store` read the `Codable` models, archived under the names of the module that made
    /// the folder (`PreviousReleaseApp`): the struct, and its enum with payloads, whose case is
    /// a coded object of its own.
    static func mapCodableNames(in store: ArchiveStore) {
        store.setClass(PreviousReleasePreferences.self, forClassName: "PreviousReleaseApp.PreviousReleasePreferences")
        store.setClass(PreviousReleasePreferences.Sort.self, forClassName: "PreviousReleaseApp.PreviousReleasePreferences.Sort")
    }

    static let longKey = "https://example.com/search?q=" + String(repeating: "x", count: 271)
    static let longNamespace = String(repeating: "Shared Workspace ", count: 18)
    static let mixedKey = "Mixed/Case \u{FC}n\u{EF}"
    static let alice = "alice@example.com"

    static let rootKeys = [
        "profile", "preferences", "greeting", "scores", "metadata", "lastSync", "avatar", "homepage", "launchCount",
        "volume", "onboarded", "theme", "session", mixedKey, "PreviousRelease.AppSettings", longKey,
    ]
    /// The folder's value files (`key-….archive`, namespaces included) and their bytes.
    static let fileCount = 20
    static let fileBytes = 7365

    // MARK: - Tests

    @Test func theCommittedFolderIsAsThePreviousReleaseLeftIt() throws {
        let files = Self.valueFiles(in: Self.fixture)
        #expect(files.count == Self.fileCount)
        #expect(files.values.reduce(0, +) == Self.fileBytes)
        let root = Self.names(in: Self.fixture)
        #expect(root.contains(".lock"))
        #expect(root.contains(".journal"))
        // Written by today's store only: a test that opened the folder in place would leave them.
        #expect(!root.contains(".configuration"))
        #expect(!root.contains(".batch"))
        #expect(StoreFixture.tree(at: Self.fixture).filter { $0.contains(".tmp-") }.isEmpty)
        let journal = try Data(contentsOf: Self.fixture.appending(path: ".journal"))
        #expect(journal.prefix(8) == Data("KAJRNL01".utf8))
        let hashedNamespaces = root.filter { $0.hasPrefix("ns-") && $0.contains("~") }
        #expect(hashedNamespaces.count == 1)
        if let folder = hashedNamespaces.first {
            let recorded = try Data(contentsOf: Self.fixture.appending(path: folder).appending(path: ".namespace"))
            #expect(recorded == Data(Self.longNamespace.utf8))
        }
    }

    @Test func opensWithoutLimitsReadsEveryValueAndTakesNewSavesAndBatches() throws {
        let copy = try CopiedFolder(of: Self.fixture)
        do {
            let store = try ArchiveStore(directory: copy.directory)
            Self.mapCodableNames(in: store)
            #expect(store.limits == .unlimited)
            try Self.expectSizes(of: store, in: copy.directory, count: Self.fileCount)
            try Self.expectEveryValue(in: store)

            try store.save("saved today", forKey: "added")
            try store.batch { batch in
                try batch.set(7, forKey: "batched")
                try batch.save(["one", "two"], forKey: "batched list")
            }
            try store.namespace(Self.alice).batch { batch in
                try batch.save("in a batch", forKey: "note")
            }
            try Self.expectAdded(in: store)
            try Self.expectSizes(of: store, in: copy.directory, count: Self.fileCount + 4)
        }
        // A second open, by a new instance (the first one is gone), reads it all again.
        let reopened = try ArchiveStore(directory: copy.directory)
        Self.mapCodableNames(in: reopened)
        #expect(reopened.limits == .unlimited)
        try Self.expectSizes(of: reopened, in: copy.directory, count: Self.fileCount + 4)
        try Self.expectEveryValue(in: reopened, addedRootKeys: ["added", "batched", "batched list"], addedAliceKeys: ["note"])
        try Self.expectAdded(in: reopened)
    }

    @Test func opensWithTheLimitsItWasMadeWithAndKeepsEveryValue() throws {
        let copy = try CopiedFolder(of: Self.fixture)
        do {
            let store = try ArchiveStore(directory: copy.directory, limits: Self.madeWith)
            Self.mapCodableNames(in: store)
            #expect(store.limits == Self.madeWith)
            // At its limit, not past it: nothing is evicted by opening or reading.
            try Self.expectSizes(of: store, in: copy.directory, count: Self.fileCount)
            try Self.expectEveryValue(in: store)
            try Self.expectSizes(of: store, in: copy.directory, count: Self.fileCount)

            // Values replaced, by a save and a batch: still 20, nothing evicted.
            try store.set(43, forKey: "launchCount")
            try store.batch { batch in
                try batch.set("light", forKey: "theme")
                try batch.set(false, forKey: "onboarded")
            }
            try store.namespace(Self.alice).namespace("drafts").batch { batch in
                try batch.save("Dear Bob, again", forKey: "draft-1")
            }
            try Self.expectSizes(of: store, in: copy.directory, count: Self.fileCount)
        }
        // A second open without limits applies the ones the folder now keeps.
        let reopened = try ArchiveStore(directory: copy.directory)
        Self.mapCodableNames(in: reopened)
        #expect(reopened.limits == Self.madeWith)
        try Self.expectSizes(of: reopened, in: copy.directory, count: Self.fileCount)
        try Self.expectEveryValue(
            in: reopened, typed: Typed(launchCount: 43, onboarded: false, theme: "light"), draft: "Dear Bob, again")
    }

    /// The folder's journal says which values were used least recently: "lastSync", then
    /// "profile" (the maker loaded them first, and every value after them). A store opened with
    /// the folder's limits evicts them first, in that order, when new values take it past them.
    @Test func savesPastTheLimitEvictTheValuesTheOldJournalSaysWereLeastRecentlyUsed() throws {
        let copy = try CopiedFolder(of: Self.fixture)
        let store = try ArchiveStore(directory: copy.directory, limits: Self.madeWith)
        Self.mapCodableNames(in: store)
        try store.save("first newcomer", forKey: "newcomer 1")
        #expect(store.count == Self.fileCount)
        #expect(!store.contains("lastSync"))
        #expect(try store.load(Date.self, forKey: "lastSync") == nil)
        try store.save("second newcomer", forKey: "newcomer 2")
        #expect(store.count == Self.fileCount)
        #expect(!store.contains("profile"))
        let expected = (Self.rootKeys.filter { $0 != "lastSync" && $0 != "profile" } + ["newcomer 1", "newcomer 2"])
        #expect(bytes(store.keys) == Self.sortedBytes(expected))
        #expect(bytes(store.namespace(Self.alice).keys) == Self.sortedBytes(["profile", "cart"]))
        #expect(try store.load(String.self, forKey: "newcomer 1") == "first newcomer")
        #expect(try store.load(String.self, forKey: "newcomer 2") == "second newcomer")
        #expect(try store.load(PreviousReleasePreferences.self, forKey: "preferences") == Self.preferences)
        try Self.expectSizes(of: store, in: copy.directory, count: Self.fileCount)
    }

    // MARK: - Expected values

    static let profile = PreviousReleaseProfile(
        name: "Ann Example", age: 42, height: 1.68, isAdmin: true, email: "ann@example.com", nickname: nil,
        tags: ["admin", "beta"],
        address: PreviousReleaseAddress(street: "1 Long Road", city: "Leeds", postcode: "LS1 1AA"),
        joined: Date(timeIntervalSinceReferenceDate: 700_000_000.5), theme: .dark,
        highScores: ["chess": 1850, "go": -3])
    static let aliceProfile = PreviousReleaseProfile(
        name: "Alice", age: 29, height: 0, isAdmin: false, email: nil, nickname: "al", tags: [],
        address: PreviousReleaseAddress(street: "", city: "Paris", postcode: nil),
        joined: Date(timeIntervalSinceReferenceDate: 0), theme: .system, highScores: [:])
    static let preferences = PreviousReleasePreferences(
        language: "en-GB", notifications: false, quietHours: [22, 23, 0, 1, 2, 3, 4, 5, 6], fontScale: 1.25,
        sort: .byDate(ascending: false), lastExport: Date(timeIntervalSinceReferenceDate: 786_000_000), signature: nil)
    static let settings = PreviousReleaseAppSettings(fontSize: 17, showsHints: false, recentFiles: ["/tmp/a.txt", "notes.md"])
    static let greeting = "Hello, world! Gr\u{FC}\u{DF}e \u{1F44B}"
    static let scores = [3, 1, 4, 1, 5, 9, 2, 6, -535, Int.max, Int.min]
    static let lastSync = Date(timeIntervalSinceReferenceDate: 786_000_000.25)
    static let avatar = Data((0...255).map { UInt8($0) })
    static let homepage = URL(string: "https://example.com/docs/start?lang=en#intro")!

    /// The values saved with `set(_:forKey:)`.
    struct Typed {
        var launchCount = 42
        var volume = 0.8
        var onboarded = true
        var theme = "dark"
    }

    /// Checks every value of the folder, value by value, and the keys and namespaces of every
    /// namespace (with the keys saved since, `addedRootKeys` and `addedAliceKeys`).
    static func expectEveryValue(
        in store: ArchiveStore, typed: Typed = Typed(), draft: String = "Dear Bob,", addedRootKeys: [String] = [],
        addedAliceKeys: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let alice = store.namespace(Self.alice)
        let drafts = alice.namespace("drafts")
        let workspace = store.namespace(longNamespace)

        // Listing.
        #expect(bytes(store.keys) == sortedBytes(rootKeys + addedRootKeys), sourceLocation: sourceLocation)
        #expect(bytes(alice.keys) == sortedBytes(["profile", "cart"] + addedAliceKeys), sourceLocation: sourceLocation)
        #expect(drafts.keys == ["draft-1"], sourceLocation: sourceLocation)
        #expect(workspace.keys == ["note"], sourceLocation: sourceLocation)
        #expect(bytes(store.namespaces) == sortedBytes([Self.alice, longNamespace]), sourceLocation: sourceLocation)
        #expect(alice.namespaces == ["drafts"], sourceLocation: sourceLocation)
        #expect(drafts.namespaces == [], sourceLocation: sourceLocation)
        #expect(workspace.namespaces == [], sourceLocation: sourceLocation)

        // Models.
        #expect(try store.load(PreviousReleaseProfile.self, forKey: "profile") == profile, sourceLocation: sourceLocation)
        #expect(
            try store.load(PreviousReleasePreferences.self, forKey: "preferences") == preferences,
            sourceLocation: sourceLocation)
        #expect(try store.load(PreviousReleaseAppSettings.self) == settings, sourceLocation: sourceLocation)
        #expect(
            try store.load(PreviousReleaseAppSettings.self, forKey: "PreviousRelease.AppSettings") == settings,
            sourceLocation: sourceLocation)

        // Property-list values.
        let loadedGreeting = try store.load(String.self, forKey: "greeting")
        #expect(loadedGreeting.map { Array($0.utf8) } == Array(greeting.utf8), sourceLocation: sourceLocation)
        #expect(try store.load([Int].self, forKey: "scores") == scores, sourceLocation: sourceLocation)
        #expect(try store.load(Date.self, forKey: "lastSync") == lastSync, sourceLocation: sourceLocation)
        #expect(try store.load(Data.self, forKey: "avatar") == avatar, sourceLocation: sourceLocation)
        #expect(try store.load(URL.self, forKey: "homepage") == homepage, sourceLocation: sourceLocation)
        let metadata = try #require(try store.load([String: Any].self, forKey: "metadata"), sourceLocation: sourceLocation)
        #expect(Set(metadata.keys) == ["title", "pages", "ratio", "draft", "created", "thumbnail", "authors", "bounds"],
            sourceLocation: sourceLocation)
        #expect(metadata["title"] as? String == "Quarterly report", sourceLocation: sourceLocation)
        #expect(metadata["pages"] as? Int == 12, sourceLocation: sourceLocation)
        #expect(metadata["ratio"] as? Double == 0.75, sourceLocation: sourceLocation)
        #expect(metadata["draft"] as? Bool == false, sourceLocation: sourceLocation)
        #expect(
            metadata["created"] as? Date == Date(timeIntervalSinceReferenceDate: 786_000_000), sourceLocation: sourceLocation)
        #expect(metadata["thumbnail"] as? Data == Data([0xDE, 0xAD, 0xBE, 0xEF]), sourceLocation: sourceLocation)
        #expect(metadata["authors"] as? [String] == ["Ann", "Bo"], sourceLocation: sourceLocation)
        #expect(metadata["bounds"] as? [String: Int] == ["min": -3, "max": 10], sourceLocation: sourceLocation)

        // Typed values, as their types and through the typed getters.
        #expect(try store.load(Int.self, forKey: "launchCount") == typed.launchCount, sourceLocation: sourceLocation)
        #expect(try store.load(Double.self, forKey: "volume") == typed.volume, sourceLocation: sourceLocation)
        #expect(try store.load(Bool.self, forKey: "onboarded") == typed.onboarded, sourceLocation: sourceLocation)
        #expect(try store.load(String.self, forKey: "theme") == typed.theme, sourceLocation: sourceLocation)
        #expect(store.integer(forKey: "launchCount") == typed.launchCount, sourceLocation: sourceLocation)
        #expect(store.string(forKey: "launchCount") == String(typed.launchCount), sourceLocation: sourceLocation)
        #expect(store.double(forKey: "volume") == typed.volume, sourceLocation: sourceLocation)
        #expect(store.float(forKey: "volume") == Float(typed.volume), sourceLocation: sourceLocation)
        #expect(store.bool(forKey: "onboarded") == typed.onboarded, sourceLocation: sourceLocation)
        #expect(store.integer(forKey: "onboarded") == (typed.onboarded ? 1 : 0), sourceLocation: sourceLocation)
        #expect(store.string(forKey: "theme") == typed.theme, sourceLocation: sourceLocation)
        #expect(store.date(forKey: "lastSync") == lastSync, sourceLocation: sourceLocation)
        #expect(store.data(forKey: "avatar") == avatar, sourceLocation: sourceLocation)
        #expect(store.url(forKey: "homepage") == homepage, sourceLocation: sourceLocation)
        #expect(store.string(forKey: "greeting").map { Array($0.utf8) } == Array(greeting.utf8), sourceLocation: sourceLocation)

        // A value that expires in about 100 years, and keys with odd bytes.
        #expect(store.contains("session"), sourceLocation: sourceLocation)
        #expect(try store.load(String.self, forKey: "session") == "token-7f3a", sourceLocation: sourceLocation)
        #expect(try store.load(String.self, forKey: mixedKey) == "odd bytes in the key", sourceLocation: sourceLocation)
        // The same text in decomposed form is another key.
        #expect(!store.contains("Mixed/Case u\u{308}ni\u{308}"), sourceLocation: sourceLocation)
        let long = try #require(try store.load([String: Any].self, forKey: longKey), sourceLocation: sourceLocation)
        #expect(long["q"] as? String == "x", sourceLocation: sourceLocation)
        #expect(long["page"] as? Int == 1, sourceLocation: sourceLocation)
        #expect(long.count == 2, sourceLocation: sourceLocation)

        // Namespaces.
        #expect(try alice.load(PreviousReleaseProfile.self, forKey: "profile") == aliceProfile, sourceLocation: sourceLocation)
        #expect(try alice.load([String].self, forKey: "cart") == ["apples", "pears"], sourceLocation: sourceLocation)
        #expect(try drafts.load(String.self, forKey: "draft-1") == draft, sourceLocation: sourceLocation)
        #expect(try workspace.load(String.self, forKey: "note") == "Shared note", sourceLocation: sourceLocation)
        // A namespace's keys are its own.
        #expect(try alice.load(String.self, forKey: "greeting") == nil, sourceLocation: sourceLocation)
        #expect(try store.load([String].self, forKey: "cart") == nil, sourceLocation: sourceLocation)

        // The value removed and the value evicted before the folder was committed.
        for gone in ["obsolete", "scratch"] {
            #expect(!store.contains(gone), "\(gone)", sourceLocation: sourceLocation)
            #expect(try store.load(String.self, forKey: gone) == nil, "\(gone)", sourceLocation: sourceLocation)
            #expect(store.string(forKey: gone) == nil, "\(gone)", sourceLocation: sourceLocation)
        }
    }

    /// The values ``opensWithoutLimitsReadsEveryValueAndTakesNewSavesAndBatches()`` adds.
    static func expectAdded(in store: ArchiveStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try store.load(String.self, forKey: "added") == "saved today", sourceLocation: sourceLocation)
        #expect(store.integer(forKey: "batched") == 7, sourceLocation: sourceLocation)
        #expect(try store.load([String].self, forKey: "batched list") == ["one", "two"], sourceLocation: sourceLocation)
        #expect(
            try store.namespace(alice).load(String.self, forKey: "note") == "in a batch", sourceLocation: sourceLocation)
    }

    /// `count` and `totalBytes` of the store and of each namespace against the value files in
    /// the folder, and the folder's number of value files against `count`.
    static func expectSizes(
        of store: ArchiveStore, in folder: URL, count: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let files = valueFiles(in: folder)
        #expect(files.count == count, sourceLocation: sourceLocation)
        #expect(store.count == files.count, sourceLocation: sourceLocation)
        #expect(store.totalBytes == files.values.reduce(0, +), sourceLocation: sourceLocation)
        let alice = store.namespace(Self.alice)
        for namespace in [alice, alice.namespace("drafts"), store.namespace(longNamespace)] {
            let inside = valueFiles(in: namespace.directory)
            #expect(namespace.count == inside.count, "\(namespace.directory.lastPathComponent)", sourceLocation: sourceLocation)
            #expect(
                namespace.totalBytes == inside.values.reduce(0, +), "\(namespace.directory.lastPathComponent)",
                sourceLocation: sourceLocation)
        }
    }

    // MARK: - Files

    /// Every value file (`key-….archive`) under `folder`, namespaces included, with its size.
    static func valueFiles(in folder: URL) -> [String: Int] {
        var files: [String: Int] = [:]
        for path in StoreFixture.tree(at: folder) where (path as NSString).lastPathComponent.hasPrefix("key-") {
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appending(path: path).path)
            files[path] = (attributes?[.size] as? NSNumber)?.intValue ?? -1
        }
        return files
    }

    /// The names in `folder`, hidden ones included.
    static func names(in folder: URL) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
    }

    /// `strings` as bytes, in the order ``ArchiveStore/keys`` gives: by their UTF-8 bytes.
    static func sortedBytes(_ strings: [String]) -> [[UInt8]] {
        bytes(strings).sorted { $0.lexicographicallyPrecedes($1) }
    }
}

/// A copy of a fixture folder in a fresh temporary directory, removed when the test ends.
struct CopiedFolder: ~Copyable {
    let parent: URL
    /// The copy.
    let directory: URL

    init(of folder: URL) throws {
        parent = FileManager.default.temporaryDirectory
            .appending(path: "previous-release-folder-\(UUID().uuidString)", directoryHint: .isDirectory)
        directory = parent.appending(path: "store", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: folder, to: directory)
    }

    deinit {
        try? FileManager.default.removeItem(at: parent)
    }
}
