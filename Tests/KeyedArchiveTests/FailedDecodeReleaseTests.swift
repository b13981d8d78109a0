import Foundation
import KeyedArchive
import PropertyList
import Testing

/// Every model instance created while a test's task has set it, held weakly, so that the test
/// can check a failed decode released them all. A task-local, so tests running at the same time
/// see only their own instances.
final class LeakTracker: @unchecked Sendable {  // touched only inside the synchronous decode of the task that set it
    @TaskLocal static var current: LeakTracker?

    private struct Entry {
        weak var object: AnyObject?
        let type: String
    }
    private var entries: [Entry] = []

    static func track(_ object: AnyObject) {
        current?.entries.append(Entry(object: object, type: "\(type(of: object))"))
    }

    /// How many instances were created, alive or not.
    var createdCount: Int { entries.count }
    /// The class of every instance still alive.
    var alive: [String] { entries.filter { $0.object != nil }.map(\.type) }
}

/// A node that can hold others in every way a field can: arrays, optionals, dictionaries,
/// sets, structs, `Any`, a `KeyedCoding` class, weak and unowned references. `poison` is
/// decoded last, so an archive whose `poison` is not an integer fails once every other field
/// of that node, and so every cycle through it, has been decoded.
final class LeakNode: Archivable, Hashable {
    var name = ""
    var children: [LeakNode] = []
    var parent: LeakNode? = nil
    var next: LeakNode? = nil
    var byName: [String: LeakNode] = [:]
    var peers: Set<LeakNode> = []
    var items: [LeakItem] = []
    var extra: [String: Any] = [:]
    var keyed: LeakKeyed? = nil
    weak var weakParent: LeakNode?
    unowned var owner: LeakNode? = nil
    var poison = 0

    required init() { LeakTracker.track(self) }

    convenience init(_ name: String) {
        self.init()
        self.name = name
    }

    static var archiveClassName: String? { "Leak.Node" }
    static func == (a: LeakNode, b: LeakNode) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A struct holding a node: a cycle through an array of values.
struct LeakItem: Archivable {
    var node: LeakNode? = nil
    init() {}
    init(_ node: LeakNode) { self.node = node }
    static var archiveClassName: String? { "Leak.Item" }
}

/// A hand-coded class holding a node: its fields are the type's own, not the library's.
final class LeakKeyed: KeyedCoding {
    var node: LeakNode?

    init(_ node: LeakNode) {
        self.node = node
        LeakTracker.track(self)
    }

    func encode(with coder: KeyedEncodingCoder) throws { try coder.encode(node, forKey: "node") }

    init(from coder: KeyedDecodingCoder) throws {
        node = try coder.decodeIfPresent(LeakNode.self, forKey: "node")
        LeakTracker.track(self)
    }

    static var archiveClassName: String? { "Leak.Keyed" }
}

/// A reflection-coded class whose members are `Codable` classes holding it back.
final class LeakOwner: Archivable, Codable {
    var members: [LeakMember] = []
    var poison = 0
    required init() { LeakTracker.track(self) }
    static var archiveClassName: String? { "Leak.Owner" }
}

/// A `Codable` class holding its owner.
final class LeakMember: Codable {
    var owner: LeakOwner?

    init(_ owner: LeakOwner) {
        self.owner = owner
        LeakTracker.track(self)
    }

    private enum CodingKeys: String, CodingKey { case owner }

    init(from decoder: any Decoder) throws {
        owner = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(LeakOwner.self, forKey: .owner)
        LeakTracker.track(self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(owner, forKey: .owner)
    }
}

enum LeakArchive {
    /// `data` with every `poison` field that holds 1 replaced by a string, so that decoding fails there.
    static func poisoned(_ data: Data) throws -> Data {
        var patched = 0
        let result = try ZooArchive.patch(data) { objects in
            for i in objects.indices {
                guard case .dict(var dict) = objects[i], dict["poison"]?.int64Value == 1 else { continue }
                dict["poison"] = .string("not a number")
                objects[i] = .dict(dict)
                patched += 1
            }
        }
        guard patched > 0 else { throw ZooArchive.Failure(description: "nothing to poison") }
        return result
    }

    /// The poisoned archive of `root`.
    static func poisoned<T>(root: T) throws -> Data {
        try poisoned(KeyedArchiver.archivedData(withRootObject: root))
    }

    /// Decodes the root of `data` as `T` with a tracker set, expecting the poison's error; returns the tracker.
    static func failingDecode<T>(
        _ type: T.Type, from data: Data, configure: (KeyedUnarchiver) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> LeakTracker {
        let tracker = LeakTracker()
        LeakTracker.$current.withValue(tracker) {
            let error = ZooArchive.decodeError(type, from: data, configure: configure, sourceLocation: sourceLocation)
            #expect(error?.code == .typeMismatch, sourceLocation: sourceLocation)
            #expect(error?.keyPath?.hasSuffix("poison") == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        }
        return tracker
    }

    /// Checks that at least `created` instances were made and none is alive.
    static func expectAllReleased(_ tracker: LeakTracker, created: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(tracker.createdCount >= created, sourceLocation: sourceLocation)
        #expect(tracker.alive == [], sourceLocation: sourceLocation)
    }

    /// Breaks the strong references between nodes the test made to archive (so that they do not leak).
    static func unlink(_ nodes: LeakNode...) {
        for node in nodes {
            node.children = []
            node.parent = nil
            node.next = nil
            node.byName = [:]
            node.peers = []
            node.items = []
            node.extra = [:]
            node.keyed = nil
        }
    }
}

/// A decode that fails releases every instance it created, including instances that hold each
/// other in strong cycles; instances handed out by earlier decodes are left as they were.
@Suite("Failed decode releases its instances")
struct FailedDecodeReleaseTests {
    @Test("A parent and its children holding each other through an array and an optional")
    func parentAndChildren() throws {
        let root = LeakNode("root")
        root.children = [LeakNode("a"), LeakNode("b")]
        for child in root.children { child.parent = root }
        root.poison = 1
        defer { LeakArchive.unlink(root) }
        let tracker = LeakArchive.failingDecode(LeakNode.self, from: try LeakArchive.poisoned(root: root))
        LeakArchive.expectAllReleased(tracker, created: 3)
    }

    @Test("A node that holds itself")
    func selfReference() throws {
        let node = LeakNode("self")
        node.next = node
        node.poison = 1
        defer { LeakArchive.unlink(node) }
        let tracker = LeakArchive.failingDecode(LeakNode.self, from: try LeakArchive.poisoned(root: node))
        LeakArchive.expectAllReleased(tracker, created: 1)
    }

    @Test("Two nodes holding each other through optionals")
    func throughOptionals() throws {
        let a = LeakNode("a")
        let b = LeakNode("b")
        a.next = b
        b.next = a
        a.poison = 1
        defer { LeakArchive.unlink(a, b) }
        let tracker = LeakArchive.failingDecode(LeakNode.self, from: try LeakArchive.poisoned(root: a))
        LeakArchive.expectAllReleased(tracker, created: 2)
    }

    @Test("Nodes holding each other through dictionaries and sets")
    func throughDictionariesAndSets() throws {
        let root = LeakNode("root")
        let a = LeakNode("a")
        let b = LeakNode("b")
        // b is archived (through byName) before the sets: encoding a set orders instances not yet
        // in the archive by archiving them on their own, which a set holding its owner cannot end.
        root.byName = ["a": a, "b": b]
        a.byName = ["root": root]
        root.peers = [root, b]
        b.peers = [root]
        root.poison = 1
        defer { LeakArchive.unlink(root, a, b) }
        let tracker = LeakArchive.failingDecode(LeakNode.self, from: try LeakArchive.poisoned(root: root))
        LeakArchive.expectAllReleased(tracker, created: 3)
    }

    @Test("A node held by structs in its own array")
    func throughStructs() throws {
        let root = LeakNode("root")
        let other = LeakNode("other")
        other.next = root
        root.items = [LeakItem(root), LeakItem(other)]
        root.poison = 1
        defer { LeakArchive.unlink(root, other) }
        let tracker = LeakArchive.failingDecode(LeakNode.self, from: try LeakArchive.poisoned(root: root))
        LeakArchive.expectAllReleased(tracker, created: 2)
    }

    @Test("A node held by a dictionary of Any in its own field")
    func throughAny() throws {
        let root = LeakNode("root")
        root.extra = ["me": root, "list": [root, 1] as [Any]]
        root.poison = 1
        defer { LeakArchive.unlink(root) }
        let tracker = LeakArchive.failingDecode(LeakNode.self, from: try LeakArchive.poisoned(root: root)) {
            $0.register(LeakNode.self)
        }
        LeakArchive.expectAllReleased(tracker, created: 1)
    }

    @Test("A node held by a KeyedCoding class it holds")
    func throughKeyedCoding() throws {
        let root = LeakNode("root")
        root.keyed = LeakKeyed(root)
        root.poison = 1
        defer { LeakArchive.unlink(root) }
        let tracker = LeakArchive.failingDecode(LeakNode.self, from: try LeakArchive.poisoned(root: root))
        LeakArchive.expectAllReleased(tracker, created: 2)
    }

    @Test("An owner held by the Codable classes it holds")
    func throughCodable() throws {
        let owner = LeakOwner()
        owner.members = [LeakMember(owner), LeakMember(owner)]
        owner.poison = 1
        defer { owner.members = [] }
        let tracker = LeakArchive.failingDecode(LeakOwner.self, from: try LeakArchive.poisoned(root: owner))
        LeakArchive.expectAllReleased(tracker, created: 3)
    }

    @Test("Weak and unowned back references beside a strong cycle")
    func weakAndUnowned() throws {
        let root = LeakNode("root")
        let child = LeakNode("child")
        root.children = [child]
        child.weakParent = root
        child.owner = root
        child.next = root
        root.poison = 1
        defer { LeakArchive.unlink(root, child) }
        let tracker = LeakArchive.failingDecode(LeakNode.self, from: try LeakArchive.poisoned(root: root))
        LeakArchive.expectAllReleased(tracker, created: 2)
    }

    @Test("A complete cycle is released when a later element fails")
    func laterElementFails() throws {
        let a = LeakNode("a")
        let b = LeakNode("b")
        a.children = [b]
        b.parent = a
        let bad = LeakNode("bad")
        bad.poison = 1
        defer { LeakArchive.unlink(a, b) }
        let tracker = LeakArchive.failingDecode([LeakNode].self, from: try LeakArchive.poisoned(root: [a, bad]))
        LeakArchive.expectAllReleased(tracker, created: 3)
    }

    @Test("Instances an earlier decode returned keep their fields when a later decode sharing them fails")
    func earlierInstancesAreKept() throws {
        let kept = LeakNode("kept")
        let keptChild = LeakNode("kept child")
        kept.children = [keptChild]
        keptChild.parent = kept
        let fresh = LeakNode("fresh")
        fresh.next = fresh
        fresh.children = [kept]
        fresh.poison = 1
        defer { LeakArchive.unlink(kept, keptChild, fresh) }
        let archiver = KeyedArchiver()
        try archiver.encode(kept, forKey: "kept")
        try archiver.encode(fresh, forKey: "failing")
        let data = try LeakArchive.poisoned(archiver.encodedData)

        let tracker = LeakTracker()
        try LeakTracker.$current.withValue(tracker) {
            let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
            let decoded = try unarchiver.decode(LeakNode.self, forKey: "kept")
            let error = try #require(throws: ArchiveError.self) { try unarchiver.decode(LeakNode.self, forKey: "failing") }
            #expect(error.code == .typeMismatch)
            // The earlier graph is whole; decoding it again gives the same instances.
            #expect(decoded.name == "kept")
            #expect(decoded.children.map(\.name) == ["kept child"])
            #expect(decoded.children.first?.parent === decoded)
            #expect(try unarchiver.decode(LeakNode.self, forKey: "kept") === decoded)
            // Only the earlier graph is alive (one "fresh" node and the instances reset made are gone).
            #expect(tracker.alive == ["LeakNode", "LeakNode"])
            LeakArchive.unlink(decoded, decoded.children[0])
        }
        LeakArchive.expectAllReleased(tracker, created: 3)
    }

    @Test("A failed decode of a file's key releases its cycle")
    func archiveFileKey() throws {
        let root = LeakNode("root")
        root.children = [LeakNode("child")]
        root.children[0].parent = root
        root.poison = 1
        defer { LeakArchive.unlink(root) }
        let url = FileManager.default.temporaryDirectory.appending(path: "leak-\(UUID().uuidString).archive")
        defer { try? FileManager.default.removeItem(at: url) }
        try LeakArchive.poisoned(root: root).write(to: url)
        let tracker = LeakTracker()
        try LeakTracker.$current.withValue(tracker) {
            let file = try ArchiveFile(contentsOf: url)
            let error = try #require(throws: ArchiveError.self) { try file.decode(LeakNode.self, forKey: "root") }
            #expect(error.code == .typeMismatch)
        }
        LeakArchive.expectAllReleased(tracker, created: 2)
    }

    @Test("A failed decode releases the instances of a value a migration set, read as another type")
    func migrationSetValue() throws {
        let a = LeakNode("a")
        let b = LeakNode("b")
        a.next = b
        b.next = a
        defer { LeakArchive.unlink(a, b) }
        let tracker = LeakArchive.failingDecode(
            LeakHolder.self, from: try LeakArchive.poisoned(root: LeakHolderV0(nodes: [a, b], poison: 1)))
        // The nodes decoded for the migration, their copies read into `ring`, and the holder.
        LeakArchive.expectAllReleased(tracker, created: 5)
    }
}

/// A holder as version 0 archived it: a set of nodes.
struct LeakHolderV0: Archivable {
    var nodes: Set<LeakNode> = []
    var poison = 0
    static var archiveClassName: String? { "Leak.Holder" }
}

/// Version 1 keeps the nodes in an array: the migration reads the set and sets it, so `ring`
/// (another type) reads it through an archive of its own.
final class LeakHolder: Archivable {
    var ring: [LeakNode] = []
    var poison = 0
    required init() { LeakTracker.track(self) }
    static var archiveClassName: String? { "Leak.Holder" }
    static var archiveVersion: Int { 1 }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        let nodes = try object.decode(Set<LeakNode>.self, forKey: "nodes")
        try object.set(nodes, forKey: "ring")
        object.removeField("nodes")
    }
}
