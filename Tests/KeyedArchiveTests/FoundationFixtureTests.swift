import Foundation
import KeyedArchive
import PropertyList
import Testing
import TestSupport

// Archives written by Foundation's own NSKeyedArchiver (swift-corelibs-foundation on Linux, and
// Apple's on macOS) decode into this library's Swift models with every value intact. Expected
// values are computed with the writer's own formulas (`Keyedgen.person(i)`...), never copied
// from the files. Each test runs on `Fixtures/foundation` (written by this platform's Foundation,
// Scripts/make-foundation-fixtures.sh) and, when it is there, on the peer copy in
// ../shared/fixtures/keyed. Foundation's output differs in bytes from run to run: compare content.

/// A folder of the thirteen Foundation-made keyed archives (`k-person.archive`...).
struct FoundationArchives: Sendable, CustomTestStringConvertible {
    let folder: URL
    let testDescription: String

    /// Ours, made by Scripts/make-foundation-fixtures.sh: always there.
    static let own = FoundationArchives(folder: Fixtures.own("foundation"), testDescription: "Fixtures/foundation")
    /// The peer copy, used when ../shared/fixtures is.
    static let peer = FoundationArchives(folder: Fixtures.shared("keyed"), testDescription: "../shared/fixtures/keyed")
    /// The folders the tests run on: ours, and the peer copy when it is used.
    static let available: [FoundationArchives] = [own] + (Fixtures.peerFixturesAvailable ? [peer] : [])

    /// The names of the archives in the folder, without `.archive`.
    var names: [String] {
        Fixtures.fileNames(in: folder, suffix: ".archive").map { String($0.dropLast(".archive".count)) }
    }

    /// The bytes of `NAME.archive`.
    func data(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appending(path: "\(name).archive"))
    }

    /// An unarchiver over `NAME.archive` with the writer's class names mapped to `Keyedgen` models.
    func keyedgenUnarchiver(_ name: String) throws -> KeyedUnarchiver {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data(name))
        Keyedgen.mapGeneratorNames(unarchiver)
        return unarchiver
    }
}

@Suite("Foundation-made keyed archives decode into Swift models")
struct FoundationFixtureTests {
    /// Every archive in the fixture folders is exercised by a test below; a new file must get one.
    static let covered: Set<String> = [
        "k-string", "k-number-int", "k-number-double", "k-array-mixed", "k-dict-json", "k-person", "k-people-shared",
        "k-employee-inheritance", "k-tree-cycle", "k-multi-top", "k-foundation-values", "k-person-objc-names", "k-team-large",
    ]

    @Test func everyArchiveOfOursHasATest() {
        let names = FoundationArchives.own.names
        #expect(names.count == 13)
        #expect(Set(names) == Self.covered)
    }

    @Test(.needsPeerFixtures("keyed/*.archive (this suite's tests run on Fixtures/foundation alone)"))
    func everyPeerArchiveHasATest() {
        #expect(FoundationArchives.available.map(\.testDescription) == ["Fixtures/foundation", "../shared/fixtures/keyed"])
        let names = FoundationArchives.peer.names
        #expect(names.count == 13)
        #expect(Set(names) == Self.covered)
    }

    // MARK: Roots that are plain values

    @Test(arguments: FoundationArchives.available)
    func stringRootDecodesAsString(_ archives: FoundationArchives) throws {
        let value = try KeyedUnarchiver.unarchivedObject(ofType: String.self, from: archives.data("k-string"))
        #expect(value == "héllo wörld ✓ 中文 0")
        let any = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: archives.data("k-string"))
        #expect(any as? String == "héllo wörld ✓ 中文 0")
    }

    @Test(arguments: FoundationArchives.available)
    func integerRootDecodesAsIntAndAsAny(_ archives: FoundationArchives) throws {
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Int.self, from: archives.data("k-number-int")) == 1_234_567)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Int64.self, from: archives.data("k-number-int")) == 1_234_567)
        let any = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: archives.data("k-number-int"))
        #expect(type(of: any) == Int.self)
        #expect(any as? Int == 1_234_567)
    }

    @Test(arguments: FoundationArchives.available)
    func doubleRootDecodesAsDoubleAndAsAny(_ archives: FoundationArchives) throws {
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Double.self, from: archives.data("k-number-double")) == 2.5)
        let any = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: archives.data("k-number-double"))
        #expect(type(of: any) == Double.self)
        #expect(any as? Double == 2.5)
    }

    @Test(arguments: FoundationArchives.available)
    func mixedArrayDecodesAsAnyWithEachElementsTypeAndValue(_ archives: FoundationArchives) throws {
        let array = try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: archives.data("k-array-mixed"))
        try #require(array.count == 7)
        #expect(type(of: array[0]) == String.self)
        #expect(array[0] as? String == "text")
        #expect(type(of: array[1]) == Int.self)
        #expect(array[1] as? Int == 42)
        #expect(type(of: array[2]) == Int.self)
        #expect(array[2] as? Int == -7)
        #expect(type(of: array[3]) == Double.self)
        #expect(array[3] as? Double == 3.25)
        #expect(type(of: array[4]) == Date.self)
        #expect(array[4] as? Date == Date(timeIntervalSinceReferenceDate: 86_400))
        #expect(type(of: array[5]) == Data.self)
        #expect(array[5] as? Data == Data([9, 8, 7]))
        let nested = try #require(array[6] as? [Any])
        try #require(nested.count == 2)
        #expect(nested[0] as? String == "nested")
        #expect(type(of: nested[1]) == Int.self)
        #expect(nested[1] as? Int == 99)
    }

    @Test(arguments: FoundationArchives.available)
    func jsonLikeDictionaryDecodesAsStringKeyedAny(_ archives: FoundationArchives) throws {
        let root = try KeyedUnarchiver.unarchivedObject(ofType: [String: Any].self, from: archives.data("k-dict-json"))
        #expect(Set(root.keys) == ["code", "msg", "data"])
        #expect(type(of: root["code"]!) == Int.self)
        #expect(root["code"] as? Int == 200)
        #expect(root["msg"] as? String == "ok")
        let data = try #require(root["data"] as? [String: Any])
        #expect(Set(data.keys) == ["banners", "total"])
        #expect(data["total"] as? Int == 5)
        let banners = try #require(data["banners"] as? [[String: Any]])
        try #require(banners.count == 5)
        for (i, banner) in banners.enumerated() {
            #expect(Set(banner.keys) == ["id", "title", "image", "weight"], "banner \(i)")
            #expect(type(of: banner["id"]!) == Int.self, "banner \(i)")
            #expect(banner["id"] as? Int == i + 100, "banner \(i)")
            #expect(banner["title"] as? String == "Banner \(i)", "banner \(i)")
            #expect(banner["image"] as? String == "https://example.com/\(i).png", "banner \(i)")
            #expect(type(of: banner["weight"]!) == Double.self, "banner \(i)")
            #expect(banner["weight"] as? Double == Double(i) / 4 + 0.125, "banner \(i)")
        }
    }

    @Test(arguments: FoundationArchives.available)
    func foundationValuesDecodeAsAny(_ archives: FoundationArchives) throws {
        let array = try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: archives.data("k-foundation-values"))
        try #require(array.count == 5)
        #expect(array[0] as? URL == URL(string: "https://example.com/a?b=c"))
        #expect((array[0] as? URL)?.query == "b=c")
        #expect(array[1] as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(array[2] is NSNull)
        #expect(array[3] as? Set<AnyHashable> == ["x", "y"])
        #expect(array[4] as? Date == Date(timeIntervalSinceReferenceDate: -1.5))
    }

    @Test(arguments: FoundationArchives.available)
    func foundationValuesRefuseATypedArrayOfOneKindWithTheElementsKeyPath(_ archives: FoundationArchives) throws {
        // Element 0 is a URL, element 1 a UUID: `[URL]` must fail there, naming the element.
        let unarchiver = try KeyedUnarchiver(forReadingFrom: archives.data("k-foundation-values"))
        let error = try #require(throws: ArchiveError.self) { try unarchiver.decode([URL].self, forKey: "root") }
        #expect(error.code == .typeMismatch)
        #expect(error.keyPath == "root[1]")
    }

    // MARK: Object graphs

    @Test(arguments: FoundationArchives.available)
    func personDecodesEveryField(_ archives: FoundationArchives) throws {
        let person = try archives.keyedgenUnarchiver("k-person").decode(Keyedgen.Person.self, forKey: "root")
        var diff = ModelDiff()
        diff.person("root", person, Keyedgen.person(3))
        #expect(diff.lines.isEmpty, "\(diff.description)")
        // Spot checks that do not go through the expected-value formulas.
        #expect(person.name == "User 3")
        #expect(person.homepage?.absoluteString == "https://example.com/u/3")
        #expect(person.id.uuidString == "00000003-0000-4000-8000-000000000015")
        #expect(person.address?.city == "Berlin")
    }

    @Test(arguments: FoundationArchives.available)
    func personWithObjectiveCClassNamesDecodesThroughPlainNameMapping(_ archives: FoundationArchives) throws {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: archives.data("k-person-objc-names"))
        unarchiver.setClass(Keyedgen.Person.self, forClassName: "Person")
        unarchiver.setClass(Keyedgen.Address.self, forClassName: "Address")
        let person = try unarchiver.decode(Keyedgen.Person.self, forKey: "root")
        var diff = ModelDiff()
        diff.person("root", person, Keyedgen.person(3))
        #expect(diff.lines.isEmpty, "\(diff.description)")
    }

    @Test(arguments: FoundationArchives.available)
    func unmappedClassNameIsRejectedWithItsKeyPath(_ archives: FoundationArchives) throws {
        // Only Person is mapped: the archive's `keyedgen.Address` must not pick a type by itself.
        let unarchiver = try KeyedUnarchiver(forReadingFrom: archives.data("k-person"))
        unarchiver.setClass(Keyedgen.Person.self, forClassName: "keyedgen.Person")
        let error = try #require(throws: ArchiveError.self) { try unarchiver.decode(Keyedgen.Person.self, forKey: "root") }
        #expect(error.code == .unknownClass)
        #expect(error.keyPath == "root.address")
        #expect(error.reason.contains("keyedgen.Address"))
    }

    @Test(arguments: FoundationArchives.available)
    func sharedPeopleKeepTheirIdentity(_ archives: FoundationArchives) throws {
        let people = try archives.keyedgenUnarchiver("k-people-shared").decode([Keyedgen.Person].self, forKey: "root")
        try #require(people.count == 3)
        #expect(people[0] === people[2])
        #expect(people[0] !== people[1])
        var diff = ModelDiff()
        diff.person("root[0]", people[0], Keyedgen.person(1))
        diff.person("root[1]", people[1], Keyedgen.person(2))
        diff.person("root[2]", people[2], Keyedgen.person(1))
        #expect(diff.lines.isEmpty, "\(diff.description)")
    }

    @Test(arguments: FoundationArchives.available)
    func employeeHierarchyKeepsSubclassFieldsAndManagerCycle(_ archives: FoundationArchives) throws {
        let boss = try archives.keyedgenUnarchiver("k-employee-inheritance").decode(Keyedgen.Employee.self, forKey: "root")
        defer { Keyedgen.breakCycles(boss) }
        let expected = Keyedgen.company()
        defer { Keyedgen.breakCycles(expected) }
        var diff = ModelDiff()
        diff.employee("root", boss, expected)
        #expect(diff.lines.isEmpty, "\(diff.description)")
        #expect(boss.manager == nil)
        try #require(boss.reports.count == 2)
        #expect(boss.reports.map(\.name) == ["Ann", "Bob"])
        #expect(boss.reports.map(\.title) == ["Dev", "Ops"])
        #expect(boss.reports.allSatisfy { $0.manager === boss })
        #expect(boss.reports.allSatisfy { $0.reports.isEmpty && $0.tags.isEmpty })
    }

    @Test(arguments: FoundationArchives.available)
    func employeeRootDecodesAsItsSuperclassWhenMapped(_ archives: FoundationArchives) throws {
        // A `Person` field holding an `Employee`: the archive's class name selects the subclass.
        let unarchiver = try archives.keyedgenUnarchiver("k-employee-inheritance")
        let person = try unarchiver.decode(Keyedgen.Person.self, forKey: "root")
        let boss = try #require(person as? Keyedgen.Employee)
        defer { Keyedgen.breakCycles(boss) }
        #expect(boss.title == "CEO")
        #expect(boss.reports.count == 2)
    }

    @Test(arguments: FoundationArchives.available)
    func treeCycleChildrenPointAtTheirDecodedParentThroughAWeakField(_ archives: FoundationArchives) throws {
        let root = try archives.keyedgenUnarchiver("k-tree-cycle").decode(Keyedgen.Node.self, forKey: "root")
        var diff = ModelDiff()
        diff.node("root", root, Keyedgen.tree())
        #expect(diff.lines.isEmpty, "\(diff.description)")
        #expect(root.parent == nil)
        #expect(root.children.map(\.name) == ["child0", "child1", "child2"])
        for (i, child) in root.children.enumerated() {
            #expect(child.parent === root, "child \(i)")
            try #require(child.children.count == 1)
            #expect(child.children[0].name == "grand\(i)")
            #expect(child.children[0].parent === child, "grandchild \(i)")
            #expect(child.children[0].children.isEmpty)
        }
    }

    @Test(arguments: FoundationArchives.available)
    func treeCycleParentFieldIsReallyWeak(_ archives: FoundationArchives) throws {
        // Were `parent` stored strongly by reflection, the released root would stay alive.
        let (child, weakRoot) = try Self.decodedChildAndWeakRoot(archives)
        #expect(weakRoot.value == nil, "the decoded root outlived every strong reference to it")
        #expect(child.parent == nil)
        #expect(child.name == "child0")
    }

    private struct WeakNode { weak var value: Keyedgen.Node? }

    private static func decodedChildAndWeakRoot(_ archives: FoundationArchives) throws -> (Keyedgen.Node, WeakNode) {
        var root: Keyedgen.Node? = try archives.keyedgenUnarchiver("k-tree-cycle").decode(Keyedgen.Node.self, forKey: "root")
        let child = root!.children[0]
        let weakRoot = WeakNode(value: root)
        #expect(child.parent === root)
        root = nil
        return (child, weakRoot)
    }

    @Test(arguments: FoundationArchives.available)
    func multiTopArchiveExposesEveryKeyAndDecodesEach(_ archives: FoundationArchives) throws {
        let unarchiver = try archives.keyedgenUnarchiver("k-multi-top")
        #expect(Set(unarchiver.allKeys) == ["user", "settings", "banners"])
        #expect(unarchiver.allKeys.count == 3)
        #expect(unarchiver.containsValue(forKey: "user"))
        #expect(!unarchiver.containsValue(forKey: "root"))

        let user = try unarchiver.decode(Keyedgen.Person.self, forKey: "user")
        var diff = ModelDiff()
        diff.person("user", user, Keyedgen.person(7))
        #expect(diff.lines.isEmpty, "\(diff.description)")

        let settings = try unarchiver.decode([String: Any].self, forKey: "settings")
        #expect(Set(settings.keys) == ["theme", "fontSize", "notifications"])
        #expect(settings["theme"] as? String == "dark")
        #expect(type(of: settings["fontSize"]!) == Int.self)
        #expect(settings["fontSize"] as? Int == 14)
        #expect(type(of: settings["notifications"]!) == Bool.self)
        #expect(settings["notifications"] as? Bool == true)

        #expect(try unarchiver.decode([String].self, forKey: "banners") == ["a.png", "b.png"])
        let anyBanners = try unarchiver.decode(Any.self, forKey: "banners")
        #expect((anyBanners as? [Any])?.compactMap { $0 as? String } == ["a.png", "b.png"])

        let missing = try #require(throws: ArchiveError.self) { try unarchiver.decode(String.self, forKey: "root") }
        #expect(missing.code == .keyNotFound)
    }

    @Test(arguments: FoundationArchives.available)
    func largeTeamDecodesEveryMemberWithTheSharedCaptain(_ archives: FoundationArchives) throws {
        let team = try archives.keyedgenUnarchiver("k-team-large").decode(Keyedgen.Team.self, forKey: "root")
        #expect(team.name == "Everyone")
        try #require(team.members.count == 2000)
        let captain = try #require(team.captain)
        #expect(captain === team.members[5])
        #expect(Set(team.members.map(ObjectIdentifier.init)).count == 2000)
        var diff = ModelDiff()
        for (i, member) in team.members.enumerated() { diff.person("members[\(i)]", member, Keyedgen.person(i)) }
        #expect(diff.lines.isEmpty, "\(diff.description)")
    }
}

// MARK: - Archives made on macOS

/// Archives made on macOS by Apple's writers, kept in other projects' test suites; their content is in the `.json` twins.
@Suite("Keyed archives made by Apple's Foundation on macOS", .needsPeerFixtures("peers/cpython-darwin and peers/corelibs-keyed"))
struct DarwinArchiveTests {
    /// `cpython-darwin/keyed-archive-darwin.bplist`: a PyObjC string subclass, archived as
    /// `{NS.string: "KeyArchive UID Test", pytype: 1, $class: OC_BuiltinPythonUnicode}` with
    /// `$classes` [OC_BuiltinPythonUnicode, OC_PythonUnicode, NSString, NSObject] and
    /// `$classhints` [OC_PythonString, NSString].
    static let pythonArchive = Fixtures.shared("peers/cpython-darwin/keyed-archive-darwin.bplist")

    /// `corelibs-keyed/NSKeyedUnarchiver-ComplexTest.plist`: an NSDictionary
    /// `{array: [NSNull, "hello", 34545, {key: "val"}], string: "hello",
    ///   url: NSURL(relative "index.xml", base "https://www.swift.org"), uuid: NSUUID(71DC068E-…)}`.
    static let complexArchive = Fixtures.shared("peers/corelibs-keyed/NSKeyedUnarchiver-ComplexTest.plist")

    @Test func fixturesHoldWhatTheirJSONTwinsSay() throws {
        // The assertions below rely on this content; check it against the plist-json twins first.
        let python = try PlistValue(bplist: Fixtures.bytes(at: Self.pythonArchive))
        let pythonJSON = try PlistValue(plistJSON: Fixtures.text(at: Self.pythonArchive.deletingPathExtension().appendingPathExtension("json")))
        #expect(python == pythonJSON)
        let complex = try PlistValue(bplist: Fixtures.bytes(at: Self.complexArchive))
        let complexJSON = try PlistValue(plistJSON: Fixtures.text(at: Self.complexArchive.deletingPathExtension().appendingPathExtension("json")))
        #expect(complex == complexJSON)
    }

    @Test func pythonStringSubclassDecodesAsStringThroughItsNSStringSuperclass() throws {
        let data = try Data(contentsOf: Self.pythonArchive)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: String.self, from: data) == "KeyArchive UID Test")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(unarchiver.allKeys == ["root"])
    }

    @Test func pythonStringSubclassDecodesAsAnyThroughItsNSStringSuperclass() throws {
        // `OC_BuiltinPythonUnicode` is unknown here; `Any` decoding falls back to the first known
        // name in its `$classes` chain and `$classhints` (NSString), as Foundation does with hints.
        let data = try Data(contentsOf: Self.pythonArchive)
        let value = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: data)
        #expect(value as? String == "KeyArchive UID Test")
    }

    @Test func complexDictionaryDecodesAsStringKeyedAny() throws {
        let root = try KeyedUnarchiver.unarchivedObject(ofType: [String: Any].self, from: Data(contentsOf: Self.complexArchive))
        #expect(Set(root.keys) == ["array", "string", "url", "uuid"])
        #expect(root["string"] as? String == "hello")

        let array = try #require(root["array"] as? [Any])
        try #require(array.count == 4)
        #expect(array[0] is NSNull)
        #expect(array[1] as? String == "hello")
        #expect(type(of: array[2]) == Int.self)
        #expect(array[2] as? Int == 34545)
        let inner = try #require(array[3] as? [String: Any])
        #expect(inner.count == 1)
        #expect(inner["key"] as? String == "val")

        let url = try #require(root["url"] as? URL)
        #expect(url.relativeString == "index.xml")
        #expect(url.baseURL == URL(string: "https://www.swift.org"))
        #expect(url.absoluteString == "https://www.swift.org/index.xml")

        #expect(root["uuid"] as? UUID == UUID(uuidString: "71DC068E-3420-45FF-919E-3A267D55EC22"))
    }

    @Test func complexDictionaryRefusesATypedDictionaryOfOneKind() throws {
        // Mixed value kinds: `[String: String]` must refuse it with a key path, never crash.
        let unarchiver = try KeyedUnarchiver(forReadingFrom: Data(contentsOf: Self.complexArchive))
        let error = try #require(throws: ArchiveError.self) { try unarchiver.decode([String: String].self, forKey: "root") }
        #expect(error.code == .typeMismatch)
        #expect(error.keyPath?.hasPrefix("root.") == true, "\(error)")
    }
}
