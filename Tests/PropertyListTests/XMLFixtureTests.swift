import Foundation
import PropertyList
import TestSupport
import Testing

/// Every XML property list made by another writer reads as its plist-json twin, is written back
/// by ``XMLPlistWriter`` byte for byte, and survives XML → binary → XML.
@Suite("XML fixtures")
struct XMLFixtureTests {
    /// Peer folders holding XML property lists (corelibs-keyed also holds one binary file).
    static let peerFolders = ["peers/cpython-darwin-xml", "peers/swift-foundation-json", "peers/corelibs-keyed"]

    /// Our own XML files made by other writers: Foundation's `PropertyListSerialization` on Linux and
    /// Python's `plistlib` (`Scripts/make-xml-fixtures.sh`), so the suite has XML from others without ../shared.
    static let ownCases: [String] = Fixtures.fileNames(in: Fixtures.own("xml"), suffix: ".plist")
        .filter { !$0.hasPrefix("golden-") }.map { "Fixtures/xml/\($0)" }

    static let peerCases: [String] = peerFolders.flatMap { folder in
        Fixtures.peerFileNames(in: folder, suffix: ".plist").map { "\(folder)/\($0)" }
            .filter { (try? Fixtures.bytes(at: Fixtures.file($0)).starts(with: Array("<?xml".utf8))) == true }
    }

    static let cases = ownCases + peerCases

    @Test("Fixtures/xml holds its files from Foundation and plistlib")
    func ownFilesArePresent() {
        #expect(Self.ownCases.count == 4, "\(Self.ownCases)")
    }

    @Test("The peers hold 13 XML property lists: Cocoa's, CoreFoundation's and the corelibs references",
        .needsPeerFixtures("peers/cpython-darwin-xml, peers/swift-foundation-json and peers/corelibs-keyed"))
    func peerFilesArePresent() {
        #expect(Self.peerCases.count == 13, "\(Self.peerCases)")
        #expect(Self.peerCases.filter { $0.hasPrefix("peers/corelibs-keyed/") }.count == 9)
    }

    @Test("Each XML fixture reads as its plist-json twin (UIDs as the CF$UID dictionaries plistlib sees)", arguments: cases)
    func readsAsTwin(path: String) throws {
        let url = Fixtures.file(path)
        let expected = try PlistValue(plistJSON: try Fixtures.text(at: url.deletingPathExtension().appendingPathExtension("json")))
        let bytes = try Fixtures.bytes(at: url)
        let value = try XMLPlistReader().read(bytes)
        #expect(value.uidsAsDictionaries == expected, "\(path): \(value.plistJSON.prefix(300))")
        #expect(PlistFormat(of: bytes) == .xml)
        #expect(try PlistReader().read(bytes) == value)
    }

    @Test("Each XML fixture is written back byte for byte (CoreFoundation's older DOCTYPE aside)", arguments: cases)
    func writesBackIdentically(path: String) throws {
        let bytes = try Fixtures.bytes(at: Fixtures.file(path))
        let written = try XMLPlistWriter().write(try XMLPlistReader().read(bytes))
        var text = String(decoding: bytes, as: UTF8.self)
        text = text.replacingOccurrences(of: "-//Apple Computer//DTD PLIST 1.0//EN", with: "-//Apple//DTD PLIST 1.0//EN")
        if path.contains("plistlib") {
            // plistlib writes its own layout; ours is Apple's. Content is compared above.
            #expect(String(decoding: written, as: UTF8.self) != text)
            return
        }
        #expect(String(decoding: written, as: UTF8.self) == text, "\(path)")
    }

    @Test("Each XML fixture converts to binary and back with equal content, and the XML it gives is stable", arguments: cases)
    func convertsThroughBinary(path: String) throws {
        let value = try XMLPlistReader().read(try Fixtures.bytes(at: Fixtures.file(path)))
        let binary = try value.bytes(format: .binary)
        let fromBinary = try PlistReader().read(binary)
        #expect(fromBinary == value, "\(path)")
        let xml = try XMLPlistWriter().write(value)
        #expect(try XMLPlistWriter().write(fromBinary) == xml, "\(path): XML → binary → XML changed the bytes")
    }
}
