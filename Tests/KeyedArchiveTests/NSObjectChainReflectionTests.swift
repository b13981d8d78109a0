import Foundation
import KeyedArchive
import Testing

// Archivable and Codable classes that inherit NSObject. On Apple platforms NSObject is an
// Objective-C class with no Swift metadata: reflection must find the Swift classes' fields and
// stop below NSObject, and `$classes` must name NSObject once, at the end. On Linux Foundation's
// NSObject is a Swift class, so there the same fields are found along an all-Swift chain, and
// `$classes` stops at NSObject too (the same bytes on every platform); the test under
// `#if canImport(ObjectiveC)` runs only on Apple platforms.

class WalkObjectBase: NSObject, Archivable {
    var name = ""
    weak var parent: WalkNode?
    required override init() {}
}

final class WalkObjectLeaf: WalkObjectBase {
    unowned var owner: WalkNode = WalkNode.placeholder
    var count = 0
}

final class WalkCodableObject: NSObject, Codable {
    var value = 0
}

@Suite("Reflection through classes that inherit NSObject")
struct NSObjectChainReflectionTests {
    @Test("an NSObject subclass's weak and unowned fields, its superclass's first, round-trip")
    func nonStrongFieldsOfNSObjectSubclass() throws {
        let nodes = ChainWalk.nodes()
        // The members' unowned fields point at these: an optimised build may otherwise end their
        // lifetime after their last use by name.
        defer { withExtendedLifetime(nodes) {} }
        let leaf = WalkObjectLeaf()
        leaf.name = "object"
        leaf.parent = nodes[0]
        leaf.owner = nodes[2]
        leaf.count = 5
        let back = try ChainWalk.roundTrip(leaf, nodes: nodes)
        #expect(back.keys == ["$class", "name", "parent", "owner", "count"])
        #expect(back.member.name == "object")
        #expect(back.member.count == 5)
        #expect(back.member.parent === back.nodes[0])
        #expect(back.member.owner === back.nodes[2])
    }

    @Test("$classes of an Archivable NSObject subclass names its Swift classes, then NSObject once")
    func archivableNSObjectSubclassClasses() throws {
        #expect(
            try ChainWalk.rootClasses(WalkObjectLeaf()) == [
                String(reflecting: WalkObjectLeaf.self), String(reflecting: WalkObjectBase.self), "NSObject",
            ])
        #expect(try ChainWalk.rootClasses(WalkObjectBase()) == [String(reflecting: WalkObjectBase.self), "NSObject"])
    }

    @Test("$classes of a Codable NSObject subclass is its name, then NSObject")
    func codableNSObjectSubclassClasses() throws {
        let value = WalkCodableObject()
        value.value = 9
        #expect(try ChainWalk.rootClasses(value) == [String(reflecting: WalkCodableObject.self), "NSObject"])
        #expect(try ZooArchive.roundTrip(value).value == 9)
    }

    #if canImport(ObjectiveC)
    @Test("an instance observed with key-value observing archives as its own class, to the same bytes")
    func observedInstanceArchivesAsItsClass() throws {
        let value = WalkObserved()
        value.name = "watched"
        let unobserved = try ZooArchive.encode(value)
        let observation = value.observe(\.name) { _, _ in }
        defer { observation.invalidate() }
        let observed = try ZooArchive.encode(value)
        #expect(observed == unobserved)
        #expect(try ZooArchive.decode(WalkObserved.self, from: observed).name == "watched")
    }
    #endif
}

#if canImport(ObjectiveC)
/// Key-value observing gives an observed instance a class the Objective-C runtime makes for it.
final class WalkObserved: NSObject, Archivable {
    @objc dynamic var name = ""
    required override init() {}
}
#endif
