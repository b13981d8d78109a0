import Foundation
import KeyedArchive
import PropertyList
import Testing

final class FileUser: Archivable {
    var name = ""
    var team: FileTeam?
    required init() {}
    static var archiveClassName: String? { "FileTests.User" }
}

final class FileTeam: Archivable {
    var title = ""
    var members: [FileUser] = []
    required init() {}
    static var archiveClassName: String? { "FileTests.Team" }
}

struct FileSettings: Archivable, Equatable {
    var theme = "light"
    var fontSize = 12
}

/// A type that must never be decoded: its `init()` records that it ran.
struct FileTripwire: Archivable {
    nonisolated(unsafe) static var decoded = 0
    var value = 0
    init() { Self.decoded += 1 }
}

@Suite("ArchiveFile")
struct ArchiveFileTests {
    func temporaryURL() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appending(path: "archive-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appending(path: "state.archive")
    }

    @Test func severalKeysRoundTripThroughAFile() throws {
        let url = try temporaryURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var file = ArchiveFile()
        try file.set(FileSettings(theme: "dark", fontSize: 14), forKey: "settings")
        try file.set(["a.png", "b.png"], forKey: "banners")
        try file.set(42, forKey: "version")
        #expect(file.keys == ["settings", "banners", "version"])
        try file.write(to: url)

        let loaded = try ArchiveFile(contentsOf: url)
        #expect(loaded.keys == ["settings", "banners", "version"])
        #expect(try loaded.decode(FileSettings.self, forKey: "settings") == FileSettings(theme: "dark", fontSize: 14))
        #expect(try loaded.decode([String].self, forKey: "banners") == ["a.png", "b.png"])
        #expect(try loaded.decode(Int.self, forKey: "version") == 42)
        // The file is an ordinary keyed archive: its $top holds the keys.
        let unarchiver = try KeyedUnarchiver(forReadingFrom: Data(contentsOf: url))
        #expect(unarchiver.allKeys == ["settings", "banners", "version"])
    }

    @Test func objectsSharedBetweenKeysStayShared() throws {
        let url = try temporaryURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let team = FileTeam()
        team.title = "Core"
        let user = FileUser()
        user.name = "Ann"
        user.team = team
        team.members = [user]
        var file = ArchiveFile()
        try file.set(user, forKey: "user")
        try file.set(team, forKey: "team")
        try file.write(to: url)
        defer { team.members = [] }

        let loaded = try ArchiveFile(contentsOf: url)
        let backUser = try loaded.decode(FileUser.self, forKey: "user")
        let backTeam = try loaded.decode(FileTeam.self, forKey: "team")
        defer { backTeam.members = [] }
        #expect(backUser.team === backTeam)
        #expect(backTeam.members.first === backUser)
        // The archive holds one object for each instance.
        guard case .dict(let root) = try BPlistReader().read(Data(contentsOf: url)),
            case .array(let objects)? = root["$objects"]
        else { Issue.record("not a keyed archive"); return }
        let users = objects.filter { $0.dictValue?["name"] != nil }
        #expect(users.count == 1)
    }

    @Test func keysAreListedAndOneKeyDecodedWithoutDecodingTheOthers() throws {
        let url = try temporaryURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var file = ArchiveFile()
        try file.set(FileSettings(), forKey: "settings")
        try file.set((0..<100).map { _ in FileTripwire() }, forKey: "big")
        try file.write(to: url)
        FileTripwire.decoded = 0
        let loaded = try ArchiveFile(contentsOf: url)
        #expect(loaded.keys == ["settings", "big"])
        #expect(try loaded.decode(FileSettings.self, forKey: "settings") == FileSettings())
        #expect(FileTripwire.decoded == 0)
        #expect(try loaded.decode([FileTripwire].self, forKey: "big").count == 100)
        #expect(FileTripwire.decoded >= 100)
    }

    @Test func replacingAKeyOfALoadedFileKeepsTheOthers() throws {
        let url = try temporaryURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let team = FileTeam()
        team.title = "Core"
        let ann = FileUser()
        ann.name = "Ann"
        ann.team = team
        team.members = [ann]
        defer { team.members = [] }
        var file = ArchiveFile()
        try file.set(team, forKey: "team")
        try file.set(ann, forKey: "user")
        try file.set(FileSettings(), forKey: "settings")
        try file.write(to: url)

        var loaded = try ArchiveFile(contentsOf: url)
        try loaded.set(FileSettings(theme: "dark", fontSize: 20), forKey: "settings")
        try loaded.set("new", forKey: "note")
        #expect(loaded.keys == ["team", "user", "settings", "note"])
        try loaded.write(to: url)

        let again = try ArchiveFile(contentsOf: url)
        #expect(Set(again.keys) == ["team", "user", "settings", "note"])
        #expect(try again.decode(FileSettings.self, forKey: "settings") == FileSettings(theme: "dark", fontSize: 20))
        #expect(try again.decode(String.self, forKey: "note") == "new")
        // The kept keys were copied with their objects: still one shared graph.
        let backTeam = try again.decode(FileTeam.self, forKey: "team")
        let backUser = try again.decode(FileUser.self, forKey: "user")
        defer { backTeam.members = [] }
        #expect(backTeam.title == "Core" && backUser.name == "Ann")
        #expect(backUser.team === backTeam && backTeam.members.first === backUser)
    }

    @Test func aValueThatCannotBeArchivedLeavesTheFileUnchanged() throws {
        struct NotArchivable { var x = 1 }
        var file = ArchiveFile()
        try file.set(1, forKey: "a")
        let error = try #require(throws: ArchiveError.self) { try file.set(NotArchivable(), forKey: "b") }
        #expect(error.code == .notArchivable)
        #expect(file.keys == ["a"])
        #expect(try file.decode(Int.self, forKey: "a") == 1)
    }

    @Test func unknownKeysAndMissingFilesAreErrors() throws {
        let url = try temporaryURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let missing = try #require(throws: ArchiveError.self) { try ArchiveFile(contentsOf: url) }
        #expect(missing.code == .io)
        var file = ArchiveFile()
        try file.set(1, forKey: "a")
        try file.write(to: url)
        let loaded = try ArchiveFile(contentsOf: url)
        let unknown = try #require(throws: ArchiveError.self) { try loaded.decode(Int.self, forKey: "b") }
        #expect(unknown.code == .keyNotFound)
        try Data("not an archive".utf8).write(to: url)
        let corrupt = try #require(throws: ArchiveError.self) { try ArchiveFile(contentsOf: url) }
        #expect(corrupt.code == .notPropertyList)
    }

    @Test func aFailedWriteLeavesThePreviousFileIntact() throws {
        let url = try temporaryURL()
        let directory = url.deletingLastPathComponent()
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            try? FileManager.default.removeItem(at: directory)
        }
        var file = ArchiveFile()
        try file.set("first", forKey: "a")
        try file.write(to: url)
        // A write into a missing directory fails; the earlier file is untouched.
        let elsewhere = directory.appending(path: "missing/state.archive")
        let error = try #require(throws: ArchiveError.self) { try file.write(to: elsewhere) }
        #expect(error.code == .io)
        try file.set("second", forKey: "a")
        try file.write(to: url)
        #expect(try ArchiveFile(contentsOf: url).decode(String.self, forKey: "a") == "second")
        // Atomic replacement: no temporary files are left beside it.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names == ["state.archive"])
    }
}
