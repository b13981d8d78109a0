import ArchiveStore
import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A note as an earlier build saved it: version 0, `words` an `Int`.
struct OldNote: Archivable {
    var title = ""
    var words = 0
    var tags: [String] = []
    static var archiveClassName: String? { "Upgrade.Note" }
}

/// The note as today's build knows it (the crash child's `StoredNote` is the same type in its own program).
struct Note: Archivable, Equatable {
    var title = ""
    var words = ""
    var tags: [String] = []
    static var archiveClassName: String? { "Upgrade.Note" }
    static var archiveLegacyClassNames: [String] { ["Upgrade.Memo"] }
    static var archiveVersion: Int { 1 }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        try object.set(String(try object.decode(Int.self, forKey: "words")), forKey: "words")
    }
}

/// A note saved under the name the type had before it was renamed.
struct OldMemo: Archivable {
    var title = ""
    var words = 0
    static var archiveClassName: String? { "Upgrade.Memo" }
}

/// The note `n` of the tests, as an earlier build saved it and as it reads today.
private func oldNote(_ n: Int) -> OldNote { OldNote(title: "Note \(n)", words: n * 7, tags: ["t\(n)"]) }
private func note(_ n: Int) -> Note { Note(title: "Note \(n)", words: String(n * 7), tags: ["t\(n)"]) }

/// The version a stored file records for `Upgrade.Note`: 0 when it records none; nil for a file
/// without that class.
private func noteVersion(in file: URL) throws -> Int? {
    guard case .dict(let top) = try BPlistReader().read(try Data(contentsOf: file)), case .array(let objects)? = top["$objects"]
    else { return nil }
    for case .dict(let dict) in objects where dict["$classname"] == .string("Upgrade.Note") {
        if case .int(let version)? = dict["$classversion"] { return Int(version) }
        return 0
    }
    return nil
}

/// The stored file of `key` in `directory` (keys of letters, digits and dashes are stored by name).
private func file(_ key: String, in directory: URL) -> URL {
    directory.appending(path: "key-\(key).archive")
}

@Suite("ArchiveStore upgrades stored values to their type's current version")
struct StoreUpgradeTests {
    @Test("a load migrates an old value; its next save writes the current version")
    func loadMigratesAndSaveRewrites() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(oldNote(3), forKey: "n")
        #expect(try noteVersion(in: file("n", in: fixture.directory)) == 0)
        let loaded = try #require(try fixture.store.load(Note.self, forKey: "n"))
        #expect(loaded == note(3))
        #expect(try noteVersion(in: file("n", in: fixture.directory)) == 0)  // loading writes nothing
        try fixture.store.save(loaded, forKey: "n")
        #expect(try noteVersion(in: file("n", in: fixture.directory)) == 1)
        #expect(try fixture.store.load(Note.self, forKey: "n") == note(3))
    }

    @Test("upgradeAll rewrites the old values of the type here and in nested namespaces, and nothing else")
    func upgradeAll() throws {
        let fixture = try StoreFixture()
        let clock = ArchiveStore.ManualClock()
        let store = try ArchiveStore(directory: fixture.directory, clock: clock.clock)
        for n in 0..<5 { try store.save(oldNote(n), forKey: "old-\(n)") }
        try store.save(note(9), forKey: "current")
        try store.save(OldMemo(title: "Memo", words: 2), forKey: "memo")
        try store.save(OldNote(title: "Soon gone", words: 1), forKey: "expiring", expiresAfter: .seconds(1))
        try store.set(42, forKey: "count")
        try store.save(["other": 1], forKey: "dictionary")
        let user = store.namespace("user 1")
        try user.save(oldNote(7), forKey: "nested")
        clock.advance(by: .seconds(1))  // "expiring" expires
        let untouched = try ["current", "count", "dictionary"].map { try Data(contentsOf: file($0, in: fixture.directory)) }

        #expect(try store.upgradeAll(Note.self).rewritten == 7)  // 5 old, the memo, the nested one
        for n in 0..<5 {
            #expect(try noteVersion(in: file("old-\(n)", in: fixture.directory)) == 1)
            #expect(try store.load(Note.self, forKey: "old-\(n)") == note(n))
        }
        #expect(try store.load(Note.self, forKey: "memo") == Note(title: "Memo", words: "2"))
        #expect(try noteVersion(in: file("memo", in: fixture.directory)) == 1)  // now under the current name
        #expect(try user.load(Note.self, forKey: "nested") == note(7))
        #expect(try store.load(Note.self, forKey: "expiring") == nil)
        #expect(try ["current", "count", "dictionary"].map { try Data(contentsOf: file($0, in: fixture.directory)) } == untouched)
        #expect(store.integer(forKey: "count") == 42)

        #expect(try store.upgradeAll(Note.self).rewritten == 0)  // nothing left to do
    }

    @Test("upgradeAll of a collection type upgrades stored collections; a value holding notes deeper down is left alone")
    func collectionsAndMappedNames() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.save([oldNote(1), oldNote(2)], forKey: "inbox")
        try store.save(["pinned": oldNote(3)], forKey: "board")
        try store.save(oldNote(4), forKey: "single")
        #expect(try store.upgradeAll(Note.self).rewritten == 1)  // the single note; the collections are not Notes
        #expect(try noteVersion(in: file("inbox", in: fixture.directory)) == 0)
        #expect(try store.upgradeAll([Note].self).rewritten == 1)  // the board is a dictionary, not an array
        #expect(try noteVersion(in: file("inbox", in: fixture.directory)) == 1)
        #expect(try store.load([Note].self, forKey: "inbox") == [note(1), note(2)])
        #expect(try store.upgradeAll([String: Note].self).rewritten == 1)
        #expect(try store.load([String: Note].self, forKey: "board") == ["pinned": note(3)])

        // A name read as the type with setClass(_:forClassName:) is upgraded too.
        let archiver = KeyedArchiver()
        archiver.setClassName("Elsewhere.Jotting", for: OldNote.self)
        try archiver.encode(oldNote(5), forKey: "root")
        try archiver.encode("jotting", forKey: "key")
        try archiver.encodedData.write(to: file("jotting", in: fixture.directory))
        let reopened = try ArchiveStore(directory: fixture.directory)  // finds the file written by hand
        #expect(try reopened.upgradeAll(Note.self).rewritten == 0)
        reopened.setClass(Note.self, forClassName: "Elsewhere.Jotting")
        #expect(try reopened.upgradeAll(Note.self).rewritten == 1)
        #expect(try noteVersion(in: file("jotting", in: fixture.directory)) == 1)
        #expect(try reopened.load(Note.self, forKey: "jotting") == note(5))
    }

    @Test("a value whose migration fails is skipped and reported; damaged files of other keys are left; the rest is upgraded")
    func failingValue() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(oldNote(1), forKey: "a")
        try fixture.store.namespace("n").save(oldNote(2), forKey: "z")
        // A damaged file of another key (a cache entry of another type, cut short) comes first.
        try Data("garbage, not a property list".utf8).write(to: file("0-damaged", in: fixture.directory))
        // Version 0 of the note with a `words` that is not an integer: its migration cannot read it.
        let archiver = KeyedArchiver()
        archiver.setClassName("Upgrade.Note", for: BadNote.self)
        try archiver.encode(BadNote(), forKey: "root")
        try archiver.encode("b", forKey: "key")
        try archiver.encodedData.write(to: file("b", in: fixture.directory))
        let result = try fixture.store.upgradeAll(Note.self)
        #expect(result.rewritten == 2)  // "a" and the nested "z", after the two that fail
        #expect(result.skipped.map(\.key) == ["0-damaged", "b"])
        #expect(result.skipped.map(\.error.code) == [.notPropertyList, .migrationFailed])
        #expect(result.skipped[1].error.keyPath == "root.words")
        #expect(result.skipped.allSatisfy { $0.namespacePath.isEmpty })
        #expect(try fixture.store.load(Note.self, forKey: "a") == note(1))
        #expect(try fixture.store.namespace("n").load(Note.self, forKey: "z") == note(2))
        // Both skipped files are left as they were.
        #expect(try Data(contentsOf: file("0-damaged", in: fixture.directory)) == Data("garbage, not a property list".utf8))
        #expect(throws: ArchiveError.self) { try fixture.store.load(Note.self, forKey: "b") }
        #expect(try fixture.store.upgradeAll(Note.self).rewritten == 0)
    }

    #if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow
    /// `ARCHIVE_STORE_UPGRADE_KILLS` raises it.
    static let kills = ProcessInfo.processInfo.environment["ARCHIVE_STORE_UPGRADE_KILLS"].flatMap { Int($0) } ?? 100

    @Test("upgradeAll killed at random moments: every value loads, old or new, and a rerun finishes the job")
    func killedUpgrades() throws {
        let fixture = try StoreFixture()
        let executable = try #require(CrashChild.executable, "archive-store-crash-child was not built next to the tests")
        let store = fixture.store
        let user = store.namespace("user")
        let keys = (0..<20).map { (store, "note-\($0)", $0) } + (20..<30).map { (user, "note-\($0)", $0) }
        func version(of owner: ArchiveStore, _ key: String) -> Int? {
            let directory = owner === user ? fixture.directory.appending(path: "ns-user") : fixture.directory
            return try? noteVersion(in: file(key, in: directory))
        }
        for (owner, key, n) in keys { try owner.save(oldNote(n), forKey: key) }
        var generator = SplitMix64(seed: 0x0F6_2ADE)
        // How long rewriting half the values takes here (each round has about half to do), so
        // that the kills land anywhere in a run.
        let timed = try CrashChild.run(["upgrade", fixture.directory.path]).output
        let microseconds = timed.split(separator: " ").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let span = max(1_000, (try #require(microseconds, "the child printed \(timed)")) / 2)
        for (owner, key, n) in keys { try owner.save(oldNote(n), forKey: key) }
        var partial = 0
        var upgradedBefore = 0
        for round in 0..<Self.kills {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["upgrade", fixture.directory.path]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let lines = LineReader(output.fileHandleForReading.fileDescriptor)
            let deadline = ContinuousClock.now + .seconds(20)
            while lines.lines.isEmpty, lines.pump(timeout: 20), ContinuousClock.now < deadline {}
            usleep(UInt32.random(in: 0..<UInt32(span), using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            while lines.pump(timeout: 50) {}

            var upgraded = 0
            for (owner, key, n) in keys {
                #expect(try owner.load(Note.self, forKey: key) == note(n), "kill #\(round): \(key) does not load whole")
                let version = version(of: owner, key)
                #expect(version == 0 || version == 1, "kill #\(round): \(key) is at version \(String(describing: version))")
                if version == 1 { upgraded += 1 }
            }
            // Killed after it rewrote some values and before it finished.
            if upgraded > upgradedBefore, upgraded < keys.count, !lines.lines.contains(where: { $0.hasPrefix("upgraded") }) { partial += 1 }
            // About half the values go back to the old version, so that every run has work to do.
            upgradedBefore = upgraded
            for (owner, key, n) in keys where generator.chance(1, in: 2) {
                if version(of: owner, key) == 1 { upgradedBefore -= 1 }
                try owner.save(oldNote(n), forKey: key)
            }
        }
        #expect(partial > 0, "no kill landed while values were being rewritten")

        let finish = try CrashChild.run(["upgrade", fixture.directory.path])
        #expect(finish.status == 0)
        #expect(finish.output.contains("upgraded "))
        for (owner, key, n) in keys {
            #expect(try owner.load(Note.self, forKey: key) == note(n))
            #expect(version(of: owner, key) == 1, "\(key) was not upgraded by the rerun")
        }
        #expect(try store.upgradeAll(Note.self).rewritten == 0)
        try store.trim()
        #expect(fixture.temporaryFiles().isEmpty)
        print("upgradeAll killed \(Self.kills) times: \(partial) kills landed mid-upgrade")
    }
    #endif
}

/// A version 0 note whose `words` holds a string, which version 1's migration cannot read as an Int.
struct BadNote: Archivable {
    var title = "bad"
    var words = "many"
}
