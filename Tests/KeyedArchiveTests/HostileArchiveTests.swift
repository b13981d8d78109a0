import Foundation
import KeyedArchive
import PropertyList
import Testing

/// A value type that can hold itself through an array (hostile archives make it contain itself).
struct ZooTree: Archivable {
    var label = ""
    var kids: [ZooTree] = []
}

/// Breaks every strong cycle reachable from a decoded `ZooNode` graph (or an `Any` holding one),
/// so the fuzz tests do not leak thousands of cyclic graphs.
func zooBreakGraph(_ value: Any) {
    var stack: [ZooNode] = []
    if let node = value as? ZooNode { stack.append(node) }
    if let list = value as? [Any] { stack += list.compactMap { $0 as? ZooNode } }
    var seen = Set<ObjectIdentifier>()
    while let node = stack.popLast() {
        guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
        stack += node.children
        stack += node.byName.values
        if let next = node.next { stack.append(next) }
        node.children = []
        node.byName = [:]
        node.next = nil
    }
}

/// One malformed archive, how to decode it, and the error it must give.
struct ZooHostileCase: Sendable, CustomTestStringConvertible {
    let name: String
    let code: ArchiveError.Code
    /// The exact key path expected, when the problem is inside a value.
    let keyPath: String?
    /// Text the reason must contain.
    let mentions: [String]
    let build: @Sendable () throws -> Data
    let decode: @Sendable (Data) -> ArchiveError?
    /// Whether the error must carry a key path or a byte offset (not for whole-archive limits).
    let locates: Bool

    var testDescription: String { "\(name) → \(code)" }

    init(
        _ name: String, _ code: ArchiveError.Code, keyPath: String? = nil, mentions: [String] = [], locates: Bool = true,
        build: @escaping @Sendable () throws -> Data,
        decode: @escaping @Sendable (Data) -> ArchiveError? = { ZooArchive.decodeError(ZooPerson.self, from: $0) }
    ) {
        self.name = name
        self.code = code
        self.keyPath = keyPath
        self.mentions = mentions
        self.locates = locates
        self.build = build
        self.decode = decode
    }
}

/// Builders of malformed archives, from our own archives patched as `PlistValue` trees.
enum ZooHostile {
    static func person() throws -> Data {
        try ZooArchive.encode(ZooPerson(name: "Ann", small: 5, address: ZooAddress(street: "Main", zip: 8000)))
    }

    /// Edits the top dictionary (`$archiver`, `$version`, `$top`, `$objects`) of the person archive.
    static func top(_ edit: (inout PlistDictionary) -> Void) throws -> Data {
        var top = try ZooArchive.top(try person())
        edit(&top)
        return try ZooArchive.bytes(top)
    }

    /// The UID a field of an object dictionary holds.
    static func uid(_ value: PlistValue?) -> Int? {
        if case .uid(let uid)? = value { return Int(uid) }
        return nil
    }

    /// Edits the object dictionary at `uid` in place.
    static func edit(_ objects: inout [PlistValue], _ uid: Int, _ body: (inout PlistDictionary) -> Void) {
        guard objects.indices.contains(uid), var dict = objects[uid].dictValue else { return }
        body(&dict)
        objects[uid] = .dict(dict)
    }

    /// Edits the person archive's root dictionary (UID 1), with access to all objects.
    static func root(_ body: @escaping (inout PlistDictionary, inout [PlistValue]) -> Void) throws -> Data {
        try ZooArchive.patch(try person()) { objects in
            guard var root = objects[1].dictValue else { return }
            body(&root, &objects)
            objects[1] = .dict(root)
        }
    }

    /// Edits the person archive's address dictionary.
    static func address(_ body: @escaping (inout PlistDictionary, inout [PlistValue]) -> Void) throws -> Data {
        try ZooArchive.patch(try person()) { objects in
            guard let uid = uid(objects[1].dictValue?["address"]), var address = objects[uid].dictValue else { return }
            body(&address, &objects)
            objects[uid] = .dict(address)
        }
    }

    /// Edits the first object dictionary of class `className` in the archive of `value`.
    static func firstObject<T>(
        of value: T, className: String, _ body: @escaping (inout PlistDictionary, inout [PlistValue]) -> Void
    ) throws -> Data {
        try ZooArchive.patch(try ZooArchive.encode(value)) { objects in
            guard let uid = ZooArchive.uids(ofClass: className, in: objects).first, var dict = objects[uid].dictValue else { return }
            body(&dict, &objects)
            objects[uid] = .dict(dict)
        }
    }

    /// `$objects` of a hand-made archive: `$null`, then `NSArray`'s class description at UID 1, then `rest`.
    static func withArrayClass(_ rest: [PlistValue]) -> [PlistValue] {
        ["$null", ZooArchive.classDescription("NSArray")] + rest
    }

    /// `{$class: UID 1, NS.objects: [UIDs]}`.
    static func array(_ uids: [Int]) -> PlistValue {
        .dict(["$class": .uid(1), "NS.objects": .array(uids.map { .uid(UInt64($0)) })])
    }

    /// `levels` arrays, each referencing the next one twice: 2^levels values when expanded.
    static func exponentialDAG(levels: Int) throws -> Data {
        var rest: [PlistValue] = []
        for level in 0..<levels {
            let uid = 2 + level
            rest.append(level == levels - 1 ? array([]) : array([uid + 1, uid + 1]))
        }
        return try ZooArchive.archive(objects: withArrayClass(rest), top: ["root": .uid(2)])
    }

    /// `levels` arrays nested in each other.
    static func nestedArrays(levels: Int) throws -> Data {
        var rest: [PlistValue] = []
        for level in 0..<levels {
            let uid = 2 + level
            rest.append(level == levels - 1 ? array([]) : array([uid + 1]))
        }
        return try ZooArchive.archive(objects: withArrayClass(rest), top: ["root": .uid(2)])
    }

    /// An NSArray whose only element is itself.
    static func selfContainingArray() throws -> Data {
        try ZooArchive.archive(objects: withArrayClass([array([2])]), top: ["root": .uid(2)])
    }

    /// An NSDictionary whose value under "me" is itself.
    static func selfContainingDictionary() throws -> Data {
        try ZooArchive.archive(
            objects: [
                "$null", ZooArchive.classDescription("NSDictionary"),
                .dict(["$class": .uid(1), "NS.keys": [.uid(3)], "NS.objects": [.uid(2)]]), "me",
            ],
            top: ["root": .uid(2)])
    }

    /// A string object `{NS.string: itself}` of class NSMutableString.
    static func selfContainingString() throws -> Data {
        try ZooArchive.archive(objects: [
            "$null", .dict(["$class": .uid(2), "NS.string": .uid(1)]),
            ZooArchive.classDescription("NSMutableString", ["NSString", "NSObject"]),
        ])
    }

    /// A data object `{NS.data: itself}` of class NSMutableData.
    static func selfContainingData() throws -> Data {
        try ZooArchive.archive(objects: [
            "$null", .dict(["$class": .uid(2), "NS.data": .uid(1)]),
            ZooArchive.classDescription("NSMutableData", ["NSData", "NSObject"]),
        ])
    }

    /// A URL whose `NS.base` is itself.
    static func selfBasedURL() throws -> Data {
        try ZooArchive.archive(objects: [
            "$null", .dict(["$class": .uid(2), "NS.base": .uid(1), "NS.relative": .uid(3)]), ZooArchive.classDescription("NSURL"),
            "page.html",
        ])
    }
}

/// Malformed, truncated, corrupted and hostile archives: every one fails with an `ArchiveError`
/// that has the right code and says where (key path or byte offset), and none crashes or hangs.
@Suite("Hostile archives")
struct HostileArchiveTests {
    static let cases: [ZooHostileCase] = [
        // MARK: The top dictionary
        .init("$archiver is not NSKeyedArchiver", .invalidArchive, mentions: ["$archiver"]) {
            try ZooHostile.top { $0["$archiver"] = "NSKeyedArchiverX" }
        },
        .init("$archiver is a number", .invalidArchive) { try ZooHostile.top { $0["$archiver"] = 1 } },
        .init("$archiver is missing", .invalidArchive) { try ZooHostile.top { $0["$archiver"] = nil } },
        .init("$version is 100001", .invalidArchive, mentions: ["$version"]) { try ZooHostile.top { $0["$version"] = 100_001 } },
        .init("$version is the string \"100000\"", .invalidArchive, mentions: ["$version"]) {
            try ZooHostile.top { $0["$version"] = "100000" }
        },
        .init("$version is the real 100000.0", .invalidArchive) { try ZooHostile.top { $0["$version"] = .real(100_000) } },
        .init("$version is missing", .invalidArchive) { try ZooHostile.top { $0["$version"] = nil } },
        .init("$top is missing", .invalidArchive, mentions: ["$top"]) { try ZooHostile.top { $0["$top"] = nil } },
        .init("$objects is missing", .invalidArchive, mentions: ["$objects"]) { try ZooHostile.top { $0["$objects"] = nil } },
        .init("$top is an array", .invalidArchive, mentions: ["$top"]) { try ZooHostile.top { $0["$top"] = [.uid(1)] } },
        .init("$top is a string", .invalidArchive) { try ZooHostile.top { $0["$top"] = "root" } },
        .init("$objects is a dictionary", .invalidArchive, mentions: ["$objects"]) {
            try ZooHostile.top { $0["$objects"] = ["a": "$null"] }
        },
        .init("$objects is a string", .invalidArchive) { try ZooHostile.top { $0["$objects"] = "$null" } },
        .init("$objects is empty", .invalidArchive) { try ZooHostile.top { $0["$objects"] = [] } },
        .init("the plist root is an array", .invalidArchive) { Data(try BPlistWriter().write(["$archiver", "NSKeyedArchiver"])) },
        .init("$top root is a UID out of range", .invalidReference) { try ZooHostile.top { $0["$top"] = ["root": .uid(77)] } },
        .init("not a property list at all", .notPropertyList) { Data("NSKeyedArchiver".utf8) },

        // MARK: $class
        .init("$class is a string, not a UID", .invalidArchive, mentions: ["$class"]) {
            try ZooHostile.root { root, _ in root["$class"] = .string(String(reflecting: ZooPerson.self)) }
        },
        .init("$class points at an object dictionary without $classname", .invalidArchive, mentions: ["$classname"]) {
            try ZooHostile.root { root, _ in root["$class"] = root["address"] }
        },
        .init("$class points at a string", .invalidArchive) { try ZooHostile.root { root, _ in root["$class"] = root["name"] } },
        .init("$class points at $null", .invalidArchive, mentions: ["$null"]) {
            try ZooHostile.root { root, _ in root["$class"] = .uid(0) }
        },
        .init("$class is a UID out of range", .invalidReference) { try ZooHostile.root { root, _ in root["$class"] = .uid(4_000) } },
        .init("$classname is a number", .invalidArchive) {
            try ZooHostile.root { root, objects in
                ZooHostile.edit(&objects, ZooHostile.uid(root["$class"]) ?? 0) { $0["$classname"] = 7 }
            }
        },
        .init("the root is another class", .unknownClass, mentions: [String(reflecting: ZooAddress.self)]) {
            try ZooArchive.encode(ZooAddress())
        },

        // MARK: UIDs and fields
        .init("a field UID is out of range", .invalidReference, keyPath: "root.address") {
            try ZooHostile.root { root, _ in root["address"] = .uid(999) }
        },
        .init("a string where an Int is expected (by UID)", .typeMismatch, keyPath: "root.address.zip", mentions: ["integer"]) {
            try ZooHostile.address { address, objects in
                objects.append("8000")
                address["zip"] = .uid(UInt64(objects.count - 1))
            }
        },
        .init("a string where an Int is expected (inline)", .typeMismatch, keyPath: "root.address.zip") {
            try ZooHostile.address { address, _ in address["zip"] = "8000" }
        },
        .init("an Int8 field given 300", .typeMismatch, keyPath: "root.small", mentions: ["300", "Int8"]) {
            try ZooHostile.root { root, _ in root["small"] = 300 }
        },
        .init("an Int8 field given -129", .typeMismatch, keyPath: "root.small") {
            try ZooHostile.root { root, _ in root["small"] = -129 }
        },
        .init("an Int8 field given a real", .typeMismatch, keyPath: "root.small") {
            try ZooHostile.root { root, _ in root["small"] = .real(1) }
        },
        .init("an Int8 field given nil", .typeMismatch, keyPath: "root.small") {
            try ZooHostile.root { root, _ in root["small"] = .uid(0) }
        },
        .init("a struct field given nil", .typeMismatch, keyPath: "root.address") {
            try ZooHostile.root { root, _ in root["address"] = .uid(0) }
        },
        .init("a String field given an object", .typeMismatch, keyPath: "root.name") {
            try ZooHostile.root { root, _ in root["name"] = root["address"] }
        },
        .init("a UInt8 field given -1", .typeMismatch, keyPath: "root.uint8",
            build: { try ZooHostile.firstObject(of: ZooIntegers(), className: String(reflecting: ZooIntegers.self)) { d, _ in d["uint8"] = -1 } },
            decode: { ZooArchive.decodeError(ZooIntegers.self, from: $0) }),
        .init("a UInt64 field given Int64.min", .typeMismatch, keyPath: "root.uint64",
            build: {
                try ZooHostile.firstObject(of: ZooIntegers(), className: String(reflecting: ZooIntegers.self)) { d, _ in
                    d["uint64"] = .int(.min)
                }
            },
            decode: { ZooArchive.decodeError(ZooIntegers.self, from: $0) }),
        .init("a Bool field given 1", .typeMismatch, keyPath: "root.yes",
            build: { try ZooHostile.firstObject(of: ZooReals(), className: String(reflecting: ZooReals.self)) { d, _ in d["yes"] = 1 } },
            decode: { ZooArchive.decodeError(ZooReals.self, from: $0) }),
        .init("a Double field given a string", .typeMismatch, keyPath: "root.double",
            build: { try ZooHostile.firstObject(of: ZooReals(), className: String(reflecting: ZooReals.self)) { d, _ in d["double"] = "1.5" } },
            decode: { ZooArchive.decodeError(ZooReals.self, from: $0) }),
        .init("an enum given an unknown raw value", .typeMismatch, keyPath: "root.level",
            build: { try ZooHostile.firstObject(of: ZooEnums(), className: String(reflecting: ZooEnums.self)) { d, _ in d["level"] = 55 } },
            decode: { ZooArchive.decodeError(ZooEnums.self, from: $0) }),
        .init("a UUID with 3 bytes", .typeMismatch, keyPath: "root.NS.uuidbytes",
            build: { try ZooHostile.firstObject(of: UUID(), className: "NSUUID") { d, _ in d["NS.uuidbytes"] = .data([1, 2, 3]) } },
            decode: { ZooArchive.decodeError(UUID.self, from: $0) }),
        .init("a Date whose NS.time is a string", .typeMismatch, keyPath: "root.NS.time",
            build: { try ZooHostile.firstObject(of: Date(), className: "NSDate") { d, _ in d["NS.time"] = "now" } },
            decode: { ZooArchive.decodeError(Date.self, from: $0) }),
        .init("a URL whose NS.relative is a number", .typeMismatch, keyPath: "root.NS.relative",
            build: { try ZooHostile.firstObject(of: URL(string: "https://a.b")!, className: "NSURL") { d, _ in d["NS.relative"] = 5 } },
            decode: { ZooArchive.decodeError(URL.self, from: $0) }),

        // MARK: Collections
        .init("NS.keys and NS.objects have different lengths", .invalidArchive, mentions: ["NS.keys", "NS.objects"],
            build: {
                try ZooHostile.firstObject(of: ["a": 1, "b": 2], className: "NSDictionary") { d, _ in
                    d["NS.objects"] = d["NS.objects"]?.arrayValue.map { .array(Array($0.prefix(1))) }
                }
            },
            decode: { ZooArchive.decodeError([String: Int].self, from: $0) }),
        .init("NS.keys and NS.objects have different lengths, decoded as Any", .invalidArchive,
            build: {
                try ZooHostile.firstObject(of: ["a": 1, "b": 2], className: "NSDictionary") { d, _ in
                    d["NS.keys"] = d["NS.keys"]?.arrayValue.map { .array(Array($0.prefix(1))) }
                }
            },
            decode: { ZooArchive.decodeError(Any.self, from: $0) }),
        .init("a duplicate key in NS.keys", .invalidArchive,
            build: {
                try ZooHostile.firstObject(of: ["a": 1, "b": 2], className: "NSDictionary") { d, _ in
                    d["NS.keys"] = d["NS.keys"]?.arrayValue.map { .array([$0[0], $0[0]]) }
                }
            },
            decode: { ZooArchive.decodeError([String: Int].self, from: $0) }),
        .init("an NS.objects element that is not a UID", .invalidArchive, keyPath: "root.NS.objects",
            build: { try ZooHostile.firstObject(of: [1, 2], className: "NSArray") { d, _ in d["NS.objects"] = [1, 2] } },
            decode: { ZooArchive.decodeError([Int].self, from: $0) }),
        .init("an NS.objects element UID out of range", .invalidReference, keyPath: "root[1]",
            build: { try ZooHostile.firstObject(of: [1, 2], className: "NSArray") { d, _ in d["NS.objects"] = [.uid(3), .uid(300)] } },
            decode: { ZooArchive.decodeError([Int].self, from: $0) }),
        .init("NS.objects is not an array", .invalidArchive,
            build: { try ZooHostile.firstObject(of: [1, 2], className: "NSArray") { d, _ in d["NS.objects"] = "list" } },
            decode: { ZooArchive.decodeError([Int].self, from: $0) }),
        .init("NS.objects is missing", .keyNotFound,
            build: { try ZooHostile.firstObject(of: [1, 2], className: "NSArray") { d, _ in d["NS.objects"] = nil } },
            decode: { ZooArchive.decodeError([Int].self, from: $0) }),
        .init("an array where a dictionary is expected", .typeMismatch,
            build: { try ZooArchive.encode([1, 2]) }, decode: { ZooArchive.decodeError([String: Int].self, from: $0) }),

        // MARK: Classes
        .init("an unregistered $classname in a polymorphic field", .unknownClass, keyPath: "root.animal",
            mentions: ["Evil.Payload", "register"],
            build: {
                try ZooHostile.firstObject(of: ZooPen(), className: String(reflecting: ZooAnimal.self)) { d, objects in
                    ZooHostile.edit(&objects, ZooHostile.uid(d["$class"]) ?? 0) { $0["$classname"] = "Evil.Payload" }
                }
            },
            decode: { ZooArchive.decodeError(ZooPen.self, from: $0) }),
        .init("a registered class that is not the field's type", .typeMismatch, keyPath: "root.animal",
            build: {
                try ZooHostile.firstObject(of: ZooPen(), className: String(reflecting: ZooAnimal.self)) { d, objects in
                    ZooHostile.edit(&objects, ZooHostile.uid(d["$class"]) ?? 0) {
                        $0["$classname"] = .string(String(reflecting: ZooEngine.self))
                    }
                }
            },
            decode: { ZooArchive.decodeError(ZooPen.self, from: $0, configure: { $0.register(ZooEngine.self) }) }),
        .init("an unknown class inside [Any]", .unknownClass, keyPath: "root[0]", mentions: ["register"],
            build: { try ZooArchive.encode([ZooEngine()] as [Any]) },
            decode: { ZooArchive.decodeError([Any].self, from: $0) }),

        // MARK: Cycles and limits
        .init("an NSArray containing itself, decoded as [Any]", .cycle,
            build: ZooHostile.selfContainingArray, decode: { ZooArchive.decodeError([Any].self, from: $0) }),
        .init("an NSArray containing itself, decoded as Any", .cycle,
            build: ZooHostile.selfContainingArray, decode: { ZooArchive.decodeError(Any.self, from: $0) }),
        .init("an NSDictionary containing itself, decoded as [String: Any]", .cycle,
            build: ZooHostile.selfContainingDictionary, decode: { ZooArchive.decodeError([String: Any].self, from: $0) }),
        .init("an Archivable struct containing itself", .cycle,
            build: {
                try ZooArchive.patch(try ZooArchive.encode(ZooTree(label: "r", kids: [ZooTree(label: "k", kids: [])]))) { objects in
                    // The innermost NSArray (the kid's empty `kids`) now holds the root tree.
                    guard let last = ZooArchive.uids(ofClass: "NSArray", in: objects).last else { return }
                    ZooHostile.edit(&objects, last) { $0["NS.objects"] = [.uid(1)] }
                }
            },
            decode: { ZooArchive.decodeError(ZooTree.self, from: $0) }),
        .init("a URL whose NS.base is itself", .depthLimit,
            build: ZooHostile.selfBasedURL, decode: { ZooArchive.decodeError(URL.self, from: $0) }),
        .init("an exponential DAG of 40 arrays (2^40 values)", .sizeLimit,
            build: { try ZooHostile.exponentialDAG(levels: 40) },
            decode: {
                var options = KeyedUnarchiver.Options()
                options.maximumDecodedObjects = 10_000
                return ZooArchive.decodeError([Any].self, from: $0, options: options)
            }),
        .init("an exponential DAG of 40 arrays as typed nested arrays", .sizeLimit,
            build: { try ZooHostile.exponentialDAG(levels: 40) },
            decode: {
                var options = KeyedUnarchiver.Options()
                options.maximumDecodedObjects = 10_000
                return ZooArchive.decodeError([[[[[[[[[[[[[[[[Any]]]]]]]]]]]]]]]].self, from: $0, options: options)
            }),
        .init("600 nested arrays", .depthLimit,
            build: { try ZooHostile.nestedArrays(levels: 600) }, decode: { ZooArchive.decodeError([Any].self, from: $0) }),
        .init("21 nested arrays with maximumDepth 20", .depthLimit,
            build: { try ZooHostile.nestedArrays(levels: 21) },
            decode: {
                var options = KeyedUnarchiver.Options()
                options.maximumDepth = 20
                return ZooArchive.decodeError([Any].self, from: $0, options: options)
            }),
        .init("an archive larger than maximumArchiveSize", .sizeLimit, locates: false,
            build: ZooHostile.person,
            decode: {
                var options = KeyedUnarchiver.Options()
                options.maximumArchiveSize = 64
                return ZooArchive.decodeError(ZooPerson.self, from: $0, options: options)
            }),
        .init("more objects than maximumObjectCount", .sizeLimit,
            build: ZooHostile.person,
            decode: {
                var options = KeyedUnarchiver.Options()
                options.maximumObjectCount = 3
                return ZooArchive.decodeError(ZooPerson.self, from: $0, options: options)
            }),
    ]

    @Test("Each malformed archive gives an ArchiveError with the right code and a key path or byte offset", arguments: cases)
    func hostileArchive(_ hostile: ZooHostileCase) throws {
        let data = try hostile.build()
        let start = ContinuousClock.now
        guard let error = hostile.decode(data) else { return }
        #expect(ContinuousClock.now - start < .seconds(5), "took \(ContinuousClock.now - start)")
        #expect(error.code == hostile.code, "\(error)")
        if hostile.locates {
            #expect(error.keyPath != nil || error.byteOffset != nil, "no key path or byte offset: \(error)")
        }
        if let keyPath = hostile.keyPath {
            #expect(error.keyPath == keyPath, "\(error)")
        }
        for text in hostile.mentions {
            #expect(error.reason.contains(text) || error.description.contains(text), "\(error) does not mention \(text)")
        }
    }

    /// An NSOrderedSet (`NS.object.0`, `NS.object.1`, ...) of `count` references to one integer.
    static func orderedSet(count: Int) throws -> Data {
        var dict = PlistDictionary()
        dict["$class"] = .uid(2)
        for i in 0..<count { dict["NS.object.\(i)"] = .uid(3) }
        return try ZooArchive.archive(objects: ["$null", .dict(dict), ZooArchive.classDescription("NSOrderedSet"), 7])
    }

    /// An `NSOrderedSet` is read in one pass over its keys (`NS.object.<n>` to slot n), so its cost
    /// is linear in its size: 20,000 elements decode, in order.
    @Test("Decoding a large NSOrderedSet gives every element in order")
    func largeOrderedSet() throws {
        let values = try ZooArchive.decode([Int].self, from: try Self.orderedSet(count: 20_000))
        #expect(values.count == 20_000 && values.allSatisfy { $0 == 7 })
    }

    /// An NSArray of `count` references to one `ZooAddress` object dictionary that also has
    /// `count` junk keys (`$class` last).
    static func wideSharedObject(count: Int) throws -> Data {
        var dict = PlistDictionary()
        for i in 0..<count { dict["k\(100_000 + i)"] = 1 }
        dict["street"] = .uid(4)
        dict["zip"] = 5
        dict["$class"] = .uid(3)
        let array: PlistValue = .dict(["$class": .uid(5), "NS.objects": .array(Array(repeating: .uid(2), count: count))])
        return try ZooArchive.archive(objects: [
            "$null", array, .dict(dict), ZooArchive.classDescription(String(reflecting: ZooAddress.self)), "s",
            ZooArchive.classDescription("NSArray"),
        ])
    }

    /// One wide dictionary referenced N times costs N × width to decode (every reference reads it
    /// again, as a value). That work is charged against `maximumDecodedObjects`, so it is bounded:
    /// N = 5,000 (25 million key reads) fails fast with `.sizeLimit` under the default budget of
    /// 16,777,216, and decodes when the budget is raised; a small N decodes as usual.
    @Test("Decoding a wide object shared by many references is bounded by maximumDecodedObjects")
    func wideSharedObjectIsBounded() throws {
        let small = try ZooArchive.decode([ZooAddress].self, from: try Self.wideSharedObject(count: 200))
        #expect(small.count == 200 && small.allSatisfy { $0 == ZooAddress(street: "s", zip: 5) })

        let wide = try Self.wideSharedObject(count: 5_000)
        let error = try #require(ZooArchive.decodeError([ZooAddress].self, from: wide))
        #expect(error.code == .sizeLimit, "\(error)")

        var options = KeyedUnarchiver.Options()
        options.maximumDecodedObjects = 64_000_000
        let unarchiver = try KeyedUnarchiver(forReadingFrom: wide, options: options)
        #expect(try unarchiver.decode([ZooAddress].self, forKey: "root").count == 5_000)
    }

    /// A `Float` field given a real that does not fit `Float` (1e300) is a `.typeMismatch` at
    /// `root.float`, as an `Int8` given 300 is (NaN and ±infinity themselves are fine).
    @Test("A Float field given 1e300 is a typeMismatch, not infinity")
    func floatOverflow() throws {
        let data = try ZooHostile.firstObject(of: ZooReals(), className: String(reflecting: ZooReals.self)) { dict, _ in
            dict["float"] = .real(1e300)
        }
        do {
            let value = try ZooArchive.decode(ZooReals.self, from: data)
            Issue.record("decoded float = \(value.float) from the real 1e300")
        } catch let error as ArchiveError {
            #expect(error.code == .typeMismatch)
            #expect(error.keyPath == "root.float")
        }
        // A real Float infinity still decodes.
        var reals = ZooReals()
        reals.float = .infinity
        #expect(try ZooArchive.roundTrip(reals).float == .infinity)
    }

    @Test("21 nested arrays read with maximumDepth 21; the exponential DAG reads with a limit that covers it")
    func limitsAreExact() throws {
        var options = KeyedUnarchiver.Options()
        options.maximumDepth = 21
        let nested = try KeyedUnarchiver(forReadingFrom: try ZooHostile.nestedArrays(levels: 21), options: options)
        #expect(try nested.decode([Any].self, forKey: "root").count == 1)
        let small = try KeyedUnarchiver(forReadingFrom: try ZooHostile.exponentialDAG(levels: 8))
        let value = try small.decode([Any].self, forKey: "root")
        #expect((value.first as? [Any])?.count == 2)
    }

    // MARK: Self-referencing Foundation objects (stack overflow)

    #if os(macOS) || os(Linux)  // exit tests run in a child process, which iOS, tvOS, watchOS and visionOS do not allow
    /// An `NSMutableString` object whose `NS.string` is a UID to itself (3 objects, ~150 bytes) is a
    /// type mismatch: `NS.string` must hold a plain string, so it is never followed recursively.
    @Test("A string object whose NS.string is itself fails cleanly (as String and as Any)")
    func selfContainingStringDoesNotCrash() async {
        await #expect(processExitsWith: .success) {
            let data = try ZooHostile.selfContainingString()
            do {
                _ = try KeyedUnarchiver.unarchivedObject(ofType: String.self, from: data)
                exit(2)
            } catch is ArchiveError {}
            do {
                _ = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: data)
                exit(2)
            } catch is ArchiveError {}
        }
    }

    /// The same for `NSMutableData` with `NS.data` pointing at itself.
    @Test("A data object whose NS.data is itself fails cleanly")
    func selfContainingDataDoesNotCrash() async {
        await #expect(processExitsWith: .success) {
            let data = try ZooHostile.selfContainingData()
            do {
                _ = try KeyedUnarchiver.unarchivedObject(ofType: Data.self, from: data)
                exit(2)
            } catch is ArchiveError {}
        }
    }
    #endif

    // MARK: Truncation and corruption of every byte

    // The two archives are kept as arrays, not `Data`: a `Data` in a global keeps its storage in a
    // pointer whose spare bits hold the enum case, which LeakSanitizer does not take for a
    // pointer, so a `Data` still alive at exit is reported as leaked (`Scripts/lsan.supp`).

    /// A small cyclic graph: children, weak parents, a cycle through `next`, a dictionary back to the root.
    static var graphArchive: Data { Data(graphArchiveBytes) }
    private static let graphArchiveBytes: [UInt8] = {
        let root = ZooNode("r")
        let a = ZooNode("a")
        let b = ZooNode("b")
        root.children = [a, b]
        a.parent = root
        b.parent = root
        a.next = b
        b.next = a
        b.byName = ["r": root]
        let data = (try? ZooArchive.encode(root)) ?? Data()
        zooBreakGraph(root)
        return Array(data)
    }()

    /// Property-list values of every kind, for decoding as `Any`.
    static var plistArchive: Data { Data(plistArchiveBytes) }
    private static let plistArchiveBytes: [UInt8] = {
        let value: [String: Any] = [
            "n": "fuzz", "l": [1, 2.5, true, NSNull(), "s", -7] as [Any], "d": ["k": ["deep"]] as [String: Any],
            "t": Date(timeIntervalSinceReferenceDate: 1), "b": Data([1, 2, 3]), "u": URL(string: "https://a.b/c")!,
            "i": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
        ]
        return Array((try? ZooArchive.encode(value)) ?? Data())
    }()

    /// Decodes `bytes` every way the fuzz tests use; returns a description of anything that is
    /// not success or an `ArchiveError`.
    static func decodeEveryWay(_ bytes: Data, graph: Bool) -> [String] {
        var problems: [String] = []
        func attempt(_ label: String, _ body: () throws -> Any) {
            do {
                zooBreakGraph(try body())
            } catch is ArchiveError {
            } catch {
                problems.append("\(label): \(type(of: error)): \(error)")
            }
        }
        if graph {
            attempt("ZooNode") { try ZooArchive.decode(ZooNode.self, from: bytes) }
            attempt("Any with ZooNode registered") {
                let unarchiver = try KeyedUnarchiver(forReadingFrom: bytes)
                unarchiver.register(ZooNode.self)
                return try unarchiver.decode(Any.self, forKey: "root")
            }
        } else {
            attempt("Any") { try ZooArchive.decode(Any.self, from: bytes) }
            attempt("[String: Any]") { try ZooArchive.decode([String: Any].self, from: bytes) }
        }
        return problems
    }

    @Test("The fuzz inputs are small, valid archives")
    func fuzzInputs() throws {
        #expect((200...700).contains(Self.graphArchive.count), "\(Self.graphArchive.count) bytes")
        #expect((200...900).contains(Self.plistArchive.count), "\(Self.plistArchive.count) bytes")
        let graph = try ZooArchive.decode(ZooNode.self, from: Self.graphArchive)
        #expect(graph.children.map(\.name) == ["a", "b"])
        #expect(graph.children[1].next === graph.children[0] && graph.children[0].parent === graph)
        zooBreakGraph(graph)
        let plist = try ZooArchive.decode([String: Any].self, from: Self.plistArchive)
        #expect(plist["n"] as? String == "fuzz")
        #expect(Self.decodeEveryWay(Self.graphArchive, graph: true).isEmpty)
        #expect(Self.decodeEveryWay(Self.plistArchive, graph: false).isEmpty)
    }

    @Test("Every truncation of the small archives fails with an ArchiveError, never a crash")
    func everyTruncation() {
        var problems: [String] = []
        for (graph, archive) in [(true, Self.graphArchive), (false, Self.plistArchive)] {
            for length in 0..<archive.count {
                let prefix = archive.prefix(length)
                for problem in Self.decodeEveryWay(Data(prefix), graph: graph) { problems.append("prefix \(length): \(problem)") }
                do {
                    _ = try KeyedUnarchiver(forReadingFrom: Data(prefix))
                    Issue.record("a \(length)-byte prefix of a \(archive.count)-byte archive opened")
                } catch let error as ArchiveError {
                    #expect(error.byteOffset != nil, "\(error)")
                } catch {
                    problems.append("prefix \(length): \(error)")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
    }

    /// The values a byte is corrupted to: all 255 others in optimised builds; in debug builds
    /// (about 10× slower) every single-bit flip, ±1, 0x00, 0xFF and the marker bytes that change
    /// an object's kind or width, so the debug run stays around ten seconds.
    static func corruptions(of original: UInt8) -> [UInt8] {
        #if DEBUG
        var values: Set<UInt8> = [0x00, 0xFF, 0x08, 0x09, 0x13, 0x23, 0x33, 0x4F, 0x5F, 0x6F, 0x80, 0x87, 0xAF, 0xD0, 0xDF, original &+ 1, original &- 1]
        for bit in 0..<8 { values.insert(original ^ (1 << bit)) }
        values.remove(original)
        return values.sorted()
        #else
        return (0...255).map { UInt8($0) }.filter { $0 != original }
        #endif
    }

    /// Positions are split into 8 interleaved shards that run in parallel.
    @Test("Every single-byte corruption at every offset decodes or throws ArchiveError (all 255 values in release)", arguments: 0..<8)
    func everySingleByteCorruption(shard: Int) {
        var problems: [String] = []
        for (graph, archive) in [(true, Self.graphArchive), (false, Self.plistArchive)] {
            let name = graph ? "graph" : "plist"
            var bytes = archive
            for position in stride(from: shard, to: archive.count, by: 8) {
                let original = archive[position]
                for value in Self.corruptions(of: original) {
                    bytes[position] = value
                    for problem in Self.decodeEveryWay(bytes, graph: graph) {
                        problems.append("\(name) byte \(position) = \(value): \(problem)")
                    }
                }
                bytes[position] = original
            }
        }
        #expect(problems.isEmpty, "\(problems.count) problems, first: \(problems.prefix(10))")
    }

    @Test("Seeded random multi-byte corruptions decode or throw ArchiveError; a decoded value re-encodes", arguments: [1, 2, 3, 4] as [UInt64])
    func randomCorruptions(seed: UInt64) {
        var generator = ZooRandom(seed: seed)
        var problems: [String] = []
        for round in 0..<1_500 {
            let graph = round % 2 == 0
            var bytes = graph ? Self.graphArchive : Self.plistArchive
            for _ in 0..<Int.random(in: 2...6, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            for problem in Self.decodeEveryWay(bytes, graph: graph) { problems.append("seed \(seed) round \(round): \(problem)") }
            // Invariant: what decodes as Any re-encodes.
            if let value = try? ZooArchive.decode(Any.self, from: bytes) {
                do {
                    _ = try ZooArchive.encode(value)
                } catch {
                    problems.append("seed \(seed) round \(round): decoded \(value) but re-encoding failed: \(error)")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.count) problems, first: \(problems.prefix(10))")
    }
}
