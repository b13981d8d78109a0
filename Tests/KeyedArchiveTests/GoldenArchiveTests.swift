import Foundation
import KeyedArchive
import PropertyList
import Testing
import TestSupport

// Golden archives this library writes for its model zoo (`Models/GoldenModels.swift`) and for the
// generator's models: `Fixtures/keyed/NAME.archive`, with `NAME.json` (its plist-json) beside it
// for reviewing a change. The bytes are compared exactly, so any format change is deliberate:
// `RECORD_FIXTURES=1 swift test --filter GoldenArchiveTests` rewrites them.

/// Checks the keyed golden `name`: archives a graph from `build` twice, and a second graph from
/// `build` once, expecting identical bytes; compares them with `Fixtures/keyed/NAME.archive` and
/// their plist-json with `NAME.json`; returns the golden file's bytes for the caller to decode.
func expectKeyedGolden<Graph>(
    _ name: String, build: () -> Graph, archive: (Graph) throws -> Data, cleanUp: (Graph) -> Void = { _ in },
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Data {
    let graph = build(), other = build()
    defer {
        cleanUp(graph)
        cleanUp(other)
    }
    let first = try archive(graph)
    let again = try archive(graph)
    let rebuilt = try archive(other)
    expectBytes([UInt8](again), equal: [UInt8](first), sourceLocation: sourceLocation)
    expectBytes([UInt8](rebuilt), equal: [UInt8](first), sourceLocation: sourceLocation)

    let url = Fixtures.own("keyed/\(name).archive")
    expectGoldenFile([UInt8](first), at: url, sourceLocation: sourceLocation)
    let json = try PlistValue(bplist: [UInt8](first)).plistJSON
    expectGoldenFile(text: json, at: Fixtures.own("keyed/\(name).json"), sourceLocation: sourceLocation)
    return (try? Data(contentsOf: url)) ?? first
}

/// ``expectKeyedGolden(_:build:archive:cleanUp:sourceLocation:)`` for a one-object archive (`root`).
func expectKeyedGolden<Graph>(
    _ name: String, root build: () -> Graph, cleanUp: (Graph) -> Void = { _ in }, sourceLocation: SourceLocation = #_sourceLocation
) throws -> Data {
    try expectKeyedGolden(
        name, build: build, archive: { try KeyedArchiver.archivedData(withRootObject: $0) }, cleanUp: cleanUp,
        sourceLocation: sourceLocation)
}

@Suite("Golden keyed archives of the model zoo")
struct GoldenArchiveTests {
    @Test func structWithEveryFieldKind() throws {
        let golden = try expectKeyedGolden("zoo-profile", root: GoldenZoo.Profile.sample)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: GoldenZoo.Profile.self, from: golden)
        var expected = GoldenZoo.Profile.sample()
        expected.cache = [:]  // transient: never archived, keeps init()'s value
        #expect(back == expected)
        // The renamed key is stored escaped, the transient one not at all.
        let json = try PlistValue(bplist: [UInt8](golden)).plistJSON
        #expect(json.contains("\"$$ratio\""))
        #expect(!json.contains("\"cache\""))
    }

    @Test func structWithOptionals() throws {
        let golden = try expectKeyedGolden("zoo-optionals", root: GoldenZoo.Optionals.sample)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: GoldenZoo.Optionals.self, from: golden) == GoldenZoo.Optionals.sample())
    }

    @Test func structWithCollections() throws {
        let golden = try expectKeyedGolden("zoo-collections", root: GoldenZoo.Collections.sample)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: GoldenZoo.Collections.self, from: golden) == GoldenZoo.Collections.sample())
    }

    @Test func classHierarchyWithSharedReferencesAndAWeakBackReference() throws {
        let golden = try expectKeyedGolden("zoo-enclosure", root: GoldenZoo.Enclosure.sample)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: golden)
        unarchiver.register(GoldenZoo.Dog.self, GoldenZoo.Cat.self)
        let back = try unarchiver.decode(GoldenZoo.Enclosure.self, forKey: "root")
        #expect(back.title == "North")
        try #require(back.animals.count == 4)
        let rex = try #require(back.animals[0] as? GoldenZoo.Dog)
        let tom = try #require(back.animals[1] as? GoldenZoo.Cat)
        let polly = back.animals[2]
        #expect(type(of: polly) == GoldenZoo.Animal.self)
        #expect((rex.name, rex.legs, rex.breed, rex.goodBoy) == ("Rex", 4, "Collie", true))
        #expect((tom.name, tom.legs, tom.indoor, tom.lives) == ("Tom", 4, true, 9))
        #expect((polly.name, polly.legs) == ("Polly", 2))
        #expect(back.animals[3] === rex)
        #expect(back.favourite === tom)
        #expect(back.byName.count == 3)
        #expect(back.byName["Rex"] === rex)
        #expect(back.byName["Tom"] === tom)
        #expect(back.byName["Polly"] === polly)
        let keeper = try #require(back.keeper)
        #expect(keeper.name == "Kim")
        #expect(keeper.enclosure === back)
    }

    @Test func polymorphicArrayNeedsItsSubclassesRegistered() throws {
        // Class names never choose a type on their own: without register, GoldenZoo.Dog is refused.
        let data = try KeyedArchiver.archivedData(withRootObject: GoldenZoo.Enclosure.sample())
        let error = try #require(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofType: GoldenZoo.Enclosure.self, from: data) }
        #expect(error.code == .unknownClass)
        #expect(error.keyPath == "root.animals[0]")
    }

    @Test func typesRegisteredAfterAFirstDecodeAreUsed() throws {
        // register(_:) after a decode that looked a class name up still takes effect.
        typealias Animals = [GoldenZoo.Animal]
        let dogs: Animals = [GoldenZoo.Dog(name: "Rex", breed: "Collie")]
        let unarchiver = try KeyedUnarchiver(forReadingFrom: KeyedArchiver.archivedData(withRootObject: dogs))
        #expect(throws: ArchiveError.self) { try unarchiver.decode(Animals.self, forKey: "root") }
        unarchiver.register(GoldenZoo.Dog.self)
        let animals = try unarchiver.decode(Animals.self, forKey: "root")
        #expect((animals.first as? GoldenZoo.Dog)?.breed == "Collie")
    }

    @Test func aFailedDecodeDoesNotLeaveAHalfDecodedInstanceBehind() throws {
        // A class instance is cached by UID before its fields are decoded (for cycles); when a field
        // then fails, the failed decode forgets it, so decoding the key again fails again rather
        // than returning the half-filled instance.
        let data = try KeyedArchiver.archivedData(withRootObject: GoldenZoo.Enclosure.sample())
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(throws: ArchiveError.self) { try unarchiver.decode(GoldenZoo.Enclosure.self, forKey: "root") }
        let again = Result { try unarchiver.decode(GoldenZoo.Enclosure.self, forKey: "root") }
        switch again {
        case .failure(let error): #expect((error as? ArchiveError) != nil, "\(error)")
        case .success(let enclosure):
            Issue.record("the second decode returned a half-decoded instance: title \(enclosure.title), \(enclosure.animals.count) animals")
        }
    }

    @Test func strongCycle() throws {
        let golden = try expectKeyedGolden("zoo-ring", root: GoldenZoo.Ring.sample, cleanUp: { $0.breakRing() })
        let a = try KeyedUnarchiver.unarchivedObject(ofType: GoldenZoo.Ring.self, from: golden)
        defer { a.breakRing() }
        let b = try #require(a.next), c = try #require(b.next)
        #expect([a.label, b.label, c.label] == ["a", "b", "c"])
        #expect(c.next === a)
    }

    @Test func foundationValuesInAnAnyArray() throws {
        let golden = try expectKeyedGolden("zoo-foundation-values", root: GoldenZoo.foundationValues)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: golden)
        try #require(back.count == 12)
        #expect(back[0] as? String == "text")
        #expect(type(of: back[1]) == Int.self && back[1] as? Int == 42)
        #expect(type(of: back[2]) == Int.self && back[2] as? Int == -7)
        #expect(type(of: back[3]) == Double.self && back[3] as? Double == 3.25)
        #expect(type(of: back[4]) == Bool.self && back[4] as? Bool == true)
        #expect(back[5] as? Date == Date(timeIntervalSinceReferenceDate: 86_400))
        #expect(back[6] as? Data == Data([9, 8, 7]))
        #expect(back[7] is NSNull)
        #expect(back[8] as? URL == URL(string: "https://example.com/a?b=c"))
        #expect(back[9] as? UUID == UUID(uuidString: "71DC068E-3420-45FF-919E-3A267D55EC22"))
        let nested = try #require(back[10] as? [Any])
        try #require(nested.count == 3)
        #expect(nested[0] as? String == "nested")
        #expect(nested[1] as? Int == 99)
        #expect(((nested[2] as? [String: Any])?["deep"] as? [Any])?.compactMap { $0 as? Int } == [1, 2])
        #expect(back[11] as? Set<AnyHashable> == ["x", "y", "z"])
    }

    @Test func multiObjectArchive() throws {
        let golden = try expectKeyedGolden(
            "zoo-multi-top", build: { (GoldenZoo.Profile.sample(), GoldenZoo.Ring.sample()) },
            archive: { profile, ring in
                let archiver = KeyedArchiver()
                try archiver.encode(profile, forKey: "profile")
                try archiver.encode(ring, forKey: "ring")
                try archiver.encode(["theme": "dark", "fontSize": 14] as [String: Any], forKey: "settings")
                try archiver.encode(ring.next, forKey: "second")
                return try archiver.encodedData
            }, cleanUp: { $0.1.breakRing() })
        let unarchiver = try KeyedUnarchiver(forReadingFrom: golden)
        #expect(unarchiver.allKeys == ["profile", "ring", "settings", "second"])
        var expected = GoldenZoo.Profile.sample()
        expected.cache = [:]
        #expect(try unarchiver.decode(GoldenZoo.Profile.self, forKey: "profile") == expected)
        let ring = try unarchiver.decode(GoldenZoo.Ring.self, forKey: "ring")
        defer { ring.breakRing() }
        let second = try unarchiver.decode(GoldenZoo.Ring.self, forKey: "second")
        #expect(second === ring.next, "one instance across top-level keys")
        let settings = try unarchiver.decode([String: Any].self, forKey: "settings")
        #expect(settings["theme"] as? String == "dark")
        #expect(settings["fontSize"] as? Int == 14)
    }

    @Test func codableEnumWithAssociatedValues() throws {
        let golden = try expectKeyedGolden(
            "zoo-codable-enum", build: GoldenZoo.Forecast.sample,
            archive: { forecast in
                let archiver = KeyedArchiver()
                archiver.setClassName("GoldenZoo.Weather", for: GoldenZoo.Weather.self)
                try archiver.encode(forecast, forKey: "root")
                return try archiver.encodedData
            })
        let unarchiver = try KeyedUnarchiver(forReadingFrom: golden)
        unarchiver.setClass(GoldenZoo.Weather.self, forClassName: "GoldenZoo.Weather")
        #expect(try unarchiver.decode(GoldenZoo.Forecast.self, forKey: "root") == GoldenZoo.Forecast.sample())
        // The enum really went through the Codable bridge: its cases are coded objects, not raw values.
        let json = try PlistValue(bplist: [UInt8](golden)).plistJSON
        #expect(json.contains("\"GoldenZoo.Weather\""))
        #expect(json.contains("\"wind\""))
    }

    // MARK: The generator's models, written by this library

    @Test func keyedgenPerson() throws {
        let golden = try expectKeyedGolden("keyedgen-person", root: { Keyedgen.person(3) })
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Keyedgen.Person.self, from: golden)
        var diff = ModelDiff()
        diff.person("root", back, Keyedgen.person(3))
        #expect(diff.lines.isEmpty, "\(diff.description)")
    }

    @Test func keyedgenEmployeeCycle() throws {
        let golden = try expectKeyedGolden("keyedgen-employee", root: { Keyedgen.company() }, cleanUp: Keyedgen.breakCycles)
        let boss = try KeyedUnarchiver.unarchivedObject(ofType: Keyedgen.Employee.self, from: golden)
        defer { Keyedgen.breakCycles(boss) }
        let expected = Keyedgen.company()
        defer { Keyedgen.breakCycles(expected) }
        var diff = ModelDiff()
        diff.employee("root", boss, expected)
        #expect(diff.lines.isEmpty, "\(diff.description)")
        #expect(boss.reports.allSatisfy { $0.manager === boss })
    }

    @Test func keyedgenTreeCycle() throws {
        let golden = try expectKeyedGolden("keyedgen-tree", root: { Keyedgen.tree() })
        let root = try KeyedUnarchiver.unarchivedObject(ofType: Keyedgen.Node.self, from: golden)
        var diff = ModelDiff()
        diff.node("root", root, Keyedgen.tree())
        #expect(diff.lines.isEmpty, "\(diff.description)")
        #expect(root.children.allSatisfy { $0.parent === root && $0.children.allSatisfy { g in g.parent != nil } })
    }

    @Test func keyedgenTeam() throws {
        let golden = try expectKeyedGolden(
            "keyedgen-team", root: { () -> Keyedgen.Team in
                let members = (0..<20).map(Keyedgen.person)
                return Keyedgen.Team("Twenty", members, captain: members[5])
            })
        let team = try KeyedUnarchiver.unarchivedObject(ofType: Keyedgen.Team.self, from: golden)
        #expect(team.captain === team.members[5])
        var diff = ModelDiff()
        diff.team("root", team, Keyedgen.Team("Twenty", (0..<20).map(Keyedgen.person), captain: Keyedgen.person(5)))
        #expect(diff.lines.isEmpty, "\(diff.description)")
    }

    @Test func everyGoldenFileHasATest() {
        let names = Set(Fixtures.fileNames(in: Fixtures.own("keyed"), suffix: ".archive").map { String($0.dropLast(".archive".count)) })
        let tested: Set<String> = [
            "zoo-profile", "zoo-optionals", "zoo-collections", "zoo-enclosure", "zoo-ring", "zoo-foundation-values", "zoo-multi-top",
            "zoo-codable-enum",
            "keyedgen-person", "keyedgen-employee", "keyedgen-tree", "keyedgen-team",
        ]
        if Fixtures.isRecording { return }
        #expect(names == tested, "untested: \(names.subtracting(tested)), missing: \(tested.subtracting(names))")
        for name in names {
            #expect(FileManager.default.fileExists(atPath: Fixtures.own("keyed/\(name).json").path), "\(name).json")
        }
    }
}
