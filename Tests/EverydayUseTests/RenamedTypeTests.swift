import Foundation
import ArchiveStore
import KeyedArchive
import Testing

/// The model as an earlier release of an app named it.
final class OldProfile: Archivable {
    var name = ""
    var age = 0
    required init() {}
    static var archiveClassName: String? { "MyApp.Profile" }
}

/// The same model after the rename, declaring the name it had.
final class UserProfile: Archivable {
    var name = ""
    var age = 0
    required init() {}
    static var archiveClassName: String? { "MyApp.UserProfile" }
    static var archiveLegacyClassNames: [String] { ["MyApp.Profile"] }
}

/// A hand-coded type renamed the same way.
struct Coordinate: KeyedCoding, Equatable {
    var latitude = 0.0
    var longitude = 0.0
    init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
    func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(latitude, forKey: "lat")
        try coder.encode(longitude, forKey: "lon")
    }
    init(from coder: KeyedDecodingCoder) throws {
        latitude = try coder.decode(Double.self, forKey: "lat")
        longitude = try coder.decode(Double.self, forKey: "lon")
    }
    static var archiveClassName: String? { "Geo.Coordinate" }
    static var archiveLegacyClassNames: [String] { ["Location", "Old.Location"] }
}

struct OldLocation: KeyedCoding {
    func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(51.5, forKey: "lat")
        try coder.encode(-0.12, forKey: "lon")
    }
    init() {}
    init(from coder: KeyedDecodingCoder) throws {}
    static var archiveClassName: String? { "Old.Location" }
}

/// Holds a renamed type through a base-class field, to be found by registration.
class Shape: Archivable {
    var label = ""
    required init() {}
    class var archiveClassName: String? { "Shapes.Shape" }
    // A subclass can only give its own names if the base class declares them as class vars.
    class var archiveLegacyClassNames: [String] { [] }
}

final class Circle: Shape {
    var radius = 0.0
    required init() {}
    override class var archiveClassName: String? { "Shapes.Circle" }
    override class var archiveLegacyClassNames: [String] { ["Shapes.Round"] }
}

final class Drawing: Archivable {
    var shape: Shape = Shape()
    required init() {}
}

@Suite("Renamed types read archives written under their old names")
struct RenamedTypeTests {
    @Test("An archive naming a legacy class name decodes as the renamed Archivable type")
    func archivableLegacyName() throws {
        let old = OldProfile()
        old.name = "Ann"
        old.age = 41
        let data = try KeyedArchiver.archivedData(withRootObject: old)
        let profile = try KeyedUnarchiver.unarchivedObject(ofType: UserProfile.self, from: data)
        #expect(profile.name == "Ann")
        #expect(profile.age == 41)
        // Without the declaration the old name is refused, naming the fix.
        let error = try #require(throws: ArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: OldProfileWithoutLegacy.self, from: data)
        }
        #expect(error.code == .unknownClass)
        #expect(error.reason.contains("MyApp.Profile"))
    }

    @Test("A KeyedCoding type reads each of its legacy names; archiving writes the current name")
    func keyedCodingLegacyNames() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: OldLocation())
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Coordinate.self, from: data) == Coordinate(latitude: 51.5, longitude: -0.12))
        let written = try KeyedArchiver.archivedData(withRootObject: Coordinate(latitude: 1, longitude: 2))
        let unarchiver = try KeyedUnarchiver(forReadingFrom: written)
        #expect(try unarchiver.decode(Coordinate.self, forKey: "root") == Coordinate(latitude: 1, longitude: 2))
        #expect(String(decoding: written, as: UTF8.self).contains("Geo.Coordinate"))
        #expect(!String(decoding: written, as: UTF8.self).contains("Old.Location"))
    }

    @Test("A registered subclass is found by its legacy name in a base-class field")
    func registeredSubclassLegacyName() throws {
        let archiver = KeyedArchiver()
        archiver.setClassName("Shapes.Round", for: Circle.self)
        let drawing = Drawing()
        let circle = Circle()
        circle.label = "sun"
        circle.radius = 3
        drawing.shape = circle
        try archiver.encode(drawing, forKey: "root")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.encodedData)
        unarchiver.register(Circle.self)
        let back = try unarchiver.decode(Drawing.self, forKey: "root")
        let backCircle = try #require(back.shape as? Circle)
        #expect(backCircle.label == "sun")
        #expect(backCircle.radius == 3)
    }
}

/// `UserProfile` without its legacy name.
final class OldProfileWithoutLegacy: Archivable {
    var name = ""
    var age = 0
    required init() {}
    static var archiveClassName: String? { "MyApp.UserProfile" }
}

@Suite("The store finds values saved before a type was renamed")
struct RenamedTypeStoreTests {
    @Test("load(_:) finds a value saved under a legacy name, and the next save(_:) moves it to the current name")
    func storeMovesLegacyKey() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        let old = OldProfile()
        old.name = "Ann"
        old.age = 41
        try store.save(old)
        #expect(store.keys == ["MyApp.Profile"])

        let loaded = try #require(try store.load(UserProfile.self))
        #expect(loaded.name == "Ann")
        #expect(loaded.age == 41)
        #expect(store.keys == ["MyApp.Profile"])  // loading moves nothing

        loaded.age = 42
        try store.save(loaded)
        #expect(store.keys == ["MyApp.UserProfile"])
        let again = try #require(try store.load(UserProfile.self))
        #expect(again.age == 42)
    }

    @Test("A failed save(_:) keeps the value under the legacy name")
    func failedSaveKeepsLegacyValue() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        try store.save(LegacyNamed(text: "kept"), forKey: "Old.Note")
        #expect(throws: ArchiveError.self) { try store.save(BrokenNote()) }
        #expect(store.keys == ["Old.Note"])
        #expect(try store.load(LegacyNamed.self, forKey: "Old.Note")?.text == "kept")
    }
}

struct LegacyNamed: Archivable {
    var text = ""
}

/// A type whose save always fails (its `let` could not be read back), named after a legacy key.
struct BrokenNote: Archivable {
    let id = 1
    var text = ""
    static var archiveClassName: String? { "New.Note" }
    static var archiveLegacyClassNames: [String] { ["Old.Note"] }
}
