import Foundation
import KeyedArchive
import PropertyList
import Testing
import TestSupport

// Real old archives: Fixtures/versions holds what versions 0, 1 and 2 of the kennel models
// (KennelModels.swift) wrote, each compiled as a program of its own by
// Scripts/make-version-fixtures.sh. Every archive decodes as today's version, value by value.

/// What one member must decode to.
private struct ExpectedMember {
    let name: String, age: String, role: KennelRole, street: String, city: String, email: String, stripes: Int?
}

private func expectedMembers(version: Int) -> [ExpectedMember] {
    let unknown = "unknown@kennel.example"
    return [
        .init(
            name: "Ada Barker", age: "34", role: .handler, street: "1 Bone Road", city: "Dogtown",
            email: version == 2 ? "ada@kennel.example" : unknown, stripes: nil),
        .init(
            name: "Rex Howl", age: "51", role: .trainer, street: "2 Leash Lane", city: "Barkley",
            email: version == 2 ? "rex@kennel.example" : unknown, stripes: 3),
        // Version 0 had no `vet` role; Bea's email was never set.
        .init(name: "Bea Woof", age: "27", role: version == 0 ? .handler : .vet, street: "3 Paw Place", city: "Dogtown", email: unknown, stripes: nil),
    ]
}

private func check(_ members: [KennelMember], version: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    let expected = expectedMembers(version: version)
    #expect(members.count == expected.count, sourceLocation: sourceLocation)
    for (member, wanted) in zip(members, expected) {
        #expect(member.name == wanted.name, sourceLocation: sourceLocation)
        #expect(member.age == wanted.age, sourceLocation: sourceLocation)
        #expect(member.role == wanted.role, sourceLocation: sourceLocation)
        #expect(member.address == KennelAddress(street: wanted.street, city: wanted.city), sourceLocation: sourceLocation)
        #expect(member.email == wanted.email, sourceLocation: sourceLocation)
        #expect((member as? KennelCaptain)?.stripes == wanted.stripes, sourceLocation: sourceLocation)
    }
}

private func fixture(_ name: String) throws -> Data {
    try Data(contentsOf: Fixtures.own("versions/\(name).archive"))
}

/// An unarchiver of a fixture that knows the subclass a `[KennelMember]` may hold.
private func unarchiver(_ name: String, options: KeyedUnarchiver.Options = .init()) throws -> KeyedUnarchiver {
    let unarchiver = try KeyedUnarchiver(forReadingFrom: try fixture(name), options: options)
    unarchiver.register(KennelCaptain.self)
    return unarchiver
}

@Suite("Archives written by earlier versions of a model family")
struct KennelVersionTests {
    @Test("each version's team decodes as today's: cycle, subclass, nested struct, enum, renamed type", arguments: [0, 1, 2])
    func team(version: Int) throws {
        let team = try unarchiver("v\(version)-team").decode(KennelTeam.self, forKey: "root")
        #expect(team.title == "Night Shift")
        check(team.members, version: version)
        #expect(team.members.allSatisfy { $0.team === team })
        #expect(team.members[1] is KennelCaptain && !(team.members[0] is KennelCaptain))
    }

    @Test("each version's member list decodes as today's", arguments: [0, 1, 2])
    func members(version: Int) throws {
        let members = try unarchiver("v\(version)-members").decode([KennelMember].self, forKey: "root")
        check(members, version: version)
        #expect(members.allSatisfy { $0.team == nil })
    }

    @Test("version 2's archives are what today's build writes, byte for byte")
    func todaysBytes() throws {
        #expect(try KeyedArchiver.archivedData(withRootObject: KennelSample.team()) == (try fixture("v2-team")))
        #expect(try KeyedArchiver.archivedData(withRootObject: KennelSample.members()) == (try fixture("v2-members")))
    }

    @Test("the report of version 0's team: each object's migration and the field it lacked")
    func report() throws {
        var options = KeyedUnarchiver.Options()
        options.collectsReport = true
        let reader = try unarchiver("v0-team", options: options)
        _ = try reader.decode(KennelTeam.self, forKey: "root")
        let report = reader.report
        #expect(
            report.migrations.map(\.description) == [
                "root.members[0]: Kennel.Member 0 → 2", "root.members[0].address: Kennel.Address 0 → 1",
                "root.members[1]: Kennel.Captain 0 → 2", "root.members[1].address: Kennel.Address 0 → 1",
                "root.members[2]: Kennel.Member 0 → 2", "root.members[2].address: Kennel.Address 0 → 1",
            ])
        #expect(report.missingFields == ["root.members[0].email", "root.members[1].email", "root.members[2].email"])
        #expect(report.unusedKeys.isEmpty)

        // Version 2's archive maps one to one.
        let current = try unarchiver("v2-team", options: options)
        _ = try current.decode(KennelTeam.self, forKey: "root")
        #expect(current.report.isEmpty)
    }

    @Test("version 2's member list decodes in Foundation's NSKeyedUnarchiver")
    func foundationReadsNewVersions() throws {
        let classes: [String: AnyClass] = [
            "Kennel.Member": KennelMemberNS.self, "Kennel.Captain": KennelCaptainNS.self, "Kennel.Address": KennelAddressNS.self,
        ]
        let reading = FoundationReading(try fixture("v2-members"), classes: classes)
        #expect(reading.error == nil)
        let members = try #require(reading.root as? [KennelMemberNS])
        let expected = expectedMembers(version: 2)
        #expect(members.map(\.name) == expected.map(\.name))
        #expect(members.map(\.age) == expected.map(\.age))
        #expect(members.map(\.role) == expected.map(\.role.rawValue))
        #expect(members.map(\.email) == expected.map(\.email))
        #expect(members.map { $0.address?.street } == expected.map(\.street))
        #expect(members.map { $0.address?.city } == expected.map(\.city))
        #expect(members.map { ($0 as? KennelCaptainNS)?.stripes } == expected.map(\.stripes))
    }

    @Test("plistlib reads every version's archives as this library does", arguments: ["v0", "v1", "v2"].flatMap { ["\($0)-team", "\($0)-members"] })
    func plistlibReads(name: String) throws {
        guard let python = Python.executable else {
            print("skipped: python3 is not on PATH")
            return
        }
        let url = Fixtures.own("versions/\(name).archive")
        let json = try Python.run(python, script: plistlibToPlistJSON, arguments: [url.path])
        let theirs = try PlistValue(plistJSON: json)
        let ours = try BPlistReader().read(try Data(contentsOf: url))
        #expect(theirs == ours.widenedFloats)
        if name.hasPrefix("v2") { #expect(json.contains(#""$classversion":{"int":"2"}"#)) }
    }
}

/// Prints the plist-json of a file as `plistlib` reads it.
private let plistlibToPlistJSON = #"""
import base64, json, math, plistlib, sys
def tag(v):
    if isinstance(v, plistlib.UID): return {"uid": v.data}
    if isinstance(v, bool): return {"bool": v}
    if isinstance(v, int): return {"int": str(v)}
    if isinstance(v, float): return {"real": "nan" if math.isnan(v) else ("inf" if v == math.inf else ("-inf" if v == -math.inf else v))}
    if isinstance(v, str): return {"string": v}
    if isinstance(v, bytes): return {"data": base64.b64encode(v).decode()}
    if isinstance(v, list): return {"array": [tag(x) for x in v]}
    if isinstance(v, dict): return {"dict": {k: tag(x) for k, x in v.items()}}
    raise TypeError(type(v))
with open(sys.argv[1], "rb") as f:
    print(json.dumps(tag(plistlib.load(f)), sort_keys=True, separators=(",", ":")))
"""#

// NSCoding twins of the version 2 kennel models, for Foundation's unarchiver.

final class KennelAddressNS: NSObject, NSCoding {
    var street: String?
    var city: String?
    init?(coder: NSCoder) {
        street = coder.decodeObject(forKey: "street") as? String
        city = coder.decodeObject(forKey: "city") as? String
    }
    func encode(with coder: NSCoder) {}
}

class KennelMemberNS: NSObject, NSCoding {
    var name: String?
    var age: String?
    var role: String?
    var email: String?
    var address: KennelAddressNS?
    required init?(coder: NSCoder) {
        name = coder.decodeObject(forKey: "name") as? String
        age = coder.decodeObject(forKey: "age") as? String
        role = coder.decodeObject(forKey: "role") as? String
        email = coder.decodeObject(forKey: "email") as? String
        address = coder.decodeObject(forKey: "address") as? KennelAddressNS
    }
    func encode(with coder: NSCoder) {}
}

final class KennelCaptainNS: KennelMemberNS {
    var stripes = 0
    required init?(coder: NSCoder) {
        stripes = coder.decodeInteger(forKey: "stripes")
        super.init(coder: coder)
    }
}
