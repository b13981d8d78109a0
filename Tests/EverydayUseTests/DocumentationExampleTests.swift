import ArchiveStore
import Foundation
import KeyedArchive
import Observation
import PropertyList
import Testing

// The code of the snippets in the DocC catalogs (Sources/<Module>/<Module>.docc), run as written.
// Each type sits in a namespace named after its page, so the page can call it `Team` without
// clashing with this target's other models; a snippet's statements are in a test, between the
// lines marked "snippet", and the expectations after them check what the page says the code does.
// Keep the two in step: a change to a snippet is made here and on its page.

// MARK: - Getting Started (Sources/KeyedArchive/KeyedArchive.docc/GettingStarted.md)

enum GettingStartedArticle {
    final class Team: Archivable {
        var name = ""
        var members: [Person] = []
        required init() {}
    }

    final class Person: Archivable {
        var name = ""
        var age = 0
        weak var team: Team?
        var avatar: Data? = nil
        required init() {}
    }

    struct Settings: Codable, Equatable {
        var theme = "light"
        var fontSize = 13.0
    }

    /// The team of the article's first snippet.
    static func makeTeam() -> (Team, Person) {
        // snippet: a model
        let team = Team()
        team.name = "Core"
        let ann = Person()
        ann.name = "Ann"
        ann.age = 34
        ann.team = team
        team.members = [ann]
        // end of snippet
        return (team, ann)
    }
}

@Suite("The Getting Started article's code")
struct GettingStartedArticleTests {
    typealias Team = GettingStartedArticle.Team
    typealias Person = GettingStartedArticle.Person
    typealias Settings = GettingStartedArticle.Settings

    @Test("A team archived and unarchived comes back with its member pointing at the decoded team")
    func archiveAndUnarchiveAModel() throws {
        let (team, _) = GettingStartedArticle.makeTeam()
        // snippet: archive and unarchive
        let data = try KeyedArchiver.archivedData(withRootObject: team)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Team.self, from: data)
        print(back.members[0].name)           // Ann
        print(back.members[0].team === back)  // true: the weak back-reference is the decoded team
        // end of snippet
        #expect(back.name == "Core")
        #expect(back.members.count == 1)
        #expect(back.members[0].name == "Ann")
        #expect(back.members[0].age == 34)
        #expect(back.members[0].avatar == nil)
        #expect(back.members[0].team === back)
        #expect(back !== team)
    }

    @Test("An ArchiveFile keeps several keys, and an instance shared between them stays one instance")
    func severalObjectsInOneFile() throws {
        let folder = try TemporaryDirectory("docs-getting-started")
        let url = folder.file("state.archive")
        let (team, ann) = GettingStartedArticle.makeTeam()
        // snippet: ArchiveFile
        var file = ArchiveFile()
        try file.set(team, forKey: "team")
        try file.set(ann, forKey: "captain")        // the same Person as team.members[0]
        try file.set(Settings(), forKey: "settings")  // Codable types archive too
        try file.write(to: url)

        let loaded = try ArchiveFile(contentsOf: url)
        print(loaded.keys)                          // ["team", "captain", "settings"]
        let settings = try loaded.decode(Settings.self, forKey: "settings")
        let captain = try loaded.decode(Person.self, forKey: "captain")
        let loadedTeam = try loaded.decode(Team.self, forKey: "team")
        print(captain === loadedTeam.members[0])    // true
        // end of snippet
        #expect(loaded.keys == ["team", "captain", "settings"])
        #expect(settings == Settings())
        #expect(captain.name == "Ann")
        #expect(captain === loadedTeam.members[0])
        #expect(captain.team === loadedTeam)
    }

    @Test("The store saves a model under its class name, typed values, and clears one namespace")
    func theStore() throws {
        let (team, _) = GettingStartedArticle.makeTeam()
        // The article's store is named "com.example.MyApp"; the test's name is its own, so that
        // runs in parallel never share a folder, and the folder is removed afterwards.
        let name = "com.example.MyApp-\(UUID().uuidString)"
        let folder = try ArchiveStore.dataStore(named: name).directory
        defer { try? FileManager.default.removeItem(at: folder) }
        // snippet: ArchiveStore (with the article's store name replaced)
        let store = try ArchiveStore.dataStore(named: name)
        let user = store.namespace("+44 20 7946 0001")   // one folder per user
        try user.save(team)                              // key: the type's archive class name
        let saved = try user.load(Team.self)             // nil if never saved
        try user.set(27, forKey: "launchCount")          // typed values, UserDefaults-style
        print(user.integer(forKey: "launchCount"))       // 27; 0 when absent
        print(store.namespaces)                          // ["+44 20 7946 0001"]
        try user.removeAll()                             // this user's values only
        // end of snippet
        #expect(saved?.members.first?.name == "Ann")
        #expect(saved?.members.first?.team === saved)
        #expect(user.keys.isEmpty)
        #expect(user.integer(forKey: "launchCount") == 0)
    }

    @Test("The store's save(_:) key is the type's archive class name")
    func storeKeyIsTheClassName() throws {
        let folder = try TemporaryDirectory("docs-getting-started")
        let store = try ArchiveStore(directory: folder.url)
        try store.save(GettingStartedArticle.makeTeam().0)
        #expect(store.keys == ["EverydayUseTests.GettingStartedArticle.Team"])
    }

    @Test("Bytes that are not an archive throw an ArchiveError whose code can be matched")
    func errorsCarryACode() throws {
        // snippet: errors
        do {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: Team.self, from: Data("not an archive".utf8))
        } catch let error as ArchiveError where error.code == .notPropertyList {
            print(error)   // ArchiveError.notPropertyList: ...
        }
        // end of snippet
        let error = #expect(throws: ArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: Team.self, from: Data("not an archive".utf8))
        }
        #expect(error?.code == .notPropertyList)
        #expect(error?.description.hasPrefix("ArchiveError.notPropertyList: ") == true)
    }
}

// MARK: - Reflection, Formats and Limits (Sources/KeyedArchive/KeyedArchive.docc/ReflectionFormatsAndLimits.md)

enum ReflectionArticle {
    final class Document: Archivable {
        var title = ""
        var body = ""
        var revision = 0                         // archived as "rev"
        lazy var wordCount = body.split(separator: " ").count
        var thumbnail: Data? = nil               // transient: never archived
        static var archiveKeys: [String: String] { ["revision": "rev"] }
        static var transientFields: Set<String> { ["thumbnail"] }
        static var archiveClassName: String? { "Notes.Document" }
        required init() {}
    }

    struct Invoice: Archivable {
        let number: Int
        var total = 0.0
        init() { number = 0 }
    }

    final class Profile: Archivable {
        var name = ""
        static var archiveClassName: String? { "MyApp.Profile" }
        static var archiveLegacyClassNames: [String] { ["MyApp.UserProfile"] }
        required init() {}
    }

    class Vehicle: Archivable {
        class var archiveClassName: String? { "Garage.Vehicle" }
        var wheels = 4
        required init() {}
    }

    final class Car: Vehicle {
        override class var archiveClassName: String? { "Garage.Car" }
        var seats = 5
    }

    final class Garage: Archivable {
        var parked: Vehicle = Vehicle()
        required init() {}
    }

    /// The `$objects` entry a top-level key of `data` points at, and the class name it names.
    static func topObject(_ key: String, of data: Data) throws -> (PlistDictionary, String?) {
        guard case .dict(let root) = try BPlistReader().read(data),
            case .array(let objects)? = root["$objects"],
            case .uid(let uid)? = root["$top"]?.dictValue?[key],
            case .dict(let object) = objects[Int(uid)]
        else { throw ArchiveError(.invalidArchive, reason: "not a keyed archive with the key \(key)") }
        var className: String?
        if case .uid(let classUID)? = object["$class"] {
            className = objects[Int(classUID)].dictValue?["$classname"]?.stringValue
        }
        return (object, className)
    }
}

@Suite("The Reflection, Formats and Limits article's code")
struct ReflectionArticleTests {
    typealias Document = ReflectionArticle.Document
    typealias Invoice = ReflectionArticle.Invoice
    typealias Profile = ReflectionArticle.Profile
    typealias Vehicle = ReflectionArticle.Vehicle
    typealias Car = ReflectionArticle.Car
    typealias Garage = ReflectionArticle.Garage

    @Test("Keys are renamed, transient fields left out, a lazy var is archived under its name")
    func fieldsAndKeys() throws {
        // snippet: fields and keys
        let document = Document()
        document.title = "Plan"
        document.body = "one two three"
        document.revision = 7
        document.thumbnail = Data([1, 2, 3])
        _ = document.wordCount                   // computed now, so it is archived

        let data = try KeyedArchiver.archivedData(withRootObject: document)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Document.self, from: data)
        print(back.revision, back.wordCount)     // 7 3
        print(back.thumbnail == nil)             // true: init() made it, nothing was read
        // end of snippet
        #expect(back.title == "Plan")
        #expect(back.revision == 7)
        #expect(back.wordCount == 3)
        #expect(back.thumbnail == nil)
        let (object, className) = try ReflectionArticle.topObject("root", of: data)
        #expect(className == "Notes.Document")
        #expect(object["rev"] != nil)
        #expect(object["revision"] == nil)
        #expect(object["thumbnail"] == nil)
        #expect(object["wordCount"] != nil)
        #expect(object["$__lazy_storage_$_wordCount"] == nil)

        // A lazy value never computed is archived as nil and computed after decoding, on first use.
        let fresh = Document()
        fresh.body = "a b"
        let freshBack = try KeyedUnarchiver.unarchivedObject(
            ofType: Document.self, from: try KeyedArchiver.archivedData(withRootObject: fresh))
        #expect(freshBack.wordCount == 2)
    }

    @Test("A type with an archived let is refused when archived, with the key path of the field")
    func letFieldsAreRefused() {
        var keyPath: String?
        // snippet: let fields
        do {
            _ = try KeyedArchiver.archivedData(withRootObject: Invoice())
        } catch let error as ArchiveError where error.code == .letField {
            print(error.keyPath ?? "")           // root.number
            keyPath = error.keyPath
        } catch {
            print(error)
        }
        // end of snippet
        #expect(keyPath == "root.number")
    }

    @Test("Legacy names read old archives; setClassName and setClass rename one archive's classes")
    func classNames() throws {
        // An archive of the type as it was named before.
        let old = KeyedArchiver()
        old.setClassName("MyApp.UserProfile", for: Profile.self)
        let profile = Profile()
        profile.name = "Ann"
        try old.encode(profile, forKey: "root")
        let oldData = try old.encodedData
        #expect(try ReflectionArticle.topObject("root", of: oldData).1 == "MyApp.UserProfile")
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Profile.self, from: oldData).name == "Ann")

        // snippet: class names
        let archiver = KeyedArchiver()
        archiver.setClassName("LegacyApp.Profile", for: Profile.self)
        try archiver.encode(profile, forKey: "root")
        let data = try archiver.encodedData

        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(Profile.self, forClassName: "LegacyApp.Profile")
        let back = try unarchiver.decode(Profile.self, forKey: "root")
        // end of snippet
        #expect(back.name == "Ann")
        #expect(try ReflectionArticle.topObject("root", of: data).1 == "LegacyApp.Profile")
        let error = #expect(throws: ArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: Profile.self, from: data)
        }
        #expect(error?.code == .unknownClass)
    }

    @Test("A base-class field holding a subclass needs the subclass registered")
    func subclassesAreRegistered() throws {
        // snippet: subclasses
        let garage = Garage()
        garage.parked = Car()
        let data = try KeyedArchiver.archivedData(withRootObject: garage)

        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.register(Car.self)            // without it: ArchiveError.unknownClass
        let back = try unarchiver.decode(Garage.self, forKey: "root")
        print(back.parked is Car)                // true
        // end of snippet
        #expect(back.parked is Car)
        #expect((back.parked as? Car)?.seats == 5)
        let error = #expect(throws: ArchiveError.self) {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: Garage.self, from: data)
        }
        #expect(error?.code == .unknownClass)
    }

    @Test("JSON-shaped values archive and come back as JSONSerialization gives them")
    func propertyListValues() throws {
        // snippet: Any
        let json: [String: Any] = ["name": "Ann", "age": 30, "tags": ["a", "b"], "admin": false]
        let data = try KeyedArchiver.archivedData(withRootObject: json)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: [String: Any].self, from: data)
        print(back["age"] as? Int ?? -1)         // 30
        print(back["tags"] as? [Any] ?? [])      // ["a", "b"]
        // end of snippet
        #expect(back["name"] as? String == "Ann")
        #expect(back["age"] as? Int == 30)
        #expect((back["tags"] as? [Any])?.compactMap { $0 as? String } == ["a", "b"])
        #expect(back["admin"] as? Bool == false)
        #expect(!(back["age"] is Bool))
    }

    @Test("The archive is NSKeyedArchiver's layout: $archiver, $version, $top with root, $objects from $null")
    func archiveLayout() throws {
        // snippet: layout
        let data = try KeyedArchiver.archivedData(withRootObject: ["milk", "eggs"])
        let plist = try BPlistReader().read(data)
        print(plist.dictValue?.keys ?? [])       // ["$archiver", "$version", "$top", "$objects"]
        print(plist.plistJSON)
        // end of snippet
        guard case .dict(let root) = plist, case .array(let objects)? = root["$objects"] else {
            Issue.record("not a dictionary with $objects: \(plist.plistJSON)")
            return
        }
        #expect(Set(root.keys) == ["$archiver", "$version", "$top", "$objects"])
        #expect(root["$archiver"] == "NSKeyedArchiver")
        #expect(root["$version"] == 100_000)
        #expect(root["$top"]?.dictValue?.keys == ["root"])
        #expect(objects.first == "$null")
        let (array, className) = try ReflectionArticle.topObject("root", of: data)
        #expect(className == "NSArray")
        #expect(array["NS.objects"]?.arrayValue?.count == 2)
    }

    @Test("Lowered limits refuse an archive beyond them, with the option to raise in the reason")
    func limits() throws {
        let folder = try TemporaryDirectory("docs-limits")
        let url = folder.file("cache.archive")
        var small = ArchiveFile()
        try small.set(["milk", "eggs"], forKey: "list")
        try small.write(to: url)
        let data = try small.encoded()
        // snippet: limits
        var options = KeyedUnarchiver.Options()
        options.maximumArchiveSize = 1 << 20     // this cache never holds more than 1 MiB
        options.maximumStringLength = 10_000
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: options)
        let file = try ArchiveFile(contentsOf: url, options: options)
        // end of snippet
        #expect(try unarchiver.decode([String].self, forKey: "list") == ["milk", "eggs"])
        #expect(try file.decode([String].self, forKey: "list") == ["milk", "eggs"])

        // A string longer than the limit is refused, whether it is found on opening or decoding.
        var big = ArchiveFile()
        try big.set(String(repeating: "x", count: 20_000), forKey: "note")
        let bigData = try big.encoded()
        let error = #expect(throws: ArchiveError.self) {
            _ = try KeyedUnarchiver(forReadingFrom: bigData, options: options).decode(String.self, forKey: "note")
        }
        #expect(error?.code == .sizeLimit)
        #expect(error?.reason.contains("maximumStringLength") == true)
        let tooLarge = Data(count: (1 << 20) + 1)
        let sizeError = #expect(throws: ArchiveError.self) {
            _ = try KeyedUnarchiver(forReadingFrom: tooLarge, options: options)
        }
        #expect(sizeError?.code == .sizeLimit)
        #expect(sizeError?.reason.contains("maximumArchiveSize") == true)
    }

    @Test("A property-list reader with a lower expansion limit refuses a document that expands past it")
    func readerLimits() throws {
        let shared: PlistValue = .array(Array(repeating: "x", count: 100))
        let bytes = try BPlistWriter().write(.array(Array(repeating: shared, count: 100)))
        #expect(try BPlistReader().read(bytes).arrayValue?.count == 100)
        // snippet: reader limits
        var limits = BPlistReader.Options()
        limits.maximumExpandedSize = 1_000       // values, a shared sub-tree counted at each use
        limits.maximumDepth = 32
        let reader = BPlistReader(options: limits)
        // end of snippet
        let error = #expect(throws: ArchiveError.self) { _ = try reader.read(bytes) }
        #expect(error?.code == .sizeLimit)
        #expect(error?.reason.contains("maximumExpandedSize") == true)
    }
}

// MARK: - The ArchiveStore module's page (Sources/ArchiveStore/ArchiveStore.docc/ArchiveStore.md)

enum ArchiveStorePage {
    struct Profile: Archivable {
        var name = ""
        var phone = ""
    }
}

@Suite("The ArchiveStore page's code")
struct ArchiveStorePageTests {
    typealias Profile = ArchiveStorePage.Profile

    @Test("A profile saved in a namespace loads back; defaults and an expiring cache read as the page says")
    func overview() throws {
        // The page's stores are named "com.example.MyApp"; the test's names are its own, so that
        // runs in parallel never share a folder, and the folders are removed afterwards.
        let name = "com.example.MyApp-\(UUID().uuidString)"
        let folders = [
            try ArchiveStore.dataStore(named: name).directory, try ArchiveStore.cacheStore(named: name).directory,
        ]
        defer { for folder in folders { try? FileManager.default.removeItem(at: folder) } }
        // snippet: the overview (with the page's store name replaced)
        let store = try ArchiveStore.dataStore(named: name)
        let user = store.namespace("+44 20 7946 0001")
        try user.save(Profile(name: "Ann", phone: "+44 20 7946 0001"), forKey: "profile")
        let profile = try user.load(Profile.self, forKey: "profile")   // nil if never saved

        store.register(defaults: ["theme": "light"])
        print(user.string(forKey: "theme") ?? "")                        // light, until one is set

        let cache = try ArchiveStore.cacheStore(named: name)
        let banners: [String: Any] = ["items": ["spring", "summer"], "version": 3]
        try cache.save(banners, forKey: "banners", expiresAfter: .seconds(3600))
        let cached = try cache.load([String: Any].self, forKey: "banners")   // nil once expired
        try cache.removeExpired()
        // end of snippet
        #expect(profile?.name == "Ann")
        #expect(try user.load(Profile.self, forKey: "never saved") == nil)
        #expect(user.string(forKey: "theme") == "light")
        try user.set("dark", forKey: "theme")
        #expect(user.string(forKey: "theme") == "dark")
        #expect(cached?["version"] as? Int == 3)
        #expect((cached?["items"] as? [Any])?.compactMap { $0 as? String } == ["spring", "summer"])
        #expect(cache.keys == ["banners"])
        try cache.save(banners, forKey: "stale", expiresAfter: .zero)
        #expect(try cache.load([String: Any].self, forKey: "stale") == nil)
    }

    @Test("A batch changes several values at once; a store in memory behaves as a folder's")
    func batchAndMemory() throws {
        let name = "com.example.MyApp-\(UUID().uuidString)"
        let store = try ArchiveStore.dataStore(named: name)
        defer { try? FileManager.default.removeItem(at: store.directory) }
        try store.set("light", forKey: "legacyTheme")
        // snippet: a batch, and a store in memory
        try store.batch { batch in
            try batch.set("dark", forKey: "theme")
            try batch.set(14, forKey: "fontSize")
            try batch.remove(forKey: "legacyTheme")
        }
        let preview = ArchiveStore.inMemory(limits: .init(maximumCount: 100))
        // end of snippet
        #expect(store.keys == ["fontSize", "theme"])
        #expect(store.integer(forKey: "fontSize") == 14)
        #expect(store.durability == .full)
        let cache = try ArchiveStore.cacheStore(named: name)
        defer { try? FileManager.default.removeItem(at: cache.directory) }
        #expect(cache.durability == .buffered)
        try preview.set(1, forKey: "a")
        #expect(preview.keys == ["a"])
        #expect(preview.limits.maximumCount == 100)
    }
}

// MARK: - Schema Versions and Migrations (Sources/KeyedArchive/KeyedArchive.docc/SchemaVersions.md)

enum SchemaVersionsArticle {
    struct Contact: Archivable {
        var name = ""
        var phone = ""
        var email = "none"

        static var archiveVersion: Int { 2 }
        static var archiveKeyAliases: [String: [String]] { ["name": ["fullName"]] }
        static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
            switch version {
            case 0:
                object.removeField("fax")
            case 1:
                let number = try object.decode(Int.self, forKey: "phone")
                try object.set("+\(number)", forKey: "phone")
            default:
                break
            }
        }
    }

    /// `Contact` as version 0 archived it.
    struct ContactV0: Archivable {
        var fullName = ""
        var fax = ""
        var phone = 0
        static var archiveClassName: String? { String(reflecting: Contact.self) }
    }
}

@Suite("The Schema Versions article's code")
struct SchemaVersionsArticleTests {
    @Test("A contact archived at version 0 decodes as version 2: steps from 0 and 1, then the alias")
    func contact() throws {
        let old = SchemaVersionsArticle.ContactV0(fullName: "Ann Lee", fax: "0", phone: 4420794600)
        let data = try KeyedArchiver.archivedData(withRootObject: old)
        let contact = try KeyedUnarchiver.unarchivedObject(ofType: SchemaVersionsArticle.Contact.self, from: data)
        #expect(contact.name == "Ann Lee")
        #expect(contact.phone == "+4420794600")
        #expect(contact.email == "none")
    }
}

// MARK: - The PropertyList module's page (Sources/PropertyList/PropertyList.docc/PropertyList.md)

@Suite("The PropertyList page's code")
struct PropertyListPageTests {
    @Test("A literal dictionary written and read back prints as plist-json with sorted keys")
    func overview() throws {
        // snippet: the overview
        let bytes = try BPlistWriter().write(["name": "Ann", "tags": ["a", "b"], "age": 30])
        let value = try BPlistReader().read(bytes)
        print(value.plistJSON)   // {"dict":{"age":{"int":"30"},"name":{"string":"Ann"},...}}
        // end of snippet
        #expect(Array(bytes.prefix(8)) == Array("bplist00".utf8))
        #expect(value == ["name": "Ann", "tags": ["a", "b"], "age": 30])
        #expect(value.dictValue?.keys == ["name", "tags", "age"])
        #expect(
            value.plistJSON
                == #"{"dict":{"age":{"int":"30"},"name":{"string":"Ann"},"tags":{"array":[{"string":"a"},{"string":"b"}]}}}"#)
        #expect(try PlistValue(plistJSON: value.plistJSON) == value)
    }

    @Test("XML written, then read by the reader that finds the format, gives the value and xml1")
    func xml() throws {
        // snippet: XML and either format
        let xml = try XMLPlistWriter().write(["name": "Ann", "ids": [1, 2]])
        let (same, format) = try PlistReader().readWithFormat(xml)
        print(format, same == ["name": "Ann", "ids": [1, 2]])   // xml1 true
        // end of snippet
        #expect(format == .xml && "\(format)" == "xml1")
        #expect(same == ["name": "Ann", "ids": [1, 2]])
        #expect(String(decoding: xml, as: UTF8.self).contains("\t<key>ids</key>\n\t<array>\n\t\t<integer>1</integer>"))
    }
}

// MARK: - Settings, Caches and Model Stores (Sources/ArchiveStore/ArchiveStore.docc/SettingsCachesAndModels.md)

extension ArchiveStore.Key {
    static var theme: ArchiveStore.Key<String> { .init("theme", default: "light") }
    static var fontSize: ArchiveStore.Key<Int> { .init("fontSize", default: 13) }
}

enum SettingsGuidePage {
    struct Profile: Codable, Equatable {
        var name = ""
    }

    struct Draft: Codable, Equatable {
        var text = ""
    }

    /// The page's `settings`, for the model declared at its top level.
    nonisolated(unsafe) static var settings: ArchiveStore!

    @Observable final class AppearanceModel {
        @ObservationIgnored @Stored(.theme, store: settings) var theme
        var isDark: Bool { theme == "dark" }       // tracked, through the stored value
    }
}

@Suite("The Settings, Caches and Model Stores page's code", .serialized)
struct SettingsGuidePageTests {
    typealias Profile = SettingsGuidePage.Profile
    typealias Draft = SettingsGuidePage.Draft

    @Test("Typed keys, failures, a batch, an observable value, @Stored, a cache, a model store, async")
    @MainActor
    func guide() async throws {
        // The page's data store is named "com.example.MyApp"; the test's is its own. The cache's
        // name is the page's, so its folder is removed before and after.
        let name = "com.example.MyApp-\(UUID().uuidString)"
        let cacheFolder = try ArchiveStore.cacheStore(named: "com.example.MyApp.json").directory
        try? FileManager.default.removeItem(at: cacheFolder)
        let folders = [try ArchiveStore.dataStore(named: name).directory, cacheFolder]
        defer { for folder in folders { try? FileManager.default.removeItem(at: folder) } }

        // snippet: settings (with the page's store name replaced)
        let settings = try ArchiveStore.dataStore(named: name)
        settings[.theme] = "dark"                      // saved, durably, when the line returns
        let size = settings[.fontSize]                 // 13 until set; never throws
        try settings.set(15, for: .fontSize)           // the same, throwing
        // end of snippet
        #expect(size == 13)
        #expect(settings.string(forKey: "theme") == "dark")
        #expect(settings.integer(forKey: "fontSize") == 15)

        // snippet: failures
        let failures = settings.failures()             // reports from this line on
        let logging = Task {
            for await failure in failures { print(failure) }   // or send it to your logger
        }
        // end of snippet
        logging.cancel()

        // snippet: a batch
        try settings.batch { batch in
            try batch.set("dark", for: .theme)
            try batch.set(15, for: .fontSize)
        }
        // end of snippet

        // snippet: observing
        let theme = settings.observable(.theme)
        theme.value = "dark"
        // end of snippet
        SettingsGuidePage.settings = settings
        let model = SettingsGuidePage.AppearanceModel()
        #expect(model.isDark)
        model.theme = "light"
        #expect(settings[.theme] == "light")

        // snippet: a cache
        let url = URL(string: "https://api.example.com/feed")!
        let responseJSON: [String: Any] = ["items": [1, 2]]
        let cache = try ArchiveStore.cacheStore(
            named: "com.example.MyApp.json", limits: .init(maximumBytes: 20 << 20, maximumCount: 2_000))
        try cache.save(responseJSON, forKey: url.absoluteString, expiresAfter: .seconds(600))
        let cached = try cache.load([String: Any].self, forKey: url.absoluteString)   // nil once expired
        // end of snippet
        #expect(cached?["items"] as? [Int] == [1, 2])
        #expect(cache.durability == .buffered)

        // snippet: a model store (with the page's store name replaced)
        let phoneNumber = "+44 20 7946 0001"
        let profile = Profile(name: "Ann")
        let models = try ArchiveStore.dataStore(named: name)
        let user = models.namespace(phoneNumber)
        try user.save(profile)                         // key: Profile's archive class name
        let saved = try user.load(Profile.self)        // nil if never saved
        models.archiverOptions.maximumDepth = 2_048
        models.unarchiverOptions.maximumDepth = 2_048
        // end of snippet
        #expect(saved == profile)
        #expect(settings.archiverOptions.maximumDepth == 2_048)  // one configuration per folder

        // snippet: off the main actor
        @MainActor func saveDraft(_ draft: Draft) async throws -> String {
            try await settings.async.save(draft, forKey: "draft")     // the flush runs off the main actor
            return try await settings.async.value(for: .theme)
        }
        // end of snippet
        #expect(try await saveDraft(Draft(text: "hello")) == "light")
        #expect(try settings.load(Draft.self, forKey: "draft") == Draft(text: "hello"))
    }
}
