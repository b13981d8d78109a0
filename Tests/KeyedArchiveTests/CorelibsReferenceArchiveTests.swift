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
