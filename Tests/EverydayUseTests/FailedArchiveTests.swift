import Foundation
import KeyedArchive
import Testing

// Finding 9: a failed archive became an empty file, because `encodedData` turned a failure
// into `Data()`. A failure now throws at the step that failed: `encode(_:forKey:)` throws and
// leaves the keys encoded before it intact, `encodedData` throws rather than returning bytes,
// and `ArchiveFile.write(to:)` throws before it touches an existing file.

/// A value that cannot be archived: reflection could never restore its `let` (finding 3).
private struct Stamp: Archivable {
    let issued = Date(timeIntervalSinceReferenceDate: 0)
    var label = ""
}

private final class Album: Archivable {
    var title = ""
    var photos: [Photo] = []
    required init() {}
}

private final class Photo: Archivable {
    var caption = ""
    var album: Album?
    required init() {}
}

/// A document whose contents can change after it was given to an `ArchiveFile`.
private final class Draft: Archivable {
    var title = ""
    var attachment: Any = 0
    required init() {}
}

@Suite("A failed archive throws and never becomes empty bytes")
struct FailedArchiveTests {
    @Test("a failed encode throws and leaves the earlier keys, which encodedData then decodes")
    func failedEncodeKeepsEarlierKeys() throws {
        let album = Album()
        album.title = "Summer"
        let photo = Photo()
        photo.caption = "beach"
        photo.album = album
        album.photos = [photo]
        defer { album.photos = [] }  // the album and its photo point at each other

        let archiver = KeyedArchiver()
        try archiver.encode(album, forKey: "album")
        try archiver.encode(42, forKey: "count")

        // The failing value shares `photo` with the album and writes a new photo before it fails.
        let fresh = Photo()
        fresh.caption = "never written"
        let failing: [Any] = [photo, fresh, Stamp(label: "x")]
        let error = #expect(throws: ArchiveError.self) {
            try archiver.encode(failing, forKey: "broken")
        }
        #expect(error?.code == .letField)
        #expect(error?.keyPath == "broken[2].issued")

        try archiver.encode("after", forKey: "note")
        let data = try archiver.encodedData
        #expect(!data.isEmpty)

        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(unarchiver.allKeys == ["album", "count", "note"])
        #expect(!unarchiver.containsValue(forKey: "broken"))
        let back = try unarchiver.decode(Album.self, forKey: "album")
        defer { back.photos = [] }  // decoded with the same cycle
        #expect(back.title == "Summer")
        #expect(back.photos.map(\.caption) == ["beach"])
        #expect(back.photos.first?.album === back)
        #expect(try unarchiver.decode(Int.self, forKey: "count") == 42)
        #expect(try unarchiver.decode(String.self, forKey: "note") == "after")
    }

    @Test("encodedData after a failed first encode is an archive with no keys, not empty bytes")
    func encodedDataAfterOnlyFailureIsEmptyArchive() throws {
        let archiver = KeyedArchiver()
        let error = #expect(throws: ArchiveError.self) {
            try archiver.encode(Stamp(label: "x"), forKey: "root")
        }
        #expect(error?.code == .letField)
        #expect(error?.keyPath == "root.issued")
        let data = try archiver.encodedData
        #expect(!data.isEmpty)
        #expect(try KeyedUnarchiver(forReadingFrom: data).allKeys.isEmpty)
    }

    @Test("A value that fails in ArchiveFile.set changes nothing: the file writes the same bytes as before")
    func failedSetLeavesTheFileUnchanged() throws {
        let folder = try TemporaryDirectory("failed-write")
        let url = folder.file("document.archive")

        let draft = Draft()
        draft.title = "Plan"
        draft.attachment = "notes"
        var file = ArchiveFile()
        try file.set(draft, forKey: "draft")
        try file.set(7, forKey: "revision")
        try file.write(to: url)
        let good = try Data(contentsOf: url)

        // Changing the draft after it was set does not reach the file; setting it again with a
        // value that cannot be archived throws and leaves the file as it was.
        draft.attachment = Stamp(label: "late")
        try file.write(to: url)
        #expect(try Data(contentsOf: url) == good)
        let error = #expect(throws: ArchiveError.self) {
            try file.set(draft, forKey: "draft")
        }
        #expect(error?.code == .letField)
        #expect(error?.keyPath == "draft.attachment.issued")
        #expect(file.keys == ["draft", "revision"])
        try file.write(to: url)

        #expect(try Data(contentsOf: url) == good)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["document.archive"])
        let reopened = try ArchiveFile(contentsOf: url)
        #expect(reopened.keys == ["draft", "revision"])
        let back = try reopened.decode(Draft.self, forKey: "draft")
        #expect(back.title == "Plan")
        #expect(back.attachment as? String == "notes")
        #expect(try reopened.decode(Int.self, forKey: "revision") == 7)
    }

    @Test("A reopened file whose new key fails to archive is written back byte for byte")
    func failedSetOfReopenedFileLeavesItUnchanged() throws {
        let folder = try TemporaryDirectory("failed-rewrite")
        let url = folder.file("library.archive")
        var original = ArchiveFile()
        try original.set(["a", "b"], forKey: "names")
        try original.write(to: url)
        let good = try Data(contentsOf: url)

        var file = try ArchiveFile(contentsOf: url)
        let draft = Draft()
        draft.attachment = [Stamp(label: "late")] as [Any]
        let error = #expect(throws: ArchiveError.self) {
            try file.set(draft, forKey: "draft")
        }
        #expect(error?.code == .letField)
        #expect(error?.keyPath == "draft.attachment[0].issued")
        #expect(file.keys == ["names"])
        try file.write(to: url)
        #expect(try Data(contentsOf: url) == good)
        #expect(try ArchiveFile(contentsOf: url).decode([String].self, forKey: "names") == ["a", "b"])
    }
}
