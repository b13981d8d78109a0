import Foundation

// The keyed workload as Foundation `NSCoding` classes, written by hand the way an app would:
// scalars with `encode(_:forKey:)` (stored inline), strings, dates, arrays and dictionaries as
// bridged objects. Archived under the same class names as our models, so sizes compare fairly.

final class FoundationAddress: NSObject, NSCoding {
    let street: String
    let city: String
    let zip: String

    init(_ address: BenchAddress) {
        street = address.street
        city = address.city
        zip = address.zip
    }

    func encode(with coder: NSCoder) {
        coder.encode(street, forKey: "street")
        coder.encode(city, forKey: "city")
        coder.encode(zip, forKey: "zip")
    }

    init?(coder: NSCoder) {
        guard let street = coder.decodeObject(forKey: "street") as? String,
            let city = coder.decodeObject(forKey: "city") as? String,
            let zip = coder.decodeObject(forKey: "zip") as? String
        else { return nil }
        self.street = street
        self.city = city
        self.zip = zip
    }

    var record: BenchAddress { BenchAddress(street: street, city: city, zip: zip) }
}

final class FoundationTeam: NSObject, NSCoding {
    let name: String
    let id: Int

    init(name: String, id: Int) {
        self.name = name
        self.id = id
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(id, forKey: "id")
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(forKey: "name") as? String else { return nil }
        self.name = name
        id = coder.decodeInteger(forKey: "id")
    }
}

/// A user of either variant: the team is written only when there is one.
final class FoundationUser: NSObject, NSCoding {
    let id: Int
    let name: String
    let email: String
    let age: Int
    let score: Double
    let isActive: Bool
    let createdAt: Date
    let tags: [String]
    let address: FoundationAddress
    let counts: [String: Int]
    let team: FoundationTeam?

    init(_ user: BenchUser, team: FoundationTeam?) {
        id = user.id
        name = user.name
        email = user.email
        age = user.age
        score = user.score
        isActive = user.isActive
        createdAt = user.createdAt
        tags = user.tags
        address = FoundationAddress(user.address)
        counts = user.counts
        self.team = team
    }

    func encode(with coder: NSCoder) {
        coder.encode(id, forKey: "id")
        coder.encode(name, forKey: "name")
        coder.encode(email, forKey: "email")
        coder.encode(age, forKey: "age")
        coder.encode(score, forKey: "score")
        coder.encode(isActive, forKey: "isActive")
        coder.encode(createdAt, forKey: "createdAt")
        coder.encode(tags, forKey: "tags")
        coder.encode(address, forKey: "address")
        coder.encode(counts, forKey: "counts")
        if let team { coder.encode(team, forKey: "team") }
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(forKey: "name") as? String,
            let email = coder.decodeObject(forKey: "email") as? String,
            let createdAt = coder.decodeObject(forKey: "createdAt") as? Date,
            let tags = coder.decodeObject(forKey: "tags") as? [String],
            let address = coder.decodeObject(forKey: "address") as? FoundationAddress,
            let counts = coder.decodeObject(forKey: "counts") as? [String: Int]
        else { return nil }
        id = coder.decodeInteger(forKey: "id")
        self.name = name
        self.email = email
        age = coder.decodeInteger(forKey: "age")
        score = coder.decodeDouble(forKey: "score")
        isActive = coder.decodeBool(forKey: "isActive")
        self.createdAt = createdAt
        self.tags = tags
        self.address = address
        self.counts = counts
        // Absent in the plain variant; asking for a missing key sets the coder's error.
        team = coder.containsValue(forKey: "team") ? coder.decodeObject(forKey: "team") as? FoundationTeam : nil
    }

    var record: BenchUser {
        BenchUser(
            id: id, name: name, email: email, age: age, score: score, isActive: isActive, createdAt: createdAt, tags: tags,
            address: address.record, counts: counts)
    }
}

/// NSKeyedArchiver and NSKeyedUnarchiver set up for the twins.
///
/// The twins are archived under Foundation's own class names (`KeyedArchiveBenchmarks.FoundationUser`…):
/// `NSKeyedArchiver.setClassName(_:for:)` has no effect in swift-corelibs-foundation (the setter
/// keys its map by `String(describing: type(of: cls))`, the lookup by `String(reflecting: cls)`).
/// The names cost Foundation about a hundred bytes per archive more than ours.
enum FoundationArchiving {
    /// Our class names, read as the twins (for NSKeyedUnarchiver reading our archives).
    static var ourClassNames: [(name: String, type: AnyClass)] {
        [("BenchUser", FoundationUser.self), ("BenchAddress", FoundationAddress.self), ("BenchTeam", FoundationTeam.self)]
    }

    /// Foundation's class names for the twins, read as our models (for our reader reading Foundation's archives).
    static var foundationClassNames: [(name: String, type: Any.Type)] {
        [
            (NSStringFromClass(FoundationUser.self), BenchUser.self), (NSStringFromClass(FoundationAddress.self), BenchAddress.self),
            (NSStringFromClass(FoundationTeam.self), BenchTeam.self),
        ]
    }

    /// The twin graph of `dataset`: a root array of users; in the shared variant, 10 shared teams.
    static func graph(_ dataset: KeyedDataset, range: Range<Int>? = nil, teams withTeams: Bool) -> NSArray {
        let teams = dataset.teams.map { FoundationTeam(name: $0.name, id: $0.id) }
        let range = range ?? dataset.users.indices
        let users = range.map { i in FoundationUser(dataset.users[i], team: withTeams ? teams[dataset.teamIndex[i]] : nil) }
        return NSArray(array: users)
    }

    static func archive(_ root: NSArray) throws -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(root, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        if let error = archiver.error { throw error }
        return archiver.encodedData
    }

    static func unarchive(_ data: Data) throws -> [FoundationUser] {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        for entry in ourClassNames { unarchiver.setClass(entry.type, forClassName: entry.name) }
        let root = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
        if let error = unarchiver.error { throw error }
        unarchiver.finishDecoding()
        guard let users = root as? [FoundationUser] else {
            throw BenchmarkFailure("NSKeyedUnarchiver returned \(root.map { "\(type(of: $0))" } ?? "nil"), not an array of users")
        }
        return users
    }
}
