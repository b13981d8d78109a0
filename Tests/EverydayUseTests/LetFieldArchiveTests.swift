import ArchiveStore
import Foundation
import KeyedArchive
import Observation
import PropertyList
import Testing

// Finding 3: a type with an archived `let` saved fine and then could never be loaded (decoding
// refuses to overwrite a `let`). Archiving refuses it now, with the decoder's error, before
// anything is written; and `@Observable` classes, whose macro adds a `let` registrar, archive.

/// The user's model: `id` is a `let`, so reflection could never restore it.
private struct Note: Archivable {
    let id = UUID()
    var text = ""
}

/// The same note as a user would fix it.
private struct FixedNote: Archivable {
    var id = UUID()
    var text = ""
}

private struct Notebook: Archivable {
    var title = ""
    var notes: [Note] = []
}

/// Checks `error` is the `let` refusal for the field at `keyPath`, naming every fix.
private func expectLetFieldError(
    _ error: ArchiveError?, keyPath: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error else {
        Issue.record("no error was thrown", sourceLocation: sourceLocation)
        return
    }
    #expect(error.code == .letField, sourceLocation: sourceLocation)
    #expect(error.keyPath == keyPath, sourceLocation: sourceLocation)
    for fix in ["var", "transientFields", "KeyedCoding", "Codable"] {
        #expect(error.reason.contains(fix), "the reason names \(fix): \(error.reason)", sourceLocation: sourceLocation)
    }
    #expect(error.reason.contains("id"), "the reason names the field: \(error.reason)", sourceLocation: sourceLocation)
}

@Suite("A value with a let field is refused when archived, not when loaded")
struct LetFieldArchiveTests {
    @Test("archivedData of a struct with a let field throws letField at root.id naming the fixes")
    func archivedDataRefusesLetField() {
        let error = #expect(throws: ArchiveError.self) {
            _ = try KeyedArchiver.archivedData(withRootObject: Note(text: "milk"))
        }
        expectLetFieldError(error, keyPath: "root.id")
    }

    @Test("a let field deep inside a value is refused with the whole key path")
    func nestedLetFieldIsRefusedWithItsKeyPath() {
        let book = Notebook(title: "shopping", notes: [Note(text: "milk")])
        let error = #expect(throws: ArchiveError.self) {
            _ = try KeyedArchiver.archivedData(withRootObject: book)
        }
        expectLetFieldError(error, keyPath: "root.notes[0].id")
    }

    @Test("KeyedArchiver.encode refuses a let field, and the archive keeps the keys encoded before")
    func keyedArchiverEncodeRefusesLetField() throws {
        let archiver = KeyedArchiver()
        try archiver.encode("kept", forKey: "before")
        let error = #expect(throws: ArchiveError.self) {
            try archiver.encode(Note(text: "milk"), forKey: "note")
        }
        expectLetFieldError(error, keyPath: "note.id")

        let unarchiver = try KeyedUnarchiver(forReadingFrom: try archiver.encodedData)
        #expect(unarchiver.allKeys == ["before"])
        #expect(try unarchiver.decode(String.self, forKey: "before") == "kept")
    }

    @Test("ArchiveFile.set refuses a let field and the file keeps its keys")
    func archiveFileSetRefusesLetField() throws {
        var file = ArchiveFile()
        try file.set(FixedNote(text: "old"), forKey: "first")
        let error = #expect(throws: ArchiveError.self) {
            try file.set(Note(text: "milk"), forKey: "note")
        }
        expectLetFieldError(error, keyPath: "note.id")
        #expect(file.keys == ["first"])
        #expect(try file.decode(FixedNote.self, forKey: "first").text == "old")
    }

    @Test("ArchiveStore.save refuses a let field and the store keeps the previous value")
    func storeSaveRefusesLetFieldAndKeepsPreviousValue() throws {
        let folder = try TemporaryDirectory("let-field")
        let store = try ArchiveStore(directory: folder.url)
        let previous = FixedNote(text: "previous")
        try store.save(previous, forKey: "note")
        let fileURL = try #require(
            try FileManager.default.contentsOfDirectory(at: folder.url, includingPropertiesForKeys: nil).first)
        let bytesBefore = try Data(contentsOf: fileURL)

        let error = #expect(throws: ArchiveError.self) {
            try store.save(Note(text: "new"), forKey: "note")
        }
        expectLetFieldError(error, keyPath: "root.id")

        #expect(try Data(contentsOf: fileURL) == bytesBefore)
        let loaded = try #require(try store.load(FixedNote.self, forKey: "note"))
        #expect(loaded.id == previous.id)
        #expect(loaded.text == "previous")
        #expect(store.keys == ["note"])
    }

    @Test("ArchiveStore.save without a key refuses a let field and writes no file")
    func storeSaveByTypeNameRefusesLetField() throws {
        let folder = try TemporaryDirectory("let-field-type-key")
        let store = try ArchiveStore(directory: folder.url)
        let error = #expect(throws: ArchiveError.self) {
            try store.save(Note(text: "new"))
        }
        expectLetFieldError(error, keyPath: "root.id")
        #expect(store.keys.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }
}

// MARK: - @Observable

@Observable
private final class Settings: Archivable {
    // A private type's module-qualified name holds an address that changes every launch; a
    // declared name keeps the store's key and the archive's class name stable.
    static var archiveClassName: String? { "Settings" }
    var theme = "light"
    var fontSize = 12
    var showsTips = true
    var recent: [String] = []
    init() {}
}

/// Records whether an observation's change handler ran.
private final class Fired: @unchecked Sendable {  // `value` is only touched under `lock`
    private let lock = NSLock()
    private var value = false
    var fired: Bool { lock.withLock { value } }
    func fire() { lock.withLock { value = true } }
}

@Suite("An @Observable Archivable class saves and loads, and stays observable")
struct ObservableArchiveTests {
    @Test("an @Observable class saves to a store and loads with its values")
    func observableClassSavesAndLoads() throws {
        let folder = try TemporaryDirectory("observable")
        let store = try ArchiveStore(directory: folder.url)
        let settings = Settings()
        settings.theme = "dark"
        settings.fontSize = 17
        settings.showsTips = false
        settings.recent = ["a.txt", "b.txt"]
        try store.save(settings)

        let loaded = try #require(try store.load(Settings.self))
        #expect(loaded !== settings)
        #expect(loaded.theme == "dark")
        #expect(loaded.fontSize == 17)
        #expect(loaded.showsTips == false)
        #expect(loaded.recent == ["a.txt", "b.txt"])
    }

    @Test("the observation registrar is never archived; the fields are, under their property names")
    func observationRegistrarIsNotArchived() throws {
        let settings = Settings()
        settings.theme = "dark"
        let data = try KeyedArchiver.archivedData(withRootObject: settings)
        guard case .dict(let top) = try BPlistReader().read(data),
            case .array(let objects)? = top["$objects"],
            case .dict(let roots)? = top["$top"],
            case .uid(let rootUID)? = roots["root"],
            case .dict(let root) = objects[Int(rootUID)]
        else {
            Issue.record("not a keyed archive with a root object")
            return
        }
        #expect(Set(root.keys) == ["$class", "theme", "fontSize", "showsTips", "recent"])
    }

    @Test("a decoded @Observable instance reports changes to withObservationTracking")
    func decodedInstanceIsObservable() throws {
        let settings = Settings()
        settings.fontSize = 20
        let loaded = try KeyedUnarchiver.unarchivedObject(
            ofType: Settings.self, from: try KeyedArchiver.archivedData(withRootObject: settings))

        let themeChange = Fired()
        withObservationTracking {
            _ = loaded.theme
        } onChange: {
            themeChange.fire()
        }
        let originalChange = Fired()
        withObservationTracking {
            _ = settings.theme
        } onChange: {
            originalChange.fire()
        }
        #expect(!themeChange.fired)
        loaded.theme = "sepia"
        #expect(themeChange.fired)
        #expect(!originalChange.fired, "the decoded instance has a registrar of its own")
        #expect(loaded.theme == "sepia")
        #expect(loaded.fontSize == 20)
    }
}
