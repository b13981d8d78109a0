import Foundation
import KeyedArchive
import PropertyList
import Testing
import TestSupport

/// The reference keyed archives of swift-corelibs-foundation's NSKeyedUnarchiver tests
/// (`../shared/fixtures/peers/corelibs-keyed`, nine of ten in XML, made on macOS) decode into the
/// values Foundation's NSKeyedUnarchiver gives for them in those tests.
@Suite("corelibs reference archives", .needsPeerFixtures("peers/corelibs-keyed"))
struct CorelibsReferenceArchiveTests {
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: Fixtures.shared("peers/corelibs-keyed/NSKeyedUnarchiver-\(name)Test.plist"))
    }

    @Test("ArrayTest: an NSArray of strings, as [String] and as Any")
    func array() throws {
        let data = try Self.data("Array")
        #expect(PlistFormat(of: data) == .xml)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: [String].self, from: data) == ["baa", "baa", "black", "sheep"])
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: data) as? [String] == ["baa", "baa", "black", "sheep"])
    }

    @Test("OrderedSetTest: an NSOrderedSet of strings (NS.object.N keys), in order")
    func orderedSet() throws {
        let data = try Self.data("OrderedSet")
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: [String].self, from: data) == ["valgeir", "nico", "puzzle"])
    }

    @Test("URLTest: an NSURL relative to a base")
    func url() throws {
        let url = try KeyedUnarchiver.unarchivedObject(ofType: URL.self, from: Self.data("URL"))
        #expect(url.relativeString == "foo.xml" && url.baseURL == URL(string: "https://www.example.com"))
        #expect(url.absoluteString == "https://www.example.com/foo.xml")
    }

    @Test("UUIDTest: an NSUUID")
    func uuid() throws {
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: UUID.self, from: Self.data("UUID")) == UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34"))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: Self.data("UUID")) as? UUID == UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34"))
    }

    @Test("ComplexTest (the binary one) and every XML one open, and XML → binary → XML is stable",
        arguments: ["Array", "Complex", "ConcreteValue", "EdgeInsets", "Notification", "OrderedSet", "Range", "Rect", "URL", "UUID"])
    func opens(name: String) throws {
        let data = try Self.data(name)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(unarchiver.allKeys == ["root"])
        let value = try PlistReader().read(data)
        #expect(try PlistReader().read(value.bytes(format: .binary)) == value)
    }
}

extension CorelibsReferenceArchiveTests {
    @Test("RangeTest, RectTest and NotificationTest decode into NSRange, CGRect and Notification")
    func mappedValues() throws {
        let range = NSRange(location: 97345, length: 98345)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: NSRange.self, from: Self.data("Range")) == range)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: Self.data("Range")) as? NSRange == range)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: Self.data("Rect")) as? CGRect == CGRect(x: 400, y: 300, width: 200, height: 300))
        let note = try KeyedUnarchiver.unarchivedObject(ofType: Notification.self, from: Self.data("Notification"))
        #expect(note.name.rawValue == "notification-name" && note.object as? String == "notification-object")
        #expect(note.userInfo as? [String: String] == ["notification-key": "notification-val"])
    }

    @Test("ConcreteValueTest and EdgeInsetsTest: NSValues with no portable Swift type, refused by name")
    func unmappedValues() throws {
        let concrete = try #require(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: Self.data("ConcreteValue")) }
        #expect(concrete.code == .unknownClass && concrete.reason.contains("NSValue of Objective-C type [3i]"))
        let insets = try #require(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: Self.data("EdgeInsets")) }
        #expect(insets.code == .unknownClass && insets.reason.contains("NSValue of kind 12 (NS.special), edge insets"))
    }
}

/// The 16 archives Apple's Foundation wrote on macOS for swift-corelibs-foundation's fixture
/// tests (`../shared/fixtures/peers/corelibs-fixtures`): the value classes decode into the values
/// Foundation gives for them; formatters and text-checking results are refused by class name.
@Suite("corelibs fixture archives", .needsPeerFixtures("peers/corelibs-fixtures"))
struct CorelibsFixtureArchiveTests {
    static func any(_ name: String) throws -> Any {
        try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: Data(contentsOf: Fixtures.shared("peers/corelibs-fixtures/\(name).archive")))
    }

    static func typed<T>(_ type: T.Type, _ name: String) throws -> T {
        try KeyedUnarchiver.unarchivedObject(ofType: type, from: Data(contentsOf: Fixtures.shared("peers/corelibs-fixtures/\(name).archive")))
    }

    @Test("NSIndexSet, NSIndexPath, NSMeasurement, sets and ordered sets")
    func collections() throws {
        var many = IndexSet(integersIn: 0..<50)
        many.insert(integersIn: 100..<150)
        many.insert(integersIn: 1000..<1050)
        many.insert(integersIn: 9_223_372_036_854_775_757..<Int.max)
        #expect(try Self.any("NSIndexSet-ManyRanges") as? IndexSet == many)
        #expect(try Self.typed(IndexSet.self, "NSIndexSet-OneRange") == IndexSet(integersIn: 0..<50))
        #expect(try Self.any("NSIndexPath-ManyIndices") as? IndexPath == [4, 8, 15, 16, 23, 42])
        let length = try #require(try Self.any("NSMeasurement-Length") as? Measurement<UnitLength>)
        #expect(length.value == 45 && length.unit.symbol == "mi" && length.converted(to: .meters).value == 45 * 1609.34)
        #expect(try Self.typed(Measurement<UnitLength>.self, "NSMeasurement-Length") == length)
        let zero = try #require(try Self.any("NSMeasurement-Zero") as? Measurement<Unit>)
        #expect(zero.value == 0 && zero.unit.symbol == "")
        let counted = try #require(try Self.any("NSCountedSet-NumbersAppearingSeveralTimes") as? NSCountedSet)
        #expect(counted.count == 5 && (1...5).allSatisfy { counted.count(for: $0) == 5 })
        #expect(try Self.any("NSMutableOrderedSet-Numbers") as? [Int] == [1, 2, 3, 4, 5])
        #expect(try Self.any("NSSet-Numbers") as? Set<AnyHashable> == [1, 2, 3, 4, 5])
        #expect(try Self.any("NSSet-Empty") as? Set<AnyHashable> == [])
    }

    @Test("NSAttributedString and NSMutableAttributedString keep their runs", arguments: ["NSAttributedString", "NSMutableAttributedString"])
    func attributedStrings(name: String) throws {
        let string = try #require(try Self.any(name) as? ArchivedAttributedString)
        #expect(string.string == "0123456789" && string.isMutable == (name == "NSMutableAttributedString"))
        let runs = string.runs.map { run in
            "\(run.range.location)+\(run.range.length)[\(run.attributes.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ","))]"
        }
        #expect(runs == ["0+1[]", "1+1[Font=Helvetica,Size=123]", "2+4[Font=Times,Size=456]", "6+2[Font=Helvetica,Size=123]", "8+1[Font=Times,Size=456]", "9+1[]"])
    }

    @Test("Formatters and text-checking results are not mapped: refused with their class name",
        arguments: ["ByteCountFormatter-AllFieldsSet": "NSByteCountFormatter", "DateIntervalFormatter-ValuesSetWithTemplate": "NSDateIntervalFormatter",
                    "ISO8601DateFormatter-OptionsSet": "NSISO8601DateFormatter", "NSTextCheckingResult-ComplexRegex": "NSComplexRegularExpressionCheckingResult",
                    "NSTextCheckingResult-SimpleRegex": "NSSimpleRegularExpressionCheckingResult"])
    func unmapped(name: String, className: String) throws {
        let error = try #require(throws: ArchiveError.self) { try Self.any(name) }
        #expect(error.code == .unknownClass && error.reason.contains("class \(className)"), "\(error)")
    }
}
