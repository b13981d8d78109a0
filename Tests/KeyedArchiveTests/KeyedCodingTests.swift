import Foundation
import KeyedArchive
import PropertyList
import Testing

/// A hand-coded type that ignores a failure of one of its optional fields (`try?`).
struct ZooBestEffort: KeyedCoding {
    var value = ""
    func encode(with coder: KeyedEncodingCoder) throws {
        try? coder.encode([ZooPlain()], forKey: "extras")  // cannot be archived; deliberately ignored
        try coder.encode(value, forKey: "value")
    }
    init(value: String) { self.value = value }
    init(from coder: KeyedDecodingCoder) throws {
        value = try coder.decode(String.self, forKey: "value")
    }
    static var archiveClassName: String? { "Zoo.BestEffort" }
}

/// A hand-coded class shared across an archive.
final class ZooTag: KeyedCoding {
    var label: String
    init(_ label: String) { self.label = label }
    func encode(with coder: KeyedEncodingCoder) throws { try coder.encode(label, forKey: "label") }
    init(from coder: KeyedDecodingCoder) throws { label = try coder.decode(String.self, forKey: "label") }
    static var archiveClassName: String? { "Zoo.Tag" }
}

/// An Archivable holder of hand-coded values.
final class ZooTeam: Archivable {
    var lead: ZooEmployee? = nil
    var members: [ZooEmployee] = []
    var origin = ZooPoint(x: 0, y: 0)
    required init() {}
}

/// `KeyedCoding`: hand-written struct and class, `encodeConditional`, `allKeys`, `contains`,
/// `decodeIfPresent`, cycles (refused, never a hang) and missing keys.
@Suite("KeyedCoding")
struct KeyedCodingTests {
    @Test("A hand-coded struct with let fields round-trips, top level and nested")
    func handCodedStruct() throws {
        let point = ZooPoint(x: -0.0, y: .greatestFiniteMagnitude)
        let back = try ZooArchive.roundTrip(point)
        #expect(back.x.bitPattern == point.x.bitPattern && back.y == point.y)
        let data = try ZooArchive.encode(point)
        let root = try ZooArchive.topObject(data)
        #expect(root.keys == ["$class", "x", "y"])
        #expect(ZooArchive.className(of: root, in: try ZooArchive.objects(data)) == "Zoo.Point")
        #expect(try ZooArchive.roundTrip([point, point]) == [point, point])
        #expect(try ZooArchive.roundTrip(["p": point]) == ["p": point])
    }

    @Test("A hand-coded class: allKeys in archive order, contains, decodeIfPresent, $ keys")
    func handCodedClass() throws {
        let ann = ZooEmployee(name: "Ann")
        ann.nickname = "A"
        ann.location = ZooPoint(x: 1, y: 2)
        let data = try ZooArchive.encode(ann)
        let root = try ZooArchive.topObject(data)
        // The `$version` key is stored as `$$version`; the coder shows it as `$version`.
        #expect(root.keys == ["$class", "name", "nickname", "location", "reports", "$$version"])
        let back = try ZooArchive.decode(ZooEmployee.self, from: data)
        #expect(back.name == "Ann")
        #expect(back.nickname == "A")
        #expect(back.location == ZooPoint(x: 1, y: 2))
        #expect(back.decodedKeys == ["name", "nickname", "location", "reports", "$version"])
        #expect(!back.containedManager)
        #expect(back.manager == nil)

        let bob = ZooEmployee(name: "Bob")  // no nickname: the key is absent
        let bobBack = try ZooArchive.roundTrip(bob)
        #expect(bobBack.nickname == nil)
        #expect(!bobBack.decodedKeys.contains("nickname"))
    }

    @Test("contains and decodeIfPresent: absent key, key holding nil, $class is never a user key")
    func containsAndDecodeIfPresent() throws {
        struct Probe: KeyedCoding {
            var seen: [String: Bool] = [:]
            var nilValue: Int? = 1
            var absentValue: Int? = 1
            var optionalFromDecode: Int? = 1
            init() {}
            func encode(with coder: KeyedEncodingCoder) throws {
                try coder.encode(Int?.none, forKey: "nil")
                try coder.encode(5, forKey: "five")
                try coder.encode("$", forKey: "$class")
            }
            init(from coder: KeyedDecodingCoder) throws {
                for key in ["nil", "five", "absent", "$class", "$$class"] { seen[key] = coder.contains(key) }
                nilValue = try coder.decodeIfPresent(Int.self, forKey: "nil")
                absentValue = try coder.decodeIfPresent(Int.self, forKey: "absent")
                optionalFromDecode = try coder.decode(Int?.self, forKey: "absent")
                #expect(try coder.decode(String.self, forKey: "$class") == "$")
                #expect(coder.allKeys == ["nil", "five", "$class"])
            }
            static var archiveClassName: String? { "Zoo.Probe" }
        }
        let back = try ZooArchive.roundTrip(Probe())
        #expect(back.seen == ["nil": true, "five": true, "absent": false, "$class": true, "$$class": false])
        #expect(back.nilValue == nil)
        #expect(back.absentValue == nil)
        #expect(back.optionalFromDecode == nil)
    }

    // MARK: encodeConditional

    @Test("encodeConditional: the object archived unconditionally before → a UID to it")
    func conditionalArchivedBefore() throws {
        let boss = ZooEmployee(name: "Boss")
        let worker = ZooEmployee(name: "Worker")
        worker.manager = boss
        let data = try ZooArchive.encode([boss, worker])
        let back = try ZooArchive.decode([ZooEmployee].self, from: data)
        #expect(back[1].containedManager)
        #expect(back[1].manager === back[0])
        #expect(ZooArchive.uids(ofClass: "Zoo.Employee", in: try ZooArchive.objects(data)).count == 2)
    }

    @Test("encodeConditional: the object archived unconditionally after → a UID to it")
    func conditionalArchivedAfter() throws {
        let boss = ZooEmployee(name: "Boss")
        let worker = ZooEmployee(name: "Worker")
        worker.manager = boss
        let data = try ZooArchive.encode([worker, boss])
        let objects = try ZooArchive.objects(data)
        let uids = ZooArchive.uids(ofClass: "Zoo.Employee", in: objects)
        #expect(uids.count == 2)
        let workerDict = try #require(uids.compactMap { objects[$0].dictValue }.first { ZooArchive.resolve($0["name"], in: objects) == "Worker" })
        let bossUID = try #require(uids.first { ZooArchive.resolve(objects[$0].dictValue?["name"], in: objects) == "Boss" })
        #expect(workerDict["manager"] == .uid(UInt64(bossUID)))
        let back = try ZooArchive.decode([ZooEmployee].self, from: data)
        #expect(back[0].containedManager)
        #expect(back[0].manager === back[1])
        #expect(back[1].name == "Boss")
    }

    @Test("encodeConditional: archived later inside the same object, or under another top-level key")
    func conditionalArchivedElsewhere() throws {
        let boss = ZooEmployee(name: "Boss")
        let worker = ZooEmployee(name: "Worker")
        worker.manager = boss
        worker.reports = [boss]  // unconditional, after the conditional field of the same object
        let back = try ZooArchive.roundTrip(worker)
        #expect(back.manager === back.reports.first)

        let other = ZooEmployee(name: "Other")
        other.manager = boss
        let archiver = KeyedArchiver()
        try archiver.encode(other, forKey: "other")
        let team = ZooTeam()
        team.lead = boss
        try archiver.encode(team, forKey: "team")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: archiver.encodedData)
        let backOther = try unarchiver.decode(ZooEmployee.self, forKey: "other")
        let backTeam = try unarchiver.decode(ZooTeam.self, forKey: "team")
        #expect(backOther.manager === backTeam.lead)
        #expect(backTeam.lead?.name == "Boss")
    }

    @Test("encodeConditional: an object never archived unconditionally leaves the key out")
    func conditionalNeverArchived() throws {
        let boss = ZooEmployee(name: "Boss")
        let worker = ZooEmployee(name: "Worker")
        worker.manager = boss
        let data = try ZooArchive.encode(worker)
        let root = try ZooArchive.topObject(data)
        #expect(!root.keys.contains("manager"))
        #expect(!(try ZooArchive.objects(data)).contains(.string("Boss")))
        let back = try ZooArchive.decode(ZooEmployee.self, from: data)
        #expect(!back.containedManager)
        #expect(back.manager == nil)
        #expect(back.decodedKeys == ["name", "location", "reports", "$version"])
        // Two workers pointing at the same absent boss: still absent in both.
        let second = ZooEmployee(name: "Second")
        second.manager = boss
        let both = try ZooArchive.roundTrip([worker, second])
        #expect(both.allSatisfy { $0.manager == nil && !$0.containedManager })
    }

    // MARK: Identity and cycles

    /// Regression test for a bug found while writing this suite (fixed in f37c4dc): the third
    /// reference to one `KeyedCoding` class instance failed with a false `.cycle`, because
    /// `ArchiverCore.encodeObject` called `enterAcyclic` for an already-archived instance (marking
    /// it in progress) without a matching `leaveAcyclic`.
    @Test("A KeyedCoding instance referenced three times is archived once and stays shared")
    func sharedKeyedCodingInstance() throws {
        let tag = ZooTag("shared")
        let data = try ZooArchive.encode([tag, tag, tag])
        #expect(ZooArchive.uids(ofClass: "Zoo.Tag", in: try ZooArchive.objects(data)).count == 1)
        let back = try ZooArchive.decode([ZooTag].self, from: data)
        #expect(back[0] === back[1] && back[1] === back[2])
        #expect(back[0].label == "shared")
    }

    @Test("A KeyedCoding instance referenced twice is archived once and stays shared")
    func sharedKeyedCodingInstanceTwice() throws {
        let tag = ZooTag("twice")
        let data = try ZooArchive.encode([tag, tag])
        #expect(ZooArchive.uids(ofClass: "Zoo.Tag", in: try ZooArchive.objects(data)).count == 1)
        let back = try ZooArchive.decode([ZooTag].self, from: data)
        #expect(back[0] === back[1])
    }

    @Test("Encoding a cycle through a KeyedCoding class throws .cycle, never hangs")
    func encodingCycle() throws {
        let a = ZooLink("a")
        let b = ZooLink("b")
        a.next = b
        b.next = a
        defer { a.next = nil }
        let error = try #require(ZooArchive.encodeError(a))
        #expect(error.code == .cycle)
        #expect(error.reason.contains("Archivable"))
        #expect(error.keyPath == "root.next.next")

        let selfLoop = ZooLink("self")
        selfLoop.next = selfLoop
        defer { selfLoop.next = nil }
        #expect(ZooArchive.encodeError(selfLoop)?.code == .cycle)
    }

    @Test("Decoding a cycle through a KeyedCoding class throws .cycle with a byte offset, never hangs")
    func decodingCycle() throws {
        let a = ZooLinkTwin()
        a.name = "a"
        let b = ZooLinkTwin()
        b.name = "b"
        a.next = b
        b.next = a
        defer { a.next = nil }
        let data = try ZooArchive.encode(a)  // the Archivable twin may write the cycle
        let error = try #require(ZooArchive.decodeError(ZooLink.self, from: data))
        #expect(error.code == .cycle)
        #expect(error.byteOffset != nil)
        #expect(error.keyPath == "root.next.next")
        // The Archivable twin reads it back.
        let twin = try ZooArchive.decode(ZooLinkTwin.self, from: data)
        #expect(twin.next?.next === twin)
        twin.next = nil
    }

    // MARK: Errors

    @Test("A missing key is .keyNotFound with its key path")
    func missingKey() throws {
        let data = try ZooArchive.encode(ZooNeedsAge())
        let error = try #require(ZooArchive.decodeError(ZooNeedsAge.self, from: data))
        #expect(error.code == .keyNotFound)
        #expect(error.keyPath == "root.age")
        #expect(error.reason.contains("age"))

        let nested = try #require(ZooArchive.decodeError(ZooHoldsNeedsAge.self, from: try ZooArchive.encode(ZooHoldsNeedsAge())))
        #expect(nested.code == .keyNotFound)
        #expect(nested.keyPath == "root.person.age")
    }

    @Test("A value of the wrong kind is .typeMismatch with its key path")
    func wrongKind() throws {
        struct Reader: KeyedCoding {
            init() {}
            func encode(with coder: KeyedEncodingCoder) throws {}
            init(from coder: KeyedDecodingCoder) throws {
                _ = try coder.decode(Int.self, forKey: "name")
            }
            static var archiveClassName: String? { "Zoo.Employee" }
        }
        let error = try #require(ZooArchive.decodeError(Reader.self, from: try ZooArchive.encode(ZooEmployee(name: "Ann"))))
        #expect(error.code == .typeMismatch)
        #expect(error.keyPath == "root.name")
    }

    /// A failure that `encode(with:)` catches itself (`try? coder.encode(…)` for a best-effort
    /// field) leaves a valid archive: the abandoned slot is written as an empty object.
    @Test("A failure caught inside encode(with:) does not silently produce an empty archive")
    func caughtFailureInsideEncode() throws {
        let data = try ZooArchive.encode(ZooBestEffort(value: "v"))
        #expect(!data.isEmpty, "archivedData returned 0 bytes without an error")
        if !data.isEmpty {
            #expect(try ZooArchive.decode(ZooBestEffort.self, from: data).value == "v")
        }
    }
}
