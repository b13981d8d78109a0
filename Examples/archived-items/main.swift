// Archived items by key (save, get, remove), and several objects in one archive file that keep
// the instances they share.
import ArchiveStore
import Foundation
import KeyedArchive

final class Team: Archivable {
    var name = ""
    var members: [Member] = []
    required init() {}
    static var archiveClassName: String? { "Examples.Team" }
}

final class Member: Archivable {
    var name = ""
    weak var team: Team?
    required init() {}
    static var archiveClassName: String? { "Examples.Member" }
}

struct Draft: Archivable, Equatable {
    var title = ""
    var body = ""
    var edited = Date(timeIntervalSinceReferenceDate: 0)
}

let store = try ArchiveStore.dataStore(named: "KeyedArchiveExamples-ArchivedItems")

// Items by key.
let draft = Draft(title: "Trip", body: "Pack the tent", edited: Date(timeIntervalSinceReferenceDate: 800_000_000))
try store.save(draft, forKey: "draft-1")
try store.save(["milk", "eggs"], forKey: "shopping")
print("saved keys: \(store.keys)")
guard try store.load(Draft.self, forKey: "draft-1") == draft else { fatalError("the draft did not come back") }
print("draft-1 is back: \(draft.title), edited \(draft.edited)")
try store.remove(forKey: "shopping")
print("removed shopping; contains it: \(store.contains("shopping")); keys: \(store.keys)")

// Several objects in one file: the member's team is the same instance as the file's team.
let team = Team()
team.name = "Core"
for name in ["Ann", "Bob"] {
    let member = Member()
    member.name = name
    member.team = team
    team.members.append(member)
}
var file = ArchiveFile()
try file.set(team, forKey: "team")
try file.set(team.members[0], forKey: "captain")
try file.set(draft, forKey: "draft")
let url = store.directory.appending(path: "workspace.archive")
try file.write(to: url)
print("wrote \(file.keys) to \(url.lastPathComponent)")

let loaded = try ArchiveFile(contentsOf: url)
let captain = try loaded.decode(Member.self, forKey: "captain")
let loadedTeam = try loaded.decode(Team.self, forKey: "team")
guard captain.team === loadedTeam, loadedTeam.members.first === captain else { fatalError("shared instances were not kept") }
print("read back: captain \(captain.name) of \(loadedTeam.name), \(loadedTeam.members.count) members, one team instance")

try FileManager.default.removeItem(at: url)
try store.removeAll()
// The store's own folder goes too, with the .journal, .lock and .configuration it keeps there.
try FileManager.default.removeItem(at: store.directory)
print("removed the example's data")
