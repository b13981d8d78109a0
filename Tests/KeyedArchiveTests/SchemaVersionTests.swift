import Foundation
import KeyedArchive
import PropertyList
import Testing

// Two shapes of one archived type are two Swift types here, archived under one class name: the
// `Old…` type stands for an earlier build of the app, the other for today's.

/// Version 0 of a person: one name field, the age an integer.
struct OldPerson: Archivable {
    var fullName = ""
    var age = 0
    var nickname = ""
    var steps: [Int] = []
    static var archiveClassName: String? { "Schema.Person" }
}

/// Version 1 of a person: the name split in two, the nickname gone.
struct MiddlePerson: Archivable {
    var first = ""
    var last = ""
    var age = 0
    var steps: [Int] = []
    static var archiveClassName: String? { "Schema.Person" }
    static var archiveVersion: Int { 1 }
}

/// Version 2, today's: the age a string, a new field with its default; every step recorded in `steps`.
struct Person: Archivable, Equatable {
    var first = ""
    var last = ""
    var age = ""
    var email = "none"
    var steps: [Int] = []
    static var archiveClassName: String? { "Schema.Person" }
    static var archiveVersion: Int { 2 }

    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        #expect(object.version == version)
        #expect(object.className == "Schema.Person")
        var steps = try object.decode([Int].self, forKey: "steps")
        steps.append(version)
        try object.set(steps, forKey: "steps")
        switch version {
        case 0:
            let parts = try object.decode(String.self, forKey: "fullName").split(separator: " ", maxSplits: 1)
            try object.set(String(parts.first ?? ""), forKey: "first")
            try object.set(parts.count > 1 ? String(parts[1]) : "", forKey: "last")
            object.removeField("fullName")
            object.removeField("nickname")
        case 1:
            try object.set(String(try object.decode(Int.self, forKey: "age")), forKey: "age")
        default:
            Issue.record("no step from version \(version)")
        }
    }
}

/// A field renamed without code: `archiveKeyAliases`.
struct OldAccount: Archivable {
    var userName = ""
    var balance = 0
    static var archiveClassName: String? { "Schema.Account" }
}

struct Account: Archivable, Equatable {
    var login = ""
    var balance = 0
    static var archiveClassName: String? { "Schema.Account" }
    static var archiveKeyAliases: [String: [String]] { ["login": ["name", "userName"]] }
}

/// A family of classes in a cycle: a team whose members point back at it, each member migrated.
final class OldTeam: Archivable {
    var title = ""
    var members: [OldMember] = []
    required init() {}
    static var archiveClassName: String? { "Schema.Team" }
}

final class OldMember: Archivable {
    var fullName = ""
    weak var team: OldTeam?
    required init() {}
    static var archiveClassName: String? { "Schema.Member" }
}

final class Team: Archivable {
    var title = ""
    var members: [Member] = []
    required init() {}
    static var archiveClassName: String? { "Schema.Team" }
}

final class Member: Archivable {
    var name = ""
    var teamTitle = ""
    weak var team: Team?
    required init() {}
    static var archiveClassName: String? { "Schema.Member" }
    static var archiveVersion: Int { 1 }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        object.renameField("fullName", to: "name")
        // Reads the team while the team is still being decoded: its instance is the one being filled.
        let team = try object.decode(Team?.self, forKey: "team")
        try object.set(team?.title ?? "?", forKey: "teamTitle")
    }
}

/// Hand-written coding with the same hooks.
struct OldPoint: KeyedCoding {
    var x = 0
    var y = 0
    init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
    func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(x, forKey: "x")
        try coder.encode(y, forKey: "y")
    }
    init(from coder: KeyedDecodingCoder) throws {}
    static var archiveClassName: String? { "Schema.Point" }
}

struct Point: KeyedCoding, Equatable {
    var horizontal: Double
    var vertical: Double
    func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(horizontal, forKey: "h")
        try coder.encode(vertical, forKey: "vertical")
    }
    init(horizontal: Double, vertical: Double) {
        self.horizontal = horizontal
        self.vertical = vertical
    }
    init(from coder: KeyedDecodingCoder) throws {
        #expect(coder.allKeys.sorted() == ["h", "vertical"])
        #expect(coder.contains("h") && !coder.contains("x"))
        horizontal = try coder.decode(Double.self, forKey: "h")
        vertical = try coder.decode(Double.self, forKey: "vertical")
    }
    static var archiveClassName: String? { "Schema.Point" }
    static var archiveVersion: Int { 1 }
    static var archiveKeyAliases: [String: [String]] { ["vertical": ["y"]] }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        try object.set(Double(try object.decode(Int.self, forKey: "x")), forKey: "h")
        object.removeField("x")
        // Aliases apply after the migration: "y" is still there.
        #expect(object.contains("y"))
    }
}

/// Codable with the same hooks (adopting the protocol ArchiveVersioned).
struct OldSettings: Codable {
    var volume: Int
    var theme: String
    static let className = "Schema.Settings"
}

struct Settings: Codable, Equatable, ArchiveVersioned {
    var volume: Double
    var colorScheme: String
    var muted: Bool?
    static var archiveVersion: Int { 3 }
    static var archiveKeyAliases: [String: [String]] { ["colorScheme": ["theme"]] }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        if version == 0 { try object.set(Double(try object.decode(Int.self, forKey: "volume")) / 10, forKey: "volume") }
        if version == 2 { try object.set(true, forKey: "muted") }
    }
}

/// A migration that fails.
struct Strict: Archivable {
    var level = 0
    static var archiveClassName: String? { "Schema.Strict" }
    static var archiveVersion: Int { 1 }
    struct Refused: Error, CustomStringConvertible {
        var description: String { "level 13 is not allowed" }
    }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        if try object.decode(Int.self, forKey: "level") == 13 { throw Refused() }
        // A field of the wrong kind read by a migration fails with its own key.
        if try object.decode(Int.self, forKey: "level") == 2 { _ = try object.decode(Int.self, forKey: "bad") }
    }
}

struct OldStrict: Archivable {
    var level = 0
    var bad = ""
    static var archiveClassName: String? { "Schema.Strict" }
}

struct StrictHolder: Archivable {
    var items: [Strict] = []
    static var archiveClassName: String? { "Schema.StrictHolder" }
}

struct OldStrictHolder: Archivable {
    var items: [OldStrict] = []
    static var archiveClassName: String? { "Schema.StrictHolder" }
}

/// A type as an older build knows it, and as a newer build writes it.
struct Gadget: Archivable {
    var name = "old"
    static var archiveClassName: String? { "Schema.Gadget" }
    static var archiveVersion: Int { 1 }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws { Issue.record("no step runs") }
}

struct NewGadget: Archivable {
    var name = "new"
    var colour = "red"
    static var archiveClassName: String? { "Schema.Gadget" }
    static var archiveVersion: Int { 5 }
}

/// Readers that take part of what was archived, for the decode report.
struct PointX: KeyedCoding {
    var x = 0
    var z: Int?
    func encode(with coder: KeyedEncodingCoder) throws {}
    init(from coder: KeyedDecodingCoder) throws {
        x = try coder.decode(Int.self, forKey: "x")
        z = try coder.decodeIfPresent(Int.self, forKey: "z")
    }
    static var archiveClassName: String? { "Schema.PointX" }
}

struct SettingsLite: Codable, ArchiveVersioned {
    var volume: Double
    var extra: String?
    static var archiveVersion: Int { 3 }
}

/// A migration that sets a value no archive can hold.
struct SetsAFunction: Archivable {
    var x = 0
    static var archiveClassName: String? { "Schema.Widths" }
    static var archiveVersion: Int { 1 }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        let function: @Sendable () -> Int = { 1 }
        try object.set(function, forKey: "x")
    }
}

/// A hierarchy whose subclass declares a version of its own: refused.
class VersionedBase: Archivable {
    var label = ""
    required init() {}
    class var archiveClassName: String? { "Schema.Base" }
    class var archiveVersion: Int { 1 }
}

final class VersionedSub: VersionedBase {
    var extra = 0
    override class var archiveClassName: String? { "Schema.Sub" }
    override class var archiveVersion: Int { 2 }
}

struct OldSub: Archivable {
    var label = ""
    static var archiveClassName: String? { "Schema.Sub" }
}

/// A hierarchy on one line of versions: the subclass adds a step and calls the base class's.
class LinedBase: Archivable {
    var name = ""
    required init() {}
    class var archiveClassName: String? { "Schema.LinedBase" }
    class var archiveVersion: Int { 1 }
    class func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        object.renameField("label", to: "name")
    }
}

final class LinedSub: LinedBase {
    var size = ""
    override class var archiveClassName: String? { "Schema.LinedSub" }
    override class func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        try super.migrate(&object, from: version)
        try object.set(String(try object.decode(Int.self, forKey: "size")), forKey: "size")
    }
}

struct OldLinedSub: Archivable {
    var label = ""
    var size = 0
    static var archiveClassName: String? { "Schema.LinedSub" }
}

/// An alias named by the property, when archiveKeys stores the field under another key.
struct OldHeading: Archivable {
    var title = ""
    static var archiveClassName: String? { "Schema.Heading" }
}

struct Heading: Archivable, Equatable {
    var heading = ""
    static var archiveClassName: String? { "Schema.Heading" }
    static var archiveKeys: [String: String] { ["heading": "h"] }
    static var archiveKeyAliases: [String: [String]] { ["heading": ["title"]] }
}

/// Codable reading only the migrated fields: a field a step removed is absent.
struct OldLabelled: Codable {
    var labels: [String]
    var tags: [String]
}

struct Labelled: Codable, ArchiveVersioned {
    var labels: [String]
    static var archiveVersion: Int { 1 }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        object.removeField("labels")
        object.renameField("tags", to: "labels")
    }
}

struct Unlabelled: Codable, ArchiveVersioned {
    var labels: [String]
    static var archiveVersion: Int { 1 }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        object.removeField("labels")
    }
}

/// A type that declares a version below 0.
struct Backwards: Archivable {
    var x = 0
    static var archiveVersion: Int { -1 }
}

/// Values a migration sets, read into fields of other types.
struct OldWidths: Archivable {
    static var archiveClassName: String? { "Schema.Widths" }
}

struct Widths: Archivable, Equatable {
    var small: Int64 = 0
    var list: [UInt8] = []
    var point: Point? = nil
    var gone: String? = "default"
    var any: Any = 0
    static func == (a: Widths, b: Widths) -> Bool {
        a.small == b.small && a.list == b.list && a.point == b.point && a.gone == b.gone && (a.any as? String) == (b.any as? String)
    }
    static var archiveClassName: String? { "Schema.Widths" }
    static var archiveVersion: Int { 1 }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        try object.set(7, forKey: "small")  // an Int for an Int64 field
        try object.set([1, 2, 255], forKey: "list")  // [Int] for [UInt8]
        try object.set(Point(horizontal: 1, vertical: 2), forKey: "point")
        try object.set(String?.none, forKey: "gone")
        try object.set("text", forKey: "any")
    }
}

@Suite("Schema versions and migrations")
struct SchemaVersionTests {
    /// The plist of an archive, and the class description named `name` in it.
    private func classDescription(_ data: Data, _ name: String) throws -> PlistDictionary {
        guard case .dict(let top) = try BPlistReader().read(data), case .array(let objects)? = top["$objects"] else {
            throw ArchiveError(.invalidArchive, reason: "not an archive")
        }
        for case .dict(let dict) in objects where dict["$classname"] == .string(name) { return dict }
        throw ArchiveError(.invalidArchive, reason: "no class \(name)")
    }

    @Test("a version above 0 is written in the class description; version 0 writes nothing")
    func versionRecorded() throws {
        let old = try classDescription(try KeyedArchiver.archivedData(withRootObject: OldPerson()), "Schema.Person")
        #expect(old.keys.sorted() == ["$classes", "$classname"])
        let new = try classDescription(try KeyedArchiver.archivedData(withRootObject: Person()), "Schema.Person")
        #expect(new.keys.sorted() == ["$classes", "$classname", "$classversion"])
        #expect(new["$classversion"] == .int(2))
        let settings = try classDescription(
            try KeyedArchiver.archivedData(withRootObject: Settings(volume: 1, colorScheme: "dark")), String(reflecting: Settings.self))
        #expect(settings["$classversion"] == .int(3))
        let point = try classDescription(try KeyedArchiver.archivedData(withRootObject: Point(horizontal: 1, vertical: 2)), "Schema.Point")
        #expect(point["$classversion"] == .int(1))
    }

    @Test("steps run in order from the archived version; each sees its own version")
    func chainedSteps() throws {
        let v0 = try KeyedArchiver.archivedData(
            withRootObject: OldPerson(fullName: "Ada King Lovelace", age: 36, nickname: "Enchantress"))
        let fromV0 = try KeyedUnarchiver.unarchivedObject(ofType: Person.self, from: v0)
        #expect(fromV0 == Person(first: "Ada", last: "King Lovelace", age: "36", email: "none", steps: [0, 1]))

        let v1 = try KeyedArchiver.archivedData(withRootObject: MiddlePerson(first: "Alan", last: "Turing", age: 41, steps: [9]))
        let fromV1 = try KeyedUnarchiver.unarchivedObject(ofType: Person.self, from: v1)
        #expect(fromV1 == Person(first: "Alan", last: "Turing", age: "41", email: "none", steps: [9, 1]))

        // The current version reads as it is, with no step.
        let v2 = try KeyedArchiver.archivedData(withRootObject: fromV1)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Person.self, from: v2) == fromV1)
    }

    @Test("objects inside collections and dictionaries are migrated one by one")
    func nestedInCollections() throws {
        let people = [OldPerson(fullName: "A B", age: 1), OldPerson(fullName: "C", age: 2)]
        let data = try KeyedArchiver.archivedData(withRootObject: ["team": people])
        let back = try KeyedUnarchiver.unarchivedObject(ofType: [String: [Person]].self, from: data)
        #expect(
            back == [
                "team": [
                    Person(first: "A", last: "B", age: "1", steps: [0, 1]), Person(first: "C", last: "", age: "2", steps: [0, 1]),
                ]
            ])
    }

    @Test("aliases read a renamed field from its old keys, in order")
    func aliases() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: OldAccount(userName: "ada", balance: 3))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Account.self, from: data) == Account(login: "ada", balance: 3))
        // Today's archives have the field under its own key.
        let today = try KeyedArchiver.archivedData(withRootObject: Account(login: "alan", balance: 4))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Account.self, from: today) == Account(login: "alan", balance: 4))
    }

    @Test("a cycle of migrated classes keeps its identity; a migration can read the object being decoded")
    func cyclesAndIdentity() throws {
        let team = OldTeam()
        team.title = "Analytical"
        for name in ["Ada", "Charles"] {
            let member = OldMember()
            member.fullName = name
            member.team = team
            team.members.append(member)
        }
        team.members.append(team.members[0])  // shared
        let data = try KeyedArchiver.archivedData(withRootObject: team)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Team.self, from: data)
        #expect(back.title == "Analytical")
        #expect(back.members.map(\.name) == ["Ada", "Charles", "Ada"])
        // The team's title was filled before its members were decoded (fields go in declaration order).
        #expect(back.members.map(\.teamTitle) == ["Analytical", "Analytical", "Analytical"])
        #expect(back.members.allSatisfy { $0.team === back })
        #expect(back.members[0] === back.members[2])
    }

    @Test("KeyedCoding types migrate and take aliases; the coder sees the migrated fields")
    func keyedCoding() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: [OldPoint(x: 3, y: 4)])
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: [Point].self, from: data) == [Point(horizontal: 3, vertical: 4)])
    }

    @Test("Codable types adopting ArchiveVersioned migrate and take aliases")
    func codable() throws {
        var encoder = KeyedArchiveEncoder()
        encoder.setClassName(String(reflecting: Settings.self), for: OldSettings.self)
        let data = try encoder.encode(OldSettings(volume: 7, theme: "dark"))
        let back = try KeyedArchiveDecoder().decode(Settings.self, from: data)
        #expect(back == Settings(volume: 0.7, colorScheme: "dark", muted: true))
        let today = try KeyedArchiveEncoder().encode(Settings(volume: 0.5, colorScheme: "light", muted: nil))
        #expect(try KeyedArchiveDecoder().decode(Settings.self, from: today) == Settings(volume: 0.5, colorScheme: "light", muted: nil))
    }

    @Test("a value a migration sets reads into a field of another type as an archive would")
    func setValueConversions() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: OldWidths())
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Widths.self, from: data)
        #expect(back == Widths(small: 7, list: [1, 2, 255], point: Point(horizontal: 1, vertical: 2), gone: nil, any: "text"))
    }

    @Test("a value no archive can hold is refused by set(_:forKey:)")
    func unarchivableSetValue() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: OldWidths())
        let error = try #require(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofType: SetsAFunction.self, from: data) }
        #expect(error.code == .migrationFailed)
        #expect(error.keyPath == "root.x")
        #expect(error.reason.contains("notArchivable: @Sendable () -> Swift.Int cannot be archived"))
    }

    @Test("a migration that throws stops the decode, naming the type, the versions and the key path")
    func failingMigration() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: OldStrictHolder(items: [OldStrict(level: 1), OldStrict(level: 13)]))
        let error = try #require(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofType: StrictHolder.self, from: data) }
        #expect(error.code == .migrationFailed)
        #expect(error.keyPath == "root.items[1]")
        #expect(error.reason == "migrating \(String(reflecting: Strict.self)) from version 0 to 1 failed: level 13 is not allowed")

        let wrongKind = try KeyedArchiver.archivedData(withRootObject: OldStrict(level: 2, bad: "x"))
        let kindError = try #require(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofType: Strict.self, from: wrongKind) }
        #expect(kindError.code == .migrationFailed)
        #expect(kindError.keyPath == "root.bad")
        #expect(kindError.reason == "migrating \(String(reflecting: Strict.self)) from version 0 to 1 failed: typeMismatch: expected an integer (Int), found a string")
    }

    @Test("an archive newer than the type is refused, or read with allowsNewerVersions")
    func newerVersion() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Person(first: "Grace", last: "Hopper", age: "85"))
        let error = try #require(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofType: MiddlePerson.self, from: data) }
        #expect(error.code == .newerVersion)
        #expect(error.keyPath == "root")
        #expect(error.reason.contains("Schema.Person at version 2"))
        #expect(error.reason.contains("archiveVersion 1"))
        #expect(error.reason.contains(String(reflecting: MiddlePerson.self)))

        // Refused inside a collection too, with the element's path.
        let nested = try KeyedArchiver.archivedData(withRootObject: ["a": [NewGadget()]])
        let nestedError = try #require(throws: ArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: [String: [Gadget]].self, from: nested)
        }
        #expect(nestedError.code == .newerVersion)
        #expect(nestedError.keyPath == "root.a[0]")

        var options = KeyedUnarchiver.Options()
        options.allowsNewerVersions = true
        let unarchiver = try KeyedUnarchiver(forReadingFrom: nested, options: options)
        let read = try unarchiver.decode([String: [Gadget]].self, forKey: "root")
        #expect(read.mapValues { $0.map(\.name) } == ["a": ["new"]])  // the field it does not know is ignored, no step ran
    }

    private func reporting(_ data: Data) throws -> KeyedUnarchiver {
        var options = KeyedUnarchiver.Options()
        options.collectsReport = true
        return try KeyedUnarchiver(forReadingFrom: data, options: options)
    }

    @Test("the report lists migrations, fields the archive lacked and keys no field took, by key path")
    func report() throws {
        let person = try reporting(try KeyedArchiver.archivedData(withRootObject: OldPerson(fullName: "Ada L", age: 36, nickname: "E")))
        _ = try person.decode(Person.self, forKey: "root")
        #expect(person.report.migrations == [.init(keyPath: "root", className: "Schema.Person", fromVersion: 0, toVersion: 2)])
        #expect(person.report.missingFields == ["root.email"])
        #expect(person.report.unusedKeys == [])
        #expect(person.report.description == "migrated root: Schema.Person 0 → 2\nmissing root.email")

        let team = OldTeam()
        for name in ["A", "B"] {
            let member = OldMember()
            member.fullName = name
            member.team = team
            team.members.append(member)
        }
        team.members.append(team.members[1])
        let teamReader = try reporting(try KeyedArchiver.archivedData(withRootObject: ["first": team]))
        _ = try teamReader.decode([String: Team].self, forKey: "root")
        #expect(
            teamReader.report.migrations.map(\.description) == [
                "root.first.members[0]: Schema.Member 0 → 1", "root.first.members[1]: Schema.Member 0 → 1",
            ])
        #expect(teamReader.report.unusedKeys.isEmpty && teamReader.report.missingFields.isEmpty)

        // Hand-written coding: the keys it did not ask for, and the ones it asked for in vain.
        let archiver = KeyedArchiver()
        archiver.setClassName("Schema.PointX", for: OldPoint.self)
        try archiver.encode([OldPoint(x: 1, y: 2)], forKey: "points")
        let points = try reporting(try archiver.encodedData)
        #expect(try points.decode([PointX].self, forKey: "points").map(\.x) == [1])
        #expect(points.report.unusedKeys == ["points[0].y"])
        #expect(points.report.missingFields == ["points[0].z"])

        // Codable, and a newer archive read with allowsNewerVersions.
        let settings = try reporting(try KeyedArchiveEncoder().encode(Settings(volume: 0.5, colorScheme: "dark", muted: true)))
        settings.setClass(SettingsLite.self, forClassName: String(reflecting: Settings.self))
        #expect(try settings.decode(SettingsLite.self, forKey: "root").volume == 0.5)
        #expect(settings.report.unusedKeys == ["root.colorScheme", "root.muted"])
        #expect(settings.report.missingFields == ["root.extra"])

        var options = KeyedUnarchiver.Options()
        options.collectsReport = true
        options.allowsNewerVersions = true
        let gadgets = try KeyedUnarchiver(forReadingFrom: try KeyedArchiver.archivedData(withRootObject: [NewGadget()]), options: options)
        _ = try gadgets.decode([Gadget].self, forKey: "root")
        #expect(gadgets.report.unusedKeys == ["root[0].colour"])
        #expect(gadgets.report.migrations.isEmpty && gadgets.report.missingFields.isEmpty)
    }

    @Test("a decode that throws adds nothing to the report; without the option there is none")
    func reportAfterFailure() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: OldStrictHolder(items: [OldStrict(level: 1), OldStrict(level: 13)]))
        let reader = try reporting(data)
        #expect(throws: ArchiveError.self) { try reader.decode(StrictHolder.self, forKey: "root") }
        #expect(reader.report.isEmpty)
        #expect(reader.report.description == "nothing to report")

        let plain = try KeyedUnarchiver(forReadingFrom: try KeyedArchiver.archivedData(withRootObject: OldPerson()))
        _ = try plain.decode(Person.self, forKey: "root")
        #expect(plain.report.isEmpty)
    }

    @Test("a $classversion that is not a version is refused with the place", arguments: [
        PlistValue.string("2"), .int(-1), .int(Int64(Int32.max) + 1), .uint(UInt64.max), .real(2), .bool(true),
    ])
    func hostileVersion(_ version: PlistValue) throws {
        guard case .dict(var top) = try BPlistReader().read(try KeyedArchiver.archivedData(withRootObject: Person())),
            case .array(var objects)? = top["$objects"],
            let position = objects.firstIndex(where: { if case .dict(let d) = $0 { d["$classname"] == .string("Schema.Person") } else { false } }),
            case .dict(var description) = objects[position]
        else { throw ArchiveError(.invalidArchive, reason: "no class description") }
        description["$classversion"] = version
        objects[position] = .dict(description)
        top["$objects"] = .array(objects)
        let data = Data(try BPlistWriter().write(.dict(top)))
        let error = try #require(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofType: Person.self, from: data) }
        #expect(error.code == .invalidArchive)
        #expect(error.byteOffset != nil)
        #expect(error.reason.contains("$classversion of class description UID"))
        #expect(error.reason.contains("not a version (an integer from 0 to 2147483647)"))
    }

    @Test("a class hierarchy is one line of versions: a subclass at another version is refused both ways")
    func hierarchyVersions() throws {
        let error = try #require(throws: ArchiveError.self) { try KeyedArchiver.archivedData(withRootObject: VersionedSub()) }
        #expect(error.code == .notArchivable)
        #expect(error.reason.hasPrefix("\(String(reflecting: VersionedSub.self)).archiveVersion is 2 but its base class \(String(reflecting: VersionedBase.self))'s is 1"))
        let old = try KeyedArchiver.archivedData(withRootObject: OldSub(label: "x"))
        let decodeError = try #require(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofType: VersionedSub.self, from: old) }
        #expect(decodeError.code == .notArchivable)
        #expect(decodeError.keyPath == "root")

        // On one line, the base class's step runs for the subclass too.
        let lined = try KeyedArchiver.archivedData(withRootObject: OldLinedSub(label: "box", size: 3))
        let back = try KeyedUnarchiver.unarchivedObject(ofType: LinedSub.self, from: lined)
        #expect(back.name == "box" && back.size == "3")
    }

    @Test("two types archived under one name at different versions get a class description each")
    func oneNameTwoVersions() throws {
        let mixed = KeyedArchiver()
        try mixed.encode([Gadget(name: "old")], forKey: "old")
        try mixed.encode([NewGadget(name: "new", colour: "blue")], forKey: "new")
        let bytes = try mixed.encodedData
        let unarchiver = try KeyedUnarchiver(forReadingFrom: bytes)
        #expect(try unarchiver.decode([Gadget].self, forKey: "old").map(\.name) == ["old"])
        let error = try #require(throws: ArchiveError.self) { try unarchiver.decode([Gadget].self, forKey: "new") }
        #expect(error.code == .newerVersion)
        #expect(error.keyPath == "new[0]")
    }

    @Test("an alias may name the field by its property when archiveKeys stores it under another key")
    func aliasThroughArchiveKeys() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: OldHeading(title: "Intro"))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Heading.self, from: data) == Heading(heading: "Intro"))
        let today = try KeyedArchiver.archivedData(withRootObject: Heading(heading: "Now"))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Heading.self, from: today) == Heading(heading: "Now"))
    }

    @Test("a Codable type reads only the migrated fields: removed is absent, renamed is moved")
    func codableReadsMigratedFieldsOnly() throws {
        var encoder = KeyedArchiveEncoder()
        encoder.setClassName(String(reflecting: Labelled.self), for: OldLabelled.self)
        let data = try encoder.encode(OldLabelled(labels: ["old"], tags: ["a", "b"]))
        #expect(try KeyedArchiveDecoder().decode(Labelled.self, from: data).labels == ["a", "b"])

        encoder.setClassName(String(reflecting: Unlabelled.self), for: OldLabelled.self)
        let removed = try encoder.encode(OldLabelled(labels: ["old"], tags: []))
        let error = try #require(throws: ArchiveError.self) { try KeyedArchiveDecoder().decode(Unlabelled.self, from: removed) }
        #expect(error.code == .keyNotFound)
        #expect(error.keyPath == "root.labels")
    }

    @Test("a report over thousands of objects stays within the decode's limits and names each one")
    func largeReport() throws {
        let people = (0..<3_000).map { OldPerson(fullName: "P \($0)", age: $0) }
        let reader = try reporting(try KeyedArchiver.archivedData(withRootObject: people))
        let decoded = try reader.decode([Person].self, forKey: "root")
        #expect(decoded.count == 3_000 && decoded[2_999].age == "2999")
        #expect(reader.report.missingFields.count == 3_000)
        #expect(reader.report.missingFields.last == "root[2999].email")
        #expect(reader.report.migrations.count == 3_000)
        #expect(reader.report.migrations[4].keyPath == "root[4]")
    }

    @Test("a negative archiveVersion cannot be archived")
    func negativeVersion() throws {
        let error = try #require(throws: ArchiveError.self) { try KeyedArchiver.archivedData(withRootObject: Backwards()) }
        #expect(error.code == .notArchivable)
        #expect(error.reason.contains("archiveVersion is -1"))
    }
}
