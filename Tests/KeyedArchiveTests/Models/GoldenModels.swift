import Foundation
import KeyedArchive

// The model zoo behind the golden archives in `Fixtures/keyed/zoo-*.archive`. Every type
// declares `archiveClassName` ("GoldenZoo.*") so the bytes do not depend on the test module's name.
// Changing a field, a default or a builder here changes the golden bytes: re-record them with
// RECORD_FIXTURES=1 only when the change is deliberate.

enum GoldenZoo {
    enum Suit: String { case hearts, spades, clubs }
    enum Level: Int { case low = 1, high = 3 }

    struct Point: Archivable, Equatable {
        var x = 0.0
        var y = 0.0
        static var archiveClassName: String? { "GoldenZoo.Point" }
    }

    /// Every scalar and Foundation kind as a field of a struct, plus a renamed `$` key and a transient field.
    struct Profile: Archivable, Equatable {
        var name = ""
        var age = 0
        var height: Float = 0
        var ratio = 0.0
        var active = false
        var small: Int8 = 0
        var big: UInt64 = 0
        var negative: Int32 = 0
        var origin = Point()
        var path: [Point] = []
        var suit = Suit.hearts
        var level = Level.low
        var avatar = Data()
        var born = Date(timeIntervalSinceReferenceDate: 0)
        var homepage = URL(string: "about:blank")!
        var id = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        var cache: [String: Int] = [:]

        static var archiveClassName: String? { "GoldenZoo.Profile" }
        static var archiveKeys: [String: String] { ["ratio": "$ratio"] }
        static var transientFields: Set<String> { ["cache"] }

        static func sample() -> Profile {
            Profile(
                name: "Ann Ångström ✓", age: 42, height: 1.75, ratio: 0.1, active: true, small: -128, big: .max, negative: -70_000,
                origin: Point(x: -1.5, y: 2), path: [Point(x: 0, y: 0), Point(x: 3, y: 4), Point(x: 0, y: 0)], suit: .spades,
                level: .high, avatar: Data([0, 1, 2, 0xFE, 0xFF]), born: Date(timeIntervalSinceReferenceDate: -123_456_789.25),
                homepage: URL(string: "https://example.com/ann?x=1#top")!, id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
                cache: ["not": 1, "archived": 2])
        }
    }

    /// Optionals set and unset, of every kind, including nil elements inside an array.
    struct Optionals: Archivable, Equatable {
        var someString: String?
        var noneString: String?
        var someInt: Int?
        var noneInt: Int?
        var someBool: Bool?
        var somePoint: Point?
        var nonePoint: Point?
        var someArray: [Int]?
        var noneArray: [Int]?
        var someDate: Date?
        var noneURL: URL?
        var someSuit: Suit?
        var noneSuit: Suit?
        var holes: [String?] = []

        static var archiveClassName: String? { "GoldenZoo.Optionals" }

        static func sample() -> Optionals {
            Optionals(
                someString: "here", noneString: nil, someInt: 0, noneInt: nil, someBool: false, somePoint: Point(x: 1, y: 1),
                nonePoint: nil, someArray: [], noneArray: nil, someDate: Date(timeIntervalSinceReferenceDate: 1), noneURL: nil,
                someSuit: .clubs, noneSuit: nil, holes: ["a", nil, "c", nil])
        }
    }

    /// Arrays, sets and dictionaries of several element kinds, nested and empty.
    struct Collections: Archivable, Equatable {
        var ints: [Int] = []
        var words: Set<String> = []
        var numbers: Set<Int> = []
        var counts: [String: Int] = [:]
        var names: [Int: String] = [:]
        var grid: [[Double]] = []
        var flags: [String: [String: Bool]] = [:]
        var dates: [Date] = []
        var blobs: [Data] = []
        var points: [String: Point] = [:]
        var emptyList: [String] = []
        var emptyMap: [String: Int] = [:]

        static var archiveClassName: String? { "GoldenZoo.Collections" }

        static func sample() -> Collections {
            Collections(
                ints: [3, 1, 2, 1, -5, Int.max], words: ["pear", "apple", "Zebra", "äpfel", ""], numbers: [10, -3, 7, 0],
                counts: ["b": 2, "a": 1, "c": 3], names: [2: "two", 1: "one", -1: "minus one"], grid: [[1, 2.5], [], [-0.0]],
                flags: ["x": ["on": true, "off": false], "y": [:]], dates: [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 1e9)],
                blobs: [Data(), Data([7])], points: ["o": Point(), "p": Point(x: 1, y: -1)], emptyList: [], emptyMap: [:])
        }
    }

    class Animal: Archivable {
        var name = ""
        var legs = 4
        required init() {}
        init(name: String, legs: Int) {
            self.name = name
            self.legs = legs
        }
        class var archiveClassName: String? { "GoldenZoo.Animal" }
    }

    final class Dog: Animal {
        var breed = ""
        var goodBoy = true
        required init() { super.init() }
        init(name: String, breed: String) {
            super.init(name: name, legs: 4)
            self.breed = breed
        }
        override class var archiveClassName: String? { "GoldenZoo.Dog" }
    }

    final class Cat: Animal {
        var indoor = false
        var lives = 9
        required init() { super.init() }
        init(name: String, indoor: Bool) {
            super.init(name: name, legs: 4)
            self.indoor = indoor
        }
        override class var archiveClassName: String? { "GoldenZoo.Cat" }
    }

    /// A class hierarchy in a polymorphic array, shared references, and a weak back reference (a cycle).
    final class Enclosure: Archivable {
        var title = ""
        var animals: [Animal] = []
        var favourite: Animal?
        var byName: [String: Animal] = [:]
        var keeper: Keeper?
        static var archiveClassName: String? { "GoldenZoo.Enclosure" }

        static func sample() -> Enclosure {
            let enclosure = Enclosure()
            enclosure.title = "North"
            let rex = Dog(name: "Rex", breed: "Collie")
            let tom = Cat(name: "Tom", indoor: true)
            let polly = Animal(name: "Polly", legs: 2)
            enclosure.animals = [rex, tom, polly, rex]
            enclosure.favourite = tom
            enclosure.byName = ["Rex": rex, "Tom": tom, "Polly": polly]
            let keeper = Keeper()
            keeper.name = "Kim"
            keeper.enclosure = enclosure
            enclosure.keeper = keeper
            return enclosure
        }
    }

    final class Keeper: Archivable {
        var name = ""
        weak var enclosure: Enclosure?
        static var archiveClassName: String? { "GoldenZoo.Keeper" }
    }

    /// A strong cycle: `a → b → c → a`.
    final class Ring: Archivable {
        var label = ""
        var next: Ring?
        static var archiveClassName: String? { "GoldenZoo.Ring" }

        static func sample() -> Ring {
            let a = Ring(), b = Ring(), c = Ring()
            a.label = "a"
            b.label = "b"
            c.label = "c"
            a.next = b
            b.next = c
            c.next = a
            return a
        }

        /// Releases the cycle.
        func breakRing() {
            var seen: Set<ObjectIdentifier> = []
            var node: Ring? = self
            while let current = node, seen.insert(ObjectIdentifier(current)).inserted {
                node = current.next
                current.next = nil
            }
        }
    }

    /// A `Codable` enum with associated values, coded through the Codable bridge (not `RawRepresentable`).
    /// Codable types cannot declare `archiveClassName`: the golden archiver names it with
    /// `setClassName("GoldenZoo.Weather", for:)` and the reader maps that name back.
    enum Weather: Codable, Equatable {
        case sunny
        case rain(mm: Double)
        case wind(speed: Int, direction: String?)
    }

    /// An `Archivable` struct holding the `Codable` enum as a field, in an array and as an optional.
    struct Forecast: Archivable, Equatable {
        var city = ""
        var today = Weather.sunny
        var days: [Weather] = []
        var tomorrow: Weather?
        static var archiveClassName: String? { "GoldenZoo.Forecast" }

        static func sample() -> Forecast {
            Forecast(
                city: "Zürich", today: .rain(mm: 2.5),
                days: [.sunny, .wind(speed: 30, direction: "NW"), .wind(speed: 5, direction: nil), .rain(mm: 0)], tomorrow: .sunny)
        }
    }

    /// Foundation and property-list values in an `[Any]`, as JSON from a network would hold them.
    static func foundationValues() -> [Any] {
        [
            "text", 42, -7, 3.25, true, Date(timeIntervalSinceReferenceDate: 86_400), Data([9, 8, 7]), NSNull(),
            URL(string: "https://example.com/a?b=c")!, UUID(uuidString: "71DC068E-3420-45FF-919E-3A267D55EC22")!,
            ["nested", 99, ["deep": [1, 2]] as [String: Any]] as [Any], Set<AnyHashable>(["x", "y", "z"]),
        ]
    }
}
