import Foundation
import KeyedArchive

// Version 1 of the kennel models (today's is Tests/KeyedArchiveTests/Models/KennelModels.swift),
// and the archives it writes: Scripts/make-version-fixtures.sh runs it.

enum KennelRole: String {
    case handler, trainer, vet
}

struct KennelAddress: Archivable {
    var street = ""
    var city = ""
    static var archiveClassName: String? { "Kennel.Address" }
    static var archiveVersion: Int { 1 }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        let parts = try object.decode(String.self, forKey: "line").split(separator: ",", maxSplits: 1)
        try object.set(String(parts.first ?? ""), forKey: "street")
        try object.set(parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "", forKey: "city")
        object.removeField("line")
    }
}

class KennelMember: Archivable {
    var name = ""
    var age = 0
    var role = KennelRole.handler
    var address = KennelAddress()
    weak var team: KennelTeam?
    required init() {}
    class var archiveClassName: String? { "Kennel.Member" }
    class var archiveVersion: Int { 1 }
    class var archiveKeyAliases: [String: [String]] { ["name": ["fullName"]] }
    class func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        object.removeField("nickname")
    }
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

func member(_ member: KennelMember, _ name: String, _ age: Int, _ role: KennelRole, _ street: String, _ city: String) -> KennelMember {
    member.name = name
    member.age = age
    member.role = role
    member.address = KennelAddress(street: street, city: city)
    return member
}

func members() -> [KennelMember] {
    let rex = KennelCaptain()
    rex.stripes = 3
    return [
        member(KennelMember(), "Ada Barker", 34, .handler, "1 Bone Road", "Dogtown"),
        member(rex, "Rex Howl", 51, .trainer, "2 Leash Lane", "Barkley"),
        member(KennelMember(), "Bea Woof", 27, .vet, "3 Paw Place", "Dogtown"),
    ]
}

let team = KennelTeam()
team.title = "Night Shift"
team.members = members()
for member in team.members { member.team = team }

let output = URL(fileURLWithPath: CommandLine.arguments[1])
try KeyedArchiver.archivedData(withRootObject: team).write(to: output.appending(path: "v1-team.archive"))
try KeyedArchiver.archivedData(withRootObject: members()).write(to: output.appending(path: "v1-members.archive"))
