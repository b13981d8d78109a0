import Foundation
import KeyedArchive

// Swift models of the NSCoding classes that write the Foundation-made archives
// (`Scripts/FoundationFixtures/main.swift` for `Fixtures/foundation`; the peer copy in
// ../shared/fixtures/keyed was written with the same classes, keys and values), field for field:
// same names, same types, coded by reflection (`Archivable`). They live in `Keyedgen` (the
// writer's module name) so they cannot collide with other tests' `Person` or `Node`.
//
// Each declares `archiveClassName` as the name Foundation on Linux gives its NSCoding twin
// (`FoundationTwins.swift`), so an archive this library writes is read by `NSKeyedUnarchiver`
// into the twin. Foundation's own archives name them `keyedgen.Person` etc.; tests map those
// names with `setClass(_:forClassName:)` (see `Keyedgen.mapGeneratorNames`).

enum Keyedgen {
    final class Address: Archivable {
        var street = ""
        var city = ""
        var zip = ""

        init() {}

        init(_ street: String, _ city: String, _ zip: String) {
            self.street = street
            self.city = city
            self.zip = zip
        }

        static var archiveClassName: String? { "KeyedArchiveTests.AddressNS" }
    }

    class Person: Archivable {
        var name = ""
        var age = 0
        var score = 0.0
        var isAdmin = false
        var tags: [String] = []
        var address: Address?
        var birthday = Date(timeIntervalSinceReferenceDate: 0)
        var avatar = Data()
        var homepage: URL?
        var id = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!

        required init() {}

        /// The generator's `Person.init`, argument for argument.
        init(
            name: String, age: Int, score: Double, isAdmin: Bool, tags: [String], address: Address?, birthday: Double,
            avatar: [UInt8], homepage: String?, id: String
        ) {
            self.name = name
            self.age = age
            self.score = score
            self.isAdmin = isAdmin
            self.tags = tags
            self.address = address
            self.birthday = Date(timeIntervalSinceReferenceDate: birthday)
            self.avatar = Data(avatar)
            self.homepage = homepage.flatMap(URL.init(string:))
            self.id = UUID(uuidString: id)!
        }

        class var archiveClassName: String? { "KeyedArchiveTests.PersonNS" }
    }

    final class Employee: Person {
        var title = ""
        var manager: Employee?
        var reports: [Employee] = []

        required init() { super.init() }

        /// The generator's `Employee.init`.
        init(name: String, age: Int, title: String) {
            super.init(
                name: name, age: age, score: 0.5, isAdmin: false, tags: [], address: nil, birthday: 0, avatar: [],
                homepage: nil, id: "11111111-2222-3333-4444-555555555555")
            self.title = title
        }

        override class var archiveClassName: String? { "KeyedArchiveTests.EmployeeNS" }
    }

    final class Node: Archivable {
        var name = ""
        weak var parent: Node?
        var children: [Node] = []

        init() {}

        init(_ name: String) { self.name = name }

        static var archiveClassName: String? { "KeyedArchiveTests.NodeNS" }
    }

    final class Team: Archivable {
        var name = ""
        var members: [Person] = []
        var captain: Person?

        init() {}

        init(_ name: String, _ members: [Person], captain: Person?) {
            self.name = name
            self.members = members
            self.captain = captain
        }

        static var archiveClassName: String? { "KeyedArchiveTests.TeamNS" }
    }

    /// The generator's `person(i)`, formula for formula.
    static func person(_ i: Int) -> Person {
        Person(
            name: "User \(i)", age: 20 + i % 50, score: Double(i) * 1.25, isAdmin: i % 7 == 0, tags: ["t\(i % 3)", "group\(i % 5)"],
            address: Address("\(i) Main St", i % 2 == 0 ? "Zürich" : "Berlin", String(8000 + i)), birthday: Double(i) * 86_400 - 1e8,
            avatar: [UInt8(i % 256), 0xFF, 0x00], homepage: i % 3 == 0 ? "https://example.com/u/\(i)" : nil,
            id: String(format: "%08X-0000-4000-8000-%012X", i, i * 7))
    }

    /// The generator's `k-employee-inheritance` graph: Boss (CEO) with reports Ann and Bob, whose
    /// `manager` is Boss. The caller breaks the cycle with ``breakCycles(_:)`` when done.
    static func company(seed: Int = 0) -> Employee {
        let boss = Employee(name: "Boss", age: 60, title: "CEO")
        let a = Employee(name: "Ann", age: 30, title: "Dev")
        let b = Employee(name: "Bob", age: 40 + seed % 10, title: "Ops")
        a.manager = boss
        b.manager = boss
        boss.reports = [a, b]
        return boss
    }

    /// The generator's `k-tree-cycle` tree: root, children `child0...2`, each with one `grandN`.
    static func tree(seed: Int = 0, withParents: Bool = true) -> Node {
        let root = Node("root")
        for i in 0..<3 {
            let c = Node("child\(i + seed)")
            if withParents { c.parent = root }
            root.children.append(c)
            let g = Node("grand\(i)")
            if withParents { g.parent = c }
            c.children.append(g)
        }
        return root
    }

    /// Releases the strong cycles of an employee graph (manager ↔ reports).
    static func breakCycles(_ employee: Employee) {
        let reports = employee.reports
        employee.reports = []
        employee.manager = nil
        for report in reports { breakCycles(report) }
    }

    /// Maps the generator's class names (`keyedgen.Person`...) to these models.
    static func mapGeneratorNames(_ unarchiver: KeyedUnarchiver, prefix: String = "keyedgen.") {
        unarchiver.setClass(Person.self, forClassName: prefix + "Person")
        unarchiver.setClass(Address.self, forClassName: prefix + "Address")
        unarchiver.setClass(Employee.self, forClassName: prefix + "Employee")
        unarchiver.setClass(Node.self, forClassName: prefix + "Node")
        unarchiver.setClass(Team.self, forClassName: prefix + "Team")
    }
}

// MARK: Field-by-field comparison

/// Differences between two values of the fixture models, as readable lines (`root.address.city: "Bern" != "Berlin"`).
/// Value fields are compared; references (`manager`, `parent`, `captain`) are checked by the tests themselves.
struct ModelDiff {
    private(set) var lines: [String] = []

    mutating func check<T: Equatable>(_ path: String, _ actual: T, _ expected: T) {
        if actual != expected { lines.append("\(path): \(actual) != expected \(expected)") }
    }

    mutating func address(_ path: String, _ actual: Keyedgen.Address?, _ expected: Keyedgen.Address?) {
        switch (actual, expected) {
        case (nil, nil): return
        case (let a?, let e?):
            check(path + ".street", a.street, e.street)
            check(path + ".city", a.city, e.city)
            check(path + ".zip", a.zip, e.zip)
        default: lines.append("\(path): \(actual.map { _ in "an address" } ?? "nil") != expected \(expected.map { _ in "an address" } ?? "nil")")
        }
    }

    mutating func person(_ path: String, _ actual: Keyedgen.Person, _ expected: Keyedgen.Person) {
        check(path + ".type", String(reflecting: type(of: actual)), String(reflecting: type(of: expected)))
        check(path + ".name", actual.name, expected.name)
        check(path + ".age", actual.age, expected.age)
        check(path + ".score", actual.score, expected.score)
        check(path + ".isAdmin", actual.isAdmin, expected.isAdmin)
        check(path + ".tags", actual.tags, expected.tags)
        address(path + ".address", actual.address, expected.address)
        check(path + ".birthday", actual.birthday, expected.birthday)
        check(path + ".avatar", actual.avatar, expected.avatar)
        check(path + ".homepage", actual.homepage, expected.homepage)
        check(path + ".id", actual.id, expected.id)
    }

    /// Person fields, `title`, and the `reports` tree recursively (managers are references: checked by the caller).
    mutating func employee(_ path: String, _ actual: Keyedgen.Employee, _ expected: Keyedgen.Employee) {
        person(path, actual, expected)
        check(path + ".title", actual.title, expected.title)
        check(path + ".manager", actual.manager == nil, expected.manager == nil)
        check(path + ".reports.count", actual.reports.count, expected.reports.count)
        for (i, (a, e)) in zip(actual.reports, expected.reports).enumerated() { employee("\(path).reports[\(i)]", a, e) }
    }

    /// Names and shape of a node tree (parents are references: checked by the caller).
    mutating func node(_ path: String, _ actual: Keyedgen.Node, _ expected: Keyedgen.Node) {
        check(path + ".name", actual.name, expected.name)
        check(path + ".parent", actual.parent == nil, expected.parent == nil)
        check(path + ".children.count", actual.children.count, expected.children.count)
        for (i, (a, e)) in zip(actual.children, expected.children).enumerated() { node("\(path).children[\(i)]", a, e) }
    }

    mutating func team(_ path: String, _ actual: Keyedgen.Team, _ expected: Keyedgen.Team) {
        check(path + ".name", actual.name, expected.name)
        check(path + ".members.count", actual.members.count, expected.members.count)
        for (i, (a, e)) in zip(actual.members, expected.members).enumerated() { person("\(path).members[\(i)]", a, e) }
        check(path + ".captain", actual.captain == nil, expected.captain == nil)
        if let a = actual.captain, let e = expected.captain { person(path + ".captain", a, e) }
    }

    var description: String { lines.prefix(40).joined(separator: "\n") + (lines.count > 40 ? "\n… \(lines.count - 40) more" : "") }
}
