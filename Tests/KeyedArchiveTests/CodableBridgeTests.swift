import Foundation
import KeyedArchive
import PropertyList
import Testing
import TestSupport

// MARK: Models

struct BridgeAddress: Codable, Equatable {
    var street: String
    var zip: Int
}

/// Synthesized Codable, no init(): every kind of field the bridge routes to the archive's coders.
struct BridgeRecord: Codable, Equatable {
    var small: Int8 = .min
    var big: UInt64 = .max
    var negativeZero: Double = -0.0
    var ratio: Float = 0.1
    var flag = true
    var name = "Zoë"
    var when = Date(timeIntervalSinceReferenceDate: 123_456.75)
    var link = URL(string: "https://example.com/a?b=c")!
    var id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    var blob = Data([0, 1, 2, 255])
    var nickname: String? = nil
    var title: String? = "Dr"
    var tags = ["a", "b", ""]
    var counts = ["x": 1, "y": -2]
    var address = BridgeAddress(street: "Main", zip: 8000)
    var color = BridgeColor.green
    var amount = Decimal(string: "-12.345")!
    var userID = BridgeUserID(raw: "u-42")
}

enum BridgeColor: String, Codable {
    case red, green
}

/// A single-value wrapper: archived as the string itself.
struct BridgeUserID: Codable, Equatable {
    var raw: String
    init(raw: String) { self.raw = raw }
    init(from decoder: any Decoder) throws { raw = try decoder.singleValueContainer().decode(String.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(raw)
    }
}

/// Synthesized Codable for cases with labelled, unlabelled, no and optional payloads.
enum BridgeCommand: Codable, Equatable {
    case move(x: Int, y: Int)
    case say(String)
    case pair(Int, String)
    case stop
    case ship(to: BridgeAddress?, express: Bool)
    indirect case then(BridgeCommand, BridgeCommand)
}

/// A custom encode(to:) with an unkeyed container: archived as an NSArray.
struct BridgePoint: Codable, Equatable {
    var x: Double
    var y: Double
    init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        x = try container.decode(Double.self)
        y = try container.decode(Double.self)
        guard container.isAtEnd else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a point has two coordinates")
        }
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(x)
        try container.encode(y)
    }
}

/// A Codable class hierarchy whose subclass uses a nested keyed container and superEncoder().
class BridgeShape: Codable {
    var name: String
    init(name: String) { self.name = name }
}

final class BridgeCircle: BridgeShape, Equatable {
    var radius: Double
    var center: BridgePoint
    var labels: [String?]

    init(name: String, radius: Double, center: BridgePoint, labels: [String?]) {
        (self.radius, self.center, self.labels) = (radius, center, labels)
        super.init(name: name)
    }

    private enum CodingKeys: String, CodingKey { case radius, meta, labels }
    private enum MetaKeys: String, CodingKey { case center, dollar = "$class" }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        radius = try container.decode(Double.self, forKey: .radius)
        let meta = try container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
        center = try meta.decode(BridgePoint.self, forKey: .center)
        guard try meta.decode(String.self, forKey: .dollar) == "not the class" else {
            throw DecodingError.dataCorruptedError(forKey: .dollar, in: meta, debugDescription: "lost the $ key")
        }
        var list = try container.nestedUnkeyedContainer(forKey: .labels)
        var labels: [String?] = []
        while !list.isAtEnd { labels.append(try list.decodeNil() ? nil : try list.decode(String.self)) }
        self.labels = labels
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(radius, forKey: .radius)
        var meta = container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
        try meta.encode(center, forKey: .center)
        try meta.encode("not the class", forKey: .dollar)
        var list = container.nestedUnkeyedContainer(forKey: .labels)
        for label in labels {
            if let label { try list.encode(label) } else { try list.encodeNil() }
        }
        try super.encode(to: container.superEncoder())
    }

    static func == (a: BridgeCircle, b: BridgeCircle) -> Bool {
        a.name == b.name && a.radius == b.radius && a.center == b.center && a.labels == b.labels
    }
}

final class BridgeTag: Codable {
    var label: String
    init(_ label: String) { self.label = label }
}

final class BridgeLink: Codable {
    var name: String
    var next: BridgeLink?
    init(_ name: String, next: BridgeLink? = nil) { (self.name, self.next) = (name, next) }
}

struct BridgePerson: Codable, Equatable {
    var name: String
    var address: BridgeAddress
}

/// Written under the class names of BridgePerson/BridgeAddress to make archives BridgePerson cannot read.
struct BridgeOldPerson: Encodable {
    var name: String
    var address: BridgeOldAddress
}
struct BridgeOldAddress: Encodable { var street: String }
struct BridgeStringZipAddress: Encodable {
    var street: String
    var zip: String
}

struct BridgeEmail: Codable, Equatable {
    var text: String
    init(_ text: String) { self.text = text }
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        text = try container.decode(String.self)
        guard text.contains("@") else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not an email address")
        }
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

struct BridgeContact: Codable, Equatable {
    var emails: [String: BridgeEmail]
    var primary: BridgeEmail
}

struct BridgeEncodableOnly: Encodable { var x = 1 }
struct BridgeDecodableOnly: Decodable { var x = 1 }

/// Records the coding paths its encode(to:) and init(from:) see.
struct BridgePathProbe: Codable, Equatable {
    var seen: String = ""
    init() {}
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: NamedKeys.self)
        seen = Self.text(decoder.codingPath) + "|" + Self.text(container.codingPath) + "|" + (try container.decode(String.self, forKey: .init("seen")))
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: NamedKeys.self)
        try container.encode(Self.text(encoder.codingPath), forKey: .init("seen"))
    }
    static func text(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: "/")
    }
}

struct NamedKeys: CodingKey {
    var stringValue: String
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

struct BridgeProbeHolder: Codable, Equatable {
    var direct = BridgePathProbe()
    var optional: BridgePathProbe? = BridgePathProbe()
    var list = [BridgePathProbe()]
    var nested = BridgeProbeInner()
}

struct BridgeProbeInner: Codable, Equatable {
    var probe = BridgePathProbe()
    var items: [BridgeProbeWrapper] = [BridgeProbeWrapper()]
}

/// Uses an unkeyed container so its elements carry index keys.
struct BridgeProbeWrapper: Codable, Equatable {
    var probes = [BridgePathProbe(), BridgePathProbe()]
    init() {}
    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        probes = []
        while !container.isAtEnd { probes.append(try container.decode(BridgePathProbe.self)) }
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for probe in probes { try container.encode(probe) }
    }
}

/// Asks for two kinds of container: a programming error reported as `.misuse`.
struct BridgeMisuse: Encodable {
    func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: NamedKeys.self)
        var list = encoder.unkeyedContainer()
        try list.encode(1)
    }
}

/// Encodes nothing.
struct BridgeNothing: Codable, Equatable {
    init() {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
}

/// Writes keys by hand and records what its keyed decoding container reports.
struct BridgeKeyProbe: Codable {
    var report: [String] = []
    init() {}
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: NamedKeys.self)
        report = [
            c.allKeys.map(\.stringValue).joined(separator: ","),
            "\(c.contains(.init("a")))\(c.contains(.init("$x")))\(c.contains(.init("$class")))\(c.contains(.init("zz")))",
            "\(try c.decodeNil(forKey: .init("n")))\(try c.decodeNil(forKey: .init("a")))",
            "\(try c.decodeIfPresent(Int.self, forKey: .init("zz")) as Any)|\(try c.decodeIfPresent(Int.self, forKey: .init("n")) as Any)",
            "\(try c.decode(Int?.self, forKey: .init("zz")) as Any)|\(try c.decode(String.self, forKey: .init("$x")))",
            "\((try? c.decodeNil(forKey: .init("zz"))) as Any)",
        ]
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: NamedKeys.self)
        try c.encode(1, forKey: .init("a"))
        try c.encode("d", forKey: .init("$x"))
        try c.encodeNil(forKey: .init("n"))
        try c.encode(2, forKey: .init("a"))  // a repeated key replaces the value in place
    }
}

/// A class coded through an unkeyed container: still one object per instance.
final class BridgeVector: Codable {
    var values: [Int]
    init(_ values: [Int]) { self.values = values }
    init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        values = []
        while !c.isAtEnd { values.append(try c.decode(Int.self)) }
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        for value in values { try c.encode(value) }
    }
}

/// An Archivable class archived under the name a Codable class is mapped from: its cycle must be refused.
final class BridgeArchivableLink: Archivable {
    var name = ""
    var next: BridgeArchivableLink?
    required init() {}
    static var archiveClassName: String? { "Bridge.Link" }
}

// MARK: Archive inspection

/// The archive as plain property-list values, for layout assertions.
struct BridgeArchiveView {
    let objects: [PlistValue]
    let top: PlistDictionary

    init(_ data: Data) throws {
        let plist = try PlistValue(bplist: [UInt8](data))
        objects = plist.dictValue?["$objects"]?.arrayValue ?? []
        top = plist.dictValue?["$top"]?.dictValue ?? [:]
    }

    /// What a reference stands for: the `$objects` entry of a UID, or the inline value.
    func resolve(_ value: PlistValue?) -> PlistValue? {
        guard let value else { return nil }
        if case .uid(let uid) = value { return objects[Int(uid)] }
        return value
    }

    var root: PlistDictionary { resolve(top["root"])?.dictValue ?? [:] }

    func object(_ dict: PlistDictionary, _ key: String) -> PlistDictionary { resolve(dict[key])?.dictValue ?? [:] }

    func className(_ dict: PlistDictionary) -> String? {
        resolve(dict["$class"])?.dictValue?["$classname"]?.stringValue
    }

    func classes(_ dict: PlistDictionary) -> [String] {
        (resolve(dict["$class"])?.dictValue?["$classes"]?.arrayValue ?? []).compactMap { resolve($0)?.stringValue }
    }
}

private func roundTrip<T: Codable>(_ value: T) throws -> T {
    try KeyedUnarchiver.unarchivedObject(ofType: T.self, from: try KeyedArchiver.archivedData(withRootObject: value))
}

private func archiveError(_ body: () throws -> Void) -> ArchiveError? {
    do {
        try body()
        return nil
    } catch let error as ArchiveError {
        return error
    } catch {
        Issue.record("expected an ArchiveError, got \(error)")
        return nil
    }
}

/// Archives an address; decoded, keeps its decoder, to read from it after the decode has returned.
final class BridgeDecoderKeeper: Codable, @unchecked Sendable {
    let decoder: (any Decoder)?
    let address: BridgeAddress

    init(_ address: BridgeAddress) {
        self.address = address
        decoder = nil
    }

    init(from decoder: any Decoder) throws {
        self.decoder = decoder
        address = BridgeAddress(street: "", zip: 0)
    }

    func encode(to encoder: any Encoder) throws { try address.encode(to: encoder) }
}

// MARK: Tests

@Suite("CodableBridge")
struct CodableBridgeTests {
    @Test("A decoder kept by the type it decoded still reads its archive after the bytes are overwritten")
    func keptDecoderOutlivesTheBytes() throws {
        var data = try KeyedArchiver.archivedData(withRootObject: BridgeDecoderKeeper(BridgeAddress(street: "Main", zip: 8000)))
        let keeper = try KeyedUnarchiver.unarchivedObject(ofType: BridgeDecoderKeeper.self, from: data)
        let decoder = try #require(keeper.decoder)
        // Overwrites the bytes in place: the unarchiver reads them where they lie while it decodes.
        data.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        #expect(data.allSatisfy { $0 == 0 })
        #expect(try BridgeAddress(from: decoder) == BridgeAddress(street: "Main", zip: 8000))
    }

    @Test("A synthesized struct round-trips every kind of field, -0.0 by bit pattern")
    func synthesizedStructRoundTrips() throws {
        var record = BridgeRecord()
        let back = try roundTrip(record)
        #expect(back == record)
        #expect(back.negativeZero.bitPattern == (-0.0 as Double).bitPattern)
        #expect(back.ratio.bitPattern == record.ratio.bitPattern)
        record.nickname = "Z"
        record.title = nil
        record.tags = []
        record.counts = [:]
        #expect(try roundTrip(record) == record)
        #expect(try roundTrip([record, record]) == [record, record])
    }

    @Test("The layout: $class names the module-qualified type; scalars inline; nil is $null; wrappers are their value")
    func keyedLayout() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: BridgeRecord())
        let view = try BridgeArchiveView(data)
        let root = view.root
        #expect(view.className(root) == "KeyedArchiveTests.BridgeRecord")
        #expect(view.classes(root) == ["KeyedArchiveTests.BridgeRecord", "NSObject"])
        #expect(root.keys.first == "$class")
        #expect(root["small"] == .int(-128))
        #expect(root["big"] == .uint(.max))
        #expect(root["negativeZero"] == .real(-0.0))
        #expect(root["ratio"] == .float(0.1))
        #expect(root["flag"] == .bool(true))
        #expect(root["nickname"] == .uid(0))
        #expect(view.resolve(root["title"]) == .string("Dr"))
        #expect(view.resolve(root["name"]) == .string("Zoë"))
        #expect(view.resolve(root["userID"]) == .string("u-42"))
        #expect(view.resolve(root["color"]) == .string("green"))
        #expect(view.className(view.object(root, "tags")) == "NSArray")
        #expect(view.className(view.object(root, "counts")) == "NSDictionary")
        #expect(view.className(view.object(root, "when")) == "NSDate")
        #expect(view.className(view.object(root, "link")) == "NSURL")
        #expect(view.className(view.object(root, "id")) == "NSUUID")
        let address = view.object(root, "address")
        #expect(view.className(address) == "KeyedArchiveTests.BridgeAddress")
        #expect(address["zip"] == .int(8000))
        #expect(view.className(view.object(root, "amount")) == "NSDecimalNumber")
    }

    @Test("Foundation's NSKeyedUnarchiver reads the archive of a Codable struct without crashing")
    func foundationReadsTheArchive() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: BridgeAddress(street: "Main", zip: 8000))
        let view = try BridgeArchiveView(data)
        #expect(view.className(view.root) == "KeyedArchiveTests.BridgeAddress")
        #expect(view.root["zip"] == .int(8000))
        #expect(view.resolve(view.root["street"]) == .string("Main"))
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        #expect(unarchiver.containsValue(forKey: "root"))
        _ = unarchiver.decodeObject(forKey: "root")  // no class of that name in this process: nil or an error, never a crash
        unarchiver.finishDecoding()
    }

    @Test("An enum with associated values round-trips; each case is a key holding a nested container object")
    func enumWithPayloads() throws {
        let commands: [BridgeCommand] = [
            .move(x: 1, y: -2), .say("hi"), .pair(7, "seven"), .stop, .ship(to: nil, express: true),
            .ship(to: BridgeAddress(street: "S", zip: 1), express: false), .then(.stop, .say("bye")),
        ]
        #expect(try roundTrip(commands) == commands)
        for command in commands { #expect(try roundTrip(command) == command) }

        let view = try BridgeArchiveView(try KeyedArchiver.archivedData(withRootObject: BridgeCommand.move(x: 1, y: 2)))
        #expect(view.className(view.root) == "KeyedArchiveTests.BridgeCommand")
        #expect(view.root.keys == ["$class", "move"])
        let payload = view.object(view.root, "move")
        #expect(view.className(payload) == "KeyedArchive.CodableContainer")
        #expect(payload["x"] == .int(1) && payload["y"] == .int(2))

        let stop = try BridgeArchiveView(try KeyedArchiver.archivedData(withRootObject: BridgeCommand.stop))
        #expect(stop.object(stop.root, "stop").keys == ["$class"])
        let pair = try BridgeArchiveView(try KeyedArchiver.archivedData(withRootObject: BridgeCommand.pair(3, "c")))
        #expect(pair.object(pair.root, "pair")["_0"] == .int(3))
    }

    @Test("A String-raw-value enum round-trips as its raw value")
    func rawValueEnum() throws {
        #expect(try roundTrip(BridgeColor.red) == .red)
        #expect(try roundTrip([BridgeColor.green, .red]) == [.green, .red])
        let view = try BridgeArchiveView(try KeyedArchiver.archivedData(withRootObject: BridgeColor.red))
        #expect(view.resolve(view.top["root"]) == .string("red"))
    }

    @Test("A custom encode(to:) with an unkeyed container archives as an NSArray")
    func unkeyedContainer() throws {
        let point = BridgePoint(x: 1.5, y: -0.0)
        let back = try roundTrip(point)
        #expect(back == point && back.y.bitPattern == point.y.bitPattern)
        let view = try BridgeArchiveView(try KeyedArchiver.archivedData(withRootObject: point))
        #expect(view.className(view.root) == "NSArray")
        let elements = view.root["NS.objects"]?.arrayValue ?? []
        #expect(elements.map { view.resolve($0) } == [.real(1.5), .real(-0.0)])
        // It reads as a plain array too, and a plain array reads as a point.
        let data = try KeyedArchiver.archivedData(withRootObject: point)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: [Double].self, from: data) == [1.5, -0.0])
        let fromArray = try KeyedArchiver.archivedData(withRootObject: [3.0, 4.0])
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: BridgePoint.self, from: fromArray) == BridgePoint(x: 3, y: 4))
        let tooLong = try KeyedArchiver.archivedData(withRootObject: [3.0, 4.0, 5.0])
        let error = archiveError { _ = try KeyedUnarchiver.unarchivedObject(ofType: BridgePoint.self, from: tooLong) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == "root[2]")
    }

    @Test("Nested keyed and unkeyed containers and superEncoder() round-trip; $ keys are escaped")
    func nestedContainersAndSuper() throws {
        let circle = BridgeCircle(name: "c", radius: 2, center: BridgePoint(x: 1, y: 2), labels: ["a", nil, "b"])
        let back = try roundTrip(circle)
        #expect(back == circle)
        let view = try BridgeArchiveView(try KeyedArchiver.archivedData(withRootObject: circle))
        #expect(view.className(view.root) == "KeyedArchiveTests.BridgeCircle")
        #expect(view.classes(view.root) == ["KeyedArchiveTests.BridgeCircle", "KeyedArchiveTests.BridgeShape", "NSObject"])
        #expect(view.root.keys == ["$class", "radius", "meta", "labels", "super"])
        let meta = view.object(view.root, "meta")
        #expect(view.className(meta) == "KeyedArchive.CodableContainer")
        #expect(view.resolve(meta["$$class"]) == .string("not the class"))
        #expect(view.className(view.object(meta, "center")) == "NSArray")
        let superObject = view.object(view.root, "super")
        #expect(view.className(superObject) == "KeyedArchive.CodableContainer")
        #expect(view.resolve(superObject["name"]) == .string("c"))
        #expect(view.object(view.root, "labels")["NS.objects"]?.arrayValue?[1] == .uid(0))
    }

    @Test("A shared Codable class instance is archived once and decoded as one instance")
    func classIdentity() throws {
        let a = BridgeTag("a")
        let b = BridgeTag("b")
        let tags = [a, b, a, a]
        let data = try KeyedArchiver.archivedData(withRootObject: tags)
        let view = try BridgeArchiveView(data)
        let refs = view.root["NS.objects"]?.arrayValue ?? []
        #expect(refs[0] == refs[2] && refs[2] == refs[3] && refs[0] != refs[1])
        let back = try KeyedUnarchiver.unarchivedObject(ofType: [BridgeTag].self, from: data)
        #expect(back.map(\.label) == ["a", "b", "a", "a"])
        #expect(back[0] === back[2] && back[2] === back[3])
        #expect(back[0] !== back[1])
    }

    @Test("allKeys, contains, decodeNil and decodeIfPresent; $ keys escaped; a repeated key replaced")
    func keyedContainerQueries() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: BridgeKeyProbe())
        let view = try BridgeArchiveView(data)
        #expect(view.root.keys == ["$class", "a", "$$x", "n"])
        #expect(view.root["a"] == .int(2) && view.root["n"] == .uid(0))
        let back = try KeyedUnarchiver.unarchivedObject(ofType: BridgeKeyProbe.self, from: data)
        #expect(back.report == ["a,$x,n", "truetruefalsefalse", "truefalse", "nil|nil", "nil|d", "nil"])
    }

    @Test("A class coded through an unkeyed container keeps its identity")
    func unkeyedClassIdentity() throws {
        let v = BridgeVector([1, 2])
        let data = try KeyedArchiver.archivedData(withRootObject: [v, v])
        let view = try BridgeArchiveView(data)
        let refs = view.root["NS.objects"]?.arrayValue ?? []
        #expect(refs.count == 2 && refs[0] == refs[1])
        #expect(view.className(view.resolve(refs[0])?.dictValue ?? [:]) == "NSArray")
        let back = try KeyedUnarchiver.unarchivedObject(ofType: [BridgeVector].self, from: data)
        #expect(back[0] === back[1] && back[0].values == [1, 2])
    }

    @Test("A cycle through Codable classes is .cycle when archiving and when unarchiving")
    func cycles() throws {
        let a = BridgeLink("a")
        let b = BridgeLink("b", next: a)
        a.next = b
        let error = archiveError { _ = try KeyedArchiver.archivedData(withRootObject: a) }
        #expect(error?.code == .cycle)
        #expect(error?.keyPath == "root.next.next")
        let me = BridgeLink("me")
        me.next = me
        #expect(archiveError { _ = try KeyedArchiver.archivedData(withRootObject: me) }?.code == .cycle)
        a.next = nil
        me.next = nil

        // An archive with a cycle (written by an Archivable class) read as the Codable class.
        let x = BridgeArchivableLink()
        x.name = "x"
        x.next = x
        let data = try KeyedArchiver.archivedData(withRootObject: x)
        x.next = nil
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(BridgeLink.self, forClassName: "Bridge.Link")
        let readError = archiveError { _ = try unarchiver.decode(BridgeLink.self, forKey: "root") }
        #expect(readError?.code == .cycle)
        #expect(readError?.keyPath == "root.next")
    }

    @Test("A missing required key is .keyNotFound with its key path")
    func missingKey() throws {
        let archiver = KeyedArchiver()
        archiver.setClassName("KeyedArchiveTests.BridgePerson", for: BridgeOldPerson.self)
        archiver.setClassName("KeyedArchiveTests.BridgeAddress", for: BridgeOldAddress.self)
        try archiver.encode(BridgeOldPerson(name: "Ann", address: BridgeOldAddress(street: "Main")), forKey: "root")
        let error = archiveError { _ = try KeyedUnarchiver.unarchivedObject(ofType: BridgePerson.self, from: archiver.encodedData) }
        #expect(error?.code == .keyNotFound)
        #expect(error?.keyPath == "root.address.zip")
        #expect(error?.reason.contains("zip") == true)
    }

    @Test("A string where an Int is expected is .typeMismatch with its key path")
    func wrongKind() throws {
        let archiver = KeyedArchiver()
        archiver.setClassName("KeyedArchiveTests.BridgeAddress", for: BridgeStringZipAddress.self)
        try archiver.encode(["a": BridgeStringZipAddress(street: "Main", zip: "8000")], forKey: "root")
        let data = try archiver.encodedData
        let error = archiveError { _ = try KeyedUnarchiver.unarchivedObject(ofType: [String: BridgeAddress].self, from: data) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == "root.a.zip")

        let person = KeyedArchiver()
        person.setClassName("KeyedArchiveTests.BridgeAddress", for: BridgeStringZipAddress.self)
        person.setClassName("KeyedArchiveTests.BridgePerson", for: BridgeOldPersonWithStringZip.self)
        try person.encode(BridgeOldPersonWithStringZip(name: "A", address: .init(street: "S", zip: "x")), forKey: "root")
        let personError = archiveError { _ = try KeyedUnarchiver.unarchivedObject(ofType: BridgePerson.self, from: person.encodedData) }
        #expect(personError?.code == .typeMismatch)
        #expect(personError?.keyPath == "root.address.zip")
    }

    @Test("A DecodingError thrown by init(from:) becomes an ArchiveError with the coding path as key path")
    func decodingErrorsConverted() throws {
        let good = BridgeContact(emails: ["work": BridgeEmail("a@b")], primary: BridgeEmail("c@d"))
        #expect(try roundTrip(good) == good)
        let bad = BridgeContact(emails: ["work": BridgeEmail("nope")], primary: BridgeEmail("c@d"))
        let error = archiveError { _ = try roundTrip(bad) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == "root.emails.work")
        #expect(error?.reason.contains("nope is not an email address") == true)
        let badPrimary = BridgeContact(emails: [:], primary: BridgeEmail("x"))
        #expect(archiveError { _ = try roundTrip(badPrimary) }?.keyPath == "root.primary")
    }

    @Test("codingPath is the path from the nearest Codable value reached through Codable containers")
    func codingPaths() throws {
        let back = try roundTrip(BridgeProbeHolder())
        // Encoding paths are stored by encode(to:); decoding paths are seen by init(from:).
        #expect(back.direct.seen == "direct|direct|direct")
        #expect(back.optional?.seen == "optional|optional|optional")
        #expect(back.nested.probe.seen == "nested/probe|nested/probe|nested/probe")
        // Array elements reached through the archive's own collection coder start a new path.
        #expect(back.list[0].seen == "||")
        #expect(back.nested.items[0].probes.map(\.seen) == ["[0]|[0]|[0]", "[1]|[1]|[1]"])
    }

    @Test("Encodable-only and Decodable-only types fail with .notArchivable naming the type")
    func oneWayTypes() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: BridgeEncodableOnly())
        let decodeError = archiveError { _ = try KeyedUnarchiver.unarchivedObject(ofType: BridgeEncodableOnly.self, from: data) }
        #expect(decodeError?.code == .notArchivable)
        #expect(decodeError?.reason.contains("KeyedArchiveTests.BridgeEncodableOnly is Encodable but not Decodable") == true)
        let encodeError = archiveError { _ = try KeyedArchiver.archivedData(withRootObject: BridgeDecodableOnly()) }
        #expect(encodeError?.code == .notArchivable)
        #expect(encodeError?.reason.contains("KeyedArchiveTests.BridgeDecodableOnly is Decodable but not Encodable") == true)
    }

    @Test("Asking for two kinds of container is .misuse; a value with no container is an empty object")
    func containerMisuseAndEmpty() throws {
        #expect(archiveError { _ = try KeyedArchiver.archivedData(withRootObject: BridgeMisuse()) }?.code == .misuse)
        #expect(try roundTrip(BridgeNothing()) == BridgeNothing())
        let view = try BridgeArchiveView(try KeyedArchiver.archivedData(withRootObject: BridgeNothing()))
        #expect(view.className(view.root) == "KeyedArchiveTests.BridgeNothing")
    }

    @Test("A missing super key, an unknown class and a wrong container kind are errors, not crashes")
    func readingErrors() throws {
        // An archive of a BridgeShape read as a BridgeCircle: unknown class (not registered).
        let shape = try KeyedArchiver.archivedData(withRootObject: BridgeShape(name: "s"))
        #expect(archiveError { _ = try KeyedUnarchiver.unarchivedObject(ofType: BridgeCircle.self, from: shape) }?.code == .unknownClass)
        // A point (an NSArray) read as a keyed type.
        let point = try KeyedArchiver.archivedData(withRootObject: BridgePoint(x: 1, y: 2))
        #expect(archiveError { _ = try KeyedUnarchiver.unarchivedObject(ofType: BridgeAddress.self, from: point) }?.code == .typeMismatch)
        // A keyed type read as a point.
        let address = try KeyedArchiver.archivedData(withRootObject: BridgeAddress(street: "s", zip: 1))
        #expect(archiveError { _ = try KeyedUnarchiver.unarchivedObject(ofType: BridgePoint.self, from: address) }?.code == .typeMismatch)
        // A subclass archived through its base type reads back when registered.
        let circle = BridgeCircle(name: "c", radius: 1, center: BridgePoint(x: 0, y: 0), labels: [])
        let shapes = try KeyedArchiver.archivedData(withRootObject: [circle as BridgeShape])
        let unarchiver = try KeyedUnarchiver(forReadingFrom: shapes)
        unarchiver.register(BridgeCircle.self)
        let back = try unarchiver.decode([BridgeShape].self, forKey: "root")
        #expect((back.first as? BridgeCircle) == circle)
    }
}

extension CodableBridgeTests {
    @Test("Corrupted archives of Codable values fail with ArchiveError, never a crash or a hang", arguments: [UInt64(1), 2, 3])
    func corruptedArchives(seed: UInt64) throws {
        let circle = BridgeCircle(name: "c", radius: 2, center: BridgePoint(x: 1, y: 2), labels: ["a", nil])
        let tag = BridgeTag("t")
        let sources: [Data] = [
            try KeyedArchiver.archivedData(withRootObject: BridgeRecord()),
            try KeyedArchiver.archivedData(withRootObject: [BridgeCommand.then(.move(x: 1, y: 2), .ship(to: nil, express: true))]),
            try KeyedArchiver.archivedData(withRootObject: circle),
            try KeyedArchiver.archivedData(withRootObject: [tag, tag]),
        ]
        var rng = SplitMix64(seed: seed)
        for _ in 0..<600 {
            let which = Int.random(in: 0..<sources.count, using: &rng)
            var bytes = [UInt8](sources[which])
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let offset = Int.random(in: 8..<bytes.count, using: &rng)
                bytes[offset] = rng.chance(1, in: 2) ? UInt8.random(in: 0...255, using: &rng) : bytes[offset] ^ (1 << UInt8.random(in: 0..<8, using: &rng))
            }
            let data = Data(bytes)
            do {
                switch which {
                case 0: _ = try KeyedUnarchiver.unarchivedObject(ofType: BridgeRecord.self, from: data)
                case 1: _ = try KeyedUnarchiver.unarchivedObject(ofType: [BridgeCommand].self, from: data)
                case 2: _ = try KeyedUnarchiver.unarchivedObject(ofType: BridgeCircle.self, from: data)
                default: _ = try KeyedUnarchiver.unarchivedObject(ofType: [BridgeTag].self, from: data)
                }
            } catch is ArchiveError {
                continue
            } catch {
                Issue.record("seed \(seed): \(error) is not an ArchiveError")
            }
        }
    }
}

struct BridgeOldPersonWithStringZip: Encodable {
    var name: String
    var address: BridgeStringZipAddress
}
