import Foundation
import PropertyList
import TestSupport
import Testing

/// ``XMLPlistReader`` reads what Apple's and Python's writers write, and refuses anything else
/// with the line and column of the problem.
@Suite("XML reader")
struct XMLPlistReaderTests {
    static func read(_ text: String, options: XMLPlistReader.Options = .init()) throws(ArchiveError) -> PlistValue {
        try XMLPlistReader(options: options).read(Array(text.utf8))
    }

    static func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(body)
        </plist>

        """
    }

    static func error(_ text: String, options: XMLPlistReader.Options = .init()) -> ArchiveError? {
        do {
            let value = try read(text, options: options)
            Issue.record("expected an error, read \(value.plistJSON.prefix(200))")
            return nil
        } catch {
            return error
        }
    }

    @Test("Each element reads as its value", arguments: [
        ("<string>plain</string>", PlistValue.string("plain")),
        ("<string/>", ""),
        ("<string></string>", ""),
        ("<key-less-string>x</key-less-string>", nil),
        ("<integer>42</integer>", 42),
        ("<integer> -17 </integer>", -17),
        ("<integer>+5</integer>", 5),
        ("<integer>007</integer>", 7),
        ("<integer>0x1F</integer>", 31),
        ("<integer>-0X10</integer>", -16),
        ("<integer>0xFFFFFFFFFFFFFFFF</integer>", .uint(.max)),
        ("<integer>18446744073709551615</integer>", .uint(.max)),
        ("<integer>9223372036854775807</integer>", .int(.max)),
        ("<integer>9223372036854775808</integer>", .uint(1 << 63)),
        ("<integer>-9223372036854775808</integer>", .int(.min)),
        ("<integer>-0</integer>", 0),
        ("<real>0.5</real>", 0.5),
        ("<real>-1.5e3</real>", -1500.0),
        ("<real>1E+300</real>", 1e300),
        ("<real>.5</real>", 0.5),
        ("<real>5.</real>", 5.0),
        ("<real>60</real>", 60.0),
        ("<real>nan</real>", .real(.nan)),
        ("<real>NaN</real>", .real(.nan)),
        ("<real>inf</real>", .real(.infinity)),
        ("<real>-inf</real>", .real(-.infinity)),
        ("<real>+infinity</real>", .real(.infinity)),
        ("<real>-infinity</real>", .real(-.infinity)),
        ("<real>-0.0</real>", .real(-0.0)),
        ("<true/>", true),
        ("<false/>", false),
        ("<true></true>", true),
        ("<false> </false>", false),
        ("<date>2001-01-01T00:00:00Z</date>", .date(0)),
        ("<date>2004-10-26T10:33:33Z</date>", .date(120_479_613)),
        ("<date>1970-01-01T00:00:00Z</date>", .date(-978_307_200)),
        ("<date>0001-01-01T00:00:00Z</date>", .date(-63_113_904_000)),
        ("<date>2000-02-29T23:59:59Z</date>", .date(-26_438_401)),
        ("<data>AAECAw==</data>", .data([0, 1, 2, 3])),
        ("<data>\n\tAAEC\n\tAw==\n\t</data>", .data([0, 1, 2, 3])),
        ("<data>AAECAw</data>", .data([0, 1, 2, 3])),
        ("<data>AAE=</data>", .data([0, 1])),
        ("<data/>", .data([])),
        ("<data>\n</data>", .data([])),
        ("<array/>", []),
        ("<array></array>", []),
        ("<array><integer>1</integer><string>a</string></array>", [1, "a"]),
        ("<dict/>", .dict([:])),
        ("<dict><key>a</key><integer>1</integer><key>b</key><array/></dict>", ["a": 1, "b": []]),
        ("<dict><key/><string>empty key</string></dict>", ["": "empty key"]),
    ] as [(String, PlistValue?)])
    func elementReads(body: String, expected: PlistValue?) throws {
        guard let expected else {
            #expect(Self.error(Self.plist(body))?.code == .invalidXML)
            return
        }
        #expect(try Self.read(Self.plist(body)) == expected, "\(body)")
    }

    @Test("Text holds the five entities, character references, CDATA, comments and processing instructions")
    func textForms() throws {
        // &#X43; is not a reference (XML's x is lower case): refused.
        #expect(Self.error(Self.plist("<string>&#X43;</string>"))?.code == .invalidXML)
        let accepted = "<string>&lt;&gt;&amp;&quot;&apos; &#65;&#x42; &#x1F600; <![CDATA[<raw> & ]]]]><!-- dropped --><?pi dropped?>end</string>"
        #expect(try Self.read(Self.plist(accepted)) == "<>&\"' AB 😀 <raw> & ]]end")
        #expect(try Self.read(Self.plist("<dict><key>a&amp;b</key><true/></dict>")) == ["a&b": true])
        #expect(try Self.read(Self.plist("<string>tab\tline\nfeed\u{1}raw\u{0}</string>")) == "tab\tline\nfeed\u{1}raw\u{0}")
    }

    @Test("Prologs read: no declaration, no DOCTYPE, a byte-order mark, SYSTEM ids, comments and PIs around the root")
    func prologs() throws {
        #expect(try Self.read("<plist><string>x</string></plist>") == "x")
        #expect(try Self.read("<plist version=\"1.0\"><integer>1</integer></plist>") == 1)
        #expect(try XMLPlistReader().read([0xEF, 0xBB, 0xBF] + Array("<plist><true/></plist>".utf8)) == true)
        #expect(try Self.read("<?xml version='1.0' encoding='utf-8' standalone='yes'?>\n<!DOCTYPE plist SYSTEM \"file:///nowhere.dtd\">\n<plist version='1.0'>\n<false/>\n</plist>") == false)
        #expect(try Self.read("<!-- before --><?pi x?>\n<plist>\n<!-- inside --><string>a</string><!-- after --></plist>\n<!-- trailing -->\n\n") == "a")
        #expect(try Self.read("<?xml version=\"1.0\"?><!DOCTYPE plist><plist><array/></plist>") == [])
    }

    @Test("A one-entry CF$UID dictionary with an integer below 2^32 is a UID; any other is a dictionary")
    func uidDictionaries() throws {
        #expect(try Self.read(Self.plist("<dict><key>CF$UID</key><integer>7</integer></dict>")) == .uid(7))
        #expect(try Self.read(Self.plist("<dict><key>CF$UID</key><integer>4294967295</integer></dict>")) == .uid(4_294_967_295))
        #expect(try Self.read(Self.plist("<dict><key>CF$UID</key><integer>4294967296</integer></dict>")) == ["CF$UID": 4_294_967_296])
        #expect(try Self.read(Self.plist("<dict><key>CF$UID</key><integer>-1</integer></dict>")) == ["CF$UID": -1])
        #expect(try Self.read(Self.plist("<dict><key>CF$UID</key><string>7</string></dict>")) == ["CF$UID": "7"])
        #expect(try Self.read(Self.plist("<dict><key>CF$UID</key><integer>7</integer><key>x</key><true/></dict>")) == ["CF$UID": 7, "x": true])
        #expect(try XMLPlistWriter().write(.uid(7)) == Array(Self.plist("<dict>\n\t<key>CF$UID</key>\n\t<integer>7</integer>\n</dict>").utf8))
    }

    @Test("Malformed documents fail with a code, a reason, the line and the column", arguments: [
        // (document, code, line, column, words in the reason)
        ("", ArchiveError.Code.notPropertyList, 1, 1, "empty"),
        ("hello", .notPropertyList, 1, 1, "not an XML property list"),
        ("<html></html>", .invalidXML, 1, 1, "root element is not <plist>"),
        ("<plist>\n  <strin>x</strin>\n</plist>", .invalidXML, 2, 3, "<strin> is not an element"),
        ("<plist>\n<string>x</string>\n<string>y</string>\n</plist>", .invalidXML, 3, 1, "more than one value"),
        ("<plist></plist>", .invalidXML, 1, 8, "empty"),
        ("<plist/>", .invalidXML, 1, 1, "empty"),
        ("<plist><array><true/></dict></plist>", .invalidXML, 1, 22, "</dict> closes the <array> opened at line 1, column 8"),
        ("<plist><array><true/>", .truncated, 1, 22, "<array> opened at line 1, column 8 is closed"),
        ("<plist><true/></plist>junk", .invalidXML, 1, 23, "more after </plist>"),
        ("<plist><true/></plist><plist/>", .invalidXML, 1, 23, "more after </plist>"),
        ("<plist><dict><key>a</key><true/><key>a</key><false/></dict></plist>", .invalidKey, 1, 33, "the key \"a\" twice"),
        ("<plist><dict><key>a</key></dict></plist>", .invalidKey, 1, 14, "no value before </dict>"),
        ("<plist><dict><key>a</key><key>b</key><true/></dict></plist>", .invalidKey, 1, 14, "another <key> follows"),
        ("<plist><dict><true/></dict></plist>", .invalidXML, 1, 14, "where a <key> is expected"),
        ("<plist><key>a</key></plist>", .invalidXML, 1, 8, "a <key> stands where a value is expected"),
        ("<plist><array>text</array></plist>", .invalidXML, 1, 15, "text stands inside <array>"),
        ("<plist><string>a<b/></string></plist>", .invalidXML, 1, 17, "an element stands inside <string>"),
        ("<plist><string a=\"1\">x</string></plist>", .invalidXML, 1, 16, "has attributes"),
        ("<plist><string>&nbsp;</string></plist>", .invalidXML, 1, 16, "&nbsp; is not one of the five"),
        ("<plist><string>a & b</string></plist>", .invalidXML, 1, 18, "does not start a reference"),
        ("<plist><string>&#xD800;</string></plist>", .invalidString, 1, 16, "names no Unicode scalar"),
        ("<plist><string>&#x110000;</string></plist>", .invalidString, 1, 16, "names no Unicode scalar"),
        ("<plist><string>&#0;</string></plist>", .invalidString, 1, 16, "names no Unicode scalar"),
        ("<plist><string>&#xZ;</string></plist>", .invalidXML, 1, 16, "malformed"),
        ("<plist><integer></integer></plist>", .invalidXML, 1, 17, "no digits"),
        ("<plist><integer/></plist>", .invalidXML, 1, 8, "empty"),
        ("<plist><integer>12a</integer></plist>", .invalidXML, 1, 17, "\"a\", not a digit"),
        ("<plist><integer>18446744073709551616</integer></plist>", .invalidXML, 1, 17, "outside the range"),
        ("<plist><integer>-9223372036854775809</integer></plist>", .invalidXML, 1, 17, "below −2^63"),
        ("<plist><real>1.2.3</real></plist>", .invalidXML, 1, 14, "not a number"),
        ("<plist><real>0x1p3</real></plist>", .invalidXML, 1, 14, "not a number"),
        ("<plist><real>e5</real></plist>", .invalidXML, 1, 14, "not a number"),
        ("<plist><date>2001-02-29T00:00:00Z</date></plist>", .invalidXML, 1, 14, "not a date"),
        ("<plist><date>2001-01-01 00:00:00Z</date></plist>", .invalidXML, 1, 14, "not a date"),
        ("<plist><date>2001-01-01T24:00:00Z</date></plist>", .invalidXML, 1, 14, "not a date"),
        ("<plist><date>2001-01-01</date></plist>", .invalidXML, 1, 14, "not a date"),
        ("<plist><data>AA=A</data></plist>", .invalidXML, 1, 17, "after its = padding"),
        ("<plist><data>A</data></plist>", .invalidXML, 1, 14, "lone base64 character"),
        ("<plist><data>AA*A</data></plist>", .invalidXML, 1, 16, "\"*\", which is not base64"),
        ("<plist><data>=</data></plist>", .invalidXML, 1, 14, "misplaced = padding"),
        ("<plist><!-- a -- b --><true/></plist>", .invalidXML, 1, 15, "holds --"),
        ("<plist><!-- open <true/></plist>", .truncated, 1, 8, "comment is not closed"),
        ("<plist><string><![CDATA[x</string></plist>", .truncated, 1, 16, "CDATA section is not closed"),
        ("<plist><true/><?xml version=\"1.0\"?></plist>", .invalidXML, 1, 15, "XML declaration stands after"),
        ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist/>", .notPropertyList, 1, 1, "encoding \"iso-8859-1\""),
        ("<!DOCTYPE html><plist><true/></plist>", .invalidXML, 1, 11, "names \"html\", not plist"),
        ("<plist>\r\n<array>\r\n\t<tru/>", .invalidXML, 3, 2, "<tru> is not an element"),
        ("<plist>\n<string>é</string>\n<string>日本</string>x", .invalidXML, 3, 1, "more than one value"),
        ("<plist><string>日本語<b/></string></plist>", .invalidXML, 1, 19, "element stands inside"),
    ] as [(String, ArchiveError.Code, Int, Int, String)])
    func malformed(text: String, code: ArchiveError.Code, line: Int, column: Int, reason: String) {
        guard let error = Self.error(text) else { return }
        #expect(error.code == code, "\(error)")
        #expect(error.line == line && error.column == column, "\(error)")
        #expect(error.reason.contains(reason), "\(error)")
        #expect(error.byteOffset != nil && error.description.contains("line \(line), column \(column)"), "\(error)")
    }

    @Test("Invalid UTF-8 is refused where it stands: in a string, a key, a comment, a DOCTYPE id", arguments: [
        ("<plist><string>ab\u{FF}</string></plist>", 17),
        ("<plist><dict><key>\u{C3}(</key><true/></dict></plist>", 18),
        ("<plist><string>&amp;\u{ED}\u{A0}\u{80}</string></plist>", 15),
        ("<plist><!-- \u{F8} --><true/></plist>", 12),
        ("<!DOCTYPE plist SYSTEM \"\u{C0}\u{80}\"><plist><true/></plist>", 24),
        ("<plist><string>\u{F4}\u{90}\u{80}\u{80}</string></plist>", 15),
    ])
    func invalidUTF8(text: String, offset: Int) throws {
        // Build the bytes by hand: each \u{XX} of the template below 0x100 stands for one raw byte.
        let bytes = text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        do {
            let value = try XMLPlistReader().read(bytes)
            Issue.record("read \(value)")
        } catch {
            #expect(error.code == .invalidString, "\(error)")
            #expect(error.byteOffset == offset, "\(error)")
        }
    }

    @Test("UTF-16 documents are refused by name")
    func utf16() {
        let utf16: [UInt8] = [0xFE, 0xFF] + Array("<plist/>".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(PlistFormat(of: utf16) == .xml)
        #expect(throws: ArchiveError(.notPropertyList, reason: "")) { try XMLPlistReader().read(utf16) }
        do { _ = try XMLPlistReader().read(utf16) } catch { #expect(error.reason.contains("UTF-16")) }
    }

    @Test("Limits: depth, value count, string and data length, input size, each with .depthLimit or .sizeLimit")
    func limits() throws {
        var options = XMLPlistReader.Options()
        options.maximumDepth = 3
        #expect(try Self.read(Self.plist("<array><array><array/></array></array>"), options: options) == [[[]]])
        #expect(Self.error(Self.plist("<array><array><array><array/></array></array></array>"), options: options)?.code == .depthLimit)
        options = .init()
        options.maximumObjectCount = 3
        #expect(try Self.read(Self.plist("<array><true/><true/></array>"), options: options) == [true, true])
        #expect(Self.error(Self.plist("<array><true/><true/><true/></array>"), options: options)?.code == .sizeLimit)
        options = .init()
        options.maximumStringLength = 4
        #expect(try Self.read(Self.plist("<string>abcd</string>"), options: options) == "abcd")
        #expect(Self.error(Self.plist("<string>abcde</string>"), options: options)?.code == .sizeLimit)
        #expect(Self.error(Self.plist("<dict><key>abcde</key><true/></dict>"), options: options)?.code == .sizeLimit)
        options = .init()
        options.maximumDataLength = 4
        #expect(try Self.read(Self.plist("<data>AAECAw==</data>"), options: options) == .data([0, 1, 2, 3]))
        #expect(Self.error(Self.plist("<data>AAECAwQ=</data>"), options: options)?.code == .sizeLimit)
        options = .init()
        options.maximumArchiveSize = 20
        #expect(Self.error(Self.plist("<true/>"), options: options)?.code == .sizeLimit)
    }

    @Test("PlistReader finds the format by content and reads both; anything else is .notPropertyList")
    func bothFormats() throws {
        let value: PlistValue = ["name": "Ann", "uid": .uid(3), "list": [1, 2.5, true]]
        let binary = try value.bytes(format: .binary)
        let xml = try value.bytes(format: .xml)
        #expect(PlistFormat(of: binary) == .binary && PlistFormat(of: xml) == .xml)
        #expect(PlistFormat(of: Array("  \n<plist/>".utf8)) == .xml)
        #expect(PlistFormat(of: Array("{\"a\": 1}".utf8)) == nil)
        #expect(PlistFormat(of: [UInt8]()) == nil)
        #expect(try PlistReader().readWithFormat(binary) == (value, .binary))
        #expect(try PlistReader().readWithFormat(Data(xml)) == (value, .xml))
        #expect(throws: ArchiveError(.notPropertyList, reason: "")) { try PlistReader().read(Array("{\"a\": 1}".utf8)) }
        #expect(PlistFormat.binary.description == "binary1" && PlistFormat.xml.description == "xml1")
        var xmlOptions = XMLPlistReader.Options()
        xmlOptions.maximumDepth = 0
        #expect(throws: ArchiveError(.depthLimit, reason: "")) { try PlistReader(xmlOptions: xmlOptions).read(xml) }
        #expect(try PlistReader(xmlOptions: xmlOptions).read(binary) == value)
    }
}
