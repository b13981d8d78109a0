// Unsafe code in this file: the `memcpy` floor copies between two buffers it allocates at the archive's size.

import Foundation
import KeyedArchive

// The keyed-archive workloads of issue 5: N users (1,000 and 10,000), plain and with 10 shared
// teams, archived and unarchived by this library, by Foundation's NSKeyedArchiver with
// hand-written NSCoding twins, by PropertyListEncoder (binary) and JSONEncoder with Codable
// twins, and by two floors (a field walk of the graph and a memcpy of our archive's size).

enum KeyedWorkloads {
    /// NSKeyedArchiver on Linux is quadratic; at a large N it is timed only if one round is
    /// predicted to take less than this.
    static let foundationCapSeconds = 30.0
    /// Above this predicted time per round, a Foundation contender is timed in only a few rounds.
    static let foundationSlowSeconds = 1.0
    /// Users per archive tried for NSKeyedArchiver's best case (small archives keep its identity
    /// table, whose hashes collide for every array and dictionary of the same count, small), on
    /// the first `chunkSample` users.
    static let chunkSizes = [1, 2, 5, 10, 20, 50, 100, 200]
    static let chunkSample = 200

    static let encodeGoals = [
        Goal(peerID: "json", minimumRatio: 5), Goal(peerID: "plist", minimumRatio: 8),
        Goal(peerID: "nskeyed-best", minimumRatio: 100),
    ]
    static let decodeGoals = [
        Goal(peerID: "json", minimumRatio: 3), Goal(peerID: "plist", minimumRatio: 5), Goal(peerID: "nskeyed", minimumRatio: 30),
        Goal(peerID: "nskeyed-best", minimumRatio: 30), Goal(peerID: "nskeyed-ours", minimumRatio: 30),
    ]

    /// The four workloads. Without `foundation` (profiling ours with `--only ours-…`), the
    /// Foundation contenders and their probing runs are left out.
    static func all(foundation: Bool) -> [Workload] {
        let variants: [(name: String, count: Int, teams: Bool)] = [
            ("keyed-1k", 1_000, false), ("keyed-10k", 10_000, false), ("keyed-teams-1k", 1_000, true),
            ("keyed-teams-10k", 10_000, true),
        ]
        return variants.map { variant in
            Workload(
                name: variant.name,
                summary: "\(variant.count.formatted()) users"
                    + (variant.teams ? " sharing 10 Team instances" : "")
                    + " (id, name, email, age, score, isActive, createdAt, 3 tags, address, 3 counts)",
                operations: ["encode", "decode"],
                prepare: {
                    try prepare(
                        name: variant.name, dataset: KeyedDataset.make(count: variant.count), teams: variant.teams,
                        foundation: foundation)
                })
        }
    }

    // MARK: Inputs

    /// Everything the contenders of one workload read, built once (peers' inputs on first use).
    final class Inputs {
        let dataset: KeyedDataset
        let withTeams: Bool
        let plainUsers: [BenchUser]
        let teamUsers: [BenchTeamUser]
        /// Our archive: the input of our decoder and the size behind MB/s and the memcpy floor.
        let ours: Data

        init(dataset: KeyedDataset, teams: Bool) throws {
            self.dataset = dataset
            withTeams = teams
            if teams {
                plainUsers = []
                teamUsers = dataset.teamUsers().users
                ours = try KeyedArchiver.archivedData(withRootObject: teamUsers)
            } else {
                plainUsers = dataset.users
                teamUsers = []
                ours = try KeyedArchiver.archivedData(withRootObject: plainUsers)
            }
        }

        func archiveOurs() throws -> Data {
            withTeams
                ? try KeyedArchiver.archivedData(withRootObject: teamUsers) : try KeyedArchiver.archivedData(withRootObject: plainUsers)
        }

        /// Decodes our archive; returns the users and, in the shared variant, their teams.
        /// `classNames` maps other archives' class names to our models.
        func unarchiveOurs(
            _ data: Data, classNames: [(name: String, type: Any.Type)] = []
        ) throws -> (users: [BenchUser], teams: [(id: Int, name: String, identity: ObjectIdentifier)?]) {
            let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
            for entry in classNames {
                // The plain variant's users are structs, the shared variant's a class.
                let type = withTeams && ObjectIdentifier(entry.type) == ObjectIdentifier(BenchUser.self) ? BenchTeamUser.self : entry.type
                unarchiver.setClass(type, forClassName: entry.name)
            }
            if withTeams {
                let users = try unarchiver.decode([BenchTeamUser].self, forKey: "root")
                return (users.map(\.record), users.map { $0.team.map { ($0.id, $0.name, ObjectIdentifier($0)) } })
            }
            return (try unarchiver.decode([BenchUser].self, forKey: "root"), [])
        }

        func decodeOursCount(_ data: Data) throws -> Int {
            withTeams
                ? try KeyedUnarchiver.unarchivedObject(ofType: [BenchTeamUser].self, from: data).count
                : try KeyedUnarchiver.unarchivedObject(ofType: [BenchUser].self, from: data).count
        }

        lazy var codableUsers = CodableUser.graph(dataset, teams: withTeams)
        lazy var plistData: Data = (try? KeyedWorkloads.plistEncoder().encode(codableUsers)) ?? Data()
        lazy var jsonData: Data = (try? JSONEncoder().encode(codableUsers)) ?? Data()
        lazy var foundationRoot = FoundationArchiving.graph(dataset, teams: withTeams)
        lazy var foundationData: Data = (try? FoundationArchiving.archive(foundationRoot)) ?? Data()
        /// Whether two archivings of the twin graph gave the same bytes; set by the verification.
        var foundationDeterministic: Bool?
        lazy var copyBuffers = CopyBuffers(ours)

        /// Checks decoded users (and teams) against the data set; returns the number of distinct teams.
        @discardableResult
        func expect(
            _ users: [BenchUser], teams: [(id: Int, name: String, identity: ObjectIdentifier)?], _ who: String, uniqueTeams: Int? = nil
        ) throws -> Int {
            try GraphCheck.expectEqual(users, dataset.users, who)
            guard withTeams else { return 0 }
            let distinct = try GraphCheck.expectTeams(teams, dataset, who)
            if let uniqueTeams, distinct != uniqueTeams {
                throw BenchmarkFailure("\(who) decoded \(distinct) distinct Team instances, expected \(uniqueTeams)")
            }
            return distinct
        }
    }

    static func plistEncoder() -> PropertyListEncoder {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return encoder
    }

    static func teamsOf(_ users: [CodableUser]) -> [(id: Int, name: String, identity: ObjectIdentifier)?] {
        users.map { $0.team.map { ($0.id, $0.name, ObjectIdentifier($0)) } }
    }

    static func teamsOf(_ users: [FoundationUser]) -> [(id: Int, name: String, identity: ObjectIdentifier)?] {
        users.map { $0.team.map { ($0.id, $0.name, ObjectIdentifier($0)) } }
    }

    // MARK: Comparisons

    static func prepare(name: String, dataset: KeyedDataset, teams: Bool, foundation: Bool) throws -> PreparedWorkload {
        let inputs = try Inputs(dataset: dataset, teams: teams)
        let count = dataset.users.count
        let ourBytes = inputs.ours.count
        let plan = foundation ? FoundationPlan.make(dataset, teams: teams) : nil

        // Encode.
        var encoders: [Contender] = [
            Contender(
                id: "ours", name: "ours (KeyedArchiver)",
                verify: {
                    let first = try inputs.archiveOurs()
                    let second = try inputs.archiveOurs()
                    guard first == second, first == inputs.ours else {
                        throw BenchmarkFailure("KeyedArchiver wrote different bytes for the same graph")
                    }
                    let back = try inputs.unarchiveOurs(first)
                    try inputs.expect(back.users, teams: back.teams, "KeyedArchiver → KeyedUnarchiver", uniqueTeams: 10)
                },
                run: { try inputs.archiveOurs().count }, outputBytes: ourBytes)
        ]
        var encodeSkipped: [SkippedContender] = []
        var decodeSkipped: [SkippedContender] = []
        var decoders: [Contender] = [
            Contender(
                id: "ours", name: "ours (KeyedUnarchiver)",
                verify: {
                    let back = try inputs.unarchiveOurs(inputs.ours)
                    try inputs.expect(back.users, teams: back.teams, "KeyedUnarchiver", uniqueTeams: 10)
                },
                run: { try inputs.decodeOursCount(inputs.ours) }, outputBytes: ourBytes)
        ]

        if let plan {
            let wholeName = "NSKeyedArchiver"
            let wholeDecodeName = "NSKeyedUnarchiver"
            switch plan.whole {
            case .timed(let slow):
                encoders.append(
                    Contender(
                        id: "nskeyed", name: wholeName,
                        verify: {
                            let data = try FoundationArchiving.archive(inputs.foundationRoot)
                            inputs.foundationDeterministic = data == inputs.foundationData
                            let users = try FoundationArchiving.unarchive(data)
                            try inputs.expect(users.map(\.record), teams: teamsOf(users), "NSKeyedArchiver → NSKeyedUnarchiver", uniqueTeams: 10)
                        },
                        run: { try FoundationArchiving.archive(inputs.foundationRoot).count },
                        outputBytes: inputs.foundationData.count, isSlow: slow))
                decoders.append(
                    Contender(
                        id: "nskeyed", name: wholeDecodeName,
                        verify: {
                            let users = try FoundationArchiving.unarchive(inputs.foundationData)
                            try inputs.expect(users.map(\.record), teams: teamsOf(users), "NSKeyedUnarchiver", uniqueTeams: 10)
                        },
                        run: { try FoundationArchiving.unarchive(inputs.foundationData).count },
                        outputBytes: inputs.foundationData.count))
            case .skipped(let reason):
                encodeSkipped.append(SkippedContender(id: "nskeyed", name: wholeName, reason: reason))
                decodeSkipped.append(
                    SkippedContender(
                        id: "nskeyed", name: wholeDecodeName,
                        reason: "needs NSKeyedArchiver's archive of the whole graph, which was not written: \(reason)"))
            }
            // The same graph in our archive, read by Foundation: a whole-graph decode at every N.
            decoders.append(
                Contender(
                    id: "nskeyed-ours", name: "NSKeyedUnarchiver reading our archive",
                    verify: {
                        let users = try FoundationArchiving.unarchive(inputs.ours)
                        try inputs.expect(users.map(\.record), teams: teamsOf(users), "NSKeyedUnarchiver reading ours", uniqueTeams: 10)
                    },
                    run: { try FoundationArchiving.unarchive(inputs.ours).count }, outputBytes: ourBytes))
            func chunkRoots(_ chunks: Int) -> [NSArray] {
                stride(from: 0, to: count, by: chunks).map {
                    FoundationArchiving.graph(dataset, range: $0..<min($0 + chunks, count), teams: teams)
                }
            }
            let encodeRoots = chunkRoots(plan.chunks)
            let encodeBytes = try encodeRoots.reduce(0) { $0 + (try FoundationArchiving.archive($1).count) }
            let decodeData = try chunkRoots(plan.decodeChunks).map(FoundationArchiving.archive)
            let decodeBytes = decodeData.reduce(0) { $0 + $1.count }
            func unarchiveChunks() throws -> [FoundationUser] { try decodeData.flatMap(FoundationArchiving.unarchive) }
            func expectChunks(_ users: [FoundationUser], chunks: Int, _ who: String) throws {
                try inputs.expect(users.map(\.record), teams: teamsOf(users), who)
                if teams {
                    // Identity holds within each archive.
                    for start in stride(from: 0, to: users.count, by: chunks) {
                        let end = min(start + chunks, users.count)
                        let distinct = Set(users[start..<end].map { ObjectIdentifier($0.team!) }).count
                        let expected = Set(dataset.teamIndex[start..<end]).count
                        guard distinct == expected else {
                            throw BenchmarkFailure("\(who): users \(start)… share \(distinct) Team instances, expected \(expected)")
                        }
                    }
                }
            }
            func perArchive(_ chunks: Int) -> String { chunks == 1 ? "1 user/archive" : "\(chunks) users/archive" }
            encoders.append(
                Contender(
                    id: "nskeyed-best", name: "NSKeyedArchiver best case (\(perArchive(plan.chunks)))",
                    verify: {
                        let data = try encodeRoots.map(FoundationArchiving.archive)
                        try expectChunks(try data.flatMap(FoundationArchiving.unarchive), chunks: plan.chunks, "NSKeyedArchiver (best case)")
                    },
                    run: { try encodeRoots.reduce(0) { $0 + (try FoundationArchiving.archive($1).count) } },
                    outputBytes: encodeBytes))
            decoders.append(
                Contender(
                    id: "nskeyed-best", name: "NSKeyedUnarchiver best case (\(perArchive(plan.decodeChunks)))",
                    verify: { try expectChunks(try unarchiveChunks(), chunks: plan.decodeChunks, "NSKeyedUnarchiver (best case)") },
                    run: { try unarchiveChunks().count }, outputBytes: decodeBytes))
        }

        encoders += [
            Contender(
                id: "plist", name: "PropertyListEncoder (binary)",
                verify: {
                    let users = try PropertyListDecoder().decode([CodableUser].self, from: try plistEncoder().encode(inputs.codableUsers))
                    try inputs.expect(users.map(\.record), teams: teamsOf(users), "PropertyListEncoder → PropertyListDecoder")
                },
                run: { try plistEncoder().encode(inputs.codableUsers).count }, outputBytes: inputs.plistData.count),
            Contender(
                id: "json", name: "JSONEncoder",
                verify: {
                    let users = try JSONDecoder().decode([CodableUser].self, from: try JSONEncoder().encode(inputs.codableUsers))
                    try inputs.expect(users.map(\.record), teams: teamsOf(users), "JSONEncoder → JSONDecoder")
                },
                run: { try JSONEncoder().encode(inputs.codableUsers).count }, outputBytes: inputs.jsonData.count),
        ]
        decoders += [
            Contender(
                id: "plist", name: "PropertyListDecoder (binary)",
                verify: {
                    let users = try PropertyListDecoder().decode([CodableUser].self, from: inputs.plistData)
                    try inputs.expect(users.map(\.record), teams: teamsOf(users), "PropertyListDecoder")
                },
                run: { try PropertyListDecoder().decode([CodableUser].self, from: inputs.plistData).count },
                outputBytes: inputs.plistData.count),
            Contender(
                id: "json", name: "JSONDecoder",
                verify: {
                    let users = try JSONDecoder().decode([CodableUser].self, from: inputs.jsonData)
                    try inputs.expect(users.map(\.record), teams: teamsOf(users), "JSONDecoder")
                },
                run: { try JSONDecoder().decode([CodableUser].self, from: inputs.jsonData).count },
                outputBytes: inputs.jsonData.count),
        ]
        let floors = [
            Contender(
                id: "walk", name: "floor: field walk",
                verify: {
                    let expected = teams ? FieldWalk.walk(dataset.teamUsers().users) : FieldWalk.walk(dataset.users)
                    let got = teams ? FieldWalk.walk(inputs.teamUsers) : FieldWalk.walk(inputs.plainUsers)
                    guard got == expected else { throw BenchmarkFailure("the field walk is not deterministic") }
                },
                run: { teams ? FieldWalk.walk(inputs.teamUsers) : FieldWalk.walk(inputs.plainUsers) }),
            Contender(
                id: "memcpy", name: "floor: memcpy of our size",
                verify: {
                    guard inputs.copyBuffers.copy() == ourBytes, inputs.copyBuffers.matches(inputs.ours) else {
                        throw BenchmarkFailure("memcpy did not copy our archive")
                    }
                },
                run: { inputs.copyBuffers.copy() }, outputBytes: ourBytes),
        ]
        encoders += floors
        decoders += floors

        var encode = Comparison(
            workload: name, operation: "encode", documentBytes: ourBytes, contenders: encoders, goals: encodeGoals)
        encode.skipped = encodeSkipped
        encode.itemCount = count
        encode.itemName = "users"
        var decode = Comparison(
            workload: name, operation: "decode", documentBytes: ourBytes, contenders: decoders, goals: decodeGoals)
        decode.skipped = decodeSkipped
        decode.itemCount = count
        decode.itemName = "users"

        func facts() throws -> [String: String] {
            var facts: [String: String] = [
                "users": "\(count.formatted()), \(KeyedDataset.fieldsPerUser + (teams ? 1 : 0)) archived values each (10 user fields\(teams ? " + team" : ""), 3 address fields, 3 tags, 3 counts)",
                "bytes: ours": "\(ourBytes) (\(PlistWorkloads.objectCount([UInt8](inputs.ours))) bplist objects, \(format(Double(ourBytes) / Double(count), 1)) per user)",
                "bytes: PropertyListEncoder, JSONEncoder": "\(inputs.plistData.count), \(inputs.jsonData.count)",
                "deterministic: ours": "yes (two archivings byte-identical, checked before timing)",
            ]
            if teams {
                let codable = try JSONDecoder().decode([CodableUser].self, from: inputs.jsonData)
                let distinct = Set(codable.compactMap { $0.team.map(ObjectIdentifier.init) }).count
                facts["teams: identity"] =
                    "ours and NSKeyedUnarchiver decode exactly 10 shared Team instances (checked before timing); JSONDecoder and PropertyListDecoder decode \(distinct.formatted()) (Codable has no identity)"
            }
            guard let plan else { return facts }
            facts["NSKeyedArchiver probe"] = plan.notes
            if case .timed = plan.whole {
                let foundationData = inputs.foundationData
                facts["bytes: NSKeyedArchiver"] =
                    "\(foundationData.count) (\(PlistWorkloads.objectCount([UInt8](foundationData))) bplist objects); ours/NSKeyedArchiver = \(format(Double(ourBytes) / Double(foundationData.count), 3))"
                facts["deterministic: NSKeyedArchiver"] =
                    switch inputs.foundationDeterministic {
                    case true?: "yes (two archivings byte-identical)"
                    case false?: "no (two archivings of the same graph differ)"
                    case nil: "not checked (its encode was not verified in this run)"
                    }
                facts["interop"] = interop(inputs)
            }
            return facts
        }
        return PreparedWorkload(comparisons: [encode, decode], facts: facts)
    }

    /// Whether Foundation reads our archive, and we read Foundation's, as the same users.
    static func interop(_ inputs: Inputs) -> String {
        var parts: [String] = []
        do {
            let users = try FoundationArchiving.unarchive(inputs.ours)
            try inputs.expect(users.map(\.record), teams: teamsOf(users), "NSKeyedUnarchiver reading ours", uniqueTeams: 10)
            parts.append("NSKeyedUnarchiver reads ours: equal")
        } catch {
            parts.append("NSKeyedUnarchiver reads ours: FAILED (\(error))")
        }
        do {
            let back = try inputs.unarchiveOurs(inputs.foundationData, classNames: FoundationArchiving.foundationClassNames)
            try inputs.expect(back.users, teams: back.teams, "KeyedUnarchiver reading Foundation's", uniqueTeams: 10)
            parts.append("KeyedUnarchiver reads Foundation's: equal")
        } catch {
            parts.append("KeyedUnarchiver reads Foundation's: FAILED (\(error))")
        }
        return parts.joined(separator: "; ")
    }

    static func format(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
}

// MARK: - Foundation's cap and best case

/// How NSKeyedArchiver is timed at one N, decided by timing it once before the run.
struct FoundationPlan {
    enum Whole {
        /// Timed on the whole graph; `slow` ones only in a few rounds.
        case timed(slow: Bool)
        case skipped(reason: String)
    }

    let whole: Whole
    /// Users per archive in the best case: for encoding, and for decoding.
    let chunks: Int
    let decodeChunks: Int
    /// What the probe measured.
    let notes: String

    static func make(_ dataset: KeyedDataset, teams: Bool) -> FoundationPlan {
        let count = dataset.users.count
        let sample = min(count, KeyedWorkloads.chunkSample)
        // Best case: the archive size with the least time per user, over the first `sample` users.
        // A chunk as large as the sample is a whole graph of that many users.
        var perUser: [(chunks: Int, seconds: Double)] = []
        var perUserDecode: [(chunks: Int, seconds: Double)] = []
        var whole: [(users: Int, seconds: Double)] = []
        for chunks in KeyedWorkloads.chunkSizes where chunks <= sample {
            let roots = stride(from: 0, to: sample, by: chunks).map {
                FoundationArchiving.graph(dataset, range: $0..<min($0 + chunks, sample), teams: teams)
            }
            var archives: [Data] = []
            let best = (0..<(chunks >= 100 ? 2 : 3)).map { _ in
                seconds { archives = roots.compactMap { try? FoundationArchiving.archive($0) } }
            }.min()!
            let bestDecode = (0..<3).map { _ in seconds { for data in archives { _ = try? FoundationArchiving.unarchive(data) } } }.min()!
            perUser.append((chunks, best / Double(sample)))
            perUserDecode.append((chunks, bestDecode / Double(sample)))
            if chunks * 2 >= sample { whole.append((chunks, best / Double(roots.count))) }
            progress(
                "  NSKeyedArchiver probe: \(chunks) users/archive: encode \(KeyedWorkloads.format(best / Double(sample) * 1e6, 1)) µs/user, decode \(KeyedWorkloads.format(bestDecode / Double(sample) * 1e6, 1)) µs/user"
            )
        }
        let chosen = perUser.min { $0.seconds < $1.seconds }!
        let chosenDecode = perUserDecode.min { $0.seconds < $1.seconds }!
        func table(_ list: [(chunks: Int, seconds: Double)]) -> String {
            list.map { "\($0.chunks): \(KeyedWorkloads.format($0.seconds * 1e6, 1))" }.joined(separator: ", ")
        }
        var notes =
            "µs/user by users per archive (first \(sample) users): encode \(table(perUser)); decode \(table(perUserDecode)); best case \(chosen.chunks) users/archive to encode, \(chosenDecode.chunks) to decode"
        // The whole graph at N, predicted from the two largest archives probed.
        guard whole.count >= 2, let small = whole.first, let large = whole.last else {
            return FoundationPlan(whole: .timed(slow: false), chunks: chosen.chunks, decodeChunks: chosenDecode.chunks, notes: notes)
        }
        let exponent = log(large.seconds / max(small.seconds, 1e-9)) / log(Double(large.users) / Double(small.users))
        let predicted = large.seconds * pow(Double(count) / Double(large.users), exponent)
        let measured =
            "measured \(KeyedWorkloads.format(small.seconds, 2)) s at N=\(small.users), \(KeyedWorkloads.format(large.seconds, 2)) s at N=\(large.users) (time ∝ N^\(KeyedWorkloads.format(exponent, 2))), so ≈\(KeyedWorkloads.format(predicted, 0)) s per round at N=\(count.formatted())"
        notes += "; whole graph: " + measured
        // Timed at N ≤ 1,000 whatever it costs; above, only under the cap.
        if count > 1_000, predicted > KeyedWorkloads.foundationCapSeconds {
            return FoundationPlan(
                whole: .skipped(reason: "skipped (quadratic: \(measured); cap \(Int(KeyedWorkloads.foundationCapSeconds)) s per round)"),
                chunks: chosen.chunks, decodeChunks: chosenDecode.chunks, notes: notes)
        }
        return FoundationPlan(
            whole: .timed(slow: predicted > KeyedWorkloads.foundationSlowSeconds), chunks: chosen.chunks, decodeChunks: chosenDecode.chunks, notes: notes)
    }

    static func progress(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func seconds(_ body: () -> Void) -> Double {
        let start = ContinuousClock.now
        body()
        return Harness.milliseconds(ContinuousClock.now - start) / 1000
    }
}

// MARK: - Floors

/// The cheapest pass over the graph: every field read by direct property access (the layout
/// known at compile time), string lengths and numbers summed.
enum FieldWalk {
    @inline(never)
    static func walk(_ users: [BenchUser]) -> Int {
        var total = 0
        for user in users {
            total &+= fields(
                user.id, user.name, user.email, user.age, user.score, user.isActive, user.createdAt, user.tags, user.address, user.counts)
        }
        return total
    }

    @inline(never)
    static func walk(_ users: [BenchTeamUser]) -> Int {
        var total = 0
        for user in users {
            total &+= fields(
                user.id, user.name, user.email, user.age, user.score, user.isActive, user.createdAt, user.tags, user.address, user.counts)
            if let team = user.team { total &+= team.id &+ team.name.utf8.count }
        }
        return total
    }

    @inline(__always)
    private static func fields(
        _ id: Int, _ name: String, _ email: String, _ age: Int, _ score: Double, _ isActive: Bool, _ createdAt: Date,
        _ tags: [String], _ address: BenchAddress, _ counts: [String: Int]
    ) -> Int {
        var total = id &+ name.utf8.count &+ email.utf8.count &+ age &+ Int(score) &+ (isActive ? 1 : 0)
        total &+= Int(createdAt.timeIntervalSinceReferenceDate)
        for tag in tags { total &+= tag.utf8.count }
        total &+= address.street.utf8.count &+ address.city.utf8.count &+ address.zip.utf8.count
        for (key, value) in counts { total &+= key.utf8.count &+ value }
        return total
    }
}

/// Two buffers of our archive's size; `copy` moves one into the other.
final class CopyBuffers {
    private let source: UnsafeMutableRawBufferPointer
    private let destination: UnsafeMutableRawBufferPointer

    let count: Int

    init(_ data: Data) {
        count = data.count
        source = .allocate(byteCount: max(data.count, 1), alignment: 16)
        destination = .allocate(byteCount: max(data.count, 1), alignment: 16)
        data.withUnsafeBytes { source.copyMemory(from: $0) }
        destination.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        source.deallocate()
        destination.deallocate()
    }

    @inline(never)
    func copy() -> Int {
        memcpy(destination.baseAddress!, source.baseAddress!, count)
        return count
    }

    func matches(_ data: Data) -> Bool {
        data.withUnsafeBytes { memcmp($0.baseAddress!, destination.baseAddress!, count) == 0 }
    }
}
