// Writes keyed archives with this platform's Foundation `NSKeyedArchiver`, the way an
// Objective-C-style app does: hand-written `NSCoding` classes, integers, doubles and bools inline
// in their object's dictionary, everything else by reference.
//
// Built by Scripts/make-foundation-fixtures.sh with `-module-name keyedgen`, so the classes are
// archived as `keyedgen.Person`, `keyedgen.Address`, `keyedgen.Employee`, `keyedgen.Node` and
// `keyedgen.Team` (Swift classes are module-qualified on every platform). The test suite holds the
// same values in `Tests/KeyedArchiveTests/Models/FixtureModels.swift` (`Keyedgen.person(i)`...).
//
// usage: keyedgen OUTPUT-DIRECTORY   (writes NAME.archive files there)
import Foundation

// MARK: - Classes

final class Address: NSObject, NSCoding {
    let street: String
    let city: String
    let zip: String

    init(street: String, city: String, zip: String) {
        self.street = street
        self.city = city
        self.zip = zip
    }

    func encode(with coder: NSCoder) {
        coder.encode(street, forKey: "street")
        coder.encode(city, forKey: "city")
        coder.encode(zip, forKey: "zip")
    }

    /// This program only writes.
    init?(coder: NSCoder) { nil }
}

class Person: NSObject, NSCoding {
    let name: String
    let age: Int
    let score: Double
    let isAdmin: Bool
    let tags: [String]
    let address: Address?
    let birthday: Date
    let avatar: Data
    let homepage: URL?
    let id: UUID

    init(
        name: String, age: Int, score: Double, isAdmin: Bool, tags: [String], address: Address?, birthday: Date,
        avatar: Data, homepage: URL?, id: UUID
    ) {
        self.name = name
        self.age = age
        self.score = score
        self.isAdmin = isAdmin
        self.tags = tags
        self.address = address
        self.birthday = birthday
        self.avatar = avatar
        self.homepage = homepage
        self.id = id
    }

    /// Person number `n` of the fixtures: every field is a formula of `n`.
    convenience init(number n: Int) {
        self.init(
            name: "User \(n)",
            age: 20 + n % 50,
            score: Double(n) * 1.25,
            isAdmin: n % 7 == 0,
            tags: ["t\(n % 3)", "group\(n % 5)"],
            address: Address(street: "\(n) Main St", city: n.isMultiple(of: 2) ? "Zürich" : "Berlin", zip: "\(8000 + n)"),
            birthday: Date(timeIntervalSinceReferenceDate: Double(n) * 86_400 - 100_000_000),
            avatar: Data([UInt8(truncatingIfNeeded: n), 0xFF, 0x00]),
            homepage: n.isMultiple(of: 3) ? URL(string: "https://example.com/u/\(n)") : nil,
            id: UUID(uuidString: "\(hex(n, digits: 8))-0000-4000-8000-\(hex(n * 7, digits: 12))")!)
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(age, forKey: "age")
        coder.encode(score, forKey: "score")
        coder.encode(isAdmin, forKey: "isAdmin")
        coder.encode(tags as NSArray, forKey: "tags")
        coder.encode(address, forKey: "address")
        coder.encode(birthday as NSDate, forKey: "birthday")
        coder.encode(avatar as NSData, forKey: "avatar")
        coder.encode(homepage.map { $0 as NSURL }, forKey: "homepage")
        coder.encode(id as NSUUID, forKey: "id")
    }

    /// This program only writes.
    required init?(coder: NSCoder) { nil }
}

final class Employee: Person {
    let title: String
    var manager: Employee?
    var reports: [Employee] = []

    /// An employee: a person with a fixed score and id, no tags, address, avatar or homepage.
    init(name: String, age: Int, title: String) {
        self.title = title
        super.init(
            name: name, age: age, score: 0.5, isAdmin: false, tags: [], address: nil,
            birthday: Date(timeIntervalSinceReferenceDate: 0), avatar: Data(), homepage: nil,
            id: UUID(uuidString: "11111111-2222-3333-4444-555555555555")!)
    }

    override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(title, forKey: "title")
        coder.encode(manager, forKey: "manager")
        coder.encode(reports as NSArray, forKey: "reports")
    }

    /// This program only writes.
    required init?(coder: NSCoder) { nil }
}

final class Node: NSObject, NSCoding {
    let name: String
    var parent: Node?
    var children: [Node] = []

    init(name: String) { self.name = name }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(parent, forKey: "parent")
        coder.encode(children as NSArray, forKey: "children")
    }

    /// This program only writes.
    init?(coder: NSCoder) { nil }
}

final class Team: NSObject, NSCoding {
    let name: String
    let members: [Person]
    let captain: Person?

    init(name: String, members: [Person], captain: Person?) {
        self.name = name
        self.members = members
        self.captain = captain
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(members as NSArray, forKey: "members")
        coder.encode(captain, forKey: "captain")
    }

    /// This program only writes.
    init?(coder: NSCoder) { nil }
}

/// `value` in upper-case hexadecimal, zero-padded to `digits`.
func hex(_ value: Int, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
}

// MARK: - Archives

/// One archive: its file name (without `.archive`) and what it encodes.
struct Fixture {
    let name: String
    let encode: (NSKeyedArchiver) -> Void

    /// The archive's bytes, as `NSKeyedArchiver` writes them.
    func archive() -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        encode(archiver)
        archiver.finishEncoding()
        return archiver.encodedData
    }
}

/// `archive` with every class record's `keyedgen.` prefix dropped (`keyedgen.Person` becomes
/// `Person`), read and written again by `PropertyListSerialization`: the class names an
/// Objective-C app writes. (`NSKeyedArchiver.setClassName(_:for:)` would say this, but
/// swift-corelibs-foundation does not apply it.)
func withPlainClassNames(_ archive: Data) throws -> Data {
    var format = PropertyListSerialization.PropertyListFormat.binary
    guard var plist = try PropertyListSerialization.propertyList(from: archive, format: &format) as? [String: Any],
        var objects = plist["$objects"] as? [Any]
    else { throw CocoaError(.propertyListReadCorrupt) }
    func plain(_ name: String) -> String { name.hasPrefix("keyedgen.") ? String(name.dropFirst("keyedgen.".count)) : name }
    for index in objects.indices {
        guard var record = objects[index] as? [String: Any], let name = record["$classname"] as? String,
            let chain = record["$classes"] as? [String]
        else { continue }
        record["$classname"] = plain(name)
        record["$classes"] = chain.map(plain)
        objects[index] = record
    }
    plist["$objects"] = objects
    return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
}

let fixtures: [Fixture] = [
    Fixture(name: "k-string") { $0.encode("héllo wörld ✓ 中文 0" as NSString, forKey: "root") },
    Fixture(name: "k-number-int") { $0.encode(NSNumber(value: 1_234_567), forKey: "root") },
    Fixture(name: "k-number-double") { $0.encode(NSNumber(value: 2.5), forKey: "root") },
    Fixture(name: "k-array-mixed") { archiver in
        let nested: NSArray = ["nested", NSNumber(value: 99)]
        let mixed: NSArray = [
            "text", NSNumber(value: 42), NSNumber(value: -7), NSNumber(value: 3.25),
            NSDate(timeIntervalSinceReferenceDate: 86_400), NSData(bytes: [9, 8, 7] as [UInt8], length: 3), nested,
        ]
        archiver.encode(mixed, forKey: "root")
    },
    Fixture(name: "k-dict-json") { archiver in
        // A cached network response: five banners and a total.
        let banners: [NSDictionary] = (0..<5).map { i in
            let banner: [String: Any] = [
                "id": 100 + i, "title": "Banner \(i)", "image": "https://example.com/\(i).png", "weight": Double(i) / 4 + 0.125,
            ]
            return banner as NSDictionary
        }
        let response: NSDictionary = [
            "code": NSNumber(value: 200), "msg": "ok",
            "data": ["banners": banners as NSArray, "total": NSNumber(value: 5)] as NSDictionary,
        ]
        archiver.encode(response, forKey: "root")
    },
    Fixture(name: "k-person") { $0.encode(Person(number: 3), forKey: "root") },
    Fixture(name: "k-people-shared") { archiver in
        // One person twice: Foundation writes it once and references it from both places.
        let first = Person(number: 1)
        archiver.encode([first, Person(number: 2), first] as NSArray, forKey: "root")
    },
    Fixture(name: "k-employee-inheritance") { archiver in
        // A subclass whose instances point back at their manager: a cycle.
        let boss = Employee(name: "Boss", age: 60, title: "CEO")
        let reports = [Employee(name: "Ann", age: 30, title: "Dev"), Employee(name: "Bob", age: 40, title: "Ops")]
        for report in reports { report.manager = boss }
        boss.reports = reports
        archiver.encode(boss, forKey: "root")
    },
    Fixture(name: "k-tree-cycle") { archiver in
        // root → child0...2 → grand0...2, each node pointing back at its parent.
        let root = Node(name: "root")
        for i in 0..<3 {
            let child = Node(name: "child\(i)")
            let grandchild = Node(name: "grand\(i)")
            child.parent = root
            grandchild.parent = child
            child.children = [grandchild]
            root.children.append(child)
        }
        archiver.encode(root, forKey: "root")
    },
    Fixture(name: "k-multi-top") { archiver in
        // Three top-level keys, none of them `root`.
        archiver.encode(Person(number: 7), forKey: "user")
        let settings: NSDictionary = ["theme": "dark", "fontSize": NSNumber(value: 14), "notifications": NSNumber(value: true)]
        archiver.encode(settings, forKey: "settings")
        archiver.encode(["a.png", "b.png"] as NSArray, forKey: "banners")
    },
    Fixture(name: "k-foundation-values") { archiver in
        let values: NSArray = [
            NSURL(string: "https://example.com/a?b=c")!, NSUUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, NSNull(),
            NSSet(array: ["x", "y"]), NSDate(timeIntervalSinceReferenceDate: -1.5),
        ]
        archiver.encode(values, forKey: "root")
    },
    Fixture(name: "k-team-large") { archiver in
        // 2,000 people, the sixth of them also the captain: about 1.3 MB.
        let members = (0..<2000).map { Person(number: $0) }
        archiver.encode(Team(name: "Everyone", members: members, captain: members[5]), forKey: "root")
    },
]

// MARK: - Main

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: keyedgen OUTPUT-DIRECTORY\n".utf8))
    exit(2)
}
let output = URL(fileURLWithPath: CommandLine.arguments[1], isDirectory: true)
try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
func write(_ data: Data, _ name: String) throws {
    try data.write(to: output.appending(path: name + ".archive"))
}
for fixture in fixtures {
    let archive = fixture.archive()
    try write(archive, fixture.name)
    if fixture.name == "k-person" {
        try write(withPlainClassNames(archive), "k-person-objc-names")
    }
}
print("wrote \(fixtures.count + 1) archives to \(output.path)")
