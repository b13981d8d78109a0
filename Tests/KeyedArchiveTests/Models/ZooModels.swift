import Foundation
import KeyedArchive
import PropertyList
import Testing

// The model zoo of the round-trip, reflection, KeyedCoding and hostile-input suites, and the
// small helpers they share to look inside an archive (as a `PlistValue` tree) and to build
// malformed ones. Every name starts with `Zoo` so it never collides with other test files.

// MARK: - Scalars

/// Every fixed-width integer type, one field each.
struct ZooIntegers: Archivable, Equatable {
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var int: Int = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var uint: UInt = 0

    static var minimum: ZooIntegers {
        ZooIntegers(
            int8: .min, int16: .min, int32: .min, int64: .min, int: .min,
            uint8: .min, uint16: .min, uint32: .min, uint64: .min, uint: .min)
    }

    static var maximum: ZooIntegers {
        ZooIntegers(
            int8: .max, int16: .max, int32: .max, int64: .max, int: .max,
            uint8: .max, uint16: .max, uint32: .max, uint64: .max, uint: .max)
    }
}

/// Reals and booleans; compared by bit pattern (see ``bits``) because of `-0.0` and NaN.
struct ZooReals: Archivable {
    var double = 0.0
    var float: Float = 0
    var negativeZero = 0.0
    var floatNegativeZero: Float = 0
    var infinity = 0.0
    var negativeInfinity: Float = 0
    var nan = 0.0
    var floatNaN: Float = 0
    var tiny = 0.0
    var yes = false
    var no = true
    var doubles: [Double] = []
    var floats: [Float] = []

    static var sample: ZooReals {
        ZooReals(
            double: 3.141_592_653_589_793, float: 1.5, negativeZero: -0.0, floatNegativeZero: -0.0,
            infinity: .infinity, negativeInfinity: -.infinity,
            nan: Double(bitPattern: 0x7FF8_0000_0000_0ABC), floatNaN: Float(bitPattern: 0x7FC0_0ABC),
            tiny: .leastNonzeroMagnitude, yes: true, no: false,
            doubles: [-0.0, 0.0, .nan, -.infinity, .greatestFiniteMagnitude, 1e-300],
            floats: [-0.0, .nan, .infinity, Float.leastNormalMagnitude, 16_777_216])
    }

    /// Every field as bits, so `-0.0 != 0.0` and a NaN equals only its own payload.
    var bits: [UInt64] {
        [
            double.bitPattern, UInt64(float.bitPattern), negativeZero.bitPattern, UInt64(floatNegativeZero.bitPattern),
            infinity.bitPattern, UInt64(negativeInfinity.bitPattern), nan.bitPattern, UInt64(floatNaN.bitPattern),
            tiny.bitPattern, yes ? 1 : 0, no ? 1 : 0,
        ] + doubles.map(\.bitPattern) + [0xFFFF] + floats.map { UInt64($0.bitPattern) }
    }
}

/// Strings that tend to break codecs.
struct ZooStrings: Archivable, Equatable {
    var empty = "x"
    var ascii = ""
    var nonASCII = ""
    var emoji = ""
    /// "é" as one scalar, U+00E9.
    var precomposed = ""
    /// "é" as "e" + U+0301: canonically equivalent to `precomposed`, but a different string in a plist.
    var decomposed = ""
    /// The archive's own nil marker, as an ordinary value.
    var dollarNull = ""
    var optionalDollarNull: String? = nil
    var list: [String] = []

    static var sample: ZooStrings {
        ZooStrings(
            empty: "", ascii: "Hello, world! ~{}[]\\\"\t\n", nonASCII: "Grüße aus Zürich, 東京, Ελλάδα, \u{0}nul",
            emoji: "👩‍👩‍👧‍👦🏳️‍🌈🇨🇭 \u{1F600}", precomposed: "\u{E9}", decomposed: "e\u{301}",
            dollarNull: "$null", optionalDollarNull: "$null",
            list: ["$null", "", "\u{E9}", "e\u{301}", "$class", "$$x"])
    }
}

/// Foundation value types.
struct ZooFoundation: Archivable, Equatable {
    var emptyData = Data([1])
    var data = Data()
    var largeData = Data()
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var distantPast = Date(timeIntervalSinceReferenceDate: 0)
    var absoluteURL = URL(string: "http://placeholder.invalid/")!
    var fileURL = URL(string: "http://placeholder.invalid/")!
    var relativeURL = URL(string: "http://placeholder.invalid/")!
    var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    static var sample: ZooFoundation {
        var generator = ZooRandom(seed: 0xDA7A)
        return ZooFoundation(
            emptyData: Data(), data: Data([0, 1, 2, 0xFF]),
            largeData: Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }),
            date: Date(timeIntervalSinceReferenceDate: 123_456_789.125), distantPast: .distantPast,
            absoluteURL: URL(string: "https://user@example.com:8443/a%20b/c?q=1&r=%C3%A9#frag")!,
            fileURL: URL(fileURLWithPath: "/tmp/some dir/file.txt"),
            relativeURL: URL(string: "sub/page.html?x=1", relativeTo: URL(string: "https://example.com/dir/index.html")!)!,
            uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
    }
}

/// A seeded generator for repeatable test data (SplitMix64).
struct ZooRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Optionals and collections

/// Optional of each kind; `.none` by default.
struct ZooOptionals: Archivable, Equatable {
    var int8: Int8? = nil
    var uint64: UInt64? = nil
    var int: Int? = nil
    var double: Double? = nil
    var float: Float? = nil
    var bool: Bool? = nil
    var string: String? = nil
    var data: Data? = nil
    var date: Date? = nil
    var url: URL? = nil
    var uuid: UUID? = nil
    var array: [Int]? = nil
    var set: Set<String>? = nil
    var dictionary: [String: Int]? = nil
    var address: ZooAddress? = nil
    var engine: ZooEngine? = nil
    var color: ZooColor? = nil

    static var allSet: ZooOptionals {
        let engine = ZooEngine()
        engine.horsepower = 300
        return ZooOptionals(
            int8: -8, uint64: .max, int: 0, double: -0.5, float: 2.25, bool: false, string: "", data: Data([9]),
            date: Date(timeIntervalSinceReferenceDate: -1), url: URL(string: "mailto:a@b.c"), uuid: UUID(),
            array: [], set: ["s"], dictionary: ["k": 1], address: ZooAddress(street: "Main", zip: 8000), engine: engine,
            color: .green)
    }

    /// Equality with classes compared by their fields.
    static func == (a: ZooOptionals, b: ZooOptionals) -> Bool {
        a.int8 == b.int8 && a.uint64 == b.uint64 && a.int == b.int && a.double == b.double && a.float == b.float
            && a.bool == b.bool && a.string == b.string && a.data == b.data && a.date == b.date && a.url == b.url
            && a.uuid == b.uuid && a.array == b.array && a.set == b.set && a.dictionary == b.dictionary
            && a.address == b.address && a.engine?.horsepower == b.engine?.horsepower
            && a.engine?.serial == b.engine?.serial && (a.engine == nil) == (b.engine == nil) && a.color == b.color
    }
}

/// Empty, flat and nested collections.
struct ZooCollections: Archivable, Equatable {
    var emptyArray: [Int] = [1]
    var emptyDictionary: [String: String] = ["a": "b"]
    var emptySet: Set<Int> = [1]
    var strings: [String] = []
    var stringSet: Set<String> = []
    var intSet: Set<Int> = []
    var stringKeys: [String: Int] = [:]
    var intKeys: [Int: String] = [:]
    var smallIntKeys: [UInt8: Int8] = [:]
    var doubleSet: Set<Double> = []
    var nested: [[Int]] = []
    var deep: [String: [String: [Int]]] = [:]
    var listOfSets: [Set<String>] = []
    var intKeyedTables: [Int: [String: Bool]] = [:]
    var enumKeys: [ZooLevel: String] = [:]
    var enums: [ZooColor] = []
    var optionals: [Int?] = []

    static var sample: ZooCollections {
        ZooCollections(
            emptyArray: [], emptyDictionary: [:], emptySet: [],
            strings: ["b", "a", "", "ü", "a"], stringSet: ["z", "y", "x", "é"], intSet: [3, -1, .max, .min, 0],
            stringKeys: ["one": 1, "two": 2, "": 0, "$x": 3, "$class": 4], intKeys: [-5: "minus five", 0: "zero", 7: "seven"],
            smallIntKeys: [255: -128, 0: 127], doubleSet: [0.5, -2, .infinity],
            nested: [[], [1], [2, 3], [[4, 5], [6]].flatMap { $0 }], deep: ["a": ["b": [1, 2], "c": []], "d": [:]],
            listOfSets: [[], ["x", "y"]], intKeyedTables: [1: ["t": true, "f": false], 2: [:]],
            enumKeys: [.low: "low", .high: "high"], enums: [.red, .blue, .red], optionals: [1, nil, 3])
    }
}

/// A String-backed enum.
enum ZooColor: String, Hashable {
    case red, green, blue = "BLUE"
}

/// An Int-backed enum.
enum ZooLevel: Int, Hashable {
    case low = 1
    case high = 100
}

/// Enums as fields.
struct ZooEnums: Archivable, Equatable {
    var color = ZooColor.red
    var level = ZooLevel.low
    var maybeColor: ZooColor? = nil
    var levels: [ZooLevel] = []
}

/// A generic type with a declared, stable class name.
struct ZooBox<T: Equatable>: Archivable, Equatable {
    var value: T? = nil
    var label = ""
    static var archiveClassName: String? { "Zoo.Box<\(T.self)>" }
}

// MARK: - Property wrappers, lazy, keys

/// A property wrapper whose storage is itself `Archivable`.
@propertyWrapper
struct ZooClamped: Archivable, Equatable {
    var stored = 0
    var upper = 10
    var wrappedValue: Int {
        get { stored }
        set { stored = min(newValue, upper) }
    }
    init() {}
    init(wrappedValue: Int, upper: Int = 10) {
        self.upper = upper
        stored = min(wrappedValue, upper)
    }
}

/// A struct with a wrapped property: Mirror sees `_volume`, the archive says `volume`.
struct ZooSettings: Archivable, Equatable {
    var name = ""
    @ZooClamped(upper: 11) var volume: Int = 3
}

/// A property wrapper whose storage is `Codable` (coded through the Codable bridge).
@propertyWrapper
struct ZooTrimmed: Codable, Equatable {
    var raw: String
    var wrappedValue: String {
        get { raw }
        set { raw = newValue.trimmingCharacters(in: .whitespaces) }
    }
    init(wrappedValue: String) { raw = wrappedValue.trimmingCharacters(in: .whitespaces) }
}

/// A struct with a Codable-wrapped property, archived under `title`.
struct ZooCard: Archivable, Equatable {
    var number = 1
    @ZooTrimmed var title: String = ""
}

/// A class with a lazy property: Mirror sees `$__lazy_storage_$_derived`, the archive says `derived`.
final class ZooLazy: Archivable {
    var seed = 2
    lazy var derived: Int = seed * 100
    required init() {}
}

/// Keys that begin with `$` (stored with one more `$`) and renamed fields.
struct ZooKeys: Archivable, Equatable {
    var x = 0
    var looksLikeClass = ""
    var fullName = ""
    var dollar = "$"
    static var archiveKeys: [String: String] { ["x": "$x", "looksLikeClass": "$class", "fullName": "name"] }
}

/// Transient fields are never archived and keep their `init()` value on decode.
struct ZooTransient: Archivable {
    var kept = 0
    var cache: [String: Int] = ["default": 1]
    var onChange: () -> Void = {}
    let constant = 42
    static var transientFields: Set<String> { ["cache", "onChange", "constant"] }
}

// MARK: - Structs and classes

struct ZooAddress: Archivable, Equatable {
    var street = ""
    var zip = 0
}

final class ZooEngine: Archivable {
    var horsepower = 0
    var serial = ""
    required init() {}
}

/// A struct holding class instances.
struct ZooCar: Archivable {
    var model = ""
    var engine = ZooEngine()
    var spare: ZooEngine? = nil
}

/// A class holding structs (which hold classes).
final class ZooGarage: Archivable {
    var address = ZooAddress()
    var cars: [ZooCar] = []
    required init() {}
}

/// A person whose address zip is an Int (hostile tests put a string there).
struct ZooPerson: Archivable, Equatable {
    var name = ""
    var small: Int8 = 0
    var address = ZooAddress()
}

// MARK: - Class hierarchy and polymorphism

class ZooAnimal: Archivable {
    var name = ""
    var legs = 4
    required init() {}
}

class ZooDog: ZooAnimal {
    var breed = ""
    var good = true
}

final class ZooPuppy: ZooDog {
    var ageWeeks = 0
}

final class ZooCat: ZooAnimal {
    var indoor = false
}

/// A field declared as the base class, holding subclasses.
final class ZooKeeper: Archivable {
    var favorite = ZooAnimal()
    var animals: [ZooAnimal] = []
    var optionalAnimal: ZooAnimal? = nil
    required init() {}
}

/// A holder of polymorphic values in a value type.
struct ZooPen: Archivable {
    var animal = ZooAnimal()
}

// MARK: - Graphs: sharing and cycles

final class ZooNode: Archivable {
    var name = ""
    var children: [ZooNode] = []
    var byName: [String: ZooNode] = [:]
    var next: ZooNode? = nil
    weak var parent: ZooNode?
    required init() {}

    convenience init(_ name: String) {
        self.init()
        self.name = name
    }
}

final class ZooOwner: Archivable {
    var name = ""
    var pets: [ZooPet] = []
    required init() {}
    /// The `init()` value of `ZooPet.owner` (an unowned field must start with some instance).
    nonisolated(unsafe) static let placeholder = ZooOwner()
}

final class ZooPet: Archivable {
    var name = ""
    unowned var owner: ZooOwner = ZooOwner.placeholder
    required init() {}
}

/// A class hashed by identity (the default for reference semantics), all instances archiving alike.
final class ZooRef: Archivable, Hashable {
    var label = "same"
    required init() {}
    static func == (a: ZooRef, b: ZooRef) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A Set of identity-hashed instances that are also listed in a fixed order.
/// The list comes first, so the set's members are already archived (and ordered by UID) when the
/// set is written. Identical instances met first inside a set have no order of their own: the
/// archive is then the same graph, but its bytes may differ between runs.
struct ZooRefHolder: Archivable {
    var list: [ZooRef] = []
    var set: Set<ZooRef> = []

    static func make() -> ZooRefHolder {
        var holder = ZooRefHolder()
        holder.list = (0..<30).map { _ in ZooRef() }
        holder.set = Set(holder.list)
        return holder
    }
}

// MARK: - Schema evolution twins

struct ZooProfileV1: Archivable {
    var name = ""
    var age = 0
    static var archiveClassName: String? { "Zoo.Profile" }
}

struct ZooProfileV2: Archivable {
    var name = ""
    var email = "unknown@example.com"
    var tags = ["new"]
    static var archiveClassName: String? { "Zoo.Profile" }
}

// MARK: - Reflection edge cases

/// A `let` set in `init()`.
struct ZooLetInInit: Archivable {
    let id: Int
    var name = ""
    init() { id = 7 }
    init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}

/// A `let` with a default value: optimised builds fold it to a constant.
/// `ZooLetInInit` with its fields declared `var`, to make archives that type would read.
struct ZooVarTwin: Archivable {
    var id = 99
    var name = "n"
}

final class ZooLetWithDefault: Archivable {
    var first = 0
    let created = 1_234
    required init() {}
}

/// No conformance at all.
struct ZooPlain {
    var x = 1
}

/// An archivable type with a field that is not.
struct ZooHoldsPlain: Archivable {
    var ok = 1
    var plain = ZooPlain()
}

struct ZooWithClosure: Archivable {
    var name = ""
    var onChange: () -> Void = {}
}

struct ZooWithOptionalClosure: Archivable {
    var name = ""
    var transform: ((Int) -> Int)? = nil
}

/// Declaration order deliberately not alphabetical.
struct ZooOrder: Archivable {
    var zeta = 1
    var alpha = 2
    var mu = 3
    var beta = 4
}

class ZooOrderBase: Archivable {
    var zBase = 1
    var aBase = 2
    required init() {}
}

final class ZooOrderSub: ZooOrderBase {
    var zSub = 3
    var aSub = 4
}

// MARK: - KeyedCoding

/// A hand-coded struct with `let` fields (fine for KeyedCoding).
struct ZooPoint: KeyedCoding, Equatable {
    let x: Double
    let y: Double

    init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(x, forKey: "x")
        try coder.encode(y, forKey: "y")
    }

    init(from coder: KeyedDecodingCoder) throws {
        x = try coder.decode(Double.self, forKey: "x")
        y = try coder.decode(Double.self, forKey: "y")
    }

    static var archiveClassName: String? { "Zoo.Point" }
}

/// A hand-coded class: optional fields, a conditional reference, a `$` key.
final class ZooEmployee: KeyedCoding {
    let name: String
    var nickname: String?
    var location = ZooPoint(x: 0, y: 0)
    var manager: ZooEmployee?
    var reports: [ZooEmployee] = []
    /// What `init(from:)` saw, for the tests.
    var decodedKeys: [String] = []
    var containedManager = false

    init(name: String) { self.name = name }

    func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(name, forKey: "name")
        if let nickname { try coder.encode(nickname, forKey: "nickname") }
        try coder.encode(location, forKey: "location")
        try coder.encodeConditional(manager, forKey: "manager")
        try coder.encode(reports, forKey: "reports")
        try coder.encode(1, forKey: "$version")
    }

    init(from coder: KeyedDecodingCoder) throws {
        decodedKeys = coder.allKeys
        containedManager = coder.contains("manager")
        name = try coder.decode(String.self, forKey: "name")
        nickname = try coder.decodeIfPresent(String.self, forKey: "nickname")
        location = try coder.decode(ZooPoint.self, forKey: "location")
        manager = try coder.decodeIfPresent(ZooEmployee.self, forKey: "manager")
        reports = try coder.decodeIfPresent([ZooEmployee].self, forKey: "reports") ?? []
    }

    static var archiveClassName: String? { "Zoo.Employee" }
}

/// A hand-coded class with a strong reference that can form a cycle.
final class ZooLink: KeyedCoding {
    var name = ""
    var next: ZooLink?

    init(_ name: String) { self.name = name }

    func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(name, forKey: "name")
        try coder.encode(next, forKey: "next")
    }

    init(from coder: KeyedDecodingCoder) throws {
        name = try coder.decode(String.self, forKey: "name")
        next = try coder.decode(ZooLink?.self, forKey: "next")
    }

    static var archiveClassName: String? { "Zoo.Link" }
}

/// The `Archivable` twin of ``ZooLink`` (same class name): it can write the cycle that
/// `ZooLink` must refuse to read.
final class ZooLinkTwin: Archivable {
    var name = ""
    var next: ZooLinkTwin?
    required init() {}
    static var archiveClassName: String? { "Zoo.Link" }
}

/// A hand-coded type that requires a key.
struct ZooNeedsAge: KeyedCoding {
    var age: Int
    func encode(with coder: KeyedEncodingCoder) throws {}
    init(from coder: KeyedDecodingCoder) throws {
        age = try coder.decode(Int.self, forKey: "age")
    }
    init() { age = 0 }
    static var archiveClassName: String? { "Zoo.NeedsAge" }
}

/// A struct holding a hand-coded value, to see key paths through it.
struct ZooHoldsNeedsAge: Archivable {
    var person = ZooNeedsAge()
}

// MARK: - Archive inspection and construction

/// Looks inside archives as `PlistValue` trees and builds malformed ones.
enum ZooArchive {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func encode<T>(_ value: T) throws -> Data {
        try KeyedArchiver.archivedData(withRootObject: value)
    }

    static func decode<T>(_ type: T.Type, from data: Data) throws -> T {
        try KeyedUnarchiver.unarchivedObject(ofType: type, from: data)
    }

    static func roundTrip<T>(_ value: T) throws -> T {
        try decode(T.self, from: encode(value))
    }

    /// The archive's top dictionary (`$archiver`, `$version`, `$top`, `$objects`).
    static func top(_ data: Data) throws -> PlistDictionary {
        guard let dict = try BPlistReader().read([UInt8](data)).dictValue else { throw Failure(description: "root is not a dict") }
        return dict
    }

    static func objects(_ data: Data) throws -> [PlistValue] {
        guard let objects = try top(data)["$objects"]?.arrayValue else { throw Failure(description: "no $objects") }
        return objects
    }

    /// The `$objects` entry a UID points at.
    static func resolve(_ value: PlistValue?, in objects: [PlistValue]) -> PlistValue? {
        guard case .uid(let uid)? = value, uid < UInt64(objects.count) else { return nil }
        return objects[Int(uid)]
    }

    /// The object dictionary of a top-level key.
    static func topObject(_ data: Data, key: String = "root") throws -> PlistDictionary {
        let top = try top(data)
        guard let objects = top["$objects"]?.arrayValue, let dict = resolve(top["$top"]?.dictValue?[key], in: objects)?.dictValue
        else { throw Failure(description: "no object dict for \(key)") }
        return dict
    }

    /// `$classname` of an object dictionary.
    static func className(of object: PlistDictionary, in objects: [PlistValue]) -> String? {
        resolve(object["$class"], in: objects)?.dictValue?["$classname"]?.stringValue
    }

    /// `$classes` of an object dictionary.
    static func classChain(of object: PlistDictionary, in objects: [PlistValue]) -> [String] {
        (resolve(object["$class"], in: objects)?.dictValue?["$classes"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// UIDs of `$objects` entries whose `$classname` is `name`.
    static func uids(ofClass name: String, in objects: [PlistValue]) -> [Int] {
        objects.indices.filter { i in objects[i].dictValue.map { className(of: $0, in: objects) == name } ?? false }
    }

    /// A keyed archive around `objects` (`$objects[0]` should be `"$null"`).
    static func archive(objects: [PlistValue], top: PlistDictionary = ["root": .uid(1)]) throws -> Data {
        try bytes(["$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": .dict(top), "$objects": .array(objects)])
    }

    static func bytes(_ top: PlistDictionary) throws -> Data {
        Data(try BPlistWriter().write(.dict(top)))
    }

    /// Re-encodes our own archive after `edit` changed its `$objects`.
    static func patch(_ data: Data, _ edit: (inout [PlistValue]) throws -> Void) throws -> Data {
        var top = try top(data)
        var objects = top["$objects"]?.arrayValue ?? []
        try edit(&objects)
        top["$objects"] = .array(objects)
        return try bytes(top)
    }

    /// A class description dictionary.
    static func classDescription(_ name: String, _ supers: [String] = ["NSObject"]) -> PlistValue {
        .dict(["$classname": .string(name), "$classes": .array(([name] + supers).map { .string($0) })])
    }

    /// The `ArchiveError` decoding throws, or nil (with a recorded issue) if it decodes or throws something else.
    static func decodeError<T>(
        _ type: T.Type, from data: Data, options: KeyedUnarchiver.Options = .init(),
        configure: (KeyedUnarchiver) -> Void = { _ in }, sourceLocation: SourceLocation = #_sourceLocation
    ) -> ArchiveError? {
        do {
            let unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: options)
            configure(unarchiver)
            let value = try unarchiver.decode(type, forKey: "root")
            Issue.record("expected an ArchiveError, decoded \(String(describing: value).prefix(300))", sourceLocation: sourceLocation)
            return nil
        } catch let error as ArchiveError {
            return error
        } catch {
            Issue.record("expected an ArchiveError, got \(Swift.type(of: error)): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The `ArchiveError` encoding throws, or nil (with a recorded issue).
    static func encodeError<T>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) -> ArchiveError? {
        do {
            let data = try encode(value)
            Issue.record("expected an ArchiveError, encoded \(data.count) bytes", sourceLocation: sourceLocation)
            return nil
        } catch let error as ArchiveError {
            return error
        } catch {
            Issue.record("expected an ArchiveError, got \(Swift.type(of: error)): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }
}

/// Breaks the strong reference chains of a linked graph iteratively (a long chain released
/// recursively can overflow the stack in `deinit`).
func zooUnlink(_ head: ZooNode?) {
    var current = head
    while let node = current {
        current = node.next
        node.next = nil
        node.children = []
        node.byName = [:]
    }
}
