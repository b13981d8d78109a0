import Foundation
import Testing
import KeyedArchive
import PropertyList

final class SNode: Archivable {
    var name = ""
    weak var parent: SNode?
    var children: [SNode] = []
    required init() {}
}

struct SAddress: Archivable, Equatable { var street = ""; var zip = 0 }
struct SUser: Archivable, Equatable {
    var name = "x"; var age = 3; var score = 1.5; var ok = true; var tags: [String] = []; var address = SAddress()
    var nick: String? = nil; var when = Date(timeIntervalSinceReferenceDate: 5); var counts: [String: Int] = [:]
    var f: Float = 2.5; var big: UInt64 = .max; var small: Int8 = .min
}

@Test func smokeStruct() throws {
    var u = SUser(); u.name = "Ann"; u.tags = ["a", "b"]; u.address = SAddress(street: "Main", zip: 8000); u.counts = ["x": 1, "y": 2]
    let data = try KeyedArchiver.archivedData(withRootObject: u)
    print(try PlistValue(bplist: [UInt8](data)).plistJSON)
    let back = try KeyedUnarchiver.unarchivedObject(ofType: SUser.self, from: data)
    #expect(back == u)
    let ns = try NSKeyedUnarchiver(forReadingFrom: data)
    ns.requiresSecureCoding = false
    print(ns.decodeObject(forKey: "root") as Any)
}

@Test func smokeCycle() throws {
    let root = SNode(); root.name = "root"
    for i in 0..<3 { let c = SNode(); c.name = "c\(i)"; c.parent = root; root.children.append(c) }
    let data = try KeyedArchiver.archivedData(withRootObject: root)
    let back = try KeyedUnarchiver.unarchivedObject(ofType: SNode.self, from: data)
    #expect(back.children.count == 3)
    #expect(back.children.allSatisfy { $0.parent === back })
    #expect(back.children.map(\.name) == ["c0", "c1", "c2"])
}
