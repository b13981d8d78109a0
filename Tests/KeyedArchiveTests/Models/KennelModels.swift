import Foundation
import KeyedArchive

// Version 2 (today's) of a small model family whose versions 0 and 1 live in
// Scripts/VersionFixtures/v0 and v1. Scripts/make-version-fixtures.sh compiles each version as a
// program of its own (this file is version 2's) and commits what each wrote under
// Fixtures/versions/; KennelVersionTests decode every one of them as this version.
//
// What changed from version 0:
// - KennelMember: `fullName` renamed `name` (version 1, an alias); `nickname` removed (version 1);
//   `age` an Int until version 1, a String since version 2; `email` added in version 2.
// - KennelAddress: `line` ("1 Bone Road, Dogtown") split into `street` and `city` (version 1).
// - KennelTeam: archived as `Kennel.Squad` until version 1, as `Kennel.Team` since version 2.
// - KennelRole gained `vet` in version 1.

enum KennelRole: String {
    case handler, trainer, vet
}

struct KennelAddress: Archivable, Equatable {
    var street = ""
    var city = ""
    static var archiveClassName: String? { "Kennel.Address" }
    static var archiveVersion: Int { 1 }
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        guard version == 0 else { return }
        let line = try object.decode(String.self, forKey: "line")
        let parts = line.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        try object.set(parts.first ?? "", forKey: "street")
        try object.set(parts.count > 1 ? parts[1] : "", forKey: "city")
        object.removeField("line")
    }
}

class KennelMember: Archivable {
    var name = ""
    var age = ""
    var role = KennelRole.handler
    var address = KennelAddress()
    var email = "unknown@kennel.example"
    weak var team: KennelTeam?
    required init() {}

    class var archiveClassName: String? { "Kennel.Member" }
    class var archiveVersion: Int { 2 }
    class var archiveKeyAliases: [String: [String]] { ["name": ["fullName"]] }
    class func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        switch version {
        case 0: object.removeField("nickname")
        case 1: try object.set(String(try object.decode(Int.self, forKey: "age")), forKey: "age")
        default: break
        }
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
    static var archiveClassName: String? { "Kennel.Team" }
    static var archiveLegacyClassNames: [String] { ["Kennel.Squad"] }
}

/// The data every version's program archives, as version 2 builds it.
enum KennelSample {
    static func members() -> [KennelMember] {
        let ada = KennelMember()
        ada.name = "Ada Barker"
        ada.age = "34"
        ada.address = KennelAddress(street: "1 Bone Road", city: "Dogtown")
        ada.email = "ada@kennel.example"
        let rex = KennelCaptain()
        rex.name = "Rex Howl"
        rex.age = "51"
        rex.role = .trainer
        rex.stripes = 3
        rex.address = KennelAddress(street: "2 Leash Lane", city: "Barkley")
        rex.email = "rex@kennel.example"
        let bea = KennelMember()
        bea.name = "Bea Woof"
        bea.age = "27"
        bea.role = .vet
        bea.address = KennelAddress(street: "3 Paw Place", city: "Dogtown")
        return [ada, rex, bea]
    }

    /// A team whose members point back at it (a cycle through weak references).
    static func team() -> KennelTeam {
        let team = KennelTeam()
        team.title = "Night Shift"
        team.members = members()
        for member in team.members { member.team = team }
        return team
    }
}
