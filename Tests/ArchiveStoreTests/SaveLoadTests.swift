import ArchiveStore
import Foundation
import KeyedArchive
import Testing

@Suite("ArchiveStore save and load")
struct SaveLoadTests {
    @Test func savedValueLoadsBack() throws {
        let fixture = try StoreFixture()
        let profile = Profile(name: "Ada", phone: "+44 20 7946 0958", tags: ["vip"])
        try fixture.store.save(profile, forKey: "profile")
        #expect(try fixture.store.load(Profile.self, forKey: "profile") == profile)
        #expect(fixture.store.contains("profile"))
    }

    @Test func absentKeyLoadsNil() throws {
        let fixture = try StoreFixture()
        #expect(try fixture.store.load(Profile.self, forKey: "nobody") == nil)
        #expect(!fixture.store.contains("nobody"))
        #expect(fixture.store.keys.isEmpty)
    }

    @Test func saveReplacesThePreviousValue() throws {
        let fixture = try StoreFixture()
        try fixture.store.save([1, 2, 3], forKey: "numbers")
        try fixture.store.save([4], forKey: "numbers")
        #expect(try fixture.store.load([Int].self, forKey: "numbers") == [4])
        #expect(fixture.store.keys == ["numbers"])
    }

    @Test func everyKindOfRootRoundTrips() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.save(["a": [1, 2], "b": []], forKey: "dictionary")
        try store.save([FeedItem(id: 1, title: "One", score: 0.5)], forKey: "codable")
        try store.save(Point(x: 1, y: -2), forKey: "keyed-coding")
        try store.save(Settings(theme: "dark", fontSize: 18), forKey: "reflection")
        try store.save(Optional<Int>.none, forKey: "nil")
        #expect(try store.load([String: [Int]].self, forKey: "dictionary") == ["a": [1, 2], "b": []])
        #expect(try store.load([FeedItem].self, forKey: "codable") == [FeedItem(id: 1, title: "One", score: 0.5)])
        #expect(try store.load(Point.self, forKey: "keyed-coding") == Point(x: 1, y: -2))
        #expect(try store.load(Settings.self, forKey: "reflection") == Settings(theme: "dark", fontSize: 18))
        #expect(try store.load(Int?.self, forKey: "nil") == .some(nil))
    }

    @Test func wrongTypeThrowsTypeMismatchAndKeepsTheFile() throws {
        let fixture = try StoreFixture()
        try fixture.store.save("text", forKey: "value")
        let error = expectArchiveError(.typeMismatch) { _ = try fixture.store.load([Int].self, forKey: "value") }
        #expect(error?.reason.contains(fixture.file(forKey: "value").lastPathComponent) == true)
        #expect(try fixture.store.load(String.self, forKey: "value") == "text")
    }

    @Test func removeDeletesTheFileAndAbsentKeyIsANoOp() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(1, forKey: "one")
        try fixture.store.remove(forKey: "one")
        try fixture.store.remove(forKey: "one")
        try fixture.store.remove(forKey: "never")
        #expect(try fixture.store.load(Int.self, forKey: "one") == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.file(forKey: "one").path))
    }

    @Test func storedFileIsAnOrdinaryKeyedArchive() throws {
        let fixture = try StoreFixture()
        let profile = Profile(name: "Grace", phone: "+1 555 0100")
        try fixture.store.save(profile, forKey: "Profile/1", expiresAfter: .seconds(3600))
        let data = try Data(contentsOf: fixture.file(forKey: "Profile/1"))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Profile.self, from: data) == profile)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(unarchiver.allKeys == ["root", "key", "expires"])
        #expect(try unarchiver.decode(String.self, forKey: "key") == "Profile/1")
        let expires = try unarchiver.decode(Double.self, forKey: "expires")
        let expected = Date().timeIntervalSinceReferenceDate + 3600
        #expect(abs(expires - expected) < 60)
        // Without expiry there is no "expires" entry.
        try fixture.store.save(profile, forKey: "Profile/1")
        let plain = try KeyedUnarchiver(forReadingFrom: Data(contentsOf: fixture.file(forKey: "Profile/1")))
        #expect(plain.allKeys == ["root", "key"])
    }

    #if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow
    @Test func karchiveReadsAStoredFile() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(["alpha", "beta"], forKey: "Greek letters", expiresAfter: .seconds(60))
        let karchive = try #require(
            CrashChild.builtExecutable(named: "karchive", override: "KARCHIVE_PATH"),
            "karchive was not built next to the tests")
        let file = fixture.file(forKey: "Greek letters").path
        let validate = try CrashChild.run(karchive, ["validate", file])
        #expect(validate.status == 0, "\(validate.error)")
        #expect(validate.output.contains("valid"))
        let dump = try CrashChild.run(karchive, ["dump", file])
        #expect(dump.status == 0, "\(dump.error)")
        for text in ["root", "alpha", "beta", "Greek letters", "expires"] {
            #expect(dump.output.contains(text), "\(dump.output)")
        }
    }
    #endif

    @Test func storeFileLayoutIsDocumented() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(1, forKey: "profile")
        try fixture.store.save(1, forKey: "UserSettings")
        try fixture.store.save(1, forKey: "a/b")
        try fixture.store.namespace("+44 20").save(1, forKey: "x")
        #expect(
            StoreFixture.tree(at: fixture.directory) == [
                ".journal", ".lock", "key-^user^settings.archive", "key-a%2fb.archive", "key-profile.archive",
                "ns-%2b44%2020", "ns-%2b44%2020/key-x.archive",
            ])
    }

    @Test func defaultKeyIsTheArchiveClassName() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.save(Profile(name: "Linus", phone: "1"))
        try store.save(Point(x: 3, y: 4))
        try store.save(Settings(theme: "dark", fontSize: 9))
        try store.save(FeedItem(id: 7, title: "t", score: 1))
        #expect(try store.load(Profile.self) == Profile(name: "Linus", phone: "1"))
        #expect(try store.load(Point.self) == Point(x: 3, y: 4))
        #expect(try store.load(Settings.self) == Settings(theme: "dark", fontSize: 9))
        #expect(try store.load(FeedItem.self) == FeedItem(id: 7, title: "t", score: 1))
        #expect(
            Set(store.keys) == [
                "Contacts.Profile", "Geometry.Point", String(reflecting: Settings.self),
                String(reflecting: FeedItem.self),
            ])
        #expect(String(reflecting: Settings.self) == "ArchiveStoreTests.Settings")
        #expect(try store.load(Profile.self, forKey: "Contacts.Profile")?.name == "Linus")
    }

    @Test func initCreatesMissingDirectoriesAndRejectsNonFileURLs() throws {
        let fixture = try StoreFixture()
        let deep = fixture.parent.appending(path: "a/b/c", directoryHint: .isDirectory)
        let store = try ArchiveStore(directory: deep)
        try store.save(1, forKey: "k")
        #expect(FileManager.default.fileExists(atPath: deep.appending(path: "key-k.archive").path))
        expectArchiveError(.io) { _ = try ArchiveStore(directory: URL(string: "https://example.com/store")!) }
        // A regular file where the directory should be.
        let file = fixture.parent.appending(path: "file")
        try Data("x".utf8).write(to: file)
        let error = expectArchiveError(.io) { _ = try ArchiveStore(directory: file) }
        #expect(error?.reason.contains(file.path) == true)
    }

    @Test func twoStoresOnOneDirectoryShareValues() throws {
        let fixture = try StoreFixture()
        let other = try ArchiveStore(directory: fixture.directory)
        try fixture.store.save("shared", forKey: "k")
        #expect(try other.load(String.self, forKey: "k") == "shared")
        try other.remove(forKey: "k")
        #expect(!fixture.store.contains("k"))
    }
}
