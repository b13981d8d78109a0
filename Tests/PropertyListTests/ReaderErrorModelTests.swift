import PropertyList
import TestSupport
import Testing

private typealias A = BPlistAssembler

/// STYLE's error model, exercised with small hand-made files: every failure names its code and
/// the byte offset (and object index) where it was found.
@Suite("BPlistReader error model")
struct ReaderErrorModelTests {
    /// `"ok"` at 8 and `[obj0]` at 11 (the top object); table at 13; trailer at 15; 47 bytes.
    static let base = A.assemble([A.ascii("ok"), A.array([0])], top: 1)

    @Test("The base file reads, so each mutation below is the only fault")
    func baseFileReads() throws {
        #expect(Self.base.count == 47)
        #expect(try BPlistReader().read(Self.base) == ["ok"])
    }

    // MARK: Header and trailer

    /// A broken trailer and the trailer field the error must point at.
    struct TrailerCase: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let field: Int
        var testDescription: String { name }
    }

    static let trailerCases: [TrailerCase] = [
        .init(name: "offset width 0", bytes: A.assemble([A.ascii("ok"), A.array([0])], offsetSize: 0, top: 1), field: 6),
        .init(name: "offset width 9", bytes: A.assemble([A.ascii("ok"), A.array([0])], offsetSize: 9, top: 1), field: 6),
        .init(name: "reference width 0", bytes: A.assemble([A.ascii("ok"), [0xA0]], refSize: 0, top: 1), field: 7),
        .init(name: "reference width 9", bytes: A.assemble([A.ascii("ok"), [0xA0]], refSize: 9, top: 1), field: 7),
        .init(name: "no objects", bytes: A.assemble([A.ascii("ok"), A.array([0])], objectCount: 0, top: 0), field: 8),
        .init(name: "more objects than bytes", bytes: A.assemble([A.ascii("ok"), A.array([0])], objectCount: 48, top: 1), field: 8),
        .init(name: "object count 2^64-1", bytes: A.assemble([A.ascii("ok"), A.array([0])], objectCount: .max, top: 1), field: 8),
        .init(name: "top equal to the count", bytes: A.assemble([A.ascii("ok"), A.array([0])], top: 2), field: 16),
        .init(name: "top 2^64-1", bytes: A.assemble([A.ascii("ok"), A.array([0])], top: .max), field: 16),
        .init(name: "table in the header", bytes: A.assemble([A.ascii("ok"), A.array([0])], top: 1, tableOffset: 8), field: 24),
        .init(name: "table one byte early", bytes: A.assemble([A.ascii("ok"), A.array([0])], top: 1, tableOffset: 12), field: 24),
        .init(name: "table one byte late", bytes: A.assemble([A.ascii("ok"), A.array([0])], top: 1, tableOffset: 14), field: 24),
        .init(name: "table at the trailer", bytes: A.assemble([A.ascii("ok"), A.array([0])], top: 1, tableOffset: 15), field: 24),
        .init(name: "table offset 2^64-1", bytes: A.assemble([A.ascii("ok"), A.array([0])], top: 1, tableOffset: .max), field: 24),
        .init(
            name: "a byte between table and trailer",
            bytes: Array(base[0..<15]) + [0] + Array(base[15...]), field: 24),
        .init(
            name: "one-byte references for 256 objects",
            bytes: A.assemble(Array(repeating: [0x08], count: 256), offsetSize: 2, refSize: 1), field: 7),
        .init(
            name: "one-byte offsets for a table at byte 256",
            bytes: A.assemble([[0x4F, 0x10, 245] + Array(repeating: 0, count: 245)], offsetSize: 1), field: 6),
    ]

    @Test("A broken trailer fails with invalidTrailer at the offending field", arguments: trailerCases)
    func brokenTrailerFailsAtItsField(_ test: TrailerCase) {
        let trailer = test.bytes.count - 32
        expectReadError(test.bytes, .invalidTrailer, at: trailer + test.field, objectIndex: .some(nil))
    }

    @Test("Widths exactly wide enough are accepted: 255 objects with 1-byte refs, 256 with 2, table at 256 with 2-byte offsets")
    func widthsAtTheirLimitsRead() throws {
        #expect(try BPlistReader().read(A.assemble(Array(repeating: [0x08], count: 255), offsetSize: 2, refSize: 1)) == false)
        #expect(try BPlistReader().read(A.assemble(Array(repeating: [0x08], count: 256), offsetSize: 2, refSize: 2)) == false)
        let data = [0x4F, 0x10, 245] + [UInt8](repeating: 7, count: 245)
        #expect(try BPlistReader().read(A.assemble([data], offsetSize: 2)) == .data(Array(repeating: 7, count: 245)))
        let shorter = [0x4F, 0x10, 244] + [UInt8](repeating: 7, count: 244)
        #expect(try BPlistReader().read(A.assemble([shorter], offsetSize: 1)) == .data(Array(repeating: 7, count: 244)))
    }

    @Test("Offset and reference widths of 3, 5, 6 and 7 bytes are read")
    func oddWidthsRead() throws {
        for width in [3, 5, 6, 7] {
            let bytes = A.assemble([A.array([1, 1], refSize: width), A.ascii("x")], offsetSize: width, refSize: width)
            #expect(try BPlistReader().read(bytes) == ["x", "x"], "width \(width)")
        }
    }

    @Test("A wrong header fails with notPropertyList at the first differing byte", arguments: [
        ("bplist01", 7), ("bplist10", 6), ("Bplist00", 0), ("bplist0\u{0}", 7),
    ])
    func wrongHeaderFailsAtFirstDifferingByte(header: String, offset: Int) {
        var bytes = Self.base
        bytes.replaceSubrange(0..<8, with: Array(header.utf8))
        expectReadError(bytes, .notPropertyList, at: offset)
    }

    @Test("Input shorter than 41 bytes with a good header fails as truncated at its end", arguments: [8, 9, 39, 40])
    func tooShortInputIsTruncated(length: Int) {
        let bytes = Array("bplist00".utf8) + [UInt8](repeating: 0, count: length - 8)
        expectReadError(bytes, .truncated, at: length)
    }

    // MARK: Offset table

    @Test("An offset-table entry outside [8, table) fails with invalidOffset at the entry", arguments: [
        // (entries, offset width, failing index)
        ([7, 11], 1, 0), ([8, 13], 1, 1), ([8, 0], 1, 1), ([0xFF, 11], 1, 0),
        ([8, 14], 1, 1), ([0x0100, 11], 2, 0), ([8, 0xFFFF], 2, 1),
    ] as [([UInt64], Int, Int)])
    func offsetOutsideObjectAreaFails(entries: [UInt64], width: Int, failing: Int) {
        let bytes = A.assemble([A.ascii("ok"), A.array([0])], offsetSize: width, top: 1, offsets: entries)
        let table = bytes.count - 32 - 2 * width
        expectReadError(bytes, .invalidOffset, at: table + failing * width, objectIndex: failing)
    }

    @Test("Every offset-table entry is checked, even for objects nothing references")
    func unreferencedObjectOffsetIsChecked() {
        // Object 2 is never referenced, but its entry points into the table.
        let bytes = A.assemble([A.ascii("ok"), A.array([0]), [0x08]], top: 1, offsets: [8, 11, 14])
        expectReadError(bytes, .invalidOffset, at: 14 + 2, objectIndex: 2)
    }

    // MARK: Markers

    /// Every marker byte bplist00 does not define (with 16 zero bytes after it, so no marker fails for lack of payload).
    static let undefinedMarkers: [UInt8] =
        Array(0x01...0x07) + Array(0x0A...0x0F) + Array(0x15...0x1F) + [0x20, 0x21] + Array(0x24...0x2F)
        + Array(0x30...0x32) + Array(0x34...0x3F) + Array(0x70...0x7F) + Array(0x88...0x8F) + Array(0x90...0x9F)
        + Array(0xB0...0xBF) + Array(0xE0...0xFF)

    @Test("An undefined marker byte fails with invalidMarker at the object", arguments: undefinedMarkers)
    func undefinedMarkerFails(marker: UInt8) {
        expectReadError(A.assemble([[marker] + Array(repeating: 0, count: 16)]), .invalidMarker, at: 8, objectIndex: 0)
    }

    @Test("An undefined marker inside a container fails at that object's offset and index")
    func nestedUndefinedMarkerFails() {
        // "ok" at 8, A2 00 02 at 11, 0x70 at 14.
        expectReadError(A.assemble([A.ascii("ok"), A.array([0, 2]), [0x70]], top: 1), .invalidMarker, at: 14, objectIndex: 2)
    }

    @Test("A 16-byte integer must fit Int64 or UInt64", arguments: [
        ("14 0000000000000000 0000000000000005", PlistValue.int(5)),
        ("14 FFFFFFFFFFFFFFFF FFFFFFFFFFFFFFFF", .int(-1)),
        ("14 FFFFFFFFFFFFFFFF 8000000000000000", .int(.min)),
        ("14 0000000000000000 8000000000000000", .uint(1 << 63)),
        ("14 0000000000000000 FFFFFFFFFFFFFFFF", .uint(.max)),
        ("14 FFFFFFFFFFFFFFFF 0000000000000000", nil),  // -2^64
        ("14 FFFFFFFFFFFFFFFF 7FFFFFFFFFFFFFFF", nil),  // -2^63 - 1
        ("14 0000000000000001 0000000000000000", nil),  // 2^64
        ("14 8000000000000000 0000000000000000", nil),  // -2^127
    ] as [(String, PlistValue?)])
    func sixteenByteIntegerRange(object: String, expected: PlistValue?) throws {
        let file = A.assemble([bytes(object)])
        if let expected {
            #expect(try BPlistReader().read(file) == expected)
        } else {
            expectReadError(file, .invalidMarker, at: 8, objectIndex: 0)
        }
    }

    @Test("Integers of 1, 2 and 4 bytes are unsigned, 8 signed; non-minimal widths are accepted", arguments: [
        ("10 FF", PlistValue.int(255)), ("11 FFFF", .int(65535)), ("12 FFFFFFFF", .int(4_294_967_295)),
        ("13 FFFFFFFFFFFFFFFF", .int(-1)), ("13 0000000000000005", .int(5)), ("12 00000005", .int(5)),
        ("80 05", .uid(5)), ("87 0000000100000000", .uid(1 << 32)), ("83 FFFFFFFF", .uid(0xFFFF_FFFF)),
        ("22 3FC00000", .float(1.5)), ("23 3FF8000000000000", .real(1.5)), ("33 C1CD27E440000000", .date(-978_307_200)),
        ("00", .null), ("08", false), ("09", true), ("40", .data([])), ("50", ""), ("60", ""),
        ("A0", []), ("D0", .dict([:])), ("C0", .set([])),
        ("5F 10 03 616263", "abc"),  // non-canonical escaped count
        ("4F 13 0000000000000002 0102", .data([1, 2])),
    ] as [(String, PlistValue)])
    func scalarEncodingsRead(object: String, expected: PlistValue) throws {
        #expect(try BPlistReader().read(A.assemble([bytes(object)])) == expected)
    }

    // MARK: Counts

    @Test("A malformed escaped count fails with invalidCount after the marker", arguments: [
        "5F 05 616263",  // not an int marker
        "5F 22 00000003 616263",  // a real
        "4F 14 00000000000000000000000000000003 010203",  // a 16-byte int
        "AF 13 8000000000000000",  // above Int.max
        "AF 13 FFFFFFFFFFFFFFFF",
        "6F 15 00",  // a 32-byte int marker
    ])
    func malformedEscapedCountFails(object: String) {
        expectReadError(A.assemble([bytes(object)]), .invalidCount, at: 9, objectIndex: 0)
    }

    @Test("An escaped count cut off by the offset table fails as truncated after the marker", arguments: [
        "5F", "5F 11 00", "AF 12 000000", "DF 13 00000000000000",
    ])
    func escapedCountCutOffFails(object: String) {
        expectReadError(A.assemble([bytes(object)]), .truncated, at: 9, objectIndex: 0)
    }

    @Test("A payload longer than the bytes before the table fails as truncated at the marker", arguments: [
        "43 0102",  // 3 bytes of data, 2 present
        "53 6162",  // 3 ASCII characters
        "62 0061 00",  // 2 UTF-16 units, 3 bytes
        "A3 0000",  // 3 references, 2 present
        "D2 000000",  // 2 keys + 2 values, 3 present
        "11 00", "12 000000", "13 00000000000000", "14 000000000000000000000000000000",
        "22 000000", "23 00000000000000", "33 00000000000000", "81 00", "87 00000000000000",
        "4F 10 C8 616263",  // 200 bytes claimed
        "5F 13 4000000000000000 616263",  // 2^62 characters claimed
        "6F 13 4000000000000000 0061",  // 2^62 code units: the byte count overflows
        "AF 13 4000000000000000 00",  // 2^62 references
        "DF 13 4000000000000000 00",  // 2^62 pairs: 2^63 references
    ])
    func payloadPastTableFails(object: String) {
        expectReadError(A.assemble([bytes(object)]), .truncated, at: 8, objectIndex: 0)
    }

    @Test("A reference past the object count fails with invalidReference at the reference")
    func referenceOutOfRangeFails() {
        // A2 01 02 at 8: reference 1 (at 9) is fine, reference 2 (at 10) is not.
        expectReadError(A.assemble([A.array([1, 2]), [0x08]]), .invalidReference, at: 10, objectIndex: 0)
        expectReadError(A.assemble([A.dict(keys: [1], values: [5]), A.ascii("k")]), .invalidReference, at: 10, objectIndex: 0)
        expectReadError(A.assemble([A.array([1, 0x1_0000], refSize: 4), A.ascii("k")], refSize: 4), .invalidReference, at: 13, objectIndex: 0)
    }

    // MARK: Strings and keys

    @Test("Invalid string contents fail with invalidString at the offending byte", arguments: [
        ("53 61 80 62", 10),  // 0x80 in ASCII
        ("52 7F FF", 10),
        ("61 D800", 9),  // lone lead
        ("62 0061 D800", 11),  // lead at the end
        ("61 DC00", 9),  // lone trail
        ("62 D800 0061", 9),  // lead followed by a non-trail
        ("63 D83D DE00 DE00", 13),  // second trail after a complete pair
    ])
    func invalidStringFails(object: String, offset: Int) {
        expectReadError(A.assemble([bytes(object)]), .invalidString, at: offset, objectIndex: 0)
    }

    @Test("Surrogate pairs and U+0000 are valid UTF-16")
    func surrogatePairsRead() throws {
        #expect(try BPlistReader().read(A.assemble([bytes("63 D83D DE00 0000")])) == "😀\u{0}")
        #expect(try BPlistReader().read(A.assemble([bytes("51 00")])) == "\u{0}")
    }

    @Test("A non-string dictionary key fails with invalidKey at the key object")
    func nonStringKeyFails() {
        expectReadError(A.assemble([A.dict(keys: [1], values: [1]), [0x10, 0x01]]), .invalidKey, at: 11, objectIndex: 1)
        expectReadError(A.assemble([A.dict(keys: [1], values: [1]), [0xA0]]), .invalidKey, at: 11, objectIndex: 1)
        expectReadError(A.assemble([A.dict(keys: [1], values: [1]), [0x00]]), .invalidKey, at: 11, objectIndex: 1)
    }

    @Test("A repeated dictionary key fails with invalidKey at the second key reference")
    func duplicateKeyFails() throws {
        // Two distinct key objects with the same text.
        expectReadError(
            A.assemble([A.dict(keys: [1, 2], values: [3, 3]), A.ascii("k"), A.ascii("k"), [0x08]]),
            .invalidKey, at: 10, objectIndex: 0)
        // The same key object twice.
        expectReadError(
            A.assemble([A.dict(keys: [1, 1], values: [2, 2]), A.ascii("k"), [0x08]]), .invalidKey, at: 10, objectIndex: 0)
        // "é" precomposed and decomposed are two keys, not a repetition.
        let twoKeys = A.assemble([A.dict(keys: [1, 2], values: [3, 3]), A.utf16([0xE9]), A.utf16([0x65, 0x301]), [0x08]])
        #expect(try BPlistReader().read(twoKeys) == .dict(["é": false, "e\u{301}": false]))
    }

    // MARK: Cycles and sharing

    @Test("A container that contains itself fails with cycle at the container reached again", arguments: [
        // (objects, top, offset, index)
        ([[0xA1, 0x00]], 0, 8, 0),  // [self]
        ([[0xC1, 0x00]], 0, 8, 0),  // set containing itself
        ([A.dict(keys: [1], values: [0]), A.ascii("k")], 0, 8, 0),  // {"k": self}
        ([A.dict(keys: [0], values: [0])], 0, 8, 0),  // self as its own key
        ([A.array([1]), A.array([2]), A.array([0])], 0, 8, 0),  // 0 → 1 → 2 → 0
        ([A.ascii("x"), A.array([0, 2]), A.array([3]), A.array([2])], 1, 13, 2),  // cycle 2 ↔ 3 below the top
    ] as [([[UInt8]], UInt64, Int, Int)])
    func cycleFails(objects: [[UInt8]], top: UInt64, offset: Int, index: Int) {
        expectReadError(A.assemble(objects, top: top), .cycle, at: offset, objectIndex: index)
    }

    @Test("A container referenced twice (a DAG) reads, once per place")
    func sharedContainerReads() throws {
        let shared = A.assemble([A.array([1, 1]), A.array([2]), [0x10, 0x07]])
        #expect(try BPlistReader().read(shared) == [[7], [7]])
        let diamond = A.assemble([A.dict(keys: [1, 2], values: [3, 3]), A.ascii("a"), A.ascii("b"), A.array([])])
        #expect(try BPlistReader().read(diamond) == ["a": [], "b": []])
    }

    // MARK: Depth

    @Test("512 nested arrays read with the default limit; 513 fail with depthLimit at the 513th")
    func defaultDepthLimitIs512() throws {
        let ok = try BPlistWriter().write(nestedArrays(512))
        #expect(try onThread(stackSize: deepStack) { try BPlistReader().read(ok).nestingDepth } == 512)
        // 513 objects: 2-byte references, so object i (`A1 hi lo`) is at 8 + 3i.
        let deep = try BPlistWriter().write(nestedArrays(513))
        let error = try #require(readErrorOnDeepStack(deep))
        #expect(error.code == .depthLimit && error.byteOffset == 8 + 3 * 512 && error.objectIndex == 512, "\(error)")
    }

    @Test("A custom maximumDepth passes at the limit and fails one deeper", arguments: [1, 2, 3, 10, 100])
    func customDepthLimit(limit: Int) throws {
        var options = BPlistReader.Options()
        options.maximumDepth = limit
        let ok = try BPlistWriter().write(nestedArrays(limit))
        #expect(try BPlistReader(options: options).read(ok).nestingDepth == limit)
        // limit + 1 objects, 1-byte references: object i (`A1 ref`) is at 8 + 2i.
        let deep = try BPlistWriter().write(nestedArrays(limit + 1))
        expectReadError(deep, .depthLimit, at: 8 + 2 * limit, objectIndex: limit, options: options)
    }

    @Test("Dictionaries count towards depth, and maximumDepth 0 allows only a scalar root")
    func dictionariesCountTowardsDepth() throws {
        var options = BPlistReader.Options()
        options.maximumDepth = 2
        // {"a": {"a": {}}}: D1 01 02 at 8, "a" at 11, D1 01 03 at 13, D0 at 16.
        let value: PlistValue = ["a": ["a": .dict([:])]]
        expectReadError(try BPlistWriter().write(value), .depthLimit, at: 16, objectIndex: 3, options: options)
        options.maximumDepth = 0
        #expect(try BPlistReader(options: options).read(try BPlistWriter().write("x")) == "x")
        expectReadError(try BPlistWriter().write([]), .depthLimit, at: 8, objectIndex: 0, options: options)
    }

    /// BUG (reported): the depth limit is checked on the path where a container is *first* read; a
    /// memoised shared container reused deeper is not re-checked, so the tree the reader returns can
    /// be nested far deeper than `maximumDepth`. With the default limit a 900 KB file of 250
    /// chains of 400 arrays (each chain ending in a reference to the previous chain's head, the
    /// root listing every head) reads as a 100,000-deep value, and releasing that value overflows
    /// the stack (SIGSEGV); with 500 chains the read fails on the expansion limit and the reader's
    /// own clean-up overflows the stack. The reader's result must never be deeper than the limit.
    /// Repro (maximumDepth 4, 7 objects, reads as a 7-deep tree):
    /// `bplist00 A2 01 04 | A1 02 | A1 03 | A0 | A1 05 | A1 06 | A1 01` + table + trailer.
    @Test("A shared container reused deeper cannot bypass the depth limit")
    func sharedContainerCannotBypassTheDepthLimit() throws {
        var options = BPlistReader.Options()
        options.maximumDepth = 4
        // 1 → 2 → 3 is three deep, read first at depth 1; 4 → 5 → 6 → 1 then nests it three deeper.
        let file = A.assemble([
            A.array([1, 4]), A.array([2]), A.array([3]), A.array([]), A.array([5]), A.array([6]), A.array([1]),
        ])
        let error = try #require(throws: ArchiveError.self) { try BPlistReader(options: options).read(file) }
        #expect(error.code == .depthLimit, "\(error)")
        #expect(error.objectIndex == 1)
        // The same shape within the limit reads.
        options.maximumDepth = 7
        #expect(try BPlistReader(options: options).read(file).nestingDepth == 7)
    }

    // MARK: Expansion

    @Test("maximumExpandedSize passes at exactly the expanded size and fails one below", arguments: [
        // (objects, expanded size): every element counts once per place it appears.
        ([A.array([1, 2, 3]), [0x10, 1], [0x10, 2], [0x10, 3]], 4),
        ([A.array([1, 1, 1]), [0x10, 7]], 4),  // one scalar referenced three times
        ([A.array([1, 1]), A.array([2, 3, 4]), [0x10, 1], [0x10, 2], [0x10, 3]], 9),  // a DAG: 1 + 4 + 4
        ([A.dict(keys: [1], values: [2]), A.ascii("a"), [0x08]], 3),  // keys count too
        ([A.array(Array(repeating: 1, count: 100)), [0x08]], 101),
    ] as [([[UInt8]], Int)])
    func expansionLimitBoundary(objects: [[UInt8]], size: Int) throws {
        let file = A.assemble(objects)
        var options = BPlistReader.Options()
        options.maximumExpandedSize = size
        let value = try BPlistReader(options: options).read(file)
        #expect(value.treeSize == size)
        options.maximumExpandedSize = size - 1
        expectReadError(file, .sizeLimit, at: 8, objectIndex: 0, options: options)
    }

    @Test("An exponential DAG fails on the expansion limit at the level that crosses it")
    func exponentialDAGFailsFast() {
        // Object i at 8 + 3i is [i+1, i+1]; object 30 is `08`. Object i expands to 2^(31-i) - 1.
        var objects = (0..<30).map { A.array([UInt64($0 + 1), UInt64($0 + 1)]) }
        objects.append([0x08])
        var options = BPlistReader.Options()
        options.maximumExpandedSize = 1000
        // Object 22 expands to 511, object 21 to 1023 > 1000: it fails on its second reference.
        expectReadError(A.assemble(objects), .sizeLimit, at: 8 + 3 * 21, objectIndex: 21, options: options)
    }

    // MARK: Object count

    @Test("maximumObjectCount passes at exactly the object count and fails one below, at the trailer's count field")
    func objectCountLimitBoundary() throws {
        let file = A.assemble([A.array([1, 2, 3, 4]), [0x10, 1], [0x10, 2], [0x10, 3], [0x10, 4]])
        var options = BPlistReader.Options()
        options.maximumObjectCount = 5
        #expect(try BPlistReader(options: options).read(file) == [1, 2, 3, 4])
        options.maximumObjectCount = 4
        expectReadError(file, .sizeLimit, at: file.count - 32 + 8, objectIndex: .some(nil), options: options)
    }

    // MARK: Input size, string and data length

    @Test("maximumArchiveSize passes at exactly the input length and fails one below, before anything is read")
    func archiveSizeLimitBoundary() throws {
        let file = A.assemble([A.array([1]), A.ascii("abc")])
        var options = BPlistReader.Options()
        options.maximumArchiveSize = file.count
        #expect(try BPlistReader(options: options).read(file) == ["abc"])
        options.maximumArchiveSize = file.count - 1
        expectReadError(file, .sizeLimit, at: 0, objectIndex: .some(nil), options: options)
        // Even a file that is not a property list at all is refused on its size first.
        expectReadError(Array(repeating: 0, count: file.count), .sizeLimit, at: 0, options: options)
    }

    @Test("maximumStringLength counts ASCII bytes and UTF-16 code units; it passes at the length and fails one below", arguments: [
        // (string object, its length); the string is object 1 at byte 10, after `A1 01`.
        (A.ascii("hello"), 5),
        (A.ascii(String(repeating: "x", count: 20)), 20),  // escaped count (0x5F 10 14)
        (A.utf16([0x48, 0xE9, 0xD83D, 0xDE00]), 4),  // "Hé😀": 4 code units, 3 characters
        (A.ascii(""), 0),
    ] as [([UInt8], Int)])
    func stringLengthLimitBoundary(string: [UInt8], length: Int) throws {
        let file = A.assemble([A.array([1]), string])
        var options = BPlistReader.Options()
        options.maximumStringLength = length
        guard case .array(let elements) = try BPlistReader(options: options).read(file), case .string = elements.first else {
            Issue.record("not an array holding a string")
            return
        }
        guard length > 0 else { return }
        options.maximumStringLength = length - 1
        expectReadError(file, .sizeLimit, at: 10, objectIndex: 1, options: options)
        let error = try #require(readError(file, options: options))
        #expect(error.reason.contains("string of \(length) characters"), "\(error)")
    }

    @Test("maximumStringLength applies to dictionary keys too")
    func keyLengthLimit() throws {
        let file = A.assemble([A.dict(keys: [1], values: [2]), A.ascii("long-key"), [0x08]])
        var options = BPlistReader.Options()
        options.maximumStringLength = 8
        #expect(try BPlistReader(options: options).read(file) == ["long-key": false])
        options.maximumStringLength = 7
        expectReadError(file, .sizeLimit, at: 11, objectIndex: 1, options: options)
    }

    @Test("maximumDataLength passes at the data's byte count and fails one below", arguments: [0, 3, 15, 16, 200])
    func dataLengthLimitBoundary(length: Int) throws {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        let file = A.assemble([A.array([1]), A.marker(0x40, count: length) + bytes])
        var options = BPlistReader.Options()
        options.maximumDataLength = length
        #expect(try BPlistReader(options: options).read(file) == [.data(bytes)])
        guard length > 0 else { return }
        options.maximumDataLength = length - 1
        expectReadError(file, .sizeLimit, at: 10, objectIndex: 1, options: options)
        // A string of the same length is not data: the data limit leaves it alone.
        let text = A.assemble([A.array([1]), A.ascii(String(repeating: "d", count: length))])
        #expect(try BPlistReader(options: options).read(text) == [.string(String(repeating: "d", count: length))])
    }

    // MARK: Entry points

    @Test("Arrays, slices, non-contiguous sequences and raw buffers read alike; offsets count from the slice start")
    func entryPointsAgree() throws {
        let file = A.assemble([A.array([1, 2]), A.ascii("a"), A.utf16([0xE9])])
        let expected: PlistValue = ["a", "é"]
        #expect(try BPlistReader().read(file) == expected)
        #expect(try BPlistReader().read(([0xFF, 0xFF] + file)[2...]) == expected)
        #expect(try BPlistReader().read(file.lazy.map { $0 }) == expected)
        #expect(try file.withUnsafeBytes { buffer throws(ArchiveError) in try BPlistReader().read(buffer) } == expected)
        #expect(try PlistValue(bplist: file) == expected)

        // The same fault (0x70 at 10, after A1 01) is reported at 10 however the bytes arrive.
        let bad = A.assemble([A.array([1]), [0x70]])
        expectReadError(bad, .invalidMarker, at: 10, objectIndex: 1)
        let slice = ([0, 0, 0] + bad)[3...]
        #expect(throws: ArchiveError.self) { try BPlistReader().read(slice) }
        do {
            _ = try BPlistReader().read(slice)
        } catch {
            #expect(error.byteOffset == 10)
        }
        do {
            _ = try BPlistReader().read(bad.lazy.map { $0 })
        } catch {
            #expect(error.byteOffset == 10)
        }
    }

    @Test("Default options are the documented ones")
    func defaultOptions() {
        let options = BPlistReader.Options()
        #expect(options.maximumDepth == 512)
        #expect(options.maximumExpandedSize == 1 << 24)
        #expect(options.maximumObjectCount == 1 << 24)
        #expect(options.maximumArchiveSize == 1 << 30)
        #expect(options.maximumStringLength == 1 << 28)
        #expect(options.maximumDataLength == 1 << 30)
    }

    @Test("Errors compare by code only and describe themselves in one line")
    func errorDescription() throws {
        let error = try #require(readError(A.assemble([[0x70]])))
        #expect(error == ArchiveError(.invalidMarker, reason: "anything"))
        #expect(error.description.hasPrefix("ArchiveError.invalidMarker: "))
        #expect(error.description.hasSuffix("(at byte 8, object #0)"))
    }
}
