import Foundation
import KeyedArchive

// Version 0 of the kennel models (today's is Tests/KeyedArchiveTests/Models/KennelModels.swift),
// and the archives it writes: Scripts/make-version-fixtures.sh runs it.

enum KennelRole: String {
    case handler, trainer
}

struct KennelAddress: Archivable {
    var line = ""
    static var archiveClassName: String? { "Kennel.Address" }
}

class KennelMember: Archivable {
    var fullName = ""
    var age = 0
    var nickname = ""
    var role = KennelRole.handler
    var address = KennelAddress()
    weak var team: KennelTeam?
    required init() {}
    class var archiveClassName: String? { "Kennel.Member" }
}

final class KennelCaptain: KennelMember {
    var stripes = 0
    override class var archiveClassName: String? { "Kennel.Captain" }
}

final class KennelTeam: Archivable {
    var title = ""
    var members: [KennelMember] = []
    required init() {}
    static var archiveClassName: String? { "Kennel.Squad" }
}

func member(_ member: KennelMember, _ name: String, _ age: Int, _ nickname: String, _ role: KennelRole, _ line: String) -> KennelMember {
    member.fullName = name
    member.age = age
    member.nickname = nickname
    member.role = role
    member.address = KennelAddress(line: line)
    return member
}

func members() -> [KennelMember] {
    let rex = KennelCaptain()
    rex.stripes = 3
    return [
        member(KennelMember(), "Ada Barker", 34, "Ace", .handler, "1 Bone Road, Dogtown"),
        member(rex, "Rex Howl", 51, "Chief", .trainer, "2 Leash Lane, Barkley"),
        member(KennelMember(), "Bea Woof", 27, "", .handler, "3 Paw Place, Dogtown"),
    ]
}

let team = KennelTeam()
team.title = "Night Shift"
team.members = members()
for member in team.members { member.team = team }

let output = URL(fileURLWithPath: CommandLine.arguments[1])
try KeyedArchiver.archivedData(withRootObject: team).write(to: output.appending(path: "v0-team.archive"))
try KeyedArchiver.archivedData(withRootObject: members()).write(to: output.appending(path: "v0-members.archive"))
