import PropertyList
import TestSupport
import Testing

private typealias A = BPlistAssembler

/// The writer's bytes follow DESIGN §3 to the letter: root first, pre-order, minimal widths,
/// escaped counts from 15, the integer/real/string encodings, and uniquing by exact type and value.
@Suite("BPlistWriter layout")
struct WriterLayoutTests {
    /// A file whose only object is `object` (1-byte offsets and references, top 0).
    static func single(_ object: String) -> [UInt8] { A.assemble([bytes(object)]) }

    @Test("A root integer is the whole file, byte for byte")
    func wholeFileForOneInteger() {
        expectRoundTrip(
            .int(1),
            expectedBytes: bytes(
                """
                62 70 6C 69 73 74 30 30  10 01  08
                00 00 00 00 00 00 01 01  00 00 00 00 00 00 00 01
                00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 0A
                """))
    }

    @Test("Integers use the smallest of 1/2/4/8 bytes, negatives 8, values above Int64.max 16 with a zero high half", arguments: [
        (PlistValue.int(0), "10 00"),
        (.int(255), "10 FF"),
        (.int(256), "11 0100"),
        (.int(65535), "11 FFFF"),
        (.int(65536), "12 00010000"),
        (.int(4_294_967_295), "12 FFFFFFFF"),
        (.int(4_294_967_296), "13 0000000100000000"),
        (.int(.max), "13 7FFFFFFFFFFFFFFF"),
        (.int(-1), "13 FFFFFFFFFFFFFFFF"),
        (.int(-256), "13 FFFFFFFFFFFFFF00"),
        (.int(.min), "13 8000000000000000"),
        (.uint(5), "10 05"),
        (.uint(UInt64(Int64.max)), "13 7FFFFFFFFFFFFFFF"),
        (.uint(1 << 63), "14 0000000000000000 8000000000000000"),
        (.uint(.max), "14 0000000000000000 FFFFFFFFFFFFFFFF"),
    ])
    func integerEncoding(value: PlistValue, object: String) {
        expectRoundTrip(value, expectedBytes: Self.single(object))
    }

    @Test("Float is a 4-byte real, Double an 8-byte real, Date 0x33; bit patterns kept", arguments: [
        (PlistValue.float(1.5), "22 3FC00000"),
        (.float(-0.0), "22 80000000"),
        (.float(.infinity), "22 7F800000"),
        (.float(.leastNonzeroMagnitude), "22 00000001"),
        (.real(1.5), "23 3FF8000000000000"),
        (.real(-0.0), "23 8000000000000000"),
        (.real(.nan), "23 7FF8000000000000"),
        (.real(-.infinity), "23 FFF0000000000000"),
        (.real(.leastNonzeroMagnitude), "23 0000000000000001"),
        (.date(0), "33 0000000000000000"),
        (.date(-978_307_200), "33 C1CD27E440000000"),
        (.bool(false), "08"),
        (.bool(true), "09"),
    ])
    func realDateAndBoolEncoding(value: PlistValue, object: String) {
        expectRoundTrip(value, expectedBytes: Self.single(object))
    }

    @Test("ASCII strings are 0x5_ bytes; anything else UTF-16BE 0x6_ counted in code units", arguments: [
        ("", "50"),
        ("abc", "53 616263"),
        ("\u{0}\u{7F}", "52 007F"),
        ("é", "61 00E9"),
        ("e\u{301}", "62 0065 0301"),
        ("😀", "62 D83D DE00"),
        ("a😀b", "64 0061 D83D DE00 0062"),
        ("abcdefghijklmn", "5E 6162636465666768696A6B6C6D6E"),
        ("abcdefghijklmno", "5F 10 0F 6162636465666768696A6B6C6D6E6F"),
        ("ééééééééééééééé", "6F 10 0F" + String(repeating: " 00E9", count: 15)),
    ])
    func stringEncoding(text: String, object: String) {
        expectRoundTrip(.string(text), expectedBytes: Self.single(object))
    }

    @Test("Data and UIDs: counts below 15 in the marker, UIDs in 1/2/4 bytes", arguments: [
        (PlistValue.data([]), "40"),
        (.data(Array(repeating: 0xAB, count: 14)), "4E" + String(repeating: " AB", count: 14)),
        (.data(Array(repeating: 0xAB, count: 15)), "4F 10 0F" + String(repeating: " AB", count: 15)),
        (.data(Array(repeating: 0xAB, count: 256)), "4F 11 0100" + String(repeating: " AB", count: 256)),
        (.uid(0), "80 00"),
        (.uid(255), "80 FF"),
        (.uid(256), "81 0100"),
        (.uid(65536), "83 00010000"),
        (.uid(0xFFFF_FFFF), "83 FFFFFFFF"),
    ])
    func dataAndUIDEncoding(value: PlistValue, object: String) {
        // 256 bytes of data push the table past byte 255: 2-byte offsets.
        let offsetSize = 8 + bytes(object).count > 255 ? 2 : 1
        expectRoundTrip(value, expectedBytes: A.assemble([bytes(object)], offsetSize: offsetSize))
    }

    @Test("Container counts: 14 in the marker, 15 escaped with a 1-byte int, 256 with a 2-byte int")
    func escapedContainerCounts() {
        func ints(_ n: Int) -> [[UInt8]] { (0..<n).map { A.int(UInt64($0)) } }
        expectRoundTrip(
            .array((0..<14).map { .int($0) }),
            expectedBytes: A.assemble([bytes("AE 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E")] + ints(14)))
        expectRoundTrip(
            .array((0..<15).map { .int($0) }),
            expectedBytes: A.assemble([bytes("AF 10 0F 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F")] + ints(15)))
        // 15 keys "a"... then the value 0 shared by all: D F, 10 0F, keys 1...15, values 16 ×15.
        let keys = (0..<15).map { String(UnicodeScalar(UInt8(ascii: "a") + UInt8($0))) }
        expectRoundTrip(
            .dict(PlistDictionary(uniqueKeysWithValues: keys.map { ($0, .int(0)) })),
            expectedBytes: A.assemble(
                [[0xDF, 0x10, 0x0F] + (1...15).map { UInt8($0) } + Array(repeating: 16, count: 15)]
                    + keys.map { A.ascii($0) } + [A.int(0)]))
        // 256 elements: the count escapes with 0x11; 257 objects need 2-byte refs.
        let big = expectRoundTrip(.array((0..<256).map { .int($0) }))
        #expect(Array(big[8..<12]) == [0xAF, 0x11, 0x01, 0x00])
        #expect(Array(big[12..<16]) == [0x00, 0x01, 0x00, 0x02])
    }

    @Test("References are 1 byte for 255 objects and 2 for 256; 2 for 65,535 and 4 for 65,536")
    func minimalReferenceWidth() throws {
        // 254 ints + the root = 255 objects: 1-byte refs. Table at 8 + 3 + 254 + 2·254 = 773: 2-byte offsets.
        expectRoundTrip(
            .array((0..<254).map { .int($0) }),
            expectedBytes: A.assemble(
                [A.array((1...254).map { UInt64($0) }, refSize: 1)] + (0..<254).map { A.int(UInt64($0)) },
                offsetSize: 2, refSize: 1))
        // 255 ints + the root = 256 objects: 2-byte refs.
        expectRoundTrip(
            .array((0..<255).map { .int($0) }),
            expectedBytes: A.assemble(
                [A.array((1...255).map { UInt64($0) }, refSize: 2)] + (0..<255).map { A.int(UInt64($0)) },
                offsetSize: 2, refSize: 2))
        for (elements, refSize) in [(65534, 2), (65535, 4)] {
            let written = expectRoundTrip(.array((0..<elements).map { .int(Int64($0)) }))
            #expect(written[written.count - 32 + 7] == UInt8(refSize), "\(elements + 1) objects")
            #expect(written[written.count - 32 + 6] == 4, "the table is past 65,535")
        }
    }

    @Test("Offsets are 1 byte while the table starts at or below 255, 2 bytes from 256, 4 bytes from 65,536")
    func minimalOffsetWidth() throws {
        // Data of n bytes with a 1-byte escaped count: the table starts at 8 + 3 + n.
        expectRoundTrip(
            .data(Array(repeating: 1, count: 244)),
            expectedBytes: A.assemble([[0x4F, 0x10, 244] + Array(repeating: 1, count: 244)], offsetSize: 1))
        expectRoundTrip(
            .data(Array(repeating: 1, count: 245)),
            expectedBytes: A.assemble([[0x4F, 0x10, 245] + Array(repeating: 1, count: 245)], offsetSize: 2))
        // With a 2-byte escaped count the table starts at 8 + 4 + n.
        for (n, width) in [(65523, 2), (65524, 4)] {
            let written = expectRoundTrip(.data(Array(repeating: 1, count: n)))
            let trailer = written.count - 32
            #expect(written[trailer + 6] == UInt8(width), "data of \(n) bytes")
            #expect(written.count == 8 + 4 + n + width + 32)
        }
    }

    @Test("Scalars are uniqued by exact type and value: [1, 1.0, true, 1] is 4 objects")
    func uniquingByTypeAndValue() {
        expectRoundTrip(
            [1, 1.0, true, 1],
            expectedBytes: bytes(
                """
                62 70 6C 69 73 74 30 30
                A4 01 02 03 01  10 01  23 3F F0 00 00 00 00 00 00  09
                08 0D 0F 18
                00 00 00 00 00 00 01 01  00 00 00 00 00 00 00 04
                00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 19
                """))
    }

    @Test("Distinct kinds and bit patterns stay distinct objects; equal ones share", arguments: [
        // (elements, total objects including the root array)
        ([PlistValue.int(5), .uint(5)], 2),  // one integer
        ([.real(0.0), .real(-0.0)], 3),
        ([.real(.nan), .real(.nan)], 2),
        ([.real(1), .float(1)], 3),
        ([.real(1), .date(1)], 3),
        ([.int(1), .uid(1)], 3),
        ([.int(1), .bool(true)], 3),
        ([.int(0), .bool(false)], 3),
        (["é", "e\u{301}"], 3),  // precomposed and decomposed: two strings
        (["a", .data([0x61])], 3),
        ([.data([1, 2]), .data([1, 2])], 2),
        ([[], []], 3),  // containers are never merged
        ([.dict([:]), .dict([:])], 3),
        ([.uint(.max), .uint(.max), .int(-1)], 3),
    ] as [([PlistValue], Int)])
    func uniquing(elements: [PlistValue], objects: Int) {
        let written = expectRoundTrip(.array(elements))
        guard written.count >= 32 else { return }
        #expect(written[written.count - 32 + 15] == UInt8(objects), "\(PlistValue.array(elements).plistJSON)")
    }

    @Test("The root is object 0; a dictionary is followed by its keys, then each value's sub-tree")
    func preOrderLayout() {
        // A dictionary literal keeps its order: "b" first.
        let value: PlistValue = ["b": 1, "a": [2, "b"]]
        expectRoundTrip(
            value,
            expectedBytes: A.assemble([
                bytes("D2 01 02 03 04"),  // 0: keys 1, 2; values 3, 4
                bytes("51 62"),  // 1: "b"
                bytes("51 61"),  // 2: "a"
                bytes("10 01"),  // 3: 1
                bytes("A2 05 01"),  // 4: [5, "b" = 1]
                bytes("10 02"),  // 5: 2
            ]))
        expectRoundTrip(
            [["k": "v"], ["k": "w"]],
            expectedBytes: A.assemble([
                bytes("A2 01 04"), bytes("D1 02 03"), bytes("51 6B"), bytes("51 76"), bytes("D1 02 05"), bytes("51 77"),
            ]))
        expectRoundTrip(["a": "a"], expectedBytes: A.assemble([bytes("D1 01 01"), bytes("51 61")]))
    }

    @Test("The same value always gives the same bytes")
    func deterministicOutput() throws {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<50 {
            let value = RandomPlist.value(using: &rng)
            let first = try BPlistWriter().write(value)
            let second = try BPlistWriter().write(value)
            #expect(first == second)
            #expect(try value.bplistBytes() == first)
        }
    }

    @Test("Null, sets and UIDs of 2^32 or more are unencodable, with the key path", arguments: [
        (PlistValue.null, "root"),
        (.set([]), "root"),
        (.uid(1 << 32), "root"),
        (.uid(.max), "root"),
        ([1, .null], "root[1]"),
        (["a": ["b": .set(["x"])]], "root.a.b"),
        (["x": [0, [.uid(1 << 32)]]], "root.x[1][0]"),
    ] as [(PlistValue, String)])
    func unencodableValues(value: PlistValue, keyPath: String) {
        #expect {
            _ = try BPlistWriter().write(value)
        } throws: { error in
            guard let error = error as? ArchiveError else { return false }
            return error.code == .unencodable && error.keyPath == keyPath && !error.reason.isEmpty
        }
    }
}
