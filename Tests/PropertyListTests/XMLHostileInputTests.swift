#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import PropertyList
import TestSupport
import Testing

/// Hostile XML is refused with an error: no entity can expand, no file is fetched, nesting and
/// sizes are bounded, and no prefix or corruption of a real file crashes the reader.
@Suite("Hostile XML")
struct XMLHostileInputTests {
    static func error(_ bytes: [UInt8], options: XMLPlistReader.Options = .init()) -> ArchiveError? {
        do {
            let value = try XMLPlistReader(options: options).read(bytes)
            Issue.record("expected an error, read \(value.plistJSON.prefix(200))")
            return nil
        } catch {
            return error
        }
    }

    static func error(_ text: String, options: XMLPlistReader.Options = .init()) -> ArchiveError? {
        error(Array(text.utf8), options: options)
    }

    @Test("An internal DTD subset is refused before any entity in it is declared, nested expansion or not")
    func internalSubset() throws {
        var laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            laughs += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level == 1 ? "" : String(level - 1));", count: 10) + "\">\n"
        }
        laughs += "]>\n<plist><string>&lol9;</string></plist>\n"
        let error = try #require(Self.error(laughs))
        #expect(error.code == .invalidXML && error.line == 2 && error.column == 17, "\(error)")
        #expect(error.reason.contains("internal subset"), "\(error)")
    }

    @Test("An external entity is never read: its declaration is refused, and a reference to one undeclared fails")
    func externalEntity() throws {
        let declared = "<!DOCTYPE plist [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]><plist><string>&xxe;</string></plist>"
        #expect(Self.error(declared)?.code == .invalidXML)
        // A DOCTYPE that names an external DTD is read (as Apple's own line is) but never fetched,
        // so nothing it could declare exists.
        let external = "<!DOCTYPE plist SYSTEM \"http://example.invalid/evil.dtd\"><plist><string>&xxe;</string></plist>"
        let error = try #require(Self.error(external))
        #expect(error.code == .invalidXML && error.reason.contains("&xxe; is not one of the five"), "\(error)")
        #expect(try XMLPlistReader().read(Array("<!DOCTYPE plist SYSTEM \"http://example.invalid/evil.dtd\"><plist><true/></plist>".utf8)) == true)
    }

    @Test("100,000 nested arrays fail with .depthLimit at depth 513, on a small stack too, and with no depth limit on a small stack")
    func deepNesting() throws {
        let deep = "<plist>" + String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000) + "</plist>"
        let error = try #require(Self.error(deep))
        #expect(error.code == .depthLimit && error.byteOffset == 7 + 512 * 7, "\(error)")
        let onSmallStack = try onThread(stackSize: 256 << 10) { Self.error(deep) }
        #expect(onSmallStack?.code == .depthLimit, "\(String(describing: onSmallStack))")
        var unlimited = XMLPlistReader.Options()
        unlimited.maximumDepth = .max
        let guarded = try onThread(stackSize: 256 << 10) { Self.error(deep, options: unlimited) }
        #expect(guarded?.code == .depthLimit && guarded?.reason.contains("stack") == true, "\(String(describing: guarded))")
        // Dictionaries too.
        let dicts = "<plist>" + String(repeating: "<dict><key>k</key>", count: 600) + "<true/>" + String(repeating: "</dict>", count: 600) + "</plist>"
        #expect(Self.error(dicts)?.code == .depthLimit)
    }

    @Test("Input larger than maximumArchiveSize is refused before a byte of it is read")
    func oversizedInput() throws {
        // 1 GiB + 1 of address space nobody may touch: reading any byte of it would crash the test.
        let size = (1 << 30) + 1
        guard let mapping = mmap(nil, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0), mapping != MAP_FAILED else {
            Issue.record("could not reserve 1 GiB of address space")
            return
        }
        defer { munmap(mapping, size) }
        #expect(throws: ArchiveError(.sizeLimit, reason: "")) {
            try XMLPlistReader().read(UnsafeRawBufferPointer(start: mapping, count: size))
        }
    }

    @Test("A base64 run far past maximumDataLength stops decoding where it passes the limit")
    func hugeBase64() throws {
        var options = XMLPlistReader.Options()
        options.maximumDataLength = 1 << 20
        let prefix = Array("<plist><data>".utf8)
        // 64 MiB of base64 would decode to 48 MiB.
        var bytes = prefix + [UInt8](repeating: UInt8(ascii: "A"), count: 64 << 20)
        bytes += Array("</data></plist>".utf8)
        let error = try #require(Self.error(bytes, options: options))
        #expect(error.code == .sizeLimit, "\(error)")
        // Stopped after 1 MiB of output, at the 4/3 MiB of text that makes it.
        let stop = try #require(error.byteOffset)
        #expect(stop > prefix.count + (1 << 20) && stop < prefix.count + (1 << 20) * 4 / 3 + 8, "\(error)")
    }

    @Test("An integer of 100 digits is refused, as is one of 21 digits just past 2^64")
    func longIntegers() throws {
        #expect(Self.error("<plist><integer>" + String(repeating: "9", count: 100) + "</integer></plist>")?.code == .invalidXML)
        #expect(Self.error("<plist><integer>-" + String(repeating: "1", count: 100) + "</integer></plist>")?.code == .invalidXML)
        #expect(Self.error("<plist><integer>0x" + String(repeating: "F", count: 17) + "</integer></plist>")?.code == .invalidXML)
        // Leading zeros are digits of the same number.
        #expect(try XMLPlistReader().read(Array(("<plist><integer>" + String(repeating: "0", count: 100) + "1</integer></plist>").utf8)) == 1)
    }

    @Test("A lone surrogate by reference is refused, decimal or hex, in a string or a key")
    func loneSurrogates() {
        for reference in ["&#xD800;", "&#xDFFF;", "&#55296;", "&#xdbff;"] {
            #expect(Self.error("<plist><string>\(reference)</string></plist>")?.code == .invalidString, "\(reference)")
            #expect(Self.error("<plist><dict><key>\(reference)</key><true/></dict></plist>")?.code == .invalidString, "\(reference)")
        }
    }

    /// Our own XML files (always present): Foundation's values and keyed archive.
    static let smallFiles = ["foundation-values.plist", "foundation-keyed-archive.plist", "plistlib-values.plist"]

    @Test("Every prefix of a real file fails with an error until </plist> is complete", arguments: smallFiles)
    func truncationAtEveryByte(name: String) throws {
        let bytes = try Fixtures.bytes(at: Fixtures.own("xml/\(name)"))
        #expect(bytes.suffix(9) == Array("</plist>\n".utf8))
        let closing = bytes.count - 1
        var codes: [String: Int] = [:]
        for length in 0..<closing {
            do {
                _ = try XMLPlistReader().read(bytes[0..<length])
                Issue.record("\(name): the first \(length) bytes read as a property list")
            } catch {
                codes[error.code.description, default: 0] += 1
            }
        }
        #expect(try XMLPlistReader().read(bytes[0..<closing]) == XMLPlistReader().read(bytes))
        #expect(codes["truncated", default: 0] > closing / 2, "\(codes)")
        #expect(Set(codes.keys).isSubset(of: ["truncated", "invalidXML", "invalidString", "notPropertyList", "invalidKey"]), "\(codes)")
    }

    @Test("Every byte of a real file replaced by each of < > & / = \" 0x00 0xFF reads or fails cleanly", arguments: smallFiles)
    func corruptionAtEveryByte(name: String) throws {
        let bytes = try Fixtures.bytes(at: Fixtures.own("xml/\(name)"))
        var failures = 0
        for position in bytes.indices {
            for replacement in Array("<>&/=\"".utf8) + [0x00, 0xFF] where bytes[position] != replacement {
                var corrupt = bytes
                corrupt[position] = replacement
                do { _ = try XMLPlistReader().read(corrupt) } catch { failures += 1 }
            }
        }
        #expect(failures > bytes.count, "\(failures) of \(bytes.count * 8) corruptions were refused")
    }
}
