import Foundation

// The keyed workload as `Codable` types, for JSONEncoder/JSONDecoder and the binary
// PropertyListEncoder/PropertyListDecoder. Codable has no identity: a shared team is written
// once per user and decodes as one instance per user.

struct CodableAddress: Codable, Sendable {
    var street: String
    var city: String
    var zip: String
}

final class CodableTeam: Codable, Sendable {
    let name: String
    let id: Int

    init(name: String, id: Int) {
        self.name = name
        self.id = id
    }
}

struct CodableUser: Codable, Sendable {
    var id: Int
    var name: String
    var email: String
    var age: Int
    var score: Double
    var isActive: Bool
    var createdAt: Date
    var tags: [String]
    var address: CodableAddress
    var counts: [String: Int]
    /// Nil in the plain variant (and then not written).
    var team: CodableTeam?

    init(_ user: BenchUser, team: CodableTeam?) {
        id = user.id
        name = user.name
        email = user.email
        age = user.age
        score = user.score
        isActive = user.isActive
        createdAt = user.createdAt
        tags = user.tags
        address = CodableAddress(street: user.address.street, city: user.address.city, zip: user.address.zip)
        counts = user.counts
        self.team = team
    }

    var record: BenchUser {
        BenchUser(
            id: id, name: name, email: email, age: age, score: score, isActive: isActive, createdAt: createdAt, tags: tags,
            address: BenchAddress(street: address.street, city: address.city, zip: address.zip), counts: counts)
    }

    static func graph(_ dataset: KeyedDataset, teams withTeams: Bool) -> [CodableUser] {
        let teams = dataset.teams.map { CodableTeam(name: $0.name, id: $0.id) }
        return zip(dataset.users, dataset.teamIndex).map { CodableUser($0, team: withTeams ? teams[$1] : nil) }
    }
}
