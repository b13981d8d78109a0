import Foundation
import KeyedArchive
import Testing

// Finding 2: JSON from `JSONSerialization` could not be cached, because on Linux it is made of
// `NSNumber`, `NSString`, `NSArray`, `NSDictionary` and `NSNull` objects (and
// `PropertyListSerialization` and Foundation's unarchiver add `NSDate` and `NSData`). Foundation's
// objects archive as the values they hold, exactly as their Swift counterparts do.

/// The JSON a network API might send: integers (zero and one among them, which must not turn
/// into booleans), reals, booleans, nulls, and nested arrays and objects. Made on each use: a
/// `Data` kept in a global is reported by LeakSanitizer at exit (`Scripts/lsan.supp` says why).
private var bannersJSON: Data {
    Data(
        #"""
        {"id": 42, "zero": 0, "one": 1, "negative": -7, "big": 9007199254740993,
         "price": 9.5, "ratio": -0.25, "live": true, "hidden": false, "image": null,
         "tags": ["sale", 3, 2.5, true, null],
         "owner": {"name": "Ann", "age": 31, "admin": false, "manager": null,
                   "teams": [{"id": 1}, {"id": 2, "lead": true}]}}
        """#.utf8)
}

/// The exact Swift type of a decoded value (`NSNumber` bridging would make `as? Int` succeed for a
/// boolean, so types are compared, not casts).
private func typeName(_ value: Any?) -> String {
    guard let value else { return "nil" }
    return String(reflecting: type(of: value))
}

/// What an `NSNumber` holds: a boolean (Foundation's boolean class), an integer or a real (by its
/// `objCType`; Foundation on Linux may report `i` for an integer made from an `Int`).
private func numberKind(_ number: NSNumber) -> String {
    if type(of: number) == type(of: NSNumber(value: true)) { return "boolean" }
    switch String(cString: number.objCType) {
    case "c", "C", "s", "S", "i", "I", "l", "L", "q", "Q": return "integer"
    case "f", "d": return "real"
    case let other: return "objCType \(other)"
    }
}

@Suite("Foundation objects archive as the values they hold")
struct FoundationObjectsArchiveTests {
    @Test("a JSONSerialization dictionary archives and comes back with Int, Double, Bool and NSNull values")
    func jsonSerializationDictionaryRoundTripsWithExactTypes() throws {
        let json = try #require(try JSONSerialization.jsonObject(with: bannersJSON) as? [String: Any])
        let data = try KeyedArchiver.archivedData(withRootObject: json)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: [String: Any].self, from: data)

        #expect(back.keys.sorted() == json.keys.sorted())
        #expect(typeName(back["id"]) == "Swift.Int")
        #expect(back["id"] as? Int == 42)
        #expect(typeName(back["zero"]) == "Swift.Int")
        #expect(back["zero"] as? Int == 0)
        #expect(typeName(back["one"]) == "Swift.Int")
        #expect(back["one"] as? Int == 1)
        #expect(back["negative"] as? Int == -7)
        #expect(typeName(back["big"]) == "Swift.Int")
        #expect(back["big"] as? Int == 9_007_199_254_740_993)
        #expect(typeName(back["price"]) == "Swift.Double")
        #expect(back["price"] as? Double == 9.5)
        #expect(back["ratio"] as? Double == -0.25)
        #expect(typeName(back["live"]) == "Swift.Bool")
        #expect(back["live"] as? Bool == true)
        #expect(typeName(back["hidden"]) == "Swift.Bool")
        #expect(back["hidden"] as? Bool == false)
        #expect(typeName(back["image"]) == "Foundation.NSNull")

        let tags = try #require(back["tags"] as? [Any])
        #expect(tags.map(typeName) == ["Swift.String", "Swift.Int", "Swift.Double", "Swift.Bool", "Foundation.NSNull"])
        #expect(tags[0] as? String == "sale")
        #expect(tags[1] as? Int == 3)
        #expect(tags[2] as? Double == 2.5)
        #expect(tags[3] as? Bool == true)

        let owner = try #require(back["owner"] as? [String: Any])
        #expect(owner.keys.sorted() == ["admin", "age", "manager", "name", "teams"])
        #expect(typeName(owner["name"]) == "Swift.String")
        #expect(owner["name"] as? String == "Ann")
        #expect(typeName(owner["age"]) == "Swift.Int")
        #expect(owner["age"] as? Int == 31)
        #expect(typeName(owner["admin"]) == "Swift.Bool")
        #expect(owner["admin"] as? Bool == false)
        #expect(typeName(owner["manager"]) == "Foundation.NSNull")
        let teams = try #require(owner["teams"] as? [Any])
        #expect(teams.count == 2)
        let first = try #require(teams.first as? [String: Any])
        let second = try #require(teams.last as? [String: Any])
        #expect(first.count == 1)
        #expect(typeName(first["id"]) == "Swift.Int")
        #expect(first["id"] as? Int == 1)
        #expect(second.count == 2)
        #expect(second["id"] as? Int == 2)
        #expect(typeName(second["lead"]) == "Swift.Bool")
        #expect(second["lead"] as? Bool == true)
    }

    @Test("a JSONSerialization array at the root archives as the same bytes as the Swift array")
    func jsonSerializationArrayMatchesSwiftArray() throws {
        let parsed = try #require(
            try JSONSerialization.jsonObject(with: Data(#"[1, 2.5, true, "x", null, [0, false], {"k": 1}]"#.utf8)) as? [Any])
        let swift: [Any] = [1, 2.5, true, "x", NSNull(), [0, false] as [Any], ["k": 1] as [String: Any]]
        #expect(try KeyedArchiver.archivedData(withRootObject: parsed) == KeyedArchiver.archivedData(withRootObject: swift))
    }

    /// One Foundation object and the Swift value it must archive exactly like.
    struct Twin: CustomTestStringConvertible, @unchecked Sendable {  // holds immutable values only
        let label: String
        let object: Any
        let swift: Any
        var testDescription: String { label }
    }

    static let twins: [Twin] = [
        Twin(label: "NSNumber(value: 5) and 5", object: NSNumber(value: 5), swift: 5),
        Twin(label: "NSNumber(value: -5) and -5", object: NSNumber(value: -5), swift: -5),
        Twin(label: "NSNumber(value: 0) and 0, not false", object: NSNumber(value: 0), swift: 0),
        Twin(label: "NSNumber(value: 1) and 1, not true", object: NSNumber(value: 1), swift: 1),
        Twin(label: "NSNumber(value: Int8(-3)) and -3", object: NSNumber(value: Int8(-3)), swift: -3),
        Twin(label: "NSNumber(value: UInt64.max) and UInt64.max", object: NSNumber(value: UInt64.max), swift: UInt64.max),
        Twin(label: "NSNumber(value: Int64.min) and Int64.min", object: NSNumber(value: Int64.min), swift: Int64.min),
        Twin(label: "NSNumber(value: 2.5) and 2.5", object: NSNumber(value: 2.5), swift: 2.5),
        Twin(label: "NSNumber(value: Float(1.5)) and Float(1.5)", object: NSNumber(value: Float(1.5)), swift: Float(1.5)),
        Twin(label: "NSNumber(value: true) and true", object: NSNumber(value: true), swift: true),
        Twin(label: "NSNumber(value: false) and false", object: NSNumber(value: false), swift: false),
        Twin(label: "NSString and String", object: NSString(string: "héllo"), swift: "héllo"),
        Twin(label: "NSMutableString and String", object: NSMutableString(string: "draft"), swift: "draft"),
        Twin(label: "NSArray and [Any]", object: NSArray(array: [1, "a", 2.5]), swift: [1, "a", 2.5] as [Any]),
        Twin(
            label: "NSMutableArray and [Any]", object: NSMutableArray(array: [NSNumber(value: true), NSNull()]),
            swift: [true, NSNull()] as [Any]),
        Twin(
            label: "NSDictionary and [String: Any]", object: NSDictionary(dictionary: ["b": 2, "a": "x"]),
            swift: ["a": "x", "b": 2] as [String: Any]),
        Twin(label: "NSSet and Set<AnyHashable>", object: NSSet(array: [1, 2, 3]), swift: Set<AnyHashable>([1, 2, 3])),
        Twin(
            label: "NSDate and Date", object: NSDate(timeIntervalSinceReferenceDate: 700_000_000.5),
            swift: Date(timeIntervalSinceReferenceDate: 700_000_000.5)),
        Twin(label: "NSData and Data", object: NSData(data: Data([1, 2, 3])), swift: Data([1, 2, 3])),
        Twin(label: "NSMutableData and Data", object: NSMutableData(data: Data([9])), swift: Data([9])),
        Twin(
            label: "NSURL and URL", object: NSURL(string: "https://example.com/a?b=1")!,
            swift: URL(string: "https://example.com/a?b=1")!),
        Twin(
            label: "NSUUID and UUID", object: NSUUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
            swift: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        Twin(
            label: "NSDecimalNumber and Decimal", object: NSDecimalNumber(string: "12.345"),
            swift: Decimal(string: "12.345")!),
    ]

    @Test("a Foundation object at the root archives as the same bytes as its Swift value", arguments: twins)
    func rootObjectMatchesSwiftValue(_ twin: Twin) throws {
        let fromObject = try KeyedArchiver.archivedData(withRootObject: twin.object)
        let fromSwift = try KeyedArchiver.archivedData(withRootObject: twin.swift)
        #expect(fromObject == fromSwift)
    }

    @Test("Foundation objects inside [String: Any] and [Any] archive as the same bytes as Swift values")
    func objectsInsideCollectionsMatchSwiftValues() throws {
        let objects: [String: Any] = Dictionary(uniqueKeysWithValues: Self.twins.map { ($0.label, $0.object) })
        let swift: [String: Any] = Dictionary(uniqueKeysWithValues: Self.twins.map { ($0.label, $0.swift) })
        #expect(try KeyedArchiver.archivedData(withRootObject: objects) == KeyedArchiver.archivedData(withRootObject: swift))

        let objectList: [Any] = Self.twins.map(\.object)
        let swiftList: [Any] = Self.twins.map(\.swift)
        #expect(try KeyedArchiver.archivedData(withRootObject: objectList) == KeyedArchiver.archivedData(withRootObject: swiftList))
    }

    @Test("a PropertyListSerialization value archives and comes back with the same values")
    func propertyListSerializationValueRoundTrips() throws {
        let when = Date(timeIntervalSinceReferenceDate: 760_000_000.25)
        let original: [String: Any] = [
            "name": "Ann", "when": when, "blob": Data([0, 1, 254, 255]), "count": 3, "ratio": 0.5, "on": true,
            "list": ["a", 2] as [Any], "nested": ["deep": "value"] as [String: Any],
        ]
        let plist = try PropertyListSerialization.data(fromPropertyList: original, format: .binary, options: 0)
        let parsed = try #require(try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])

        let back = try KeyedUnarchiver.unarchivedObject(
            ofType: [String: Any].self, from: try KeyedArchiver.archivedData(withRootObject: parsed))
        #expect(back.keys.sorted() == ["blob", "count", "list", "name", "nested", "on", "ratio", "when"])
        #expect(typeName(back["name"]) == "Swift.String")
        #expect(back["name"] as? String == "Ann")
        #expect(type(of: back["when"]!) == Date.self)
        #expect(back["when"] as? Date == when)
        #expect(type(of: back["blob"]!) == Data.self)
        #expect(back["blob"] as? Data == Data([0, 1, 254, 255]))
        #expect(typeName(back["count"]) == "Swift.Int")
        #expect(back["count"] as? Int == 3)
        #expect(typeName(back["ratio"]) == "Swift.Double")
        #expect(back["ratio"] as? Double == 0.5)
        #expect(typeName(back["on"]) == "Swift.Bool")
        #expect(back["on"] as? Bool == true)
        let list = try #require(back["list"] as? [Any])
        #expect(list.map(typeName) == ["Swift.String", "Swift.Int"])
        #expect(list.first as? String == "a")
        #expect(list.last as? Int == 2)
        #expect((back["nested"] as? [String: Any])?["deep"] as? String == "value")
    }

    @Test("Foundation's NSKeyedUnarchiver reads our archive of a dictionary of Foundation objects as equal values")
    func foundationUnarchiverReadsArchiveOfFoundationObjects() throws {
        let when = Date(timeIntervalSinceReferenceDate: 123_456.5)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(#"{"id": 7, "price": 1.25, "live": true, "gone": null, "tags": ["a", 1]}"#.utf8))
                as? [String: Any])
        var value = json
        value["title"] = NSString(string: "Banner")
        value["when"] = NSDate(timeIntervalSinceReferenceDate: when.timeIntervalSinceReferenceDate)
        value["blob"] = NSData(data: Data([5, 6, 7]))
        let data = try KeyedArchiver.archivedData(withRootObject: value)

        let classes: [AnyClass] = [
            NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSNull.self,
        ]
        let read = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: data) as? NSDictionary)
        #expect(read.count == 8)
        #expect(read["id"] as? NSNumber == NSNumber(value: 7))
        #expect((read["id"] as? NSNumber).map(numberKind) == "integer")
        #expect(read["price"] as? NSNumber == NSNumber(value: 1.25))
        #expect((read["price"] as? NSNumber).map(numberKind) == "real")
        #expect((read["live"] as? NSNumber).map(numberKind) == "boolean")
        #expect(read["live"] as? Bool == true)
        #expect(read["gone"] is NSNull)
        #expect(read["tags"] as? NSArray == NSArray(array: ["a", 1]))
        #expect(read["title"] as? String == "Banner")
        #expect(read["when"] as? Date == when)
        #expect(read["blob"] as? Data == Data([5, 6, 7]))
    }

    final class Clipping: Archivable {
        var count: NSNumber = 0
        var price: NSNumber = 0
        var flag: NSNumber = false
        var title = NSString(string: "")
        var draft = NSMutableString(string: "")
        var tags: NSArray = []
        var queue: NSMutableArray = []
        var meta: NSDictionary = [:]
        var edits: NSMutableDictionary = [:]
        var labels = NSSet()
        var when = NSDate(timeIntervalSinceReferenceDate: 0)
        var bytes = NSData()
        var buffer = NSMutableData()
        var link = NSURL(string: "about:blank")!
        var identifier = NSUUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        var amount = NSDecimalNumber.zero
        required init() {}
    }

    @Test("fields typed as Foundation classes round-trip, and mutable ones come back mutable")
    func foundationTypedFieldsRoundTrip() throws {
        let clipping = Clipping()
        clipping.count = NSNumber(value: 12)
        clipping.price = NSNumber(value: 3.75)
        clipping.flag = NSNumber(value: true)
        clipping.title = NSString(string: "Weekly")
        clipping.draft = NSMutableString(string: "first line")
        clipping.tags = ["a", 1]
        clipping.queue = NSMutableArray(array: ["x"])
        clipping.meta = ["k": "v"]
        clipping.edits = NSMutableDictionary(dictionary: ["n": 1])
        clipping.labels = NSSet(array: ["red", "blue"])
        clipping.when = NSDate(timeIntervalSinceReferenceDate: 99.5)
        clipping.bytes = NSData(data: Data([1, 2]))
        clipping.buffer = NSMutableData(data: Data([3]))
        clipping.link = NSURL(string: "https://example.com/clip")!
        clipping.identifier = NSUUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        clipping.amount = NSDecimalNumber(string: "-0.125")

        let back = try KeyedUnarchiver.unarchivedObject(
            ofType: Clipping.self, from: try KeyedArchiver.archivedData(withRootObject: clipping))

        #expect(back.count == NSNumber(value: 12))
        #expect(numberKind(back.count) == "integer")
        #expect(back.price == NSNumber(value: 3.75))
        #expect(numberKind(back.price) == "real")
        #expect(numberKind(back.flag) == "boolean")
        #expect(back.flag.boolValue)
        #expect(back.title == "Weekly")
        #expect(back.draft == "first line")
        #expect(back.tags == ["a", 1])
        #expect(back.queue == ["x"])
        #expect(back.meta == ["k": "v"])
        #expect(back.edits == ["n": 1])
        #expect(back.labels == NSSet(array: ["red", "blue"]))
        #expect(back.when == NSDate(timeIntervalSinceReferenceDate: 99.5))
        #expect(back.bytes == NSData(data: Data([1, 2])))
        #expect(back.buffer == NSMutableData(data: Data([3])))
        #expect(back.link.absoluteString == "https://example.com/clip")
        #expect(back.identifier.uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(back.amount == NSDecimalNumber(string: "-0.125"))

        // The mutable variants really are mutable: each takes a change in place.
        back.draft.append(", second")
        back.queue.add("y")
        back.edits["m"] = 2
        back.buffer.append(Data([4]))
        #expect(back.draft == "first line, second")
        #expect(back.queue == ["x", "y"])
        #expect(back.edits == ["n": 1, "m": 2])
        #expect(back.buffer == NSMutableData(data: Data([3, 4])))
    }

    final class Ledger: Archivable {
        var amount: NSNumber = 0
        var entries: [NSNumber] = []
        required init() {}
    }

    @Test("an NSDecimalNumber held by a field typed NSNumber keeps every digit and comes back an NSDecimalNumber")
    func decimalNumberInNumberFieldKeepsItsDigits() throws {
        let ledger = Ledger()
        ledger.amount = NSDecimalNumber(string: "12.345678901234567890123")
        ledger.entries = [NSDecimalNumber(string: "0.1"), NSNumber(value: 0.1)]
        let back = try KeyedUnarchiver.unarchivedObject(
            ofType: Ledger.self, from: try KeyedArchiver.archivedData(withRootObject: ledger))
        let amount = try #require(back.amount as? NSDecimalNumber, "came back as \(type(of: back.amount))")
        #expect(amount.decimalValue == Decimal(string: "12.345678901234567890123")!)
        #expect(back.entries.count == 2)
        #expect((back.entries.first as? NSDecimalNumber)?.decimalValue == Decimal(string: "0.1")!)
        #expect(back.entries.last.map(numberKind) == "real")
        #expect(back.entries.last?.doubleValue == 0.1)
    }

    @Test("an NSURL relative to a base archives as the same bytes as the URL and keeps its base")
    func relativeNSURLKeepsItsBase() throws {
        let base = URL(string: "https://example.com/a/")!
        let object = try #require(NSURL(string: "b/c?x=1", relativeTo: base))
        let swift = try #require(URL(string: "b/c?x=1", relativeTo: base))
        #expect(try KeyedArchiver.archivedData(withRootObject: object) == KeyedArchiver.archivedData(withRootObject: swift))

        let clipping = Clipping()
        clipping.link = object
        let back = try KeyedUnarchiver.unarchivedObject(
            ofType: Clipping.self, from: try KeyedArchiver.archivedData(withRootObject: clipping))
        #expect(back.link.relativeString == "b/c?x=1")
        #expect(back.link.baseURL == base)
        #expect(back.link.absoluteString == "https://example.com/a/b/c?x=1")
    }

    struct Reading: Archivable {
        var value: NSNumber = 0
        var note = NSMutableString(string: "")
    }

    @Test("a struct with NSNumber and NSMutableString fields archives like one with Int and String fields")
    func foundationFieldsArchiveInlineLikeSwiftFields() throws {
        var reading = Reading()
        reading.value = NSNumber(value: 5)
        reading.note = NSMutableString(string: "ok")
        let archiver = KeyedArchiver()
        archiver.setClassName("Reading", for: Reading.self)
        try archiver.encode(reading, forKey: "root")

        struct SwiftReading: Archivable {
            var value = 5
            var note = "ok"
        }
        let twin = KeyedArchiver()
        twin.setClassName("Reading", for: SwiftReading.self)
        try twin.encode(SwiftReading(), forKey: "root")
        #expect(try archiver.encodedData == twin.encodedData)
    }
}
