import Foundation
import KeyedArchive
import PropertyList
import Testing

// Reflection finds how a weak or unowned field holds its object by walking the class chain's
// type descriptors. These classes put such fields at every level of a chain, below a class with no
// stored fields, in generic classes, in a class inheriting a generic one and in a class nested in
// a generic type: a field the walk misses makes archiving fail, and one it reads wrong is
// assigned wrongly on decoding.

/// What the fields below point at.
final class WalkNode: Archivable {
    var label = ""
    required init() {}
    /// The `init()` value of the unowned fields below (an unowned field must start with an instance).
    nonisolated(unsafe) static let placeholder = WalkNode()
}

class WalkBase: Archivable {
    var name = ""
    weak var parent: WalkNode?
    required init() {}
}

class WalkMiddle: WalkBase {
    unowned var owner: WalkNode = WalkNode.placeholder
}

final class WalkLeaf: WalkMiddle {
    unowned var keeper: WalkNode? = nil
    var count = 0
}

class WalkHollowBase: Archivable {
    weak var parent: WalkNode?
    var name = ""
    required init() {}
}

/// No stored fields of its own.
class WalkHollow: WalkHollowBase {
    var computed: Int { 7 }
}

final class WalkBelowHollow: WalkHollow {
    unowned var owner: WalkNode = WalkNode.placeholder
}

class WalkBox<Value>: Archivable {
    weak var parent: WalkNode?
    var value: Value? = nil
    unowned var owner: WalkNode = WalkNode.placeholder
    required init() {}
}

final class WalkIntBox: WalkBox<Int> {
    unowned var keeper: WalkNode? = nil
    var extra = ""
}

enum WalkOuter<Tag> {
    final class Inner: Archivable {
        var tag = ""
        weak var parent: WalkNode?
        unowned var owner: WalkNode = WalkNode.placeholder
        init() {}
    }
}

/// The same fields in a struct, whose descriptor is found the same way.
struct WalkStruct: Archivable {
    var name = ""
    weak var parent: WalkNode?
    unowned var owner: WalkNode = WalkNode.placeholder
}

class WalkUnsafeBase: Archivable {
    unowned(unsafe) var engine: WalkNode = WalkNode.placeholder
    required init() {}
}

class WalkUnsafeMiddle: WalkUnsafeBase {}

final class WalkUnsafeLeaf: WalkUnsafeMiddle {
    var tag = ""
}

class WalkCodableBase<Value: Codable>: Codable {
    var value: Value? = nil
}

class WalkCodableMiddle: WalkCodableBase<Int> {}

final class WalkCodableLeaf: WalkCodableMiddle {}

@Suite("Reflection through class chains")
struct ClassChainReflectionTests {
    @Test("weak, unowned and unowned Optional fields at three levels of a class chain round-trip")
    func nonStrongFieldsAtEveryLevel() throws {
        let nodes = ChainWalk.nodes()
        // The members' unowned fields point at these: an optimised build may otherwise end their
        // lifetime after their last use by name.
        defer { withExtendedLifetime(nodes) {} }
        let leaf = WalkLeaf()
        leaf.name = "leaf"
        leaf.parent = nodes[0]
        leaf.owner = nodes[1]
        leaf.keeper = nodes[2]
        leaf.count = 3
        let back = try ChainWalk.roundTrip(leaf, nodes: nodes)
        #expect(back.keys == ["$class", "name", "parent", "owner", "keeper", "count"])
        #expect(back.nodes.map(\.label) == ["a", "b", "c"])
        #expect(back.member.name == "leaf")
        #expect(back.member.count == 3)
        #expect(back.member.parent === back.nodes[0])
        #expect(back.member.owner === back.nodes[1])
        #expect(back.member.keeper === back.nodes[2])
        #expect(
            try ChainWalk.rootClasses(leaf) == [
                String(reflecting: WalkLeaf.self), String(reflecting: WalkMiddle.self), String(reflecting: WalkBase.self), "NSObject",
            ])
    }

    @Test("a decoded weak field holds its object weakly: it is nil once nothing else holds the object")
    func decodedWeakFieldIsWeak() throws {
        let decoded: WalkBase
        do {
            let nodes = ChainWalk.nodes()
            // The members' unowned fields point at these: an optimised build may otherwise end their
            // lifetime after their last use by name.
            defer { withExtendedLifetime(nodes) {} }
            let value = WalkBase()
            value.parent = nodes[0]
            let back = try ChainWalk.roundTrip(value, nodes: nodes)
            #expect(back.member.parent === back.nodes[0])
            decoded = back.member
        }
        #expect(decoded.parent == nil)
    }

    @Test("a class with no stored fields between two that have non-strong fields")
    func classWithoutFieldsInTheMiddle() throws {
        let nodes = ChainWalk.nodes()
        // The members' unowned fields point at these: an optimised build may otherwise end their
        // lifetime after their last use by name.
        defer { withExtendedLifetime(nodes) {} }
        let value = WalkBelowHollow()
        value.name = "below"
        value.parent = nodes[2]
        value.owner = nodes[0]
        let back = try ChainWalk.roundTrip(value, nodes: nodes)
        #expect(back.keys == ["$class", "parent", "name", "owner"])
        #expect(back.member.name == "below")
        #expect(back.member.parent === back.nodes[2])
        #expect(back.member.owner === back.nodes[0])
        #expect(
            try ChainWalk.rootClasses(value) == [
                String(reflecting: WalkBelowHollow.self), String(reflecting: WalkHollow.self),
                String(reflecting: WalkHollowBase.self), "NSObject",
            ])
    }

    @Test("a generic class's weak and unowned fields")
    func genericClass() throws {
        let nodes = ChainWalk.nodes()
        // The members' unowned fields point at these: an optimised build may otherwise end their
        // lifetime after their last use by name.
        defer { withExtendedLifetime(nodes) {} }
        let box = WalkBox<String>()
        box.value = "boxed"
        box.parent = nodes[1]
        box.owner = nodes[2]
        let back = try ChainWalk.roundTrip(box, nodes: nodes)
        #expect(back.keys == ["$class", "parent", "value", "owner"])
        #expect(back.member.value == "boxed")
        #expect(back.member.parent === back.nodes[1])
        #expect(back.member.owner === back.nodes[2])
    }

    @Test("a class inheriting a generic class: the generic superclass's fields and its own")
    func subclassOfGenericClass() throws {
        let nodes = ChainWalk.nodes()
        // The members' unowned fields point at these: an optimised build may otherwise end their
        // lifetime after their last use by name.
        defer { withExtendedLifetime(nodes) {} }
        let box = WalkIntBox()
        box.value = 42
        box.parent = nodes[0]
        box.owner = nodes[1]
        box.keeper = nodes[2]
        box.extra = "x"
        let back = try ChainWalk.roundTrip(box, nodes: nodes)
        #expect(back.keys == ["$class", "parent", "value", "owner", "keeper", "extra"])
        #expect(back.member.value == 42)
        #expect(back.member.extra == "x")
        #expect(back.member.parent === back.nodes[0])
        #expect(back.member.owner === back.nodes[1])
        #expect(back.member.keeper === back.nodes[2])
        #expect(try ChainWalk.rootClasses(box) == [String(reflecting: WalkIntBox.self), String(reflecting: WalkBox<Int>.self), "NSObject"])
    }

    @Test("a class nested in a generic type")
    func classNestedInGenericType() throws {
        let nodes = ChainWalk.nodes()
        // The members' unowned fields point at these: an optimised build may otherwise end their
        // lifetime after their last use by name.
        defer { withExtendedLifetime(nodes) {} }
        let inner = WalkOuter<Double>.Inner()
        inner.tag = "inner"
        inner.parent = nodes[2]
        inner.owner = nodes[1]
        let back = try ChainWalk.roundTrip(inner, nodes: nodes)
        #expect(back.keys == ["$class", "tag", "parent", "owner"])
        #expect(back.member.tag == "inner")
        #expect(back.member.parent === back.nodes[2])
        #expect(back.member.owner === back.nodes[1])
        #expect(try ChainWalk.rootClasses(inner) == [String(reflecting: WalkOuter<Double>.Inner.self), "NSObject"])
    }

    @Test("a struct's weak and unowned fields")
    func structFields() throws {
        let nodes = ChainWalk.nodes()
        // The members' unowned fields point at these: an optimised build may otherwise end their
        // lifetime after their last use by name.
        defer { withExtendedLifetime(nodes) {} }
        var value = WalkStruct()
        value.name = "plain"
        value.parent = nodes[1]
        value.owner = nodes[0]
        let back = try ChainWalk.roundTrip(value, nodes: nodes)
        #expect(back.keys == ["$class", "name", "parent", "owner"])
        #expect(back.member.name == "plain")
        #expect(back.member.parent === back.nodes[1])
        #expect(back.member.owner === back.nodes[0])
    }

    @Test("an unowned(unsafe) field two classes up is found and refused by name")
    func unownedUnsafeFieldUpTheChain() throws {
        let error = try #require(ZooArchive.encodeError(WalkUnsafeLeaf()))
        #expect(error.code == .notArchivable)
        #expect(
            error.reason
                == "KeyedArchiveTests.WalkUnsafeLeaf.engine is unowned(unsafe): a decoded object could be freed while the field still points at it; list it in transientFields or make it weak"
        )
    }

    @Test("a Codable class's $classes names every superclass, generic ones included")
    func codableClassChain() throws {
        #expect(
            try ChainWalk.rootClasses(WalkCodableLeaf()) == [
                "KeyedArchiveTests.WalkCodableLeaf", "KeyedArchiveTests.WalkCodableMiddle",
                "KeyedArchiveTests.WalkCodableBase<Swift.Int>", "NSObject",
            ])
    }
}

/// Archiving and reading back for the tests of reflection through class chains.
enum ChainWalk {
    /// Archives `nodes` and `member` in one archive and reads both back from it, so the member's
    /// fields point into the decoded nodes.
    static func roundTrip<Member>(_ member: Member, nodes: [WalkNode]) throws -> (member: Member, nodes: [WalkNode], keys: [String]) {
        let archiver = KeyedArchiver()
        try archiver.encode(nodes, forKey: "nodes")
        try archiver.encode(member, forKey: "member")
        let data = try archiver.encodedData
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        let backNodes = try unarchiver.decode([WalkNode].self, forKey: "nodes")
        let back = try unarchiver.decode(Member.self, forKey: "member")
        return (back, backNodes, try ZooArchive.topObject(data, key: "member").keys)
    }

    /// Three nodes labelled `a`, `b`, `c`.
    static func nodes() -> [WalkNode] {
        ["a", "b", "c"].map { label in
            let node = WalkNode()
            node.label = label
            return node
        }
    }

    /// The `$classes` of the root object's class when `value` is archived alone.
    static func rootClasses<T>(_ value: T) throws -> [String] {
        let data = try ZooArchive.encode(value)
        return ZooArchive.classChain(of: try ZooArchive.topObject(data), in: try ZooArchive.objects(data))
    }
}
