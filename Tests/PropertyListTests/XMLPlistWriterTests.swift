import Foundation
import PropertyList
import TestSupport
import Testing

/// ``XMLPlistWriter`` lays files out as Apple's writer does, keeps what Apple's would lose, and
/// refuses what XML cannot hold.
@Suite("XML writer")
struct XMLPlistWriterTests {
    static func text(_ value: PlistValue, options: XMLPlistWriter.Options = .init()) throws -> String {
        String(decoding: try XMLPlistWriter(options: options).write(value), as: UTF8.self)
    }

    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    @Test("Every kind is laid out as CoreFoundation lays it out")
    func layout() throws {
        let value: PlistValue = [
            "b": true, "a": false, "int": -5, "big": .uint(.max), "real": 0.1, "whole": 60.0, "nan": .real(.nan),
            "inf": .real(.infinity), "-inf": .real(-.infinity), "zero": 0.0, "tiny": .real(.leastNonzeroMagnitude),
            "date": .date(-0.3), "text": "a<b>&c\"'", "empty": [], "none": .dict([:]), "uid": .uid(7),
            "data": .data(Array(0..<60)), "list": [.data([]), [1]],
        ]
        #expect(try Self.text(value) == Self.header + """
            <dict>
            \t<key>-inf</key>
            \t<real>-infinity</real>
            \t<key>a</key>
            \t<false/>
            \t<key>b</key>
            \t<true/>
            \t<key>big</key>
            \t<integer>18446744073709551615</integer>
            \t<key>data</key>
            \t<data>
            \tAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEy
            \tMzQ1Njc4OTo7
            \t</data>
            \t<key>date</key>
            \t<date>2000-12-31T23:59:59Z</date>
            \t<key>empty</key>
            \t<array/>
            \t<key>inf</key>
            \t<real>+infinity</real>
            \t<key>int</key>
            \t<integer>-5</integer>
            \t<key>list</key>
            \t<array>
            \t\t<data>
            \t\t</data>
            \t\t<array>
            \t\t\t<integer>1</integer>
            \t\t</array>
            \t</array>
            \t<key>nan</key>
            \t<real>nan</real>
            \t<key>none</key>
            \t<dict/>
            \t<key>real</key>
            \t<real>0.10000000000000001</real>
            \t<key>text</key>
            \t<string>a&lt;b&gt;&amp;c"'</string>
            \t<key>tiny</key>
            \t<real>4.9406564584124654e-324</real>
            \t<key>uid</key>
            \t<dict>
            \t\t<key>CF$UID</key>
            \t\t<integer>7</integer>
            \t</dict>
            \t<key>whole</key>
            \t<real>60</real>
            \t<key>zero</key>
            \t<real>0.0</real>
            </dict>
            </plist>

            """)
    }

    @Test("Base64 lines are 76 columns minus the indentation, counting a tab as 8, and never under 16")
    func base64LineWidths() throws {
        var value: PlistValue = .data(Array(repeating: 0xAB, count: 100))
        for _ in 0..<9 { value = [value] }
        let lines = try Self.text(value).split(separator: "\n")
        let dataLines = lines.filter { $0.hasPrefix("\t\t\t\t\t\t\t\t\t") && !$0.contains("<") }
        #expect(dataLines.first?.count == 9 + 16, "9 tabs put the line past 76 columns, so lines hold 16 characters")
        #expect(try Self.text(.data(Array(repeating: 1, count: 57))).contains("\n" + String(repeating: "A", count: 0)))
        let top = try Self.text(.data(Array(repeating: 0, count: 58))).split(separator: "\n")
        #expect(top[4].count == 76 && top[5] == "AA==", "\(top)")
    }

    @Test("Keys are sorted by UTF-16 code units as Apple sorts them, or kept in order on request")
    func keyOrder() throws {
        let value: PlistValue = ["b": 1, "B": 2, "\u{FFFF}": 3, "😀": 4, "a": 5, "é": 6]
        let keys = { (text: String) in text.split(separator: "\n").filter { $0.contains("<key>") }.map { $0.replacingOccurrences(of: "\t", with: "") } }
        #expect(keys(try Self.text(value)) == ["<key>B</key>", "<key>a</key>", "<key>b</key>", "<key>é</key>", "<key>😀</key>", "<key>\u{FFFF}</key>"])
        var options = XMLPlistWriter.Options()
        options.sortsKeys = false
        #expect(keys(try Self.text(value, options: options)) == ["<key>b</key>", "<key>B</key>", "<key>\u{FFFF}</key>", "<key>😀</key>", "<key>a</key>", "<key>é</key>"])
    }

    @Test("What Apple's writer would lose is kept: -0.0, and a carriage return as &#13;")
    func keepsWhatAppleLoses() throws {
        let text = try Self.text(["zero": .real(-0.0), "cr": "a\r\nb"])
        #expect(text.contains("<real>-0.0</real>"))
        #expect(text.contains("<string>a&#13;\nb</string>"))
        let back = try XMLPlistReader().read(try XMLPlistWriter().write(["zero": .real(-0.0), "cr": "a\r\nb"]))
        #expect(back == ["zero": .real(-0.0), "cr": "a\r\nb"])
    }

    @Test("What XML cannot hold is changed as every writer changes it: 4-byte reals widen, dates keep whole seconds")
    func lossyKinds() throws {
        #expect(try Self.text(.float(0.1)).contains("<real>0.10000000149011612</real>"))
        #expect(try XMLPlistReader().read(try XMLPlistWriter().write(.float(0.1))) == .real(Double(Float(0.1))))
        #expect(try Self.text(.date(0.999)).contains("<date>2001-01-01T00:00:00Z</date>"))
        #expect(try Self.text(.date(-63_113_904_000)).contains("<date>0001-01-01T00:00:00Z</date>"))
        #expect(try Self.text(.date(252_423_993_599.5)).contains("<date>9999-12-31T23:59:59Z</date>"))
        #expect(try Self.text(.date(120_479_613)).contains("<date>2004-10-26T10:33:33Z</date>"))
    }

    @Test("What XML cannot hold at all is refused with .unencodable and its key path", arguments: [
        (PlistValue.dict(["a": .array([.null])]), "root.a[0]"),
        (.dict(["s": .set([1])]), "root.s"),
        (.array([.uid(1 << 32)]), "root[0]"),
        (.dict(["d": .date(.nan)]), "root.d"),
        (.dict(["d": .date(.infinity)]), "root.d"),
        (.dict(["d": .date(252_423_993_600)]), "root.d"),
        (.dict(["d": .date(-63_113_904_000.5)]), "root.d"),
    ])
    func refusesWhatXMLCannotHold(value: PlistValue, path: String) {
        #expect {
            _ = try XMLPlistWriter().write(value)
        } throws: { error in
            (error as? ArchiveError)?.code == .unencodable && (error as? ArchiveError)?.keyPath == path
        }
    }

    @Test("Random values are written deterministically and read back as XML holds them")
    func randomRoundTrips() throws {
        for i in 0..<2_000 {
            let seed = 0x0C0F_FEE0_0000 &+ UInt64(i)
            var rng = SplitMix64(seed: seed)
            let value = RandomPlist.value(using: &rng).xmlRepresentable
            let bytes = try XMLPlistWriter().write(value)
            #expect(try XMLPlistWriter().write(value) == bytes, "seed \(seed)")
            let back = try XMLPlistReader().read(bytes)
            #expect(back == value, "seed \(seed): \(value.plistJSON.prefix(300))")
            // Through binary and back: the same value, and the same XML.
            let binary = try BPlistWriter().write(back)
            #expect(try XMLPlistWriter().write(try BPlistReader().read(binary)) == bytes, "seed \(seed)")
        }
    }

    @Test("Foundation's PropertyListSerialization writes the same bytes for 300 random values")
    func matchesFoundationByteForByte() throws {
        var compared = 0
        for i in 0..<400 where compared < 300 {
            let seed = 0x0F0D_0000 &+ UInt64(i)
            var rng = SplitMix64(seed: seed)
            // Apple's writer writes -0.0 as 0.0 and a carriage return raw; ours keeps both.
            let value = RandomPlist.value(using: &rng).xmlRepresentable.mapScalars { scalar in
                switch scalar {
                case .real(let v) where v == 0: .real(0)
                case .string(let s): .string(s.carriageReturnsAsLineFeeds)
                default: scalar
                }
            }.withoutCarriageReturnKeys
            // Foundation's dictionaries merge keys that are canonically equal ("é", "e\u{301}").
            guard !value.hasCanonicallyEqualKeys else { continue }
            compared += 1
            let ours = try XMLPlistWriter().write(value)
            let theirs = try PropertyListSerialization.data(fromPropertyList: value.foundationObject, format: .xml, options: 0)
            #expect(ours == [UInt8](theirs), "seed \(seed): \(value.plistJSON.prefix(300))")
            if ours != [UInt8](theirs) { break }
        }
        #expect(compared == 300)
    }
}

extension PlistValue {
    /// Dictionary keys with carriage returns made line feeds.
    fileprivate var withoutCarriageReturnKeys: PlistValue {
        switch self {
        case .array(let elements): return .array(elements.map(\.withoutCarriageReturnKeys))
        case .dict(let dict):
            var result = PlistDictionary()
            for (key, value) in dict { result[key.carriageReturnsAsLineFeeds] = value.withoutCarriageReturnKeys }
            return .dict(result)
        default: return self
        }
    }
}

extension String {
    /// Every U+000D made U+000A, scalar by scalar (a carriage return before a combining mark is
    /// one `Character` with it, which a character-wise replacement would miss).
    fileprivate var carriageReturnsAsLineFeeds: String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\r" ? "\n" : $0 }))
    }
}
