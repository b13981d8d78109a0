import Foundation
import KeyedArchive
import Testing

final class SnapshotProfile: Archivable {
    var name = ""
    var friends: [SnapshotProfile] = []
    required init() {}
    static var archiveClassName: String? { "Everyday.SnapshotProfile" }
}

@Suite("ArchiveFile archives what it is given when it is given")
struct ArchiveFileSnapshotTests {
    @Test("A class instance changed after set(_:forKey:) is written as it was when set")
    func laterChangesDoNotLeakIntoTheFile() throws {
        let folder = try TemporaryDirectory()
        let profile = SnapshotProfile()
        profile.name = "Ann"
        var file = ArchiveFile()
        try file.set(profile, forKey: "profile")
        profile.name = "Changed after set"
        #expect(try file.decode(SnapshotProfile.self, forKey: "profile").name == "Ann")
        try file.write(to: folder.file("state.archive"))
        let loaded = try ArchiveFile(contentsOf: folder.file("state.archive"))
        #expect(try loaded.decode(SnapshotProfile.self, forKey: "profile").name == "Ann")
    }

    @Test("Setting a key again replaces it; keys set before and after a decode are all kept")
    func setAgainAndDecodeBetweenSets() throws {
        var file = ArchiveFile()
        try file.set("first", forKey: "a")
        try file.set(1, forKey: "b")
        #expect(try file.decode(String.self, forKey: "a") == "first")
        try file.set("second", forKey: "a")
        try file.set([1.5, 2.5], forKey: "c")
        #expect(file.keys == ["a", "b", "c"])
        #expect(try file.decode(String.self, forKey: "a") == "second")
        #expect(try file.decode(Int.self, forKey: "b") == 1)
        #expect(try file.decode([Double].self, forKey: "c") == [1.5, 2.5])
        let back = try KeyedUnarchiver(forReadingFrom: try file.encoded())
        #expect(back.allKeys == ["a", "b", "c"])
        #expect(try back.decode(String.self, forKey: "a") == "second")
    }

    @Test("A copy of a file is a separate value: setting a key of one leaves the other as it was")
    func copiesAreIndependent() throws {
        var original = ArchiveFile()
        try original.set("kept", forKey: "a")
        var copy = original
        try copy.set("only in the copy", forKey: "b")
        try copy.set("changed in the copy", forKey: "a")
        #expect(original.keys == ["a"])
        #expect(try original.decode(String.self, forKey: "a") == "kept")
        #expect(copy.keys == ["a", "b"])
        #expect(try copy.decode(String.self, forKey: "a") == "changed in the copy")
        try original.set("original's own", forKey: "c")
        #expect(original.keys == ["a", "c"])
        #expect(!copy.keys.contains("c"))
    }

    @Test("Instances shared between keys set one after another are one object in the file")
    func sharedInstancesStayShared() throws {
        let ann = SnapshotProfile()
        ann.name = "Ann"
        let bob = SnapshotProfile()
        bob.name = "Bob"
        bob.friends = [ann]
        var file = ArchiveFile()
        try file.set(ann, forKey: "ann")
        try file.set(bob, forKey: "bob")
        let back = try KeyedUnarchiver(forReadingFrom: try file.encoded())
        let backAnn = try back.decode(SnapshotProfile.self, forKey: "ann")
        let backBob = try back.decode(SnapshotProfile.self, forKey: "bob")
        #expect(backBob.friends.first === backAnn)
    }
}

@Suite("ArchiveFile writes as durably as the store saves")
struct ArchiveFileWriteTests {
    @Test("A write that cannot complete throws .io naming the path and leaves what was there, with no temporary file")
    func failedWriteKeepsWhatWasThere() throws {
        let folder = try TemporaryDirectory()
        // The target is a directory that is not empty: the rename over it fails.
        let target = folder.file("state.archive")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: target.appending(path: "inner"))
        var file = ArchiveFile()
        try file.set("value", forKey: "key")
        let error = try #require(throws: ArchiveError.self) { try file.write(to: target) }
        #expect(error.code == .io)
        #expect(error.reason.contains(target.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["state.archive"])
        #expect(try Data(contentsOf: target.appending(path: "inner")) == Data("keep".utf8))

        let missing = folder.file("no-such-folder/state.archive")
        let missingError = try #require(throws: ArchiveError.self) { try file.write(to: missing) }
        #expect(missingError.code == .io)
        #expect(missingError.reason.contains("no-such-folder"))
    }

    @Test("A write replaces the file whole and leaves nothing else in its folder")
    func writeReplacesTheFile() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("state.archive")
        var first = ArchiveFile()
        try first.set(1, forKey: "version")
        try first.write(to: url)
        var second = ArchiveFile()
        try second.set(2, forKey: "version")
        try second.set("note", forKey: "note")
        try second.write(to: url)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["state.archive"])
        #expect(try Data(contentsOf: url) == (try second.encoded()))
        let loaded = try ArchiveFile(contentsOf: url)
        #expect(loaded.keys == ["version", "note"])
        #expect(try loaded.decode(Int.self, forKey: "version") == 2)
    }
}
