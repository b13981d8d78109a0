import ArchiveFileSystem
import ArchiveStore
import Foundation
import KeyedArchive

// The `upgrade` mode: a later build of an app rewriting its stored notes at the current version.

/// A note as the later build knows it: `words` was an `Int` at version 0 and is a `String` now.
/// (StoreUpgradeTests writes version 0 and reads both.)
struct StoredNote: Archivable {
    var title = ""
    var words = ""
    var tags: [String] = []
    static var archiveClassName: String? { "Upgrade.Note" }
    static var archiveVersion: Int { 1 }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        try object.set(String(try object.decode(Int.self, forKey: "words")), forKey: "words")
    }
}

/// `upgrade <directory>`: prints "start", runs `upgradeAll` on the notes (and the namespaces
/// under them), then prints "upgraded <count> in <microseconds>".
func runUpgrade(directory: String) throws -> Never {
    let store = try ArchiveStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
    _ = store.keys  // reads the journal: what remains is the upgrade itself
    emit("start")
    let started = ContinuousClock.now
    let count = try store.upgradeAll(StoredNote.self)
    let elapsed = ContinuousClock.now - started
    emit("upgraded \(count) in \(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000)")
    exit(0)
}
