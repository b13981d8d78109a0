import Foundation
import KeyedArchive

/// Keyed archives in XML: `keyed-xml-1k` writes and reads the 1,000 users of `keyed-1k` as an
/// XML keyed archive, beside the same archive in binary (what XML costs over it) and
/// `PropertyListEncoder`/`Decoder` with the XML format.
enum KeyedXMLWorkloads {
    static var all: [Workload] {
        [
            Workload(
                name: "keyed-xml-1k",
                summary: "the 1,000 users of keyed-1k as an XML keyed archive, against binary and PropertyListEncoder's XML",
                operations: ["xml-encode", "xml-decode"], prepare: prepare)
        ]
    }

    static func archive(_ users: [BenchUser], format: PlistFormat) throws -> Data {
        let archiver = KeyedArchiver()
        archiver.outputFormat = format
        try archiver.encode(users, forKey: "root")
        return try archiver.encodedData
    }

    static func prepare() throws -> PreparedWorkload {
        let dataset = KeyedDataset.make(count: 1_000)
        let users = dataset.users
        let xml = try archive(users, format: .xml)
        let binary = try archive(users, format: .binary)
        let codableUsers = CodableUser.graph(dataset, teams: false)
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        let codableXML = try encoder.encode(codableUsers)
        func decode(_ data: Data) throws -> [BenchUser] { try KeyedUnarchiver.unarchivedObject(ofType: [BenchUser].self, from: data) }
        func expectUsers(_ decoded: [BenchUser], _ who: String) throws { try GraphCheck.expectEqual(decoded, users, who) }
        func expectCodable(_ decoded: [CodableUser], _ who: String) throws {
            // XML keeps dates to the second, so PropertyListDecoder's users are compared by their other fields.
            guard decoded.count == users.count, zip(decoded, users).allSatisfy({ $0.record.id == $1.id && $0.record.name == $1.name }) else {
                throw BenchmarkFailure("\(who) did not read back the users")
            }
        }
        let encode = Comparison(
            workload: "keyed-xml-1k", operation: "xml-encode", documentBytes: xml.count,
            contenders: [
                Contender(
                    id: "ours", name: "ours (KeyedArchiver, XML)",
                    verify: {
                        let data = try archive(users, format: .xml)
                        guard data == xml, String(decoding: data.prefix(5), as: UTF8.self) == "<?xml" else {
                            throw BenchmarkFailure("KeyedArchiver wrote different XML for the same graph")
                        }
                        try expectUsers(try decode(data), "KeyedArchiver (XML) → KeyedUnarchiver")
                    },
                    run: { try archive(users, format: .xml).count }, outputBytes: xml.count),
                Contender(
                    id: "ours-binary", name: "ours (KeyedArchiver, binary)",
                    verify: { try expectUsers(try decode(try archive(users, format: .binary)), "KeyedArchiver (binary) → KeyedUnarchiver") },
                    run: { try archive(users, format: .binary).count }, outputBytes: binary.count),
                Contender(
                    id: "plist-xml", name: "PropertyListEncoder (XML)",
                    verify: { try expectCodable(try PropertyListDecoder().decode([CodableUser].self, from: try encoder.encode(codableUsers)), "PropertyListEncoder (XML)") },
                    run: { try encoder.encode(codableUsers).count }, outputBytes: codableXML.count),
            ],
            goals: [], itemCount: users.count, itemName: "users")
        let decodeComparison = Comparison(
            workload: "keyed-xml-1k", operation: "xml-decode", documentBytes: xml.count,
            contenders: [
                Contender(
                    id: "ours", name: "ours (KeyedUnarchiver, XML)", verify: { try expectUsers(try decode(xml), "KeyedUnarchiver (XML)") },
                    run: { try decode(xml).count }, outputBytes: xml.count),
                Contender(
                    id: "ours-binary", name: "ours (KeyedUnarchiver, binary)",
                    verify: { try expectUsers(try decode(binary), "KeyedUnarchiver (binary)") },
                    run: { try decode(binary).count }, outputBytes: binary.count),
                Contender(
                    id: "plist-xml", name: "PropertyListDecoder (XML)",
                    verify: { try expectCodable(try PropertyListDecoder().decode([CodableUser].self, from: codableXML), "PropertyListDecoder (XML)") },
                    run: { try PropertyListDecoder().decode([CodableUser].self, from: codableXML).count }, outputBytes: codableXML.count),
            ],
            goals: [], itemCount: users.count, itemName: "users")
        return PreparedWorkload(
            comparisons: [encode, decodeComparison],
            facts: { ["bytes: XML, binary, PropertyListEncoder XML": "\(xml.count), \(binary.count), \(codableXML.count)"] })
    }
}
