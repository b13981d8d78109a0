import Foundation
import PropertyList
import TestSupport
import Testing

/// Small plists this library writes, kept byte for byte under `Fixtures/bplist/` so any change
/// to the writer's output is deliberate. `RECORD_FIXTURES=1 swift test` rewrites them.
@Suite("Golden bplist files")
struct GoldenFileTests {
    static let names = ["user-profile", "mixed-scalars", "escaped-counts", "two-byte-refs", "utf16-strings"]

    static func value(named name: String) -> PlistValue {
        switch name {
        case "user-profile":
            return [
                "id": 42,
                "name": "Ann Example",
                "email": "ann@example.com",
                "age": 34,
                "admin": false,
                "score": 97.5,
                "joined": .date(700_000_000),
                "avatar": .data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
                "tags": ["swift", "plist", "swift"],
                "address": ["street": "Bahnhofstrasse 1", "city": "Zürich", "zip": "8001"],
                "friends": [["id": 7, "name": "Bo"], ["id": 9, "name": "Cy"]],
                "settings": .dict([:]),
            ]
        case "mixed-scalars":
            return [
                .int(0), .int(255), .int(256), .int(65535), .int(65536), .int(4_294_967_295), .int(4_294_967_296),
                .int(.max), .int(-1), .int(.min), .uint(1 << 63), .uint(.max),
                .float(1.5), .float(-0.0), .float(.infinity), .real(1.5), .real(-0.0), .real(.nan), .real(-.infinity),
                .real(.leastNonzeroMagnitude), true, false, .date(0), .date(-978_307_200), "", .data([]),
                .uid(0), .uid(7), .uid(70_000), .uid(0xFFFF_FFFF), 1, 1.0, true,
            ]
        case "escaped-counts":
            // 20 elements (an escaped count), strings of 0...19 characters (escaped from 15 on).
            return .array((0..<20).map { .string(String("abcdefghijklmnopqrst".prefix($0))) })
        case "two-byte-refs":
            // 1 dict + 150 keys + 150 distinct values = 301 objects: 2-byte references.
            return .dict(PlistDictionary(uniqueKeysWithValues: (0..<150).map { i in
                (String(format: "k%03d", i), PlistValue.int(Int64(i) * 1000))
            }))
        case "utf16-strings":
            // A set of UTF-16 strings, written as an array: the writer refuses `.set` in bplist00.
            return [
                "é", "e\u{301}", "😀", "日本語", "Zürich", "ΑΒΓ", "a😀b", "ééééééééééééééé", "\u{FFFF}", "ascii",
                "👍🏽", "é",
            ]
        default:
            fatalError("unknown golden value \(name)")
        }
    }

    @Test("The writer reproduces each golden file byte for byte, and it reads back as the value", arguments: names)
    func writerReproducesGoldenFile(name: String) throws {
        let value = Self.value(named: name)
        let written = try BPlistWriter().write(value)
        expectGoldenFile(written, at: Fixtures.own("bplist/\(name).bplist"))
        expectGoldenFile(text: value.plistJSON, at: Fixtures.own("bplist/\(name).json"))

        let golden = try Fixtures.bytes(at: Fixtures.own("bplist/\(name).bplist"))
        #expect(try BPlistReader().read(golden) == value)
        let json = try PlistValue(plistJSON: try Fixtures.text(at: Fixtures.own("bplist/\(name).json")))
        #expect(json == value.canonicalNaNs)
    }

    @Test("Golden files have the shapes they were made for")
    func goldenFileShapes() throws {
        func trailer(_ name: String) throws -> (offsetSize: UInt8, refSize: UInt8, objects: UInt64) {
            // From the writer, not the file, so this also holds while RECORD_FIXTURES=1 rewrites the files.
            let bytes = try BPlistWriter().write(Self.value(named: name))
            let t = bytes.count - 32
            let count = bytes[(t + 8)..<(t + 16)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return (bytes[t + 6], bytes[t + 7], count)
        }
        #expect(try trailer("two-byte-refs").refSize == 2)
        #expect(try trailer("two-byte-refs").objects == 301)
        #expect(try trailer("escaped-counts").refSize == 1)
        let escaped = try BPlistWriter().write(Self.value(named: "escaped-counts"))
        #expect(Array(escaped[8..<11]) == [0xAF, 0x10, 20])
        // 33 elements; the final 1 and 1.0 are new objects (no earlier Int 1 or Double 1.0), the final
        // true is the earlier one: root + 32 distinct scalars = 33 objects.
        #expect(Self.value(named: "mixed-scalars").arrayValue?.count == 33)
        #expect(try trailer("mixed-scalars").objects == 33)
        #expect(try trailer("utf16-strings").objects == 12)  // the second "é" is the first one
    }
}
