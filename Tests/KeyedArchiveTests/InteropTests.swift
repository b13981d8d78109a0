import Foundation
import KeyedArchive
import PropertyList
import Testing
import TestSupport

// The reverse direction: archives THIS library writes are read by Foundation's own
// `NSKeyedUnarchiver` (swift-corelibs-foundation on Linux, Apple's Foundation on macOS) into
// NSCoding twins of the models (`FoundationTwins.swift`), and by Python's `plistlib`.
//
// Foundation on Linux overflows its stack on any cyclic archive (FORMAT.md §2.8), so only
// acyclic graphs are given to it; cycles are checked with plistlib instead.

/// Archives `value` with this library under `root` and reads it back with `NSKeyedUnarchiver`.
func readByFoundation<T>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any? {
    let data = try KeyedArchiver.archivedData(withRootObject: value)
    let reading = FoundationReading(data)
    #expect(reading.error == nil, "NSKeyedUnarchiver: \(String(describing: reading.error))", sourceLocation: sourceLocation)
    return reading.root
}

/// What differs between a twin Foundation decoded and the model that was archived.
func foundationDiff(_ path: String, _ twin: PersonNS, _ expected: Keyedgen.Person) -> [String] {
    var lines: [String] = []
    func check<V: Equatable>(_ key: String, _ actual: V?, _ wanted: V?) {
        if actual != wanted { lines.append("\(path).\(key): \(String(describing: actual)) != expected \(String(describing: wanted))") }
    }
    check("name", twin.name, expected.name)
    check("age", twin.age, expected.age)
    check("score", twin.score, expected.score)
    check("isAdmin", twin.isAdmin, expected.isAdmin)
    check("tags", twin.tags, expected.tags)
    check("address", twin.address == nil, expected.address == nil)
    if let a = twin.address, let e = expected.address {
        check("address.street", a.street, e.street)
        check("address.city", a.city, e.city)
        check("address.zip", a.zip, e.zip)
    }
    check("birthday", twin.birthday, expected.birthday)
    check("avatar", twin.avatar, expected.avatar)
    check("homepage", twin.homepage, expected.homepage)
    check("id", twin.id, expected.id)
    lines += twin.oddities.map { "\(path).\($0)" }
    if let employee = expected as? Keyedgen.Employee {
        guard let twinEmployee = twin as? EmployeeNS else { return lines + ["\(path): decoded as \(type(of: twin)), expected EmployeeNS"] }
        check("title", twinEmployee.title, employee.title)
        check("manager", twinEmployee.manager?.name, employee.manager?.name)
        check("reports.count", twinEmployee.reports?.count, employee.reports.count)
        for (i, (a, e)) in zip(twinEmployee.reports ?? [], employee.reports).enumerated() {
            lines += foundationDiff("\(path).reports[\(i)]", a, e)
        }
    } else if twin is EmployeeNS {
        lines.append("\(path): decoded as EmployeeNS, expected PersonNS")
    }
    return lines
}

/// Names and shape of a twin node tree.
func foundationDiff(_ path: String, _ twin: NodeNS, _ expected: Keyedgen.Node) -> [String] {
    var lines: [String] = []
    if twin.name != expected.name { lines.append("\(path).name: \(String(describing: twin.name)) != \(expected.name)") }
    if (twin.parent == nil) != (expected.parent == nil) { lines.append("\(path).parent: presence differs") }
    let children = twin.children ?? []
    if children.count != expected.children.count { lines.append("\(path).children.count: \(children.count) != \(expected.children.count)") }
    for (i, (a, e)) in zip(children, expected.children).enumerated() { lines += foundationDiff("\(path).children[\(i)]", a, e) }
    return lines
}

@Suite("Foundation's NSKeyedUnarchiver reads archives this library writes")
struct FoundationReadsOurArchivesTests {
    @Test func modelsDeclareTheClassNamesFoundationGivesTheirTwins() {
        #expect(Keyedgen.Person.archiveClassName == NSStringFromClass(PersonNS.self))
        #expect(Keyedgen.Address.archiveClassName == NSStringFromClass(AddressNS.self))
        #expect(Keyedgen.Employee.archiveClassName == NSStringFromClass(EmployeeNS.self))
        #expect(Keyedgen.Node.archiveClassName == NSStringFromClass(NodeNS.self))
        #expect(Keyedgen.Team.archiveClassName == NSStringFromClass(TeamNS.self))
        for name in ["PersonNS", "AddressNS", "EmployeeNS", "NodeNS", "TeamNS"] {
            #expect(NSClassFromString("KeyedArchiveTests." + name) != nil, "\(name) does not resolve by name")
        }
    }

    @Test func subclassArchivesItsWholeClassChain() throws {
        // `$classes` must be [EmployeeNS, PersonNS, NSObject] so Foundation resolves the chain.
        let data = try KeyedArchiver.archivedData(withRootObject: Keyedgen.Employee(name: "Solo", age: 33, title: "Dev"))
        let plist = try PlistValue(bplist: [UInt8](data))
        let objects = try #require(plist.dictValue?["$objects"]?.arrayValue)
        let chains = objects.compactMap { $0.dictValue?["$classes"]?.arrayValue?.compactMap(\.stringValue) }
        #expect(chains.contains(["KeyedArchiveTests.EmployeeNS", "KeyedArchiveTests.PersonNS", "NSObject"]), "\(chains)")
    }

    @Test(arguments: [0, 1, 3, 7, 14, 1999])
    func personIsReadIntoItsTwinWithEveryField(_ i: Int) throws {
        let person = Keyedgen.person(i)
        let twin = try #require(try readByFoundation(person) as? PersonNS)
        let diff = foundationDiff("root", twin, person)
        #expect(diff.isEmpty, "\(diff.joined(separator: "\n"))")
    }

    @Test func personWithEmptyAndNilFieldsIsReadIntoItsTwin() throws {
        let person = Keyedgen.Person()
        person.name = "Nobody"
        let twin = try #require(try readByFoundation(person) as? PersonNS)
        let diff = foundationDiff("root", twin, person)
        #expect(diff.isEmpty, "\(diff.joined(separator: "\n"))")
        #expect(twin.address == nil)
        #expect(twin.homepage == nil)
        #expect(twin.tags == [])
        #expect(twin.avatar == Data())
    }

    @Test func sharedPeopleStayOneInstanceInFoundation() throws {
        let p = Keyedgen.person(1), q = Keyedgen.person(2)
        let array = try #require(try readByFoundation([p, q, p]) as? [PersonNS])
        try #require(array.count == 3)
        #expect(array[0] === array[2])
        #expect(array[0] !== array[1])
        let diff = foundationDiff("root[0]", array[0], p) + foundationDiff("root[1]", array[1], q)
        #expect(diff.isEmpty, "\(diff.joined(separator: "\n"))")
    }

    @Test func employeeHierarchyIsReadIntoTwinSubclasses() throws {
        // Acyclic: the reports do not point back at their manager.
        let boss = Keyedgen.company()
        for report in boss.reports { report.manager = nil }
        let twin = try #require(try readByFoundation(boss) as? EmployeeNS)
        let diff = foundationDiff("root", twin, boss)
        #expect(diff.isEmpty, "\(diff.joined(separator: "\n"))")
        #expect(twin.reports?.map { $0.name ?? "?" } == ["Ann", "Bob"])
    }

    @Test func employeeWithAManagerIsReadWithTheManagerTwin() throws {
        // Acyclic the other way: Ann's manager has no reports.
        let boss = Keyedgen.Employee(name: "Boss", age: 60, title: "CEO")
        let ann = Keyedgen.Employee(name: "Ann", age: 30, title: "Dev")
        ann.manager = boss
        let twin = try #require(try readByFoundation(ann) as? EmployeeNS)
        let diff = foundationDiff("root", twin, ann)
        #expect(diff.isEmpty, "\(diff.joined(separator: "\n"))")
        let manager = try #require(twin.manager)
        #expect(foundationDiff("root.manager", manager, boss).isEmpty)
    }

    @Test func employeeInAPersonArrayIsReadAsTheSubclassTwin() throws {
        let people: [Keyedgen.Person] = [Keyedgen.person(4), Keyedgen.Employee(name: "Eve", age: 41, title: "Sec")]
        let array = try #require(try readByFoundation(people) as? [PersonNS])
        try #require(array.count == 2)
        #expect(!(array[0] is EmployeeNS))
        #expect((array[1] as? EmployeeNS)?.title == "Sec")
        let diff = foundationDiff("root[0]", array[0], people[0]) + foundationDiff("root[1]", array[1], people[1])
        #expect(diff.isEmpty, "\(diff.joined(separator: "\n"))")
    }

    @Test func acyclicTreeIsReadIntoTwinNodes() throws {
        let tree = Keyedgen.tree(withParents: false)
        let twin = try #require(try readByFoundation(tree) as? NodeNS)
        let diff = foundationDiff("root", twin, tree)
        #expect(diff.isEmpty, "\(diff.joined(separator: "\n"))")
    }

    @Test func teamIsReadWithItsSharedCaptain() throws {
        let members = (0..<50).map(Keyedgen.person)
        let team = Keyedgen.Team("Everyone", members, captain: members[5])
        let twin = try #require(try readByFoundation(team) as? TeamNS)
        #expect(twin.name == "Everyone")
        let twinMembers = try #require(twin.members)
        try #require(twinMembers.count == 50)
        #expect(twin.captain === twinMembers[5])
        let diff = zip(twinMembers, members).enumerated().flatMap { foundationDiff("members[\($0)]", $1.0, $1.1) }
        #expect(diff.isEmpty, "\(diff.prefix(30).joined(separator: "\n"))")
    }

    @Test func teamWithoutCaptainIsReadWithNilCaptain() throws {
        let team = Keyedgen.Team("Nobody leads", [Keyedgen.person(2)], captain: nil)
        let twin = try #require(try readByFoundation(team) as? TeamNS)
        #expect(twin.name == "Nobody leads")
        #expect(twin.captain == nil)
        #expect(twin.members?.count == 1)
    }

    @Test func multiObjectArchiveIsReadKeyByKey() throws {
        let archiver = KeyedArchiver()
        try archiver.encode(Keyedgen.person(7), forKey: "user")
        try archiver.encode(["theme": "dark", "fontSize": 14, "notifications": true] as [String: Any], forKey: "settings")
        try archiver.encode(["a.png", "b.png"], forKey: "banners")
        let data = try archiver.encodedData

        let user = FoundationReading(data, key: "user")
        #expect(user.error == nil)
        let twin = try #require(user.root as? PersonNS)
        #expect(foundationDiff("user", twin, Keyedgen.person(7)).isEmpty)

        let settings = FoundationReading(data, key: "settings")
        #expect(settings.error == nil)
        let dictionary = try #require(settings.root as? NSDictionary)
        #expect(dictionary["theme"] as? String == "dark")
        #expect((dictionary["fontSize"] as? NSNumber)?.intValue == 14)
        #expect(dictionary["notifications"] as? Bool == true)

        let banners = FoundationReading(data, key: "banners")
        #expect(banners.error == nil)
        #expect(banners.root as? [String] == ["a.png", "b.png"])
    }

    @Test func archiverClassNameMappingLetsAPlainStructBeReadAsATwin() throws {
        // DESIGN.md §4: "setClassName(_:for:) overrides per archiver". Regression: the name was
        // stored but no coder consulted it, so Foundation could not find the class.
        let archiver = KeyedArchiver()
        archiver.setClassName(NSStringFromClass(AddressNS.self), for: InteropPlainAddress.self)
        try archiver.encode(InteropPlainAddress(street: "1 Main St", city: "Berlin", zip: "8001"), forKey: "root")
        let data = try archiver.encodedData
        let json = try PlistValue(bplist: [UInt8](data)).plistJSON
        #expect(json.contains("\"KeyedArchiveTests.AddressNS\""), "the mapped class name is not in the archive")
        #expect(!json.contains("InteropPlainAddress"), "the type's own name is still in the archive")
        let reading = FoundationReading(data)
        #expect(reading.error == nil, "\(String(describing: reading.error))")
        let twin = reading.root as? AddressNS
        #expect(twin?.street == "1 Main St")
        #expect(twin?.city == "Berlin")
        #expect(twin?.zip == "8001")
    }

    /// The archiver keeps each reflected type's class description for the rest of the archive;
    /// a name set after a value of the type was written applies from the next value on.
    @Test func classNameSetBetweenTwoEncodesAppliesToTheSecond() throws {
        let archiver = KeyedArchiver()
        let address = InteropPlainAddress(street: "1 Main St", city: "Berlin", zip: "8001")
        try archiver.encode(address, forKey: "before")
        archiver.setClassName("Renamed.Address", for: InteropPlainAddress.self)
        try archiver.encode(address, forKey: "after")
        let data = try archiver.encodedData
        let json = try PlistValue(bplist: [UInt8](data)).plistJSON
        #expect(json.contains("\"Renamed.Address\""), "the name set between the encodes is not in the archive")
        #expect(json.contains("InteropPlainAddress"), "the value written before the name was set lost its own name")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(try unarchiver.decode(InteropPlainAddress.self, forKey: "before") == address)
        unarchiver.setClass(InteropPlainAddress.self, forClassName: "Renamed.Address")
        #expect(try unarchiver.decode(InteropPlainAddress.self, forKey: "after") == address)
    }

    @Test func relativeURLIsArchivedAsBaseAndRelativePartsLikeFoundation() throws {
        // Foundation on Linux cannot show the split (see above), so check the archive itself.
        let relative = URL(string: "index.xml", relativeTo: URL(string: "https://www.swift.org/")!)!
        let plist = try PlistValue(bplist: [UInt8](KeyedArchiver.archivedData(withRootObject: relative)))
        let objects = try #require(plist.dictValue?["$objects"]?.arrayValue)
        guard case .uid(let rootUID)? = plist.dictValue?["$top"]?.dictValue?["root"] else {
            Issue.record("no root UID in $top")
            return
        }
        let url = try #require(objects[Int(rootUID)].dictValue)
        guard case .uid(let relativeUID)? = url["NS.relative"], case .uid(let baseUID)? = url["NS.base"] else {
            Issue.record("NS.relative / NS.base are not UIDs: \(url)")
            return
        }
        #expect(objects[Int(relativeUID)] == .string("index.xml"))
        let base = try #require(objects[Int(baseUID)].dictValue)
        guard case .uid(let baseRelative)? = base["NS.relative"] else {
            Issue.record("the base URL has no NS.relative: \(base)")
            return
        }
        #expect(objects[Int(baseRelative)] == .string("https://www.swift.org/"))
        #expect(base["NS.base"] == .uid(0))
    }

    @Test func aStringThatReadsDollarNullIsNotConfusedWithNil() throws {
        // `$objects[0]` is "$null"; a user string "$null" must get its own UID and read back as itself.
        // (swift-corelibs-foundation treats any "$null" entry as nil, FORMAT.md §2.2, so it is not asked.)
        let data = try KeyedArchiver.archivedData(withRootObject: ["$null", "x"])
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: [String].self, from: data) == ["$null", "x"])
        let plist = try PlistValue(bplist: [UInt8](data))
        let objects = try #require(plist.dictValue?["$objects"]?.arrayValue)
        let array = try #require(objects.first { $0.dictValue?["NS.objects"] != nil }?.dictValue?["NS.objects"]?.arrayValue)
        #expect(!array.contains(.uid(0)), "a real string was written as a reference to nil: \(array)")
    }

    @Test func goldenArchivesOfAcyclicModelsAreReadFromDisk() throws {
        // The byte-checked golden files themselves (GoldenArchiveTests), not just fresh output.
        let personData = try Data(contentsOf: Fixtures.own("keyed/keyedgen-person.archive"))
        let person = FoundationReading(personData)
        #expect(person.error == nil)
        let twin = try #require(person.root as? PersonNS)
        #expect(foundationDiff("root", twin, Keyedgen.person(3)).isEmpty)

        let teamData = try Data(contentsOf: Fixtures.own("keyed/keyedgen-team.archive"))
        let team = FoundationReading(teamData)
        #expect(team.error == nil)
        let teamTwin = try #require(team.root as? TeamNS)
        let members = try #require(teamTwin.members)
        try #require(members.count == 20)
        #expect(teamTwin.captain === members[5])
        let diff = members.enumerated().flatMap { foundationDiff("members[\($0)]", $1, Keyedgen.person($0)) }
        #expect(diff.isEmpty, "\(diff.prefix(30).joined(separator: "\n"))")
    }

    // MARK: Full circle: this library → Foundation reads → Foundation writes → this library reads

    @Test(arguments: [0, 3, 7])
    func personSurvivesARoundTripThroughFoundation(_ i: Int) throws {
        let twin = try #require(try readByFoundation(Keyedgen.person(i)) as? PersonNS)
        let data = try NSKeyedArchiver.archivedData(withRootObject: twin, requiringSecureCoding: false)
        // The twin's own class name is the model's archiveClassName: no mapping needed.
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Keyedgen.Person.self, from: data)
        var diff = ModelDiff()
        diff.person("root", back, Keyedgen.person(i))
        #expect(diff.lines.isEmpty, "\(diff.description)")
    }

    @Test func employeesAndTeamSurviveARoundTripThroughFoundation() throws {
        let boss = Keyedgen.company()
        for report in boss.reports { report.manager = nil }
        let bossTwin = try #require(try readByFoundation(boss) as? EmployeeNS)
        let bossBack = try KeyedUnarchiver.unarchivedObject(
            ofType: Keyedgen.Employee.self, from: NSKeyedArchiver.archivedData(withRootObject: bossTwin, requiringSecureCoding: false))
        var diff = ModelDiff()
        diff.employee("boss", bossBack, boss)

        let members = (0..<12).map(Keyedgen.person)
        let team = Keyedgen.Team("Twelve", members, captain: members[5])
        let teamTwin = try #require(try readByFoundation(team) as? TeamNS)
        let teamBack = try KeyedUnarchiver.unarchivedObject(
            ofType: Keyedgen.Team.self, from: NSKeyedArchiver.archivedData(withRootObject: teamTwin, requiringSecureCoding: false))
        diff.team("team", teamBack, team)
        #expect(diff.lines.isEmpty, "\(diff.description)")
        #expect(teamBack.captain === teamBack.members[5])
    }

    // MARK: Roots that are values

    @Test func stringRootsAreReadAsStrings() throws {
        for text in ["", "plain ascii", "héllo wörld ✓ 中文 0", "emoji 👩‍💻", "$dollar", String(repeating: "long ", count: 500)] {
            #expect(try readByFoundation(text) as? String == text, "\(text.prefix(20))")
        }
    }

    @Test func numberRootsAreReadAsNumbers() throws {
        for value in [0, 1, -1, 255, 256, -129, 1_234_567, Int.max, Int.min] {
            let number = try readByFoundation(value) as? NSNumber
            #expect(number?.int64Value == Int64(value), "\(value)")
        }
        #expect((try readByFoundation(UInt64.max) as? NSNumber)?.uint64Value == UInt64.max)
        for value in [0.0, 2.5, -1e300, .pi, .infinity] {
            #expect((try readByFoundation(value) as? NSNumber)?.doubleValue == value, "\(value)")
        }
        #expect((try readByFoundation(Float(1.5)) as? NSNumber)?.floatValue == 1.5)
        #expect(try readByFoundation(true) as? Bool == true)
        #expect(try readByFoundation(false) as? Bool == false)
    }

    @Test func foundationValueRootsAreReadAsTheirFoundationTypes() throws {
        let date = Date(timeIntervalSinceReferenceDate: 86_400.25)
        #expect(try readByFoundation(date) as? Date == date)
        #expect(try readByFoundation(Date(timeIntervalSinceReferenceDate: -1e8)) as? Date == Date(timeIntervalSinceReferenceDate: -1e8))
        let url = URL(string: "https://example.com/a?b=c#d")!
        #expect(try readByFoundation(url) as? URL == url)
        let relative = URL(string: "index.xml", relativeTo: URL(string: "https://www.swift.org/")!)!
        let readRelative = try #require(try readByFoundation(relative) as? URL)
        #expect(readRelative.absoluteString == "https://www.swift.org/index.xml")
        #if !os(Linux)
            // swift-corelibs-foundation resolves NS.base + NS.relative into one absolute URL and
            // drops the base (it does the same with its own archives and with the macOS-made
            // ComplexTest fixture), so the split is only checked where Foundation keeps it.
            #expect(readRelative.relativeString == "index.xml")
            #expect(readRelative.baseURL?.absoluteString == "https://www.swift.org/")
        #endif
        let fileURL = URL(fileURLWithPath: "/tmp/some file.txt")
        #expect((try readByFoundation(fileURL) as? URL)?.path == "/tmp/some file.txt")
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(try readByFoundation(uuid) as? UUID == uuid)
        #expect(try readByFoundation(Data([0, 1, 2, 255])) as? Data == Data([0, 1, 2, 255]))
        #expect(try readByFoundation(Data()) as? Data == Data())
    }

    @Test func collectionRootsAreReadAsFoundationCollections() throws {
        #expect(try readByFoundation([1, 2, 3]) as? [Int] == [1, 2, 3])
        #expect(try readByFoundation([Int]()) as? [Int] == [])
        #expect(try readByFoundation(["a", "b", "a"]) as? [String] == ["a", "b", "a"])
        #expect(try readByFoundation([[1, 2], [], [3]]) as? [[Int]] == [[1, 2], [], [3]])
        #expect(try readByFoundation(["one": 1, "two": 2]) as? [String: Int] == ["one": 1, "two": 2])
        #expect(try readByFoundation([String: [String]]()) as? [String: [String]] == [:])
        #expect(try readByFoundation(Set(["x", "y", "z"])) as? Set<String> == ["x", "y", "z"])
        #expect(try readByFoundation([1: "one", 2: "two"]) as? [Int: String] == [1: "one", 2: "two"])
        let dates = [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 1)]
        #expect(try readByFoundation(dates) as? [Date] == dates)
    }

    @Test func jsonLikeAnyRootsAreReadWithTheirKinds() throws {
        let banners: [[String: Any]] = (0..<5).map { ["id": $0 + 100, "title": "Banner \($0)", "weight": Double($0) / 4 + 0.125] }
        let json: [String: Any] = ["code": 200, "msg": "ok", "data": ["banners": banners, "total": 5], "none": NSNull(), "flag": false]
        let root = try #require(try readByFoundation(json) as? NSDictionary)
        #expect((root["code"] as? NSNumber)?.intValue == 200)
        #expect(root["msg"] as? String == "ok")
        #expect(root["none"] is NSNull)
        #expect(root["flag"] as? Bool == false)
        let data = try #require(root["data"] as? NSDictionary)
        #expect((data["total"] as? NSNumber)?.intValue == 5)
        let readBanners = try #require(data["banners"] as? NSArray)
        try #require(readBanners.count == 5)
        for i in 0..<5 {
            let banner = try #require(readBanners[i] as? NSDictionary)
            #expect((banner["id"] as? NSNumber)?.intValue == i + 100)
            #expect(banner["title"] as? String == "Banner \(i)")
            #expect((banner["weight"] as? NSNumber)?.doubleValue == Double(i) / 4 + 0.125)
        }

        let mixed: [Any] = ["text", 42, -7, 3.25, Date(timeIntervalSinceReferenceDate: 86_400), Data([9, 8, 7]), ["nested", 99] as [Any], NSNull()]
        let array = try #require(try readByFoundation(mixed) as? NSArray)
        try #require(array.count == 8)
        #expect(array[0] as? String == "text")
        #expect((array[1] as? NSNumber)?.intValue == 42)
        #expect((array[2] as? NSNumber)?.intValue == -7)
        #expect((array[3] as? NSNumber)?.doubleValue == 3.25)
        #expect(array[4] as? Date == Date(timeIntervalSinceReferenceDate: 86_400))
        #expect(array[5] as? Data == Data([9, 8, 7]))
        #expect((array[6] as? NSArray)?.count == 2)
        #expect(array[7] is NSNull)
    }
}

/// A struct with no declared class name, for `setClassName(_:for:)`.
struct InteropPlainAddress: Archivable, Equatable {
    var street = ""
    var city = ""
    var zip = ""
}

// MARK: - Python

/// Where `python3` is on `PATH`, or nil.
func python3Path() -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Checks every archive with Python's `plistlib` in one process; prints one JSON object keyed by file name.
private let plistlibChecker = #"""
import json, os, plistlib, sys

def summary(objs, value):
    if isinstance(value, plistlib.UID):
        target = objs[value.data] if value.data < len(objs) else None
        if isinstance(target, dict) and isinstance(target.get("$class"), plistlib.UID):
            return {"refClass": objs[target["$class"].data].get("$classname")}
        if isinstance(target, (bytes, bytearray)):
            return {"ref": target.hex()}
        return {"ref": target}
    if isinstance(value, (bytes, bytearray)):
        return {"inline": value.hex()}
    if isinstance(value, (list, dict)):
        return {"inline": type(value).__name__}
    return {"inline": value}

results = {}
for path in sys.argv[1:]:
    name = os.path.basename(path)
    errors = []
    result = {"errors": errors}
    results[name] = result
    try:
        with open(path, "rb") as f:
            archive = plistlib.load(f)
    except Exception as e:
        errors.append("plistlib: %r" % (e,))
        continue
    if not isinstance(archive, dict):
        errors.append("root is %s" % type(archive).__name__)
        continue
    if sorted(archive.keys()) != ["$archiver", "$objects", "$top", "$version"]:
        errors.append("top-level keys %r" % sorted(archive.keys()))
    if archive.get("$archiver") != "NSKeyedArchiver":
        errors.append("$archiver is %r" % (archive.get("$archiver"),))
    version = archive.get("$version")
    if type(version) is not int or version != 100000:
        errors.append("$version is %r" % (version,))
    top, objs = archive.get("$top"), archive.get("$objects")
    if not isinstance(top, dict) or not all(isinstance(v, plistlib.UID) for v in top.values()):
        errors.append("$top is not a dict of UIDs: %r" % (top,))
        continue
    if not isinstance(objs, list) or not objs or objs[0] != "$null":
        errors.append("$objects does not start with $null")
        continue
    n = len(objs)
    uids = 0
    def walk(value, where):
        global uids
        if isinstance(value, plistlib.UID):
            uids += 1
            if not 0 <= value.data < n:
                errors.append("UID %d out of range at %s" % (value.data, where))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, "%s[%d]" % (where, i))
        elif isinstance(value, dict):
            for k, v in value.items():
                if not isinstance(k, str):
                    errors.append("non-string key at %s" % where)
                walk(v, "%s.%s" % (where, k))
    walk(top, "$top")
    walk(objs, "$objects")
    if errors:
        continue
    for i, obj in enumerate(objs):
        if isinstance(obj, dict) and "$class" in obj:
            cls = obj["$class"]
            desc = objs[cls.data] if isinstance(cls, plistlib.UID) else None
            if not isinstance(desc, dict) or not isinstance(desc.get("$classname"), str):
                errors.append("$objects[%d].$class is not a class description" % i)
                continue
            chain = desc.get("$classes")
            if not isinstance(chain, list) or not chain or chain[0] != desc["$classname"] or chain[-1] != "NSObject":
                errors.append("$objects[%d]: class chain %r" % (i, chain))
    result["top"] = sorted(top.keys())
    result["objects"] = n
    result["uids"] = uids
    if "root" in top:
        root = objs[top["root"].data]
        if isinstance(root, dict) and isinstance(root.get("$class"), plistlib.UID):
            result["rootClass"] = objs[root["$class"].data].get("$classname")
            result["rootFields"] = {k: summary(objs, v) for k, v in root.items() if k != "$class"}
        elif isinstance(root, (bytes, bytearray)):
            result["rootValue"] = root.hex()
        else:
            result["rootValue"] = root
print(json.dumps(results, sort_keys=True))
"""#

@Suite("Python's plistlib reads archives this library writes")
struct PythonReadsOurArchivesTests {
    /// Archives covering every model and value kind, cycles included (plistlib does not resolve objects).
    static func archives() throws -> [(name: String, data: Data, rootClass: String?)] {
        var list: [(String, Data, String?)] = []
        func add<T>(_ name: String, _ value: T, rootClass: String?) throws {
            list.append((name, try KeyedArchiver.archivedData(withRootObject: value), rootClass))
        }
        try add("person", Keyedgen.person(3), rootClass: "KeyedArchiveTests.PersonNS")
        try add("people-shared", { let p = Keyedgen.person(1); return [p, Keyedgen.person(2), p] }(), rootClass: "NSArray")
        let company = Keyedgen.company()
        defer { Keyedgen.breakCycles(company) }
        try add("employee-cycle", company, rootClass: "KeyedArchiveTests.EmployeeNS")
        try add("tree-cycle", Keyedgen.tree(), rootClass: "KeyedArchiveTests.NodeNS")
        let members = (0..<2000).map(Keyedgen.person)
        try add("team-large", Keyedgen.Team("Everyone", members, captain: members[5]), rootClass: "KeyedArchiveTests.TeamNS")
        try add("string", "héllo wörld ✓ 中文 0", rootClass: nil)
        try add("int", 1_234_567, rootClass: nil)
        try add("double", 2.5, rootClass: nil)
        try add("bool", true, rootClass: nil)
        try add("date", Date(timeIntervalSinceReferenceDate: 86_400), rootClass: "NSDate")
        try add("url", URL(string: "index.xml", relativeTo: URL(string: "https://www.swift.org/"))!, rootClass: "NSURL")
        try add("uuid", UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, rootClass: "NSUUID")
        try add("data", Data([9, 8, 7]), rootClass: nil)
        try add("array", [1, 2, 3], rootClass: "NSArray")
        try add("set", Set(["x", "y"]), rootClass: "NSSet")
        try add("dictionary", ["code": 200, "msg": "ok", "list": [1, 2.5, "x"] as [Any], "null": NSNull()] as [String: Any], rootClass: "NSDictionary")
        try add("dollar-string", "$null", rootClass: nil)
        try add("golden-zoo", GoldenZoo.Enclosure.sample(), rootClass: "GoldenZoo.Enclosure")
        let ring = GoldenZoo.Ring.sample()
        defer { ring.breakRing() }
        try add("ring-cycle", ring, rootClass: "GoldenZoo.Ring")
        try add("codable-enum", GoldenZoo.Forecast.sample(), rootClass: "GoldenZoo.Forecast")
        let archiver = KeyedArchiver()
        try archiver.encode(Keyedgen.person(7), forKey: "user")
        try archiver.encode(["theme": "dark"], forKey: "settings")
        try archiver.encode(["a.png", "b.png"], forKey: "banners")
        list.append(("multi-top", try archiver.encodedData, nil))
        return list
    }

    #if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow
    @Test func plistlibReadsEveryArchiveAsAValidKeyedArchive() throws {
        guard let python = python3Path() else {
            print("skipped plistlibReadsEveryArchiveAsAValidKeyedArchive: python3 is not on PATH")
            return
        }
        let archives = try Self.archives()
        let directory = FileManager.default.temporaryDirectory.appending(path: "keyed-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for archive in archives {
            let url = directory.appending(path: archive.name + ".archive")
            try archive.data.write(to: url)
            paths.append(url.path)
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", plistlibChecker] + paths
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 failed: \(String(decoding: errData, as: UTF8.self))")

        let results = try #require(try JSONSerialization.jsonObject(with: outData) as? [String: [String: Any]])
        #expect(results.count == archives.count)
        for archive in archives {
            let result = try #require(results[archive.name + ".archive"], "no result for \(archive.name)")
            let problems = result["errors"] as? [String] ?? ["no error list"]
            #expect(problems.isEmpty, "\(archive.name): \(problems)")
            if archive.name == "multi-top" {
                #expect(result["top"] as? [String] == ["banners", "settings", "user"])
            } else {
                #expect(result["top"] as? [String] == ["root"], "\(archive.name)")
            }
            if let rootClass = archive.rootClass {
                #expect(result["rootClass"] as? String == rootClass, "\(archive.name)")
            }
        }

        // What plistlib sees inside: integers, reals and booleans inline; strings and objects by UID.
        let person = try #require(results["person.archive"]?["rootFields"] as? [String: [String: Any]])
        #expect(person["age"]?["inline"] as? Int == 23)
        #expect(person["score"]?["inline"] as? Double == 3.75)
        #expect(person["isAdmin"]?["inline"] as? Bool == false)
        #expect(person["name"]?["ref"] as? String == "User 3")
        #expect(person["tags"]?["refClass"] as? String == "NSArray")
        #expect(person["address"]?["refClass"] as? String == "KeyedArchiveTests.AddressNS")
        #expect(person["birthday"]?["refClass"] as? String == "NSDate")
        #expect(person["avatar"]?["ref"] as? String == "03ff00")
        #expect(person["homepage"]?["refClass"] as? String == "NSURL")
        #expect(person["id"]?["refClass"] as? String == "NSUUID")
        #expect(Set(person.keys) == ["name", "age", "score", "isAdmin", "tags", "address", "birthday", "avatar", "homepage", "id"])

        let noHomepage = try #require(results["employee-cycle.archive"]?["rootFields"] as? [String: [String: Any]])
        #expect(noHomepage["homepage"]?["ref"] as? String == "$null", "nil is a UID pointing at $null")
        #expect(noHomepage["title"]?["ref"] as? String == "CEO")
        #expect(results["string.archive"]?["rootValue"] as? String == "héllo wörld ✓ 中文 0")
        #expect(results["int.archive"]?["rootValue"] as? Int == 1_234_567)
        #expect(results["bool.archive"]?["rootValue"] as? Bool == true)
        #expect(results["data.archive"]?["rootValue"] as? String == "090807")
        #expect(results["dollar-string.archive"]?["rootValue"] as? String == "$null")
        #expect((results["team-large.archive"]?["objects"] as? Int ?? 0) > 2000)
    }
    #endif
}
