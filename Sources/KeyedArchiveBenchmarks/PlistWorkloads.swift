import Foundation
import PropertyList

// The PropertyList workloads: the same document as a `PlistValue` (ours), as Foundation
// objects (`PropertyListSerialization`) and as a Codable twin (`PropertyListDecoder` and
// `PropertyListEncoder`). Every reader reads the bytes our writer produced.

enum PlistWorkloads {
    /// The workloads of this file, in the order they run.
    static var all: [Workload] {
        [
            Workload(
                name: "plist-A", summary: "an array of 7,000 records of 8 keys, ≈70,000 bplist objects",
                operations: ["read", "write", "xml-read", "xml-write"],
                prepare: { try prepare(makeRecordDocument()) }),
            Workload(
                name: "plist-B", summary: "a ≈1 MB tree of sections: deep nesting, long strings, some UTF-16",
                operations: ["read", "write", "xml-read", "xml-write"],
                prepare: { try prepare(makeSectionDocument()) }),
        ]
    }

    /// We aim to be at least this many times faster than `PropertyListSerialization`, both ways.
    static let serializationGoal = Goal(peerID: "serialization", minimumRatio: 5)
    /// In XML, at least this many times faster than `PropertyListSerialization`, both ways.
    static let xmlSerializationGoal = Goal(peerID: "serialization", minimumRatio: 3)

    /// One document in every shape the contenders take.
    struct Document<Twin: Codable & Equatable> {
        let name: String
        let value: PlistValue
        let twin: Twin
        /// A cheap count taken from a decoded twin (the fingerprint of a decode).
        let twinCount: (Twin) -> Int
        /// `value` in Foundation's object model (NSArray, NSDictionary, NSString, NSNumber, NSDate, NSData).
        let foundationObject: Any
        /// Our encoding of `value`: the input of every reader.
        let bytes: [UInt8]
        let data: Data
    }

    static func document<Twin: Codable & Equatable>(
        _ name: String, twin: Twin, count: @escaping (Twin) -> Int, value: PlistValue
    ) throws -> Document<Twin> {
        let bytes = try BPlistWriter().write(value)
        return Document(
            name: name, value: value, twin: twin, twinCount: count, foundationObject: foundationObject(value), bytes: bytes,
            data: Data(bytes))
    }

    // MARK: Comparisons

    static func prepare<Twin: Codable & Equatable>(_ document: Document<Twin>) throws -> PreparedWorkload {
        let value = document.value
        let bytes = document.bytes
        let data = document.data
        let twin = document.twin
        let twinCount = document.twinCount
        let foundation = document.foundationObject
        let expectedCount = topLevelCount(value)

        /// Facts about the document, including what each writer makes of it.
        func facts() throws -> [String: String] {
            let serializationBytes = try PropertyListSerialization.data(fromPropertyList: foundation, format: .binary, options: 0)
            let encoderBytes = try binaryEncoder().encode(twin)
            return [
                "bplist objects written":
                    "ours \(objectCount(bytes)), PropertyListSerialization \(objectCount([UInt8](serializationBytes))), PropertyListEncoder \(objectCount([UInt8](encoderBytes)))",
                "bplist bytes written":
                    "ours \(bytes.count), PropertyListSerialization \(serializationBytes.count), PropertyListEncoder \(encoderBytes.count)",
                "values in the tree": "\(expandedCount(value)) (top level: \(expectedCount))",
            ]
        }

        func expectTopLevel(_ count: Int, _ who: String) throws {
            guard count == expectedCount else {
                throw BenchmarkFailure("\(who) read \(count) top-level elements, expected \(expectedCount)")
            }
        }
        /// Our reader must read a writer's output back as exactly `value`.
        func expectReadsBack(_ output: some Sequence<UInt8>, _ who: String) throws {
            let back = try BPlistReader().read(output)
            guard back == value else { throw BenchmarkFailure("\(who)'s output does not read back as the document") }
        }

        let read = Comparison(
            workload: document.name, operation: "read", documentBytes: bytes.count,
            contenders: [
                Contender(
                    id: "ours", name: "ours (BPlistReader)",
                    verify: {
                        guard try BPlistReader().read(bytes) == value else {
                            throw BenchmarkFailure("BPlistReader did not read back the value that was written")
                        }
                    },
                    run: { topLevelCount(try BPlistReader().read(bytes)) }),
                Contender(
                    id: "serialization", name: "PropertyListSerialization",
                    verify: {
                        let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
                        try expectTopLevel(topLevelCount(object), "PropertyListSerialization")
                        guard matches(object, value) else {
                            throw BenchmarkFailure("PropertyListSerialization read a different document")
                        }
                    },
                    run: { topLevelCount(try PropertyListSerialization.propertyList(from: data, options: [], format: nil)) }),
                Contender(
                    id: "codable", name: "PropertyListDecoder",
                    verify: {
                        guard try PropertyListDecoder().decode(Twin.self, from: data) == twin else {
                            throw BenchmarkFailure("PropertyListDecoder decoded a different document")
                        }
                    },
                    run: { twinCount(try PropertyListDecoder().decode(Twin.self, from: data)) }),
            ],
            goals: [serializationGoal])

        let write = Comparison(
            workload: document.name, operation: "write", documentBytes: bytes.count,
            contenders: [
                Contender(
                    id: "ours", name: "ours (BPlistWriter)",
                    verify: {
                        let output = try BPlistWriter().write(value)
                        guard output == bytes else { throw BenchmarkFailure("BPlistWriter is not deterministic") }
                        try expectReadsBack(output, "BPlistWriter")
                    },
                    run: { try BPlistWriter().write(value).count }),
                Contender(
                    id: "serialization", name: "PropertyListSerialization",
                    verify: {
                        let output = try PropertyListSerialization.data(fromPropertyList: foundation, format: .binary, options: 0)
                        try expectReadsBack(output, "PropertyListSerialization")
                    },
                    run: { try PropertyListSerialization.data(fromPropertyList: foundation, format: .binary, options: 0).count }),
                Contender(
                    id: "codable", name: "PropertyListEncoder",
                    verify: { try expectReadsBack(try binaryEncoder().encode(twin), "PropertyListEncoder") },
                    run: { try binaryEncoder().encode(twin).count }),
            ],
            goals: [serializationGoal])
        let (xmlRead, xmlWrite) = try xmlComparisons(document)
        return PreparedWorkload(comparisons: [read, write, xmlRead, xmlWrite], facts: facts)
    }

    /// The same document in XML: read and written by ours, `PropertyListSerialization` and
    /// `PropertyListDecoder`/`Encoder` with the XML format. XML holds dates to the second, so the
    /// value every reader must give is the document as XML holds it.
    static func xmlComparisons<Twin: Codable & Equatable>(_ document: Document<Twin>) throws -> (Comparison, Comparison) {
        let bytes = try XMLPlistWriter().write(document.value)
        let data = Data(bytes)
        let value = try XMLPlistReader().read(bytes)
        let foundation = foundationObject(value)
        let twinCount = document.twinCount
        let expectedCount = twinCount(document.twin)
        let xmlTwin = try PropertyListDecoder().decode(Twin.self, from: data)
        func expectReadsBack(_ output: some Sequence<UInt8>, _ who: String) throws {
            guard try XMLPlistReader().read(output) == value else {
                throw BenchmarkFailure("\(who)'s XML does not read back as the document")
            }
        }
        let read = Comparison(
            workload: document.name, operation: "xml-read", documentBytes: bytes.count,
            contenders: [
                Contender(
                    id: "ours", name: "ours (XMLPlistReader)",
                    verify: {
                        guard try XMLPlistReader().read(bytes) == value, try XMLPlistWriter().write(value) == bytes else {
                            throw BenchmarkFailure("XMLPlistReader did not read back the XML that was written")
                        }
                    },
                    run: { topLevelCount(try XMLPlistReader().read(bytes)) }),
                Contender(
                    id: "serialization", name: "PropertyListSerialization",
                    verify: {
                        let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
                        guard matches(object, value) else {
                            throw BenchmarkFailure("PropertyListSerialization read a different document from our XML")
                        }
                    },
                    run: { topLevelCount(try PropertyListSerialization.propertyList(from: data, options: [], format: nil)) }),
                Contender(
                    id: "codable", name: "PropertyListDecoder",
                    verify: {
                        guard twinCount(xmlTwin) == expectedCount,
                            try XMLPlistReader().read(try xmlEncoder().encode(xmlTwin)) == value
                        else { throw BenchmarkFailure("PropertyListDecoder decoded a different document from our XML") }
                    },
                    run: { twinCount(try PropertyListDecoder().decode(Twin.self, from: data)) }),
            ],
            goals: [xmlSerializationGoal])
        let write = Comparison(
            workload: document.name, operation: "xml-write", documentBytes: bytes.count,
            contenders: [
                Contender(
                    id: "ours", name: "ours (XMLPlistWriter)",
                    verify: {
                        let output = try XMLPlistWriter().write(value)
                        guard output == bytes else { throw BenchmarkFailure("XMLPlistWriter is not deterministic") }
                        try expectReadsBack(output, "XMLPlistWriter")
                    },
                    run: { try XMLPlistWriter().write(value).count }),
                Contender(
                    id: "serialization", name: "PropertyListSerialization",
                    verify: {
                        let output = try PropertyListSerialization.data(fromPropertyList: foundation, format: .xml, options: 0)
                        try expectReadsBack(output, "PropertyListSerialization")
                    },
                    run: { try PropertyListSerialization.data(fromPropertyList: foundation, format: .xml, options: 0).count }),
                Contender(
                    id: "codable", name: "PropertyListEncoder",
                    verify: { try expectReadsBack(try xmlEncoder().encode(xmlTwin), "PropertyListEncoder") },
                    run: { try xmlEncoder().encode(xmlTwin).count }),
            ],
            goals: [xmlSerializationGoal])
        return (read, write)
    }

    static func xmlEncoder() -> PropertyListEncoder {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        return encoder
    }

    static func binaryEncoder() -> PropertyListEncoder {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return encoder
    }

    // MARK: Shapes and checks

    /// The number of objects a `bplist00` file declares in its trailer.
    static func objectCount(_ bytes: [UInt8]) -> Int {
        guard bytes.count >= 32 else { return 0 }
        return bytes[(bytes.count - 24)..<(bytes.count - 16)].reduce(0) { $0 << 8 | Int($1) }
    }

    static func topLevelCount(_ value: PlistValue) -> Int {
        switch value {
        case .array(let elements): elements.count
        case .dict(let dict): dict.count
        default: 1
        }
    }

    /// Top-level element count of what `PropertyListSerialization` returned: on Linux it hands
    /// back Swift `Array<Any>` / `Dictionary<AnyHashable, Any>`, which are cast for free; the
    /// Foundation classes are checked last because casting a Swift collection to them bridges it.
    static func topLevelCount(_ object: Any) -> Int {
        if let array = object as? [Any] { return array.count }
        if let dict = object as? [AnyHashable: Any] { return dict.count }
        if let array = object as? NSArray { return array.count }
        if let dict = object as? NSDictionary { return dict.count }
        return 1
    }

    /// Values in the tree, every key and element counted.
    static func expandedCount(_ value: PlistValue) -> Int {
        switch value {
        case .array(let elements), .set(let elements): 1 + elements.reduce(0) { $0 + expandedCount($1) }
        case .dict(let dict): 1 + dict.values.reduce(dict.count) { $0 + expandedCount($1) }
        default: 1
        }
    }

    /// `value` as Foundation objects, the way an Objective-C-style caller holds a property list.
    static func foundationObject(_ value: PlistValue) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let v): NSNumber(value: v)
        case .int(let v): NSNumber(value: v)
        case .uint(let v): NSNumber(value: v)
        case .real(let v): NSNumber(value: v)
        case .float(let v): NSNumber(value: v)
        case .date(let v): NSDate(timeIntervalSinceReferenceDate: v)
        case .data(let v): NSData(bytes: v, length: v.count)
        case .string(let v): NSString(string: v)
        case .uid(let v): NSNumber(value: v)
        case .array(let elements), .set(let elements): NSArray(array: elements.map(foundationObject))
        case .dict(let dict):
            NSDictionary(objects: dict.values.map(foundationObject), forKeys: dict.keys.map { NSString(string: $0) })
        }
    }

    /// Whether a Foundation property list holds exactly `value` (numbers, dates and data compared exactly).
    static func matches(_ object: Any, _ value: PlistValue) -> Bool {
        switch value {
        case .bool(let v): return (object as? Bool) == v
        case .int(let v): return (object as? NSNumber)?.int64Value == v
        case .uint(let v): return (object as? NSNumber)?.uint64Value == v
        case .real(let v): return (object as? NSNumber)?.doubleValue.bitPattern == v.bitPattern
        case .float(let v): return (object as? NSNumber)?.floatValue.bitPattern == v.bitPattern
        case .date(let v): return (object as? Date)?.timeIntervalSinceReferenceDate.bitPattern == v.bitPattern
        case .data(let v): return (object as? Data).map { [UInt8]($0) } == v
        case .string(let v): return (object as? String).map { $0.utf8.elementsEqual(v.utf8) } ?? false
        case .array(let elements):
            guard let array = object as? [Any], array.count == elements.count else { return false }
            return zip(array, elements).allSatisfy { matches($0, $1) }
        case .dict(let dict):
            guard let foundation = object as? [String: Any], foundation.count == dict.count else { return false }
            return dict.allSatisfy { key, value in foundation[key].map { matches($0, value) } ?? false }
        case .null, .uid, .set:
            return false
        }
    }
}

// MARK: - Workload A: many small records

/// One record of workload A, the Codable twin of its dictionary.
struct BenchmarkRecord: Codable, Equatable, Sendable {
    var id: Int
    var name: String
    var score: Double
    var active: Bool
    var created: Date
    var thumbnail: Data
    var tags: [String]
    var rank: Int

    var plistValue: PlistValue {
        .dict([
            "id": .int(Int64(id)),
            "name": .string(name),
            "score": .real(score),
            "active": .bool(active),
            "created": .date(created.timeIntervalSinceReferenceDate),
            "thumbnail": .data([UInt8](thumbnail)),
            "tags": .array(tags.map(PlistValue.string)),
            "rank": .int(Int64(rank)),
        ])
    }
}

extension PlistWorkloads {
    static let recordCount = 7_000

    /// 7,000 records; each brings 10 objects of its own (its dictionary, id, name, score, date,
    /// data, tag array, two of its three tags and its rank), and shares keys, booleans and a tag pool.
    static func makeRecordDocument() throws -> Document<[BenchmarkRecord]> {
        var generator = SeededGenerator(seed: 0xA11CE)
        var records: [BenchmarkRecord] = []
        records.reserveCapacity(recordCount)
        for i in 0..<recordCount {
            let thumbnailLength = Int.random(in: 8...24, using: &generator)
            records.append(
                BenchmarkRecord(
                    id: 1_000_000 + i,
                    name: "user-\(i) \(Text.word(&generator))",
                    score: Double(i) + Double.random(in: 0..<1, using: &generator),
                    active: i % 3 != 0,
                    created: Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(i) * 61.25),
                    thumbnail: Data((0..<thumbnailLength).map { _ in UInt8.random(in: 0...255, using: &generator) }),
                    tags: ["tag-\(i)", "group-\(i % 97)", "note \(i): \(Text.word(&generator))"],
                    rank: 3 + 7 * i))
        }
        return try document("plist-A", twin: records, count: \.count, value: .array(records.map(\.plistValue)))
    }
}

// MARK: - Workload B: a large nested document

/// One node of workload B's tree, the Codable twin of its dictionary.
struct BenchmarkSection: Codable, Equatable, Sendable {
    var title: String
    var body: String
    var weight: Double
    var level: Int
    var revised: Date
    var attributes: [String: String]
    var children: [BenchmarkSection]

    var plistValue: PlistValue {
        .dict([
            "title": .string(title),
            "body": .string(body),
            "weight": .real(weight),
            "level": .int(Int64(level)),
            "revised": .date(revised.timeIntervalSinceReferenceDate),
            "attributes": .dict(PlistDictionary(uniqueKeysWithValues: attributes.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
            "children": .array(children.map(\.plistValue)),
        ])
    }
}

extension PlistWorkloads {
    /// Children per node at each depth: 8 levels of sections (16 levels of plist containers).
    static let sectionFanOut = [6, 4, 3, 2, 2, 2, 1, 0]

    static func makeSectionDocument() throws -> Document<BenchmarkSection> {
        var generator = SeededGenerator(seed: 0xB0B)
        var serial = 0
        func section(depth: Int) -> BenchmarkSection {
            serial += 1
            let number = serial
            // About a third of the text is not ASCII, so it is written as UTF-16.
            let wide = number % 3 == 0
            var attributes = [
                "kind": ["chapter", "section", "note", "aside"][depth % 4],
                "id": "s\(number)",
                "lang": wide ? "und" : "en",
            ]
            if number % 5 == 0 { attributes["author"] = Text.sentence(words: 3, wide: wide, &generator) }
            let children = (0..<sectionFanOut[depth]).map { _ in section(depth: depth + 1) }
            return BenchmarkSection(
                title: "\(number). " + Text.sentence(words: 5, wide: wide, &generator),
                body: Text.sentence(words: Int.random(in: 25...80, using: &generator), wide: wide, &generator),
                weight: Double.random(in: 0..<1000, using: &generator),
                level: depth,
                revised: Date(timeIntervalSinceReferenceDate: 600_000_000 + Double(number) * 3_600.5),
                attributes: attributes,
                children: children)
        }
        let root = section(depth: 0)
        return try document("plist-B", twin: root, count: { $0.children.count }, value: root.plistValue)
    }
}

// MARK: - Deterministic inputs

/// SplitMix64: a small, seeded generator so every run builds the same documents.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Words for generated text; the wide ones force UTF-16 (one is outside the BMP: a surrogate pair).
enum Text {
    static let words = [
        "archive", "binary", "object", "table", "offset", "marker", "value", "string", "integer", "reference",
        "keyed", "plist", "format", "trailer", "header", "writer", "reader", "bounded", "strict", "unique",
        "swift", "linux", "memory", "cache", "layout", "field", "record", "section", "payload", "width",
    ]
    static let wideWords = ["naïve", "Grüße", "façade", "日本語", "Ελληνικά", "русский", "🚀", "café", "№7", "データ"]

    static func word(_ generator: inout SeededGenerator) -> String {
        words[Int.random(in: 0..<words.count, using: &generator)]
    }

    static func sentence(words count: Int, wide: Bool, _ generator: inout SeededGenerator) -> String {
        var text = ""
        for i in 0..<count {
            if i > 0 { text += " " }
            if wide, i % 4 == 1 {
                text += wideWords[Int.random(in: 0..<wideWords.count, using: &generator)]
            } else {
                text += word(&generator)
            }
        }
        return text
    }
}
