import ArchiveStore
import Foundation
import KeyedArchive
import Testing

@Suite("ArchiveStore typed values")
struct TypedValueTests {
    @Test func typedValuesRoundTrip() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let url = URL(string: "https://example.com/a?b=c#d")!
        let date = Date(timeIntervalSinceReferenceDate: 123_456.789)
        let data = Data([0, 1, 2, 255])
        try store.set(42, forKey: "int")
        try store.set(-0.5, forKey: "double")
        try store.set(true, forKey: "bool")
        try store.set("caf\u{E9}", forKey: "string")
        try store.set(url, forKey: "url")
        try store.set(date, forKey: "date")
        try store.set(data, forKey: "data")
        #expect(store.integer(forKey: "int") == 42)
        #expect(store.double(forKey: "double") == -0.5)
        #expect(store.bool(forKey: "bool"))
        #expect(store.string(forKey: "string") == "caf\u{E9}")
        #expect(store.url(forKey: "url") == url)
        #expect(store.date(forKey: "date") == date)
        #expect(store.data(forKey: "data") == data)
        #expect(store.keys == ["bool", "data", "date", "double", "int", "string", "url"])
        // Typed values are ordinary stored values.
        #expect(try store.load(Int.self, forKey: "int") == 42)
        try store.set(Int.min, forKey: "int")
        #expect(store.integer(forKey: "int") == Int.min)
        try store.set(false, forKey: "bool")
        #expect(store.bool(forKey: "bool") == false)
        #expect(store.contains("bool"))
        let fileURL = URL(fileURLWithPath: "/tmp/a b")
        try store.set(fileURL, forKey: "url")
        #expect(store.url(forKey: "url") == fileURL)
    }

    @Test func absentKeysGiveUserDefaultsDefaults() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        #expect(store.integer(forKey: "none") == 0)
        #expect(store.double(forKey: "none") == 0)
        #expect(store.bool(forKey: "none") == false)
        #expect(store.string(forKey: "none") == nil)
        #expect(store.url(forKey: "none") == nil)
        #expect(store.date(forKey: "none") == nil)
        #expect(store.data(forKey: "none") == nil)
    }

    @Test func kindsWithoutAConversionGiveDefaults() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.set(Data([1]), forKey: "data")
        try store.set(Date(timeIntervalSinceReferenceDate: 5), forKey: "date")
        try store.save([1, 2], forKey: "array")
        try store.save(["a": 1], forKey: "dictionary")
        try store.save(UInt64.max, forKey: "huge")
        try store.save(Settings(theme: "dark", fontSize: 18), forKey: "model")
        for key in ["data", "date", "array", "dictionary", "huge", "model"] {
            #expect(store.integer(forKey: key) == 0, "\(key)")
            #expect(store.double(forKey: key) == 0, "\(key)")
            #expect(store.float(forKey: key) == 0, "\(key)")
            #expect(store.bool(forKey: key) == false, "\(key)")
            #expect(store.string(forKey: key) == nil, "\(key)")
            #expect(store.url(forKey: key) == nil, "\(key)")
        }
        #expect(store.date(forKey: "data") == nil)
        #expect(store.data(forKey: "date") == nil)
        #expect(store.data(forKey: "array") == nil)
        #expect(store.date(forKey: "huge") == nil)
    }

    @Test func expiredAndUnreadableValuesGiveDefaults() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.save(5, forKey: "expired", expiresAfter: .seconds(-1))
        #expect(store.integer(forKey: "expired") == 0)
        try Data("not an archive".utf8).write(to: fixture.file(forKey: "corrupt"))
        #expect(store.integer(forKey: "corrupt") == 0)
        #expect(store.string(forKey: "corrupt") == nil)
    }
}

@Suite("ArchiveStore typed value conversions")
struct TypedValueConversionInternalsTests {
    @Test func aFloatReadsAsAStringAsItWasSetAndADoubleAsItsOwnDigits() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.set(Float(0.1), forKey: "float")
        try store.set(Double(Float(0.1)), forKey: "double")
        try store.save([Float(0.1)], forKey: "array")
        #expect(store.string(forKey: "float") == "0.1")
        #expect(store.string(forKey: "double") == "0.10000000149011612")
        #expect(store.float(forKey: "float") == 0.1)
        #expect(store.double(forKey: "float") == Double(Float(0.1)))
        #expect(try store.load(Float.self, forKey: "float") == 0.1)
        #expect(store.string(forKey: "array") == nil)
    }

    @Test func urlOfDataReadsAnArchivedURL() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let url = URL(string: "https://example.com/a")!
        try store.set(try KeyedArchiver.archivedData(withRootObject: url), forKey: "archived")
        try store.set(try KeyedArchiver.archivedData(withRootObject: "text"), forKey: "other")
        #expect(store.url(forKey: "archived") == url)
        #expect(store.url(forKey: "other") == nil)
        #expect(store.string(forKey: "archived") == nil)
    }

    @Test func registeredValuesOfEveryKindConvert() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        store.register(defaults: [
            "int8": Int8(-3), "uint64": UInt64.max, "small uint64": UInt64(9), "bool": NSNumber(value: true),
            "real": NSNumber(value: 2.5), "single": NSNumber(value: Float(0.1)), "array": [1], "path": "/tmp/x",
        ])
        #expect(store.integer(forKey: "int8") == -3)
        #expect(store.integer(forKey: "uint64") == 0)
        #expect(store.string(forKey: "uint64") == nil)
        #expect(store.integer(forKey: "small uint64") == 9)
        #expect(store.bool(forKey: "bool"))
        #expect(store.string(forKey: "bool") == "1")
        #expect(store.integer(forKey: "real") == 2)
        #expect(store.string(forKey: "real") == "2.5")
        #expect(store.string(forKey: "single") == "0.1")
        #expect(store.integer(forKey: "array") == 0)
        #expect(store.url(forKey: "path") == URL(fileURLWithPath: "/tmp/x"))
        #expect(store.integer(forKey: "never registered") == 0)
    }
}
