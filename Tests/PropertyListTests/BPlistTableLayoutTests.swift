import Foundation
import PropertyList
import TestSupport
import Testing

/// `BPlistTable` driven through its own API, as the keyed archiver drives it: nested containers,
/// every scalar kind, objects referenced twice, copies, containers reserved and filled last, and
/// UID references. Whichever way the table was built, `encodeAllocated` (laid out in place inside
/// the arena, or written into a fresh buffer) must give the bytes of `encode`, and those bytes must
/// read back as the value built alongside the table. Each table has its own seed, printed on failure.
@Suite("BPlistTable layout")
struct BPlistTableLayoutTests {
    static let baseSeed: UInt64 = 0x7AB1_E000_0000_0000

    /// Tables built only by adding keep their scalars in index order in the arena, so
    /// `encodeAllocated` lays the file out in place; it must agree with `encode` byte for byte.
    /// Every scalar added a second time must be found, not added again (uniquing by exact value).
    @Test("Random tables built by adding: the in-place layout equals encode and reads back as built")
    func randomTablesInOrder() throws {
        // The smallest files: an empty array (no scalar, an empty arena) and a lone string.
        let empty = BPlistTable()
        empty.endArray(empty.beginContainer())
        try Self.expectBothEncodings(of: empty, top: 0, as: .array([]), "empty array")
        let single = BPlistTable()
        _ = single.add(string: "only")
        try Self.expectBothEncodings(of: single, top: 0, as: .string("only"), "lone string")

        var features: Set<TableBuilder.Feature> = []
        for i in 0..<200 {
            let seed = Self.baseSeed &+ UInt64(i)
            var builder = TableBuilder(seed: seed)
            let (top, expected) = try builder.build()
            let table = builder.table
            let count = table.count
            for (reference, value) in builder.scalars {
                let again = try TableBuilder.add(value, to: table)
                #expect(again == reference, "seed \(seed): \(value) added again became #\(again), not #\(reference)")
            }
            #expect(table.count == count, "seed \(seed): adding scalars a second time added objects")
            let bytes = try Self.expectBothEncodings(of: table, top: top, as: expected, "seed \(seed)")
            #expect(FileTrailer(bytes).objectCount == count, "seed \(seed)")
            features.formUnion(builder.features)
        }
        #expect(
            features.isSuperset(of: [
                .escapedCount, .longString, .utf16String, .longData, .negativeInt, .bigUInt, .shared, .repeatedKeys, .nonzeroTop,
            ]), "\(features)")
    }

    /// A copy of a scalar puts its bytes at a second index, so the arena is out of order and
    /// `encodeAllocated` must write a fresh buffer, leaving the table intact and encodable again;
    /// copies of containers, and containers reserved then filled last (every `setArray`/`setDict`
    /// variant), keep the in-place layout. Trailing UID references among them (a copy of one becomes
    /// a UID object in place) end the file: one UID object per value, in value order.
    /// The integer, real and date indexes keep 32 bits of each value's hash and read the value
    /// back from the table on a match. 200,000 integers and 60,000 reals and dates (every integer width, both
    /// signs, the edges of each width, reals and dates with equal high bits) are added twice over
    /// several index growths: the second time each is found at its first index, no two distinct
    /// values share one, and a real and a date with the same bits stay apart.
    @Test("Integers, reals and dates: each value found again at its first index, distinct values never merged")
    func wordUniquingAtScale() throws {
        let table = BPlistTable()
        var ints: [Int64] = [0, 1, -1, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, .max, .min]
        var generator = SplitMix64(seed: 0x0BAD_5EED)
        // Enough integers that some pairs share all 32 kept hash bits (≈ 4.6 pairs expected for
        // 200,000), so a match on the hash bits alone would merge distinct values.
        while ints.count < 200_000 {
            let shift = generator.next() % 64
            let value = Int64(bitPattern: generator.next() >> shift)
            ints.append(generator.next() % 2 == 0 ? value : -value)
        }
        let reals = (0..<60_000).map { Double($0) * 0.25 - 7_000 } + [0.0, -0.0, .infinity, -.infinity]
        var first: [String: Int] = [:]
        for value in ints { first["i\(value)"] = first["i\(value)"] ?? table.add(int: value) }
        for value in reals { first["r\(value.bitPattern)"] = first["r\(value.bitPattern)"] ?? table.add(real: value) }
        for value in reals { first["d\(value.bitPattern)"] = first["d\(value.bitPattern)"] ?? table.add(date: value) }
        #expect(Set(first.values).count == first.count, "two distinct values share one object")
        let count = table.count
        for value in ints { #expect(table.add(int: value) == first["i\(value)"], "integer \(value)") }
        for value in reals { #expect(table.add(real: value) == first["r\(value.bitPattern)"], "real \(value)") }
        for value in reals { #expect(table.add(date: value) == first["d\(value.bitPattern)"], "date \(value)") }
        #expect(table.count == count, "adding the values a second time added objects")
    }

    @Test("Random tables with copies, containers filled last and UID references: both encodings agree", arguments: [false, true])
    func randomTablesWithCopies(uids: Bool) throws {
        var features: Set<TableBuilder.Feature> = []
        var inPlaceWithFills = 0
        for i in 0..<200 {
            let seed = Self.baseSeed &+ (uids ? 0x2_0000 : 0x1_0000) &+ UInt64(i)
            var builder = TableBuilder(seed: seed, copies: true, deferredFills: true, uids: uids)
            let (top, expected) = try builder.build()
            let bytes = try Self.expectBothEncodings(of: builder.table, top: top, as: expected, "seed \(seed)")
            if !builder.features.isDisjoint(with: [.scalarCopy, .uidCopy]) {
                #expect(try builder.table.encode(top: top) == bytes, "seed \(seed): encoding again after encodeAllocated")
            } else if builder.features.contains(.deferredFill) {
                inPlaceWithFills += 1
            }
            let values = builder.uidValues.sorted()
            let trailer = FileTrailer(bytes)
            #expect(trailer.objectCount == builder.table.count + values.count, "seed \(seed)")
            let offsets = trailer.offsets(in: bytes)
            #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 < $1 }, "seed \(seed): offsets out of index order")
            let last = offsets.suffix(values.count).map { Self.uidValue(in: bytes, at: $0) }
            #expect(last == values.map { Optional($0) }, "seed \(seed): the last objects are not the UIDs \(values)")
            features.formUnion(builder.features)
        }
        let expected: Set<TableBuilder.Feature> = [.scalarCopy, .containerCopy, .deferredFill, .escapedCount, .shared]
        #expect(features.isSuperset(of: uids ? expected.union([.uidReference, .uidCopy]) : expected), "\(features)")
        #expect(inPlaceWithFills > 0, "no table had containers filled last without scalar copies")
    }

    /// Trailing UIDs are references handed out by value: the file has one UID object per distinct
    /// value, after every other object, in value order, each in the smallest width.
    @Test("UID references: one object per value, after all others, in value order")
    func uidReferencesComeLast() throws {
        let table = BPlistTable()
        let root = table.beginContainer()
        table.appendReference(table.trailingUID(70000))
        let inner = table.beginContainer()
        table.appendReference(table.trailingUID(3))
        table.appendReference(table.add(int: 7))
        table.appendReference(table.trailingUID(3))
        table.endArray(inner)
        table.appendReference(inner.index)
        table.appendReference(table.trailingUID(300))
        table.appendReference(table.add(string: "between"))
        table.appendReference(table.trailingUID(0))
        // add(uid:) places a UID object among the table's own, where it is added.
        let added = try table.add(uid: 3)
        #expect(added == 4)
        table.appendReference(added)
        table.endArray(root)

        let expected: PlistValue = .array([
            .uid(70000), .array([.uid(3), .int(7), .uid(3)]), .uid(300), .string("between"), .uid(0), .uid(3),
        ])
        let bytes = try Self.expectBothEncodings(of: table, top: 0, as: expected, "scattered UIDs")
        let trailer = FileTrailer(bytes)
        #expect(table.count == 5)
        #expect(trailer.objectCount == table.count + 4)
        let offsets = trailer.offsets(in: bytes)
        #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 < $1 }, "offsets out of index order: \(offsets)")
        for index in 0..<table.count {
            #expect(Self.uidValue(in: bytes, at: offsets[index]) == (index == added ? 3 : nil), "object #\(index)")
        }
        let uidObjects = offsets[table.count...].map { Array(bytes[$0...$0 + 1 + Int(bytes[$0] & 0x0F)]) }
        #expect(uidObjects == [[0x80, 0x00], [0x80, 0x03], [0x81, 0x01, 0x2C], [0x83, 0x00, 0x01, 0x11, 0x70]])

        // Only UID references: an empty arena, the UID objects the only objects laid out after the root.
        let onlyUIDs = BPlistTable()
        let array = onlyUIDs.beginContainer()
        for value in [5, 1, 5] { onlyUIDs.appendReference(onlyUIDs.trailingUID(value)) }
        onlyUIDs.endArray(array)
        let small = try Self.expectBothEncodings(of: onlyUIDs, top: 0, as: .array([.uid(5), .uid(1), .uid(5)]), "only UIDs")
        #expect(FileTrailer(small).objectCount == 3)
    }

    /// The reference width counts the UID objects too: 254 table objects and one UID value make
    /// 255 objects (1-byte references), a second value 256 (2 bytes); likewise 65,535 against
    /// 65,536 for 2 and 4 bytes. The root array's size shows the references really are that wide.
    @Test("Reference widths count the UID objects", arguments: [
        (254, [0], 1), (254, [0, 255], 2), (65534, [1], 2), (65534, [1, 65536], 4),
    ])
    func referenceWidthsCountUIDObjects(tableObjects: Int, uids: [Int], referenceSize: Int) throws {
        let table = BPlistTable()
        let root = table.beginContainer()
        var elements: [PlistValue] = []
        for i in 0..<Int64(tableObjects - 1) {
            table.appendReference(table.add(int: i * 3 - 100))
            elements.append(.int(i * 3 - 100))
        }
        for value in uids {
            table.appendReference(table.trailingUID(value))
            elements.append(.uid(UInt64(value)))
        }
        table.endArray(root)
        #expect(table.count == tableObjects)

        let bytes = try Self.expectBothEncodings(of: table, top: 0, as: .array(elements), "\(tableObjects) + \(uids)")
        let trailer = FileTrailer(bytes)
        #expect(trailer.objectCount == tableObjects + uids.count)
        #expect(trailer.referenceSize == referenceSize)
        #expect(trailer.offsetSize == (trailer.tableOffset <= 0xFF ? 1 : trailer.tableOffset <= 0xFFFF ? 2 : 4))
        let offsets = trailer.offsets(in: bytes)
        let count = elements.count
        let countSize = count <= 0xFF ? 1 : count <= 0xFFFF ? 2 : 4
        #expect(offsets[1] - offsets[0] == 2 + countSize + count * referenceSize)
    }

    /// Python's `plistlib`, an independent reader, reads the in-place (or fresh-buffer) bytes of
    /// tables built by every path as the value built alongside them, UIDs as `plistlib.UID`.
    @Test("Python's plistlib reads 40 random tables (UIDs, copies, containers filled last) as built")
    func plistlibReadsRandomTables() throws {
        guard let python = Python.executable else {
            print("SKIPPED plistlibReadsRandomTables: python3 is not on PATH")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appending(path: "table-crosscheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var tables: [(seed: UInt64, value: PlistValue)] = []
        for i in 0..<40 {
            let seed = Self.baseSeed &+ 0x4_0000 &+ UInt64(i)
            var builder = TableBuilder(seed: seed, copies: i % 2 == 0, deferredFills: i % 3 != 0, uids: i % 4 < 2, pythonSafeDates: true)
            let (top, value) = try builder.build()
            let (pointer, count) = try builder.table.encodeAllocated(top: top)
            defer { free(pointer) }
            try Data(bytes: pointer, count: count).write(to: directory.appending(path: "\(i).bplist"))
            try Data(value.plistJSON.utf8).write(to: directory.appending(path: "\(i).json"))
            tables.append((seed, value))
        }

        // Reads each N.bplist into N.py.json (and writes N.json as N.py.bplist, unused here).
        let output = try Python.run(python, script: RandomRoundTripTests.pythonScript, arguments: [directory.path, "\(tables.count)"])
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(output.prefix(2000))")
        for (i, (seed, value)) in tables.enumerated() {
            do {
                let pyJSON = try Fixtures.text(at: directory.appending(path: "\(i).py.json"))
                #expect(try PlistValue(plistJSON: pyJSON) == value.canonicalNaNs, "seed \(seed): plistlib read \(pyJSON.prefix(300))")
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }

    // MARK: Helpers

    /// Encodes `table` with `encode`, then with `encodeAllocated` (which may consume the table),
    /// expects the same bytes from both, read back as `expected` with `top` as the root.
    @discardableResult
    private static func expectBothEncodings(
        of table: BPlistTable, top: Int, as expected: PlistValue, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [UInt8] {
        let bytes = try table.encode(top: top)
        let allocated = try table.encodeAllocated(top: top)
        let laidOut = Array(UnsafeRawBufferPointer(start: allocated.bytes, count: allocated.count))
        free(allocated.bytes)
        if laidOut != bytes {
            let shorter = min(laidOut.count, bytes.count)
            let at = (0..<shorter).first { laidOut[$0] != bytes[$0] } ?? shorter
            Issue.record(
                "\(context): encodeAllocated gives \(laidOut.count) bytes, encode \(bytes.count); they differ from byte \(at)",
                sourceLocation: sourceLocation)
        }
        #expect(FileTrailer(bytes).top == top, "\(context)", sourceLocation: sourceLocation)
        let back = try BPlistReader().read(bytes)
        #expect(back == expected, "\(context): read back as \(back.plistJSON.prefix(400))", sourceLocation: sourceLocation)
        return bytes
    }

    /// The value of the UID object at `offset`, or nil if the object there is not a UID.
    private static func uidValue(in bytes: [UInt8], at offset: Int) -> Int? {
        guard bytes[offset] >> 4 == 0x8 else { return nil }
        return FileTrailer.bigEndian(bytes, at: offset + 1, width: Int(bytes[offset] & 0x0F) + 1)
    }
}

/// The last 32 bytes of a `bplist00` file, and its offset table.
private struct FileTrailer {
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let top: Int
    let tableOffset: Int

    init(_ bytes: [UInt8]) {
        let at = bytes.count - 32
        offsetSize = Int(bytes[at + 6])
        referenceSize = Int(bytes[at + 7])
        objectCount = Self.bigEndian(bytes, at: at + 8, width: 8)
        top = Self.bigEndian(bytes, at: at + 16, width: 8)
        tableOffset = Self.bigEndian(bytes, at: at + 24, width: 8)
    }

    /// Each object's offset, in index order.
    func offsets(in bytes: [UInt8]) -> [Int] {
        (0..<objectCount).map { Self.bigEndian(bytes, at: tableOffset + $0 * offsetSize, width: offsetSize) }
    }

    static func bigEndian(_ bytes: [UInt8], at offset: Int, width: Int) -> Int {
        bytes[offset..<offset + width].reduce(0) { $0 << 8 | Int($1) }
    }
}

/// Builds a random object tree through `BPlistTable`'s API and, alongside, the value a reader must
/// see: every scalar kind with the encodings' edge cases, containers of 15 or more (escaped counts),
/// dictionaries repeating the previous one's keys, objects referenced twice, and on request copies
/// (`copyObject`), containers reserved and filled last in random order, and UID references.
private struct TableBuilder {
    enum Feature: Hashable {
        case escapedCount, longString, utf16String, longData, negativeInt, bigUInt, shared, repeatedKeys, nonzeroTop
        case scalarCopy, containerCopy, uidCopy, deferredFill, uidReference
    }

    static let uidTag = 1 << 31

    let table = BPlistTable()
    private var rng: SplitMix64
    private let copies: Bool
    private let deferredFills: Bool
    private let uids: Bool
    private var options = RandomPlist.Options()
    /// Objects a later container may reference again.
    private var finished: [(reference: Int, value: PlistValue)] = []
    /// Objects a reserved slot may copy: not containers still waiting for their fill.
    private var copyable: [(reference: Int, value: PlistValue)] = []
    private var fills: [() -> Void] = []
    private var previousKeys: [String] = []
    /// Every scalar object added, with its index (UID references not included).
    private(set) var scalars: [(reference: Int, value: PlistValue)] = []
    /// The values of the UID references handed out.
    private(set) var uidValues: Set<Int> = []
    private(set) var features: Set<Feature> = []

    init(seed: UInt64, copies: Bool = false, deferredFills: Bool = false, uids: Bool = false, pythonSafeDates: Bool = false) {
        rng = SplitMix64(seed: seed)
        self.copies = copies
        self.deferredFills = deferredFills
        self.uids = uids
        options.pythonSafeDates = pythonSafeDates
    }

    /// Sometimes a few scalars first (so the root is not object 0), then the root container; the
    /// reserved containers are filled last, in random order.
    mutating func build() throws -> (top: Int, value: PlistValue) {
        if rng.chance(1, in: 3) {
            for _ in 0...Int.random(in: 0...2, using: &rng) { _ = try scalar() }
        }
        let root = try container(depth: 0)
        if root.reference != 0 { features.insert(.nonzeroTop) }
        fills.shuffle(using: &rng)
        for fill in fills { fill() }
        fills = []
        return (root.reference, root.value)
    }

    /// Adds the scalar `value` with the table's `add` for its kind.
    static func add(_ value: PlistValue, to table: BPlistTable) throws -> Int {
        switch value {
        case .bool(let v): table.add(bool: v)
        case .int(let v): table.add(int: v)
        case .uint(let v): table.add(uint: v)
        case .real(let v): table.add(real: v)
        case .float(let v): table.add(float: v)
        case .date(let v): table.add(date: v)
        case .string(let v): table.add(string: v)
        case .data(let v): v.count % 2 == 0 ? table.add(data: v) : v.withUnsafeBytes { table.add(data: $0) }
        case .uid(let v): try table.add(uid: v)
        default: preconditionFailure("\(value) is not a scalar")
        }
    }

    private mutating func value(depth: Int) throws -> (reference: Int, value: PlistValue) {
        if !finished.isEmpty && rng.chance(1, in: 10) {
            features.insert(.shared)
            return finished.randomElement(using: &rng)!
        }
        if copies && !copyable.isEmpty && rng.chance(1, in: 8) {
            let source = copyable.randomElement(using: &rng)!
            let slot = table.reserve()
            table.copyObject(at: slot, from: source.reference)
            switch source.value {
            case .array, .dict: features.insert(.containerCopy)
            default: features.insert(source.reference >= Self.uidTag ? .uidCopy : .scalarCopy)
            }
            finished.append((slot, source.value))
            copyable.append((slot, source.value))
            return (slot, source.value)
        }
        if depth < 4 && table.count < 3000 && rng.chance(2, in: 5) { return try container(depth: depth) }
        return try scalar()
    }

    private mutating func scalar() throws -> (reference: Int, value: PlistValue) {
        var value: PlistValue
        let reference: Int
        if uids && rng.chance(1, in: 5) {
            let uid = [0, 1, 3, 254, 255, 256, 300, 65535, 65536, 70000].randomElement(using: &rng)!
            value = .uid(UInt64(uid))
            reference = table.trailingUID(uid)
        } else {
            value = edgeScalar()
            reference = try Self.add(value, to: table)
        }
        if reference >= Self.uidTag {
            uidValues.insert(reference - Self.uidTag)
            features.insert(.uidReference)
        } else {
            scalars.append((reference, value))
        }
        finished.append((reference, value))
        copyable.append((reference, value))
        return (reference, value)
    }

    /// The writer's edge cases half the time, otherwise any scalar `RandomPlist` makes.
    private mutating func edgeScalar() -> PlistValue {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0:
            features.insert(.longString)  // ASCII of 15 to 300 characters: 1- and 2-byte escaped counts
            let count = Int.random(in: 15...300, using: &rng)
            return .string(String(decoding: (0..<count).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }, as: UTF8.self))
        case 1:
            features.insert(.utf16String)  // surrogate pairs and combining marks, often 15 units or more
            let pieces = ["é", "日本", "😀", "e\u{301}", "ß", "a", "\u{FFFF}"]
            return .string((0..<Int.random(in: 1...40, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined())
        case 2:
            features.insert(.longData)
            return .data((0..<Int.random(in: 15...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        case 3:
            features.insert(.negativeInt)
            return .int(-Int64.random(in: 1...Int64.max, using: &rng))
        case 4:
            features.insert(.bigUInt)
            return .uint(UInt64.random(in: (1 << 63)...UInt64.max, using: &rng))
        default:
            return RandomPlist.scalar(using: &rng, options: options)
        }
    }

    private mutating func container(depth: Int) throws -> (reference: Int, value: PlistValue) {
        let isDict = rng.chance(1, in: 2)
        var count = rng.chance(1, in: 6) ? Int.random(in: 15...40, using: &rng) : Int.random(in: 0...6, using: &rng)
        let keys = isDict ? dictionaryKeys(count) : []
        if isDict { count = keys.count }
        if count >= 15 { features.insert(.escapedCount) }
        let deferred = deferredFills && rng.chance(1, in: 2)
        let open = deferred ? nil : table.beginContainer()
        let slot = open?.index ?? table.reserve()

        var keyReferences: [Int] = []
        if isDict && !deferred && rng.chance(1, in: 2) {
            table.appendKeyReferences(keys)
        } else {
            for key in keys {
                let reference = table.add(string: key)
                scalars.append((reference, .string(key)))
                keyReferences.append(reference)
                if !deferred { table.appendReference(reference) }
            }
        }
        var references: [Int] = []
        var values: [PlistValue] = []
        for _ in 0..<count {
            let child = try value(depth: depth + 1)
            if !deferred { table.appendReference(child.reference) }
            references.append(child.reference)
            values.append(child.value)
        }
        let value: PlistValue = isDict ? .dict(PlistDictionary(uniqueKeysWithValues: zip(keys, values))) : .array(values)
        if let open {
            if isDict { table.endDict(open) } else { table.endArray(open) }
            copyable.append((slot, value))
        } else {
            features.insert(.deferredFill)
            let variant = Int.random(in: 0..<3, using: &rng)
            fills.append { [table] in
                Self.fill(table, slot, isDict: isDict, keys: keyReferences, values: references, variant: variant)
            }
        }
        finished.append((slot, value))
        return (slot, value)
    }

    /// Fills a reserved slot with one of the `setArray`/`setDict` variants (slices start past 0).
    private static func fill(_ table: BPlistTable, _ slot: Int, isDict: Bool, keys: [Int], values: [Int], variant: Int) {
        switch (isDict, variant) {
        case (true, 0): table.setDict(at: slot, keys: keys, values: values)
        case (true, 1) where !keys.isEmpty:
            table.setDict(at: slot, firstKey: keys[0], firstValue: values[0], keys: keys.dropFirst(), values: values.dropFirst())
        case (true, _): table.setDict(at: slot, keys: ([-1] + keys)[1...], values: ([-1] + values)[1...])
        case (false, 0): table.setArray(at: slot, elements: values)
        case (false, _): table.setArray(at: slot, elements: ([-1] + values)[1...])
        }
    }

    /// `count` distinct keys (by Unicode scalars), or a quarter of the time the previous dictionary's.
    private mutating func dictionaryKeys(_ count: Int) -> [String] {
        if !previousKeys.isEmpty && rng.chance(1, in: 4) {
            features.insert(.repeatedKeys)
            return previousKeys
        }
        var keys: [String] = []
        while keys.count < count {
            var key = RandomPlist.string(using: &rng)
            if keys.contains(where: { $0.unicodeScalars.elementsEqual(key.unicodeScalars) }) { key += "#\(keys.count)" }
            if !keys.contains(where: { $0.unicodeScalars.elementsEqual(key.unicodeScalars) }) { keys.append(key) }
        }
        previousKeys = keys
        return keys
    }
}
