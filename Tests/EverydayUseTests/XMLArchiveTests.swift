import ArchiveStore
import Foundation
import KeyedArchive
import PropertyList
import Testing

/// Keyed archives in XML, as an app meets them: written with `outputFormat = .xml`, read by every
/// reader of the library whatever format a file is in, and exchanged with Foundation.
@Suite("XML keyed archives")
struct XMLArchiveTests {
    final class Person: Archivable {
        var name = ""
        var age = 0
        var height: Double = 0
        var weight: Float = 0
        var born = Date(timeIntervalSinceReferenceDate: 0)
        var photo = Data()
        var tags: [String] = []
        var scores: [String: Int] = [:]
        var nickname: String? = nil
        var friend: Person? = nil
        required init() {}
    }

    static func ann() -> Person {
        let ann = Person()
        ann.name = "Ann <&> \"Quoted\"\r\nTwo lines"
        ann.age = 41
        ann.height = 1.68
        ann.weight = 61.3
        ann.born = Date(timeIntervalSinceReferenceDate: -12_345.678)
        ann.photo = Data((0..<200).map { UInt8($0) })
        ann.tags = ["a", "é", "😀", ""]
        ann.scores = ["math": 9, "art": -3]
        let bob = Person()
        bob.name = "Bob"
        bob.friend = ann  // a cycle
        ann.friend = bob
        return ann
    }

    /// Runs `body` with ``ann()``, whose cycle is broken afterwards so the test leaks nothing.
    static func withAnn<R>(_ body: (Person) throws -> R) rethrows -> R {
        let ann = ann()
        defer { breakCycle(ann) }
        return try body(ann)
    }

    static func breakCycle(_ person: Person) {
        person.friend?.friend = nil
        person.friend = nil
    }

    /// Checks `back` against ``ann()``, then breaks both cycles.
    static func expectSameAnn(_ back: Person, sourceLocation: SourceLocation = #_sourceLocation) {
        let ann = ann()
        defer {
            breakCycle(ann)
            breakCycle(back)
        }
        #expect(back.name == ann.name && back.age == ann.age && back.height == ann.height, sourceLocation: sourceLocation)
        #expect(back.weight == ann.weight && back.born == ann.born && back.photo == ann.photo, sourceLocation: sourceLocation)
        #expect(back.tags == ann.tags && back.scores == ann.scores && back.nickname == nil, sourceLocation: sourceLocation)
        #expect(back.friend?.name == "Bob" && back.friend?.friend === back, sourceLocation: sourceLocation)
    }

    @Test("outputFormat = .xml writes Apple's XML layout, and the unarchiver reads it back value for value")
    func modelRoundTrip() throws {
        let archiver = KeyedArchiver()
        archiver.outputFormat = .xml
        try Self.withAnn { try archiver.encode($0, forKey: "root") }
        let data = try archiver.encodedData
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\""))
        #expect(text.contains("<key>$archiver</key>\n\t<string>NSKeyedArchiver</string>\n\t<key>$objects</key>"))
        #expect(text.contains("<key>CF$UID</key>"))
        #expect(PlistFormat(of: data) == .xml)
        Self.expectSameAnn(try KeyedUnarchiver.unarchivedObject(ofType: Person.self, from: data))
        // The default stays binary, and both forms hold the same property list, but for the Float
        // field, which XML holds as the 8-byte real of the same value (and reads back as the Float).
        let binary = try Self.withAnn { try KeyedArchiver.archivedData(withRootObject: $0) }
        #expect(PlistFormat(of: binary) == .binary)
        let fromBinary = try PlistReader().read(binary)
        let fromXML = try PlistReader().read(data)
        #expect(fromBinary != fromXML)
        #expect(try PlistReader().read(try fromBinary.bytes(format: .xml)) == fromXML)
    }

    @Test("Foundation's NSKeyedUnarchiver reads an XML archive of ours")
    func foundationReadsOurXML() throws {
        let archiver = KeyedArchiver()
        archiver.outputFormat = .xml
        try archiver.encode(["name": "Ann", "ids": [1, 2, 3], "ok": true] as [String: Any], forKey: NSKeyedArchiveRootObjectKey)
        let data = try archiver.encodedData
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        let object = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSDictionary
        #expect(object?["name"] as? String == "Ann")
        #expect(object?["ids"] as? [Int] == [1, 2, 3])
        #expect(object?["ok"] as? Bool == true)
    }

    /// `Fixtures/xml/foundation-keyed-archive.plist`: Foundation's NSKeyedArchiver with
    /// `outputFormat = .xml` (Scripts/XMLFixtures/main.swift).
    final class Note: KeyedCoding {
        static var archiveClassName: String? { "xmlgen.Note" }
        let title: String
        let stars: Int
        var next: Note?
        init(title: String, stars: Int) { self.title = title; self.stars = stars }
        func encode(with coder: KeyedEncodingCoder) throws {
            try coder.encode(title, forKey: "title")
            try coder.encode(stars, forKey: "stars")
            try coder.encode(next, forKey: "next")
        }
        required init(from coder: KeyedDecodingCoder) throws {
            title = try coder.decode(String.self, forKey: "title")
            stars = try coder.decode(Int.self, forKey: "stars")
            next = try coder.decode(Note?.self, forKey: "next")
        }
    }

    static let foundationArchive = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Fixtures/xml/foundation-keyed-archive.plist")

    @Test("An XML archive made by Foundation's NSKeyedArchiver decodes into models, lists and dictionaries")
    func foundationXMLDecodes() throws {
        let data = try Data(contentsOf: Self.foundationArchive)
        #expect(PlistFormat(of: data) == .xml)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(Set(unarchiver.allKeys) == ["root", "letters", "info"])
        let note = try unarchiver.decode(Note.self, forKey: "root")
        #expect(note.title == "first" && note.stars == 3 && note.next?.title == "second & <last>" && note.next?.stars == 5)
        #expect(note.next?.next == nil)
        #expect(try unarchiver.decode([String].self, forKey: "letters") == ["a", "b", "a"])
        let info = try unarchiver.decode([String: Any].self, forKey: "info")
        #expect(info["count"] as? Int == 2 && info["name"] as? String == "notes" && info.count == 2)
    }

    @Test("ArchiveFile writes XML on request, keeps the format of a file it read, and converts on request")
    func archiveFileFormats() throws {
        let folder = try TemporaryDirectory("xml-archive-file")
        var file = ArchiveFile()
        #expect(file.format == .binary)
        try Self.withAnn { try file.set($0, forKey: "ann") }
        try file.set(["x", "y"], forKey: "letters")
        try file.write(to: folder.file("people.plist"), format: .xml)
        let written = try Data(contentsOf: folder.file("people.plist"))
        #expect(PlistFormat(of: written) == .xml)

        var read = try ArchiveFile(contentsOf: folder.file("people.plist"))
        #expect(read.format == .xml && read.keys == ["ann", "letters"])
        Self.expectSameAnn(try read.decode(Person.self, forKey: "ann"))
        // Unchanged, it writes back the same bytes; changed, it stays XML and keeps its other keys.
        #expect(try read.encoded() == written)
        try read.set(["z"], forKey: "letters")
        try read.write(to: folder.file("people.plist"))
        let again = try ArchiveFile(contentsOf: folder.file("people.plist"))
        #expect(again.format == .xml && again.keys == ["ann", "letters"])
        #expect(try again.decode([String].self, forKey: "letters") == ["z"])
        Self.expectSameAnn(try again.decode(Person.self, forKey: "ann"))
        // To binary and back.
        let binary = try again.encoded(format: .binary)
        #expect(PlistFormat(of: binary) == .binary)
        #expect(try PlistReader().read(binary) == PlistReader().read(try again.encoded()))
    }

    @Test("An XML file's keys read back sorted, as Apple's writer sorts them; a binary file's in the order set")
    func keyOrder() throws {
        let folder = try TemporaryDirectory("xml-key-order")
        var file = ArchiveFile()
        try file.set(1, forKey: "zebra")
        try file.set(2, forKey: "apple")
        try file.write(to: folder.file("k.plist"), format: .xml)
        try file.write(to: folder.file("k.bplist"))
        let format: KeyedArchive.PlistFormat = try ArchiveFile(contentsOf: folder.file("k.plist")).format
        #expect(format == .xml)
        #expect(try ArchiveFile(contentsOf: folder.file("k.plist")).keys == ["apple", "zebra"])
        #expect(try ArchiveFile(contentsOf: folder.file("k.bplist")).keys == ["zebra", "apple"])
    }

    @Test("ArchiveStore loads a stored file that is in XML")
    func storeLoadsXML() throws {
        let folder = try TemporaryDirectory("xml-store")
        let store = try ArchiveStore(directory: folder.url)
        try Self.withAnn { try store.save($0, forKey: "ann") }
        // Rewrite the stored file in XML, as a tool or an older version of an app might have.
        let files = FileManager.default.enumerator(at: folder.url, includingPropertiesForKeys: nil)!.compactMap { $0 as? URL }
        let stored = try #require(files.first { url in
            (try? KeyedUnarchiver(forReadingFrom: Data(contentsOf: url)).containsValue(forKey: "root")) == true
        })
        let xml = try PlistReader().read(Data(contentsOf: stored)).bytes(format: .xml)
        try Data(xml).write(to: stored)
        let fresh = try ArchiveStore(directory: folder.url)
        Self.expectSameAnn(try #require(try fresh.load(Person.self, forKey: "ann")))
    }

    @Test("Errors in an XML archive carry the line and column of the element where each was found")
    func errors() throws {
        let broken = Data("<?xml version=\"1.0\"?>\n<plist>\n<dict>\n\t<key>$archiver</key>\n\t<string>NSKeyedArchiver</strin>\n".utf8)
        do {
            _ = try KeyedUnarchiver(forReadingFrom: broken)
            Issue.record("read a broken archive")
        } catch let error as ArchiveError {
            #expect(error.code == .invalidXML && error.line == 5 && error.column == 25, "\(error)")
        }
        let archiver = KeyedArchiver()
        archiver.outputFormat = .xml
        try Self.withAnn { try archiver.encode($0, forKey: "root") }
        let text = String(decoding: try archiver.encodedData, as: UTF8.self)
            .replacingOccurrences(of: "<integer>100000</integer>", with: "<integer>99</integer>")
        do {
            _ = try KeyedUnarchiver(forReadingFrom: Data(text.utf8))
            Issue.record("read an archive of $version 99")
        } catch let error as ArchiveError {
            let place = try Self.place(of: "<integer>99</integer>", in: text)
            #expect(error.code == .invalidArchive && error.reason == "$version is not the integer 100000", "\(error)")
            #expect(error.line == place.line && error.column == place.column && error.byteOffset == place.byteOffset, "\(error)")
            #expect(error.objectIndex == nil, "\(error)")
        }
        do {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: [Int].self, from: try archiver.encodedData)
            Issue.record("decoded a person as [Int]")
        } catch let error as ArchiveError {
            #expect(error.code == .typeMismatch && error.keyPath == "root" && error.line != nil && error.column != nil, "\(error)")
        }
    }

    struct Player: Archivable, Equatable {
        var name = ""
        var age = 0
    }

    struct Squad: Archivable, Equatable {
        var title = ""
        var players: [Player] = []
    }

    struct League: Archivable, Equatable {
        var name = ""
        var squads: [Squad] = []
    }

    @Test("A wrong value deep inside an XML archive is reported through KeyedUnarchiver with its key path, line and column")
    func deepError() throws {
        let league = League(
            name: "North",
            squads: (0..<3).map { s in Squad(title: "S\(s)", players: (0..<4).map { Player(name: "P\(s)\($0)", age: 20 + 10 * s + $0) }) })
        let archiver = KeyedArchiver()
        archiver.outputFormat = .xml
        try archiver.encode(league, forKey: "root")
        let xml = String(decoding: try archiver.encodedData, as: UTF8.self)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: League.self, from: Data(xml.utf8)) == league)
        // Squad 2's player 1 is 41: its age becomes a string.
        #expect(xml.components(separatedBy: "<integer>41</integer>").count == 2)
        let text = xml.replacingOccurrences(of: "<integer>41</integer>", with: "<string>forty-one</string>")
        let place = try Self.place(of: "<string>forty-one</string>", in: text)
        #expect(place.line > 100)
        do {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: League.self, from: Data(text.utf8))
            Issue.record("decoded a string as an age")
        } catch let error as ArchiveError {
            #expect(error.code == .typeMismatch && error.keyPath == "root.squads[2].players[1].age", "\(error)")
            #expect(error.line == place.line && error.column == place.column && error.byteOffset == place.byteOffset, "\(error)")
            #expect(error.objectIndex == nil)
            #expect("\(error)".contains("line \(place.line), column \(place.column)"), "\(error)")
        }
        // Read leniently, the field keeps its default and the report places the refused value the same way.
        var options = KeyedUnarchiver.Options()
        options.keepsDefaultForInvalidFields = true
        options.collectsReport = true
        let unarchiver = try KeyedUnarchiver(forReadingFrom: Data(text.utf8), options: options)
        let lenient = try unarchiver.decode(League.self, forKey: "root")
        #expect(lenient.squads[2].players[1].age == Player().age)
        #expect(lenient.squads[2].players[0] == league.squads[2].players[0])
        let invalid = unarchiver.report.invalidFields
        #expect(invalid.map(\.keyPath) == ["root.squads[2].players[1].age"])
        if let refused = invalid.first?.error {
            #expect(refused.code == .typeMismatch, "\(refused)")
            #expect(refused.line == place.line && refused.column == place.column && refused.byteOffset == place.byteOffset, "\(refused)")
            #expect(refused.objectIndex == nil)
        }
        // A reference to no object inside $objects: the UID's own element is named.
        let objects = try #require(xml.range(of: "<key>$objects</key>"))
        let uidKey = try #require(xml.range(of: "<key>CF$UID</key>", range: objects.upperBound..<xml.endIndex))
        let integer = try #require(xml.range(of: "<integer>", range: uidKey.upperBound..<xml.endIndex))
        var dangling = xml
        dangling.insert(contentsOf: "9999", at: integer.upperBound)
        let uidDict = try #require(xml.range(of: "<dict>", options: .backwards, range: objects.upperBound..<uidKey.lowerBound))
        let uidPlace = Self.place(at: uidDict.lowerBound, in: dangling)
        do {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: League.self, from: Data(dangling.utf8))
            Issue.record("followed a reference out of range")
        } catch let error as ArchiveError {
            #expect(error.code == .invalidReference && error.line == uidPlace.line && error.column == uidPlace.column, "\(error)")
        }
    }

    /// The line, column (from 1, in characters) and byte offset where `needle` first starts in `text`.
    static func place(of needle: String, in text: String) throws -> (line: Int, column: Int, byteOffset: Int) {
        place(at: try #require(text.range(of: needle)).lowerBound, in: text)
    }

    /// The line, column (from 1, in characters) and byte offset of `index` in `text`.
    static func place(at index: String.Index, in text: String) -> (line: Int, column: Int, byteOffset: Int) {
        let before = text[..<index]
        let line = before.filter { $0 == "\n" }.count + 1
        let lineStart = before.lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
        return (line, text[lineStart..<index].unicodeScalars.count + 1, before.utf8.count)
    }
}
