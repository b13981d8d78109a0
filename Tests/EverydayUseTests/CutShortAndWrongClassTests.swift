import Foundation
import KeyedArchive
import PropertyList
import Testing

/// What a reader says of a file cut short, and of a value of one kind read as another.
@Suite("Files cut short and values of the wrong class")
struct CutShortAndWrongClassTests {
    struct Profile: Archivable {
        var name = ""
        var age = 0
    }

    static let archive = try! KeyedArchiver.archivedData(withRootObject: ["Ada", "Grace", "Katherine"])

    static func code(_ body: () throws -> Void) -> ArchiveError.Code? {
        do {
            try body()
            return nil
        } catch {
            return (error as? ArchiveError)?.code
        }
    }

    @Test("Every non-empty proper prefix of a binary archive, its 8-byte header included, is .truncated")
    func binaryPrefixes() throws {
        let bytes = Self.archive
        for length in 1..<bytes.count {
            let prefix = bytes.prefix(length)
            #expect(Self.code { _ = try KeyedUnarchiver.unarchivedObject(ofType: [String].self, from: prefix) } == .truncated, "cut at \(length)")
            #expect(Self.code { _ = try PlistReader().read([UInt8](prefix)) } == .truncated, "cut at \(length)")
            #expect(Self.code { _ = try BPlistReader().read([UInt8](prefix)) } == .truncated, "cut at \(length)")
        }
        // Nothing at all is no property list, cut or not.
        #expect(Self.code { _ = try KeyedUnarchiver.unarchivedObject(ofType: [String].self, from: Data()) } == .notPropertyList)
        #expect(Self.code { _ = try KeyedUnarchiver.unarchivedObject(ofType: [String].self, from: Data("bplis0".utf8)) } == .notPropertyList)
    }

    @Test("Every proper prefix of an XML archive that ends before its </plist> is .truncated")
    func xmlPrefixes() throws {
        let archiver = KeyedArchiver()
        archiver.outputFormat = .xml
        try archiver.encode(["Ada", "Grace"], forKey: "root")
        let bytes = try archiver.encodedData
        let text = String(decoding: bytes, as: UTF8.self)
        let end = try #require(text.range(of: "</plist>")).lowerBound.utf16Offset(in: text)
        for length in 1..<end {
            let prefix = bytes.prefix(length)
            #expect(Self.code { _ = try KeyedUnarchiver.unarchivedObject(ofType: [String].self, from: prefix) } == .truncated, "cut at \(length): \(String(decoding: prefix.suffix(12), as: UTF8.self))")
        }
    }

    @Test("A dictionary read as a model says what it is and how to read it, not to register NSDictionary")
    func dictionaryAsModel() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: ["a": 1])
        let error = try #require(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofType: Profile.self, from: data) }
        #expect(error.code == .typeMismatch)
        #expect(error.reason.contains("NSDictionary") && error.reason.contains(String(reflecting: Profile.self)))
        #expect(error.reason.contains("[String: Any]") && !error.reason.contains("register"), "\(error.reason)")
        // A class this library does not know may be a type of the app's: that advice stays.
        let other = try KeyedArchiver.archivedData(withRootObject: OtherModel())
        let unknown = try #require(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofType: Profile.self, from: other) }
        #expect(unknown.code == .unknownClass && unknown.reason.contains("register(_:)"))
        // The reverse mistake is a type mismatch too.
        let model = try KeyedArchiver.archivedData(withRootObject: Profile())
        #expect(Self.code { _ = try KeyedUnarchiver.unarchivedObject(ofType: [String].self, from: model) } == .typeMismatch)
    }

    struct OtherModel: Archivable {
        var title = "x"
    }
}
