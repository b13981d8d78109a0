import ArchiveStore
import Foundation
import KeyedArchive
import Observation
import PropertyList
import Testing

// The code of README.md's Swift snippets, run as printed. The README reads as one program: its
// types are declared here in `ReadmeGuide` (so they do not clash with this target's other models),
// its statements run in order in one test, between the lines marked "snippet", and the
// expectations after each check what the README says the code does. `readmeSnippetsAreRun` (below)
// fails when a line of a README snippet is not in this file: a change to a snippet is made here
// and in the README.

extension ArchiveStore.Key {
    static var colorScheme: ArchiveStore.Key<String> { .init("colorScheme", default: "light") }
}

enum ReadmeGuide {
    // snippet: archive a model (declarations)
    final class Team: Archivable {
        var name = ""
        var members: [Person] = []
        required init() {}
    }

    final class Person: Archivable {
        var name = ""
        var age = 0
        weak var team: Team?
        required init() {}
    }
    // end of snippet

    // snippet: models change
    final class Member: Archivable {
        var name = ""                         // "fullName" until version 1
        var age = ""                          // an Int until version 2
        required init() {}

        class var archiveVersion: Int { 2 }
        class var archiveKeyAliases: [String: [String]] { ["name": ["fullName"]] }
        class func migrate(_ object: inout ArchivedObject, from version: Int) throws {
            if version == 1 { try object.set(String(try object.decode(Int.self, forKey: "age")), forKey: "age") }
        }
    }
    // end of snippet

    /// `Member` as version 1 of the app archived it: `age` an `Int`, `name` already renamed.
    final class MemberAtVersion1: Archivable {
        var fullName = ""
        var age = 0
        required init() {}
        class var archiveClassName: String? { String(reflecting: Member.self) }
        class var archiveVersion: Int { 1 }
    }

    /// The README's `store`, for the model declared at its top level.
    nonisolated(unsafe) static var store: ArchiveStore!

    // snippet: observation (the model)
    @Observable final class Appearance {
        @ObservationIgnored @Stored(.colorScheme, store: store) var colorScheme
    }
    // end of snippet
}

@Suite("README.md's code", .serialized)
struct ReadmeSnippetTests {
    typealias Team = ReadmeGuide.Team
    typealias Person = ReadmeGuide.Person
    typealias Member = ReadmeGuide.Member
    typealias Appearance = ReadmeGuide.Appearance

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // EverydayUseTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    @Test("The README's snippets run in order and do what its comments say")
    @MainActor
    func readme() async throws {
        // snippet: archive a model
        let team = Team()
        team.name = "Core"
        let ann = Person()
        ann.name = "Ann"
        ann.age = 34
        ann.team = team
        team.members = [ann]

        let data = try KeyedArchiver.archivedData(withRootObject: team)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Team.self, from: data)
        print(back.members[0].name)           // Ann
        print(back.members[0].team === back)  // true: the weak back-reference is the decoded team
        // end of snippet
        #expect(back.members[0].name == "Ann" && back.members[0].age == 34)
        #expect(back.members[0].team === back)

        // The migration: an archive of version 1 reads as version 2.
        let old = ReadmeGuide.MemberAtVersion1()
        old.fullName = "Bo"
        old.age = 41
        let migrated = try KeyedUnarchiver.unarchivedObject(
            ofType: Member.self, from: try KeyedArchiver.archivedData(withRootObject: old))
        #expect(migrated.name == "Bo" && migrated.age == "41")

        // snippet: several objects in one file
        let url = FileManager.default.temporaryDirectory.appending(path: "team.archive")
        var file = ArchiveFile()
        try file.set(team, forKey: "team")
        try file.set(ann, forKey: "captain")
        try file.write(to: url)

        let loaded = try ArchiveFile(contentsOf: url)
        let captain = try loaded.decode(Person.self, forKey: "captain")
        let loadedTeam = try loaded.decode(Team.self, forKey: "team")
        print(loaded.keys, captain.team === loadedTeam)   // ["team", "captain"] true
        // end of snippet
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(loaded.keys == ["team", "captain"])
        #expect(captain.team === loadedTeam && loadedTeam.members.first === captain)

        // The README's store is named "com.example.MyApp"; the test's is its own. The cache's name
        // is the README's, so its folder is removed before and after.
        let name = "com.example.MyApp-\(UUID().uuidString)"
        let cacheFolder = try ArchiveStore.cacheStore(named: "com.example.MyApp.responses").directory
        try? FileManager.default.removeItem(at: cacheFolder)
        let folders = [try ArchiveStore.dataStore(named: name).directory, cacheFolder]
        defer { for folder in folders { try? FileManager.default.removeItem(at: folder) } }

        // snippet: the store (with the README's store name replaced)
        let store = try ArchiveStore.dataStore(named: name)
        store[.colorScheme] = "dark"                    // saved durably when the line returns; never throws
        try store.set(14, forKey: "fontSize")           // UserDefaults-style, throwing
        print(store[.colorScheme], store.integer(forKey: "fontSize"))   // dark 14

        let user = store.namespace("+44 20 7946 0001") // a folder of its own, per user
        try user.save(team, forKey: "team")
        let savedTeam = try user.load(Team.self, forKey: "team")         // nil if never saved

        try store.batch { batch in                      // all of it or none, even across a kill
            try batch.set("light", for: .colorScheme)
            try batch.remove(forKey: "fontSize")
        }
        // end of snippet
        #expect(savedTeam?.members.first?.team === savedTeam)
        #expect(store[.colorScheme] == "light")
        #expect(!store.contains("fontSize"))

        ReadmeGuide.store = store
        // snippet: observation, failures and async
        let scheme = store.observable(.colorScheme)     // Observable: SwiftUI views, @Observable models
        scheme.value = "dark"                           // saves; observers in any process see it
        let failures = store.failures()                 // what the non-throwing calls meet, from here on
        let logging = Task { for await failure in failures { print(failure) } }
        try await store.async.set(16, forKey: "fontSize")   // the file work runs off the caller's actor
        // end of snippet
        logging.cancel()
        #expect(store[.colorScheme] == "dark")
        #expect(Appearance().colorScheme == "dark")
        #expect(store.integer(forKey: "fontSize") == 16)

        // snippet: a cache with limits, and a store for tests and previews
        let cache = try ArchiveStore.cacheStore(
            named: "com.example.MyApp.responses", limits: .init(maximumBytes: 20 << 20, maximumCount: 2_000))
        let json = try JSONSerialization.jsonObject(with: Data(#"{"items": [1, 2]}"#.utf8)) as! [String: Any]
        try cache.save(json, forKey: "feed", expiresAfter: .seconds(600))
        let feed = try cache.load([String: Any].self, forKey: "feed")   // nil once expired

        let preview = ArchiveStore.inMemory()           // the same API and behaviour, no files
        // end of snippet
        #expect(feed?["items"] as? [Int] == [1, 2])
        #expect(cache.durability == .buffered)
        try preview.set("dark", for: .colorScheme)
        #expect(preview[.colorScheme] == "dark")

        // snippet: property lists
        let bytes = try BPlistWriter().write(["name": "Ann", "tags": ["a", "b"]])
        let value = try BPlistReader().read(bytes)
        let xml = try XMLPlistWriter().write(value)                  // Apple's XML layout, byte for byte
        let (sameValue, format) = try PlistReader().readWithFormat(xml)   // either format: .xml here
        // end of snippet
        #expect(Array(bytes.prefix(8)) == Array("bplist00".utf8))
        #expect(sameValue == value && format == .xml)

        // snippet: errors
        do {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: Team.self, from: data.prefix(100))
        } catch let error as ArchiveError where error.code == .truncated {
            print(error)   // ArchiveError.truncated: … (at byte …)
        }
        // end of snippet
        #expect(throws: ArchiveError(.truncated, reason: "")) {
            try KeyedUnarchiver.unarchivedObject(ofType: Team.self, from: data.prefix(100))
        }
    }

    /// The Swift blocks of README.md: each one's first line number and its lines.
    static func readmeSwiftBlocks() throws -> [(line: Int, lines: [String])] {
        let readme = try String(contentsOf: packageRoot.appending(path: "README.md"), encoding: .utf8)
        var blocks: [(line: Int, lines: [String])] = []
        var inside = false
        for (index, line) in readme.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                if inside {
                    inside = false
                } else {
                    inside = true
                    if trimmed == "```swift" { blocks.append((index + 2, [])) }
                    else { blocks.append((-1, [])) }  // another language: its lines are not collected
                }
                continue
            }
            if inside, blocks[blocks.count - 1].line >= 0 { blocks[blocks.count - 1].lines.append(String(line)) }
        }
        return blocks.filter { $0.line >= 0 }
    }

    @Test("Every line of the README's Swift snippets is in this file, which runs them")
    func readmeSnippetsAreRun() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        // The test gives its store a name of its own instead of the README's "com.example.MyApp".
        let tested = Set(
            source.split(separator: "\n").map {
                $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "named: name)", with: #"named: "com.example.MyApp")"#)
            })
        let blocks = try Self.readmeSwiftBlocks()
        #expect(blocks.count >= 8, "README.md has \(blocks.count) Swift snippets")
        for block in blocks {
            for (offset, line) in block.lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { continue }
                #expect(tested.contains(trimmed), "README.md:\(block.line + offset): `\(trimmed)` is not run by \(#fileID)")
            }
        }
    }

    @Test("The README's Package.swift lines name this package's products")
    func readmeManifestNamesRealProducts() throws {
        let readme = try String(contentsOf: Self.packageRoot.appending(path: "README.md"), encoding: .utf8)
        let manifest = try String(contentsOf: Self.packageRoot.appending(path: "Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#"name: "swift-keyed-archive""#))
        #expect(readme.contains(#".package(path: "../swift-keyed-archive")"#))
        let products = readme.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: #".product(name: ""#), line.contains(#"package: "swift-keyed-archive")"#) else { return nil }
            return String(line[start.upperBound...].prefix { $0 != "\"" })
        }
        #expect(!products.isEmpty)
        for product in products {
            #expect(manifest.contains(#".library(name: "\#(product)""#), "README.md names a product \(product) that Package.swift lacks")
        }
    }
}
