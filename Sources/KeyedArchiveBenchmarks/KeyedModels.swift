import Foundation
import KeyedArchive

// The keyed-archive workload of issue 5, as this library's models (`Archivable`, coded by
// reflection), and the fixed data set every contender archives.
//
// Each user: id, name, email, age, score, isActive, createdAt, tags (3 strings), address
// (street, city, zip) and counts (3 entries). In the shared variant every user also points at
// one of 10 `BenchTeam` instances, whose identity must survive a round trip.

/// A user's postal address: a nested struct, archived as an object of its own.
struct BenchAddress: Archivable, Equatable, Sendable {
    var street = ""
    var city = ""
    var zip = ""

    static var archiveClassName: String? { "BenchAddress" }
}

/// A user of the plain variant: a struct.
struct BenchUser: Archivable, Equatable, Sendable {
    var id = 0
    var name = ""
    var email = ""
    var age = 0
    var score = 0.0
    var isActive = false
    var createdAt = Date(timeIntervalSinceReferenceDate: 0)
    var tags: [String] = []
    var address = BenchAddress()
    var counts: [String: Int] = [:]

    static var archiveClassName: String? { "BenchUser" }
}

/// One of the 10 teams shared by the users of the shared variant.
final class BenchTeam: Archivable {
    var name = ""
    var id = 0

    init() {}

    init(name: String, id: Int) {
        self.name = name
        self.id = id
    }

    static var archiveClassName: String? { "BenchTeam" }
}

/// A user of the shared variant: a class (so users have identity too) pointing at a shared team.
final class BenchTeamUser: Archivable {
    var id = 0
    var name = ""
    var email = ""
    var age = 0
    var score = 0.0
    var isActive = false
    var createdAt = Date(timeIntervalSinceReferenceDate: 0)
    var tags: [String] = []
    var address = BenchAddress()
    var counts: [String: Int] = [:]
    var team: BenchTeam?

    init() {}

    init(_ user: BenchUser, team: BenchTeam) {
        id = user.id
        name = user.name
        email = user.email
        age = user.age
        score = user.score
        isActive = user.isActive
        createdAt = user.createdAt
        tags = user.tags
        address = user.address
        counts = user.counts
        self.team = team
    }

    /// The plain fields, for comparing against the data set.
    var record: BenchUser {
        BenchUser(
            id: id, name: name, email: email, age: age, score: score, isActive: isActive, createdAt: createdAt, tags: tags,
            address: address, counts: counts)
    }

    static var archiveClassName: String? { "BenchUser" }
}

// MARK: - The data set

/// N users built from a fixed seed; the first 1,000 users of the 10,000 are the 1,000 users.
struct KeyedDataset: Sendable {
    static let teamCount = 10
    /// Archived values per user, for per-field figures: 10 user fields, 3 address fields,
    /// 3 tags and 3 counts entries (a team reference adds one in the shared variant).
    static let fieldsPerUser = 19

    let users: [BenchUser]
    /// The index (0..<10) of each user's team in the shared variant.
    let teamIndex: [Int]
    /// Name and id of each of the 10 teams.
    let teams: [(name: String, id: Int)]

    static let firstNames = [
        "Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret", "Ken", "Dennis", "Radia",
        "Leslie", "Niklaus", "Shafi", "Tony", "Sophie", "Karen", "Jean", "Butler", "Whitfield", "Adele", "Robin", "Mary",
    ]
    static let lastNames = [
        "Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "McCarthy", "Hamilton", "Thompson", "Ritchie",
        "Perlman", "Lamport", "Wirth", "Goldwasser", "Hoare", "Wilson", "Jones", "Sammet", "Lampson", "Diffie", "Goldberg",
        "Milner", "Shaw", "Backus", "Kay", "Engelbart", "Kahan", "Cerf", "Kahn", "Rivest", "Shamir",
    ]
    static let cities = [
        "Springfield", "Riverton", "Lakeside", "Fairview", "Georgetown", "Franklin", "Greenville", "Bristol", "Clinton", "Salem",
        "Madison", "Ashland", "Burlington", "Dover", "Kingston", "Oxford", "Arlington", "Milton", "Newport", "Winchester",
    ]
    static let streetKinds = ["Street", "Avenue", "Road", "Lane", "Way", "Court"]
    static let countKeys = ["posts", "followers", "following"]

    static func make(count: Int) -> KeyedDataset {
        var generator = SeededGenerator(seed: 0x5EED_0005)
        func pick<T>(_ list: [T]) -> T { list[Int(generator.next() % UInt64(list.count))] }
        func number(_ range: Range<Int>) -> Int { range.lowerBound + Int(generator.next() % UInt64(range.count)) }
        let teams = (0..<teamCount).map { k in (name: "Team \(k + 1) \(Text.words[(k * 7) % Text.words.count])", id: 9_000 + k) }
        var users: [BenchUser] = []
        var teamIndex: [Int] = []
        users.reserveCapacity(count)
        teamIndex.reserveCapacity(count)
        for i in 0..<count {
            let first = pick(firstNames)
            let last = pick(lastNames)
            var tags: [String] = []
            while tags.count < 3 {
                let tag = pick(Text.words)
                if !tags.contains(tag) { tags.append(tag) }
            }
            let street = "\(number(1..<9_999)) \(pick(Text.words).capitalized) \(pick(streetKinds))"
            let zip = String(number(10_000..<99_999))
            users.append(
                BenchUser(
                    id: 100_000 + i,
                    name: "\(first) \(last)",
                    email: "\(first.lowercased()).\(last.lowercased()).\(i)@example.com",
                    age: number(18..<90),
                    // Hundredths: exact in every contender's format, JSON text included.
                    score: Double(number(0..<1_000_000)) / 100,
                    isActive: number(0..<10) < 7,
                    createdAt: Date(timeIntervalSinceReferenceDate: 600_000_000 + Double(i) * 3_600 + Double(number(0..<14_400)) / 4),
                    tags: tags,
                    address: BenchAddress(street: street, city: pick(cities), zip: zip),
                    counts: Dictionary(uniqueKeysWithValues: countKeys.map { ($0, number(0..<100_000)) })))
            teamIndex.append(number(0..<teamCount))
        }
        return KeyedDataset(users: users, teamIndex: teamIndex, teams: teams)
    }

    /// The shared variant as our models: 10 team instances, each user pointing at one.
    func teamUsers() -> (users: [BenchTeamUser], teams: [BenchTeam]) {
        let instances = teams.map { BenchTeam(name: $0.name, id: $0.id) }
        return (zip(users, teamIndex).map { BenchTeamUser($0, team: instances[$1]) }, instances)
    }
}

// MARK: - Checks

/// Field-by-field comparison of decoded users against the data set, naming the first difference.
enum GraphCheck {
    static func expectEqual(_ decoded: [BenchUser], _ expected: [BenchUser], _ who: String) throws {
        guard decoded.count == expected.count else {
            throw BenchmarkFailure("\(who) decoded \(decoded.count) users, expected \(expected.count)")
        }
        for (i, (got, want)) in zip(decoded, expected).enumerated() where got != want {
            throw BenchmarkFailure("\(who): user \(i) differs in \(difference(got, want))")
        }
    }

    /// The first field in which two users differ.
    static func difference(_ a: BenchUser, _ b: BenchUser) -> String {
        func show(_ name: String, _ x: Any, _ y: Any) -> String { "\(name): \(x) ≠ \(y)" }
        if a.id != b.id { return show("id", a.id, b.id) }
        if a.name != b.name { return show("name", a.name, b.name) }
        if a.email != b.email { return show("email", a.email, b.email) }
        if a.age != b.age { return show("age", a.age, b.age) }
        if a.score.bitPattern != b.score.bitPattern { return show("score", a.score, b.score) }
        if a.isActive != b.isActive { return show("isActive", a.isActive, b.isActive) }
        if a.createdAt != b.createdAt {
            return show("createdAt", a.createdAt.timeIntervalSinceReferenceDate, b.createdAt.timeIntervalSinceReferenceDate)
        }
        if a.tags != b.tags { return show("tags", a.tags, b.tags) }
        if a.address.street != b.address.street { return show("address.street", a.address.street, b.address.street) }
        if a.address.city != b.address.city { return show("address.city", a.address.city, b.address.city) }
        if a.address.zip != b.address.zip { return show("address.zip", a.address.zip, b.address.zip) }
        if a.counts != b.counts { return show("counts", a.counts, b.counts) }
        return "nothing (equal)"
    }

    /// Each user's team has the id (and name) of the team the data set gave it; returns how many
    /// distinct team instances the users point at.
    static func expectTeams(
        _ teams: [(id: Int, name: String, identity: ObjectIdentifier)?], _ dataset: KeyedDataset, _ who: String
    ) throws -> Int {
        guard teams.count == dataset.teamIndex.count else {
            throw BenchmarkFailure("\(who) decoded \(teams.count) users, expected \(dataset.teamIndex.count)")
        }
        var identities = Set<ObjectIdentifier>()
        for (i, (team, index)) in zip(teams, dataset.teamIndex).enumerated() {
            guard let team else { throw BenchmarkFailure("\(who): user \(i) has no team") }
            let want = dataset.teams[index]
            guard team.id == want.id, team.name == want.name else {
                throw BenchmarkFailure("\(who): user \(i) has team \(team.id) \"\(team.name)\", expected \(want.id) \"\(want.name)\"")
            }
            identities.insert(team.identity)
        }
        return identities.count
    }
}
