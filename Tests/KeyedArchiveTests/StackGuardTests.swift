import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

final class StackNode: Archivable {
    var next: StackNode?
    var value = 0
    required init() {}

    static func chain(_ length: Int) -> StackNode {
        var head = StackNode()
        for i in 1..<length {
            let node = StackNode()
            node.value = i
            node.next = head
            head = node
        }
        return head
    }

    var length: Int {
        var count = 0
        var node: StackNode? = self
        while let current = node { count += 1; node = current.next }
        return count
    }
}

/// Nesting within the depth limits still needs stack: about 1.3 MB to decode 500 nested objects
/// in an optimised build and several times that unoptimised, while secondary threads often have
/// 512 KiB. On a thread whose stack cannot hold the nesting, reading, decoding and encoding fail
/// with `.depthLimit` instead of overflowing the stack; on a big stack the same input works.
@Suite("Deep input on small stacks")
struct StackGuardTests {
    static let small = 256 << 10
    /// The archiver needs well under 400 bytes of stack per level in an optimised build, so 500
    /// levels fit in 256 KiB (less its guard's reserve); half that does not hold them.
    static let smaller = 128 << 10

    private func expectStackError(
        stackSize: Int = Self.small, _ body: @escaping () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let error = try onThread(stackSize: stackSize) { () -> ArchiveError? in
            do {
                try body()
                return nil
            } catch let error as ArchiveError {
                return error
            }
        }
        let failure = try #require(error, "no error on a \(stackSize)-byte stack", sourceLocation: sourceLocation)
        #expect(failure.code == .depthLimit, "\(failure)", sourceLocation: sourceLocation)
        #expect(failure.reason.contains("stack is nearly used up"), "\(failure)", sourceLocation: sourceLocation)
    }

    @Test("The reader: 512 nested arrays fail on a 256 KiB stack and read on a big one")
    func reader() throws {
        let nested = try BPlistWriter().write((1..<512).reduce(PlistValue.array([])) { inner, _ in .array([inner]) })
        try expectStackError { _ = try BPlistReader().read(nested) }
        let depth = try onThread(stackSize: deepStack) { try BPlistReader().read(nested).nestingDepth }
        #expect(depth == 512)
    }

    @Test("The unarchiver: a 500-object chain fails on a 256 KiB stack and decodes on a big one")
    func unarchiver() throws {
        let data = try onThread(stackSize: deepStack) { try KeyedArchiver.archivedData(withRootObject: StackNode.chain(500)) }
        try expectStackError { _ = try KeyedUnarchiver.unarchivedObject(ofType: StackNode.self, from: data) }
        let arrays = try ZooHostile.nestedArrays(levels: 500)
        try expectStackError { _ = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: arrays) }
        let count = try onThread(stackSize: deepStack) { try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: arrays).count }
        #expect(count == 1)
        let length = try onThread(stackSize: deepStack) { try KeyedUnarchiver.unarchivedObject(ofType: StackNode.self, from: data).length }
        #expect(length == 500)
    }

    @Test("The archiver: a 500-object chain fails on a 128 KiB stack, and the archiver stays usable")
    func archiver() throws {
        let chain = StackNode.chain(500)
        try expectStackError(stackSize: Self.smaller) { _ = try KeyedArchiver.archivedData(withRootObject: chain) }
        let data = try onThread(stackSize: Self.smaller) { () throws -> Data in
            let archiver = KeyedArchiver()
            #expect(throws: ArchiveError.self) { try archiver.encode(chain, forKey: "deep") }
            try archiver.encode(StackNode.chain(5), forKey: "root")
            return try archiver.encodedData
        }
        // Decoded on the test's own thread: the small stack is for the archiver.
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: StackNode.self, from: data).length == 5)
    }

    @Test("plist-json: 512 nested arrays as JSON fail on a 256 KiB stack and parse on a big one")
    func json() throws {
        let nested = (1..<512).reduce(PlistValue.array([])) { inner, _ in .array([inner]) }
        let text = nested.plistJSON
        try expectStackError { _ = try PlistValue(plistJSON: text) }
        let parsed = try onThread(stackSize: deepStack) { try PlistValue(plistJSON: text) }
        #expect(parsed == nested)
    }
}
