import Foundation
import KeyedArchive
import Testing

// What a fresh clone of the repository can check on its own: the Foundation-made keyed archives
// committed under `Fixtures/foundation` (Scripts/make-foundation-fixtures.sh writes them with
// NSKeyedArchiver and hand-written NSCoding classes in a module named `keyedgen`) are all there
// and decode, through the public API alone, into an app's own models, value by value.

/// An app's models of the archived NSCoding classes, coded by reflection.
enum FreshClone {
    final class Address: Archivable {
        var street = ""
        var city = ""
        var zip = ""
        init() {}
    }

    class Person: Archivable {
        var name = ""
        var age = 0
        var score = 0.0
        var isAdmin = false
        var tags: [String] = []
        var address: Address?
        var birthday = Date(timeIntervalSinceReferenceDate: 0)
        var avatar = Data()
        var homepage: URL?
        var id = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        required init() {}
    }

    final class Employee: Person {
        var title = ""
        var manager: Employee?
        var reports: [Employee] = []
        required init() { super.init() }
    }

    final class Node: Archivable {
        var name = ""
        weak var parent: Node?
        var children: [Node] = []
        init() {}
    }

    final class Team: Archivable {
        var name = ""
        var members: [Person] = []
        var captain: Person?
        init() {}
    }

    /// The package root: three levels above this file.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // EverydayUseTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static let folder = packageRoot.appending(path: "Fixtures").appending(path: "foundation")

    static let names = [
        "k-array-mixed", "k-dict-json", "k-employee-inheritance", "k-foundation-values", "k-multi-top", "k-number-double",
        "k-number-int", "k-people-shared", "k-person", "k-person-objc-names", "k-string", "k-team-large", "k-tree-cycle",
    ]

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appending(path: name + ".archive"))
    }

    /// An unarchiver of `NAME.archive` with the archive's class names mapped to the models.
    static func unarchiver(_ name: String, prefix: String = "keyedgen.") throws -> KeyedUnarchiver {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data(name))
        unarchiver.setClass(Person.self, forClassName: prefix + "Person")
        unarchiver.setClass(Address.self, forClassName: prefix + "Address")
        unarchiver.setClass(Employee.self, forClassName: prefix + "Employee")
        unarchiver.setClass(Node.self, forClassName: prefix + "Node")
        unarchiver.setClass(Team.self, forClassName: prefix + "Team")
        return unarchiver
    }

    /// Expects every field of `person` to hold person number `n` of the fixtures, each a formula of `n`.
    static func expect(_ person: Person, isNumber n: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(type(of: person) == Person.self, sourceLocation: sourceLocation)
        #expect(person.name == "User \(n)", sourceLocation: sourceLocation)
        #expect(person.age == 20 + n % 50, sourceLocation: sourceLocation)
        #expect(person.score == Double(n) * 1.25, sourceLocation: sourceLocation)
        #expect(person.isAdmin == (n % 7 == 0), sourceLocation: sourceLocation)
        #expect(person.tags == ["t\(n % 3)", "group\(n % 5)"], sourceLocation: sourceLocation)
        #expect(person.address?.street == "\(n) Main St", sourceLocation: sourceLocation)
        #expect(person.address?.city == (n % 2 == 0 ? "Zürich" : "Berlin"), sourceLocation: sourceLocation)
        #expect(person.address?.zip == "\(8000 + n)", sourceLocation: sourceLocation)
        #expect(person.birthday == Date(timeIntervalSinceReferenceDate: Double(n) * 86_400 - 100_000_000), sourceLocation: sourceLocation)
        #expect(person.avatar == Data([UInt8(n % 256), 0xFF, 0x00]), sourceLocation: sourceLocation)
        #expect(person.homepage == (n % 3 == 0 ? URL(string: "https://example.com/u/\(n)") : nil), sourceLocation: sourceLocation)
        #expect(person.id == UUID(uuidString: String(format: "%08X-0000-4000-8000-%012X", n, n * 7)), sourceLocation: sourceLocation)
    }
}

@Suite("A fresh clone's Foundation-made archives decode through the public API")
struct FreshCloneTests {
    @Test func everyArchiveAndItsJSONTwinIsCommitted() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: FreshClone.folder.path).sorted()
        #expect(files == FreshClone.names.flatMap { [$0 + ".archive", $0 + ".json"] }.sorted())
        for name in FreshClone.names {
            #expect(try FreshClone.data(name).starts(with: Array("bplist00".utf8)), "\(name)")
        }
    }

    @Test func plainValuesAtTheRoot() throws {
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: String.self, from: FreshClone.data("k-string")) == "héllo wörld ✓ 中文 0")
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Int.self, from: FreshClone.data("k-number-int")) == 1_234_567)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Double.self, from: FreshClone.data("k-number-double")) == 2.5)
    }

    @Test func mixedArrayOfPropertyListValues() throws {
        let array = try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: FreshClone.data("k-array-mixed"))
        try #require(array.count == 7)
        #expect(array[0] as? String == "text")
        #expect(array[1] as? Int == 42)
        #expect(array[2] as? Int == -7)
        #expect(array[3] as? Double == 3.25)
        #expect(array[4] as? Date == Date(timeIntervalSinceReferenceDate: 86_400))
        #expect(array[5] as? Data == Data([9, 8, 7]))
        let nested = try #require(array[6] as? [Any])
        #expect(nested.count == 2)
        #expect(nested.first as? String == "nested")
        #expect(nested.last as? Int == 99)
    }

    @Test func jsonLikeDictionary() throws {
        let root = try KeyedUnarchiver.unarchivedObject(ofType: [String: Any].self, from: FreshClone.data("k-dict-json"))
        #expect(root.keys.sorted() == ["code", "data", "msg"])
        #expect(root["code"] as? Int == 200)
        #expect(root["msg"] as? String == "ok")
        let data = try #require(root["data"] as? [String: Any])
        #expect(data.keys.sorted() == ["banners", "total"])
        #expect(data["total"] as? Int == 5)
        let banners = try #require(data["banners"] as? [[String: Any]])
        try #require(banners.count == 5)
        for (i, banner) in banners.enumerated() {
            #expect(banner.keys.sorted() == ["id", "image", "title", "weight"], "banner \(i)")
            #expect(banner["id"] as? Int == 100 + i, "banner \(i)")
            #expect(banner["title"] as? String == "Banner \(i)", "banner \(i)")
            #expect(banner["image"] as? String == "https://example.com/\(i).png", "banner \(i)")
            #expect(banner["weight"] as? Double == Double(i) / 4 + 0.125, "banner \(i)")
        }
    }

    @Test func foundationValueObjects() throws {
        let array = try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: FreshClone.data("k-foundation-values"))
        try #require(array.count == 5)
        #expect(array[0] as? URL == URL(string: "https://example.com/a?b=c"))
        #expect(array[1] as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(array[2] is NSNull)
        #expect(array[3] as? Set<AnyHashable> == ["x", "y"])
        #expect(array[4] as? Date == Date(timeIntervalSinceReferenceDate: -1.5))
    }

    @Test func personWithModuleQualifiedAndWithPlainClassNames() throws {
        let person = try FreshClone.unarchiver("k-person").decode(FreshClone.Person.self, forKey: "root")
        FreshClone.expect(person, isNumber: 3)
        let plain = try FreshClone.unarchiver("k-person-objc-names", prefix: "").decode(FreshClone.Person.self, forKey: "root")
        FreshClone.expect(plain, isNumber: 3)
        // Without the mapping the archive's class name picks no type.
        let unmapped = try KeyedUnarchiver(forReadingFrom: FreshClone.data("k-person"))
        #expect(throws: ArchiveError.self) { try unmapped.decode(FreshClone.Person.self, forKey: "root") }
    }

    @Test func sharedPersonStaysOneInstance() throws {
        let people = try FreshClone.unarchiver("k-people-shared").decode([FreshClone.Person].self, forKey: "root")
        try #require(people.count == 3)
        #expect(people[0] === people[2])
        #expect(people[0] !== people[1])
        FreshClone.expect(people[0], isNumber: 1)
        FreshClone.expect(people[1], isNumber: 2)
    }

    @Test func subclassWithManagerCycle() throws {
        let boss = try FreshClone.unarchiver("k-employee-inheritance").decode(FreshClone.Employee.self, forKey: "root")
        defer {
            for report in boss.reports { report.manager = nil }
            boss.reports = []
        }
        #expect(boss.name == "Boss")
        #expect(boss.age == 60)
        #expect(boss.title == "CEO")
        #expect(boss.manager == nil)
        #expect(boss.reports.map(\.name) == ["Ann", "Bob"])
        #expect(boss.reports.map(\.age) == [30, 40])
        #expect(boss.reports.map(\.title) == ["Dev", "Ops"])
        for employee in [boss] + boss.reports {
            #expect(employee.score == 0.5, "\(employee.name)")
            #expect(!employee.isAdmin, "\(employee.name)")
            #expect(employee.tags.isEmpty, "\(employee.name)")
            #expect(employee.address == nil, "\(employee.name)")
            #expect(employee.birthday == Date(timeIntervalSinceReferenceDate: 0), "\(employee.name)")
            #expect(employee.avatar.isEmpty, "\(employee.name)")
            #expect(employee.homepage == nil, "\(employee.name)")
            #expect(employee.id == UUID(uuidString: "11111111-2222-3333-4444-555555555555"), "\(employee.name)")
        }
        #expect(boss.reports.allSatisfy { $0.manager === boss && $0.reports.isEmpty })
    }

    @Test func treeWithWeakParents() throws {
        let root = try FreshClone.unarchiver("k-tree-cycle").decode(FreshClone.Node.self, forKey: "root")
        #expect(root.name == "root")
        #expect(root.parent == nil)
        #expect(root.children.map(\.name) == ["child0", "child1", "child2"])
        for (i, child) in root.children.enumerated() {
            #expect(child.parent === root, "child \(i)")
            #expect(child.children.map(\.name) == ["grand\(i)"])
            #expect(child.children.first?.parent === child, "grand\(i)")
            #expect(child.children.first?.children.isEmpty == true, "grand\(i)")
        }
    }

    @Test func archiveWithThreeTopLevelKeys() throws {
        let unarchiver = try FreshClone.unarchiver("k-multi-top")
        #expect(unarchiver.allKeys.sorted() == ["banners", "settings", "user"])
        FreshClone.expect(try unarchiver.decode(FreshClone.Person.self, forKey: "user"), isNumber: 7)
        let settings = try unarchiver.decode([String: Any].self, forKey: "settings")
        #expect(settings.keys.sorted() == ["fontSize", "notifications", "theme"])
        #expect(settings["theme"] as? String == "dark")
        #expect(settings["fontSize"] as? Int == 14)
        #expect(settings["notifications"] as? Bool == true)
        #expect(try unarchiver.decode([String].self, forKey: "banners") == ["a.png", "b.png"])
    }

    @Test func largeTeamWithItsCaptainAmongTheMembers() throws {
        let team = try FreshClone.unarchiver("k-team-large").decode(FreshClone.Team.self, forKey: "root")
        #expect(team.name == "Everyone")
        try #require(team.members.count == 2000)
        #expect(team.captain === team.members[5])
        for (n, member) in team.members.enumerated() { FreshClone.expect(member, isNumber: n) }
    }
}
