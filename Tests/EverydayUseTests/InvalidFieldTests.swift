import ArchiveStore
import Foundation
import KeyedArchive
import Testing

/// The model as an earlier release archived it: optional fields, and `count` as text.
private final class OldTask: Archivable {
    var title: String?
    var count = ""
    var owner: OldPerson?
    var helpers: [Any] = []
    var lead: OldPerson?
    static var archiveClassName: String? { "Tasks.Task" }
    init() {}
}

private final class OldPerson: Archivable {
    var name = ""
    var age: Int?
    static var archiveClassName: String? { "Tasks.Person" }
    init() {}
    init(name: String, age: Int?) {
        self.name = name
        self.age = age
    }
}

/// A class the reading process does not know.
private final class Stranger: Archivable {
    var name = "?"
    static var archiveClassName: String? { "Elsewhere.Stranger" }
    init() {}
}

/// The model today: the same fields, now non-optional, `count` an `Int`.
private final class Task: Archivable {
    var title = "Untitled"
    var count = 1
    var owner = Person()
    var helpers: [Person] = []
    var lead = Person()
    static var archiveClassName: String? { "Tasks.Task" }
    init() {}
}

private final class Person: Archivable {
    var name = "nobody"
    var age = 0
    static var archiveClassName: String? { "Tasks.Person" }
    init() {}
}

/// `KeyedUnarchiver.Options.keepsDefaultForInvalidFields`: an old archive whose fields no longer
/// fit (`$null` in a now non-optional field, a value of another kind) loads with the fields'
/// `init()` values, each listed in the decode report by its key path.
@Suite struct InvalidFieldTests {
    private func oldArchive() throws -> Data {
        let task = OldTask()
        task.count = "three"
        let ann = OldPerson(name: "Ann", age: nil)
        task.owner = OldPerson(name: "Bob", age: 41)
        task.helpers = [ann, "not a person"]
        task.lead = ann
        return try KeyedArchiver.archivedData(withRootObject: task)
    }

    private func lenient(report: Bool = true) -> KeyedUnarchiver.Options {
        var options = KeyedUnarchiver.Options()
        options.keepsDefaultForInvalidFields = true
        options.collectsReport = report
        return options
    }

    @Test func theArchiveHoldsNullWhereTheFieldIsNowNonOptional() throws {
        let plist = try #require(try PropertyListSerialization.propertyList(from: try oldArchive(), format: nil) as? [String: Any])
        let objects = try #require(plist["$objects"] as? [Any])
        let xml = String(decoding: try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0), as: UTF8.self)
        #expect(objects.first as? String == "$null")
        #expect(xml.contains("<key>title</key>"), "the nil title is archived as a reference to $null, not left out")
    }

    @Test func byDefaultTheWholeLoadFails() throws {
        let error = #expect(throws: ArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: Task.self, from: try oldArchive())
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == "root.title", "\(String(describing: error))")
    }

    @Test func invalidFieldsKeepTheirDefaultsAndAreReportedByKeyPath() throws {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try oldArchive(), options: lenient())
        let task = try unarchiver.decode(Task.self, forKey: "root")
        #expect(task.title == "Untitled")
        #expect(task.count == 1)
        #expect(task.owner.name == "Bob")
        #expect(task.owner.age == 41)
        #expect(task.helpers.isEmpty, "a list with one element of another kind keeps the field's default")
        #expect(task.lead.name == "Ann", "an instance the failed list decoded is decoded again, whole, where it is met next")
        #expect(task.lead.age == 0)

        let invalid = unarchiver.report.invalidFields
        // The lead is the object the helpers list held first: a path names an object by where the
        // archive's graph reaches it first. What was reported inside the dropped list went with it.
        #expect(invalid.map(\.keyPath) == ["root.title", "root.count", "root.helpers", "root.helpers[0].age"])
        #expect(invalid.map(\.error.code) == [.typeMismatch, .typeMismatch, .typeMismatch, .typeMismatch])
        #expect(invalid[1].error.reason.contains("string"), "\(invalid[1])")
        #expect(unarchiver.report.description.contains("invalid root.title: typeMismatch"))
    }

    @Test func withoutAReportTheFieldsStillKeepTheirDefaults() throws {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: try oldArchive(), options: lenient(report: false))
        let task = try unarchiver.decode(Task.self, forKey: "root")
        #expect(task.title == "Untitled")
        #expect(unarchiver.report.isEmpty)
    }

    @Test func anObjectOfAnUnknownClassKeepsTheDefaultToo() throws {
        let holder = OldTask()
        holder.owner = OldPerson(name: "Eve", age: 30)
        holder.helpers = [Stranger()]
        let data = try KeyedArchiver.archivedData(withRootObject: holder)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: lenient())
        let task = try unarchiver.decode(Task.self, forKey: "root")
        #expect(task.helpers.isEmpty)
        #expect(unarchiver.report.invalidFields.first { $0.keyPath == "root.helpers" }?.error.code == .unknownClass)
    }

    @Test func damageAndLimitsStillFailTheDecode() throws {
        var options = lenient()
        options.maximumDecodedObjects = 3
        let error = #expect(throws: ArchiveError.self) {
            try KeyedUnarchiver(forReadingFrom: try oldArchive(), options: options).decode(Task.self, forKey: "root")
        }
        #expect(error?.code == .sizeLimit)
    }

    @Test func theStoresUnarchiverOptionsCarryIt() throws {
        let store = ArchiveStore.inMemory()
        let task = OldTask()
        task.count = "7"
        try store.save(task, forKey: "task")
        #expect(throws: ArchiveError.self) { try store.load(Task.self, forKey: "task") }
        store.unarchiverOptions.keepsDefaultForInvalidFields = true
        let loaded = try #require(try store.load(Task.self, forKey: "task"))
        #expect(loaded.title == "Untitled")
        #expect(loaded.count == 1)
    }
}
