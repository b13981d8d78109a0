import Foundation

// NSCoding twins of the fixture models (`Keyedgen.*`), written the way an Objective-C-style app
// writes them: `init?(coder:)` reads the generator's keys with `decodeObject`, `decodeInteger`,
// `decodeDouble` and `decodeBool`. Foundation on Linux names them `KeyedArchiveTests.PersonNS`
// etc. (`NSStringFromClass`), which is what the models declare as `archiveClassName`, so
// `NSKeyedUnarchiver` resolves the `$classname` of an archive this library writes to these.
//
// Fields are optionals where the archive could lack them, so a missing value shows up in the
// comparison instead of failing `init?(coder:)` without a word.

final class AddressNS: NSObject, NSCoding {
    var street: String?
    var city: String?
    var zip: String?

    init?(coder: NSCoder) {
        street = coder.decodeObject(forKey: "street") as? String
        city = coder.decodeObject(forKey: "city") as? String
        zip = coder.decodeObject(forKey: "zip") as? String
    }

    func encode(with coder: NSCoder) {
        coder.encode(street, forKey: "street")
        coder.encode(city, forKey: "city")
        coder.encode(zip, forKey: "zip")
    }
}

class PersonNS: NSObject, NSCoding {
    var name: String?
    var age = 0
    var score = 0.0
    var isAdmin = false
    var tags: [String]?
    var address: AddressNS?
    var birthday: Date?
    var avatar: Data?
    var homepage: URL?
    var id: UUID?
    /// Keys whose raw value was of an unexpected kind (for example `tags` not an array of strings).
    var oddities: [String] = []

    required init?(coder: NSCoder) {
        name = coder.decodeObject(forKey: "name") as? String
        age = coder.decodeInteger(forKey: "age")
        score = coder.decodeDouble(forKey: "score")
        isAdmin = coder.decodeBool(forKey: "isAdmin")
        let rawTags = coder.decodeObject(forKey: "tags")
        tags = rawTags as? [String]
        if rawTags != nil, tags == nil { oddities.append("tags: \(String(describing: rawTags))") }
        let rawAddress = coder.decodeObject(forKey: "address")
        address = rawAddress as? AddressNS
        if rawAddress != nil, address == nil { oddities.append("address: \(String(describing: rawAddress))") }
        birthday = coder.decodeObject(forKey: "birthday") as? Date
        avatar = coder.decodeObject(forKey: "avatar") as? Data
        homepage = coder.decodeObject(forKey: "homepage") as? URL
        id = coder.decodeObject(forKey: "id") as? UUID
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(age, forKey: "age")
        coder.encode(score, forKey: "score")
        coder.encode(isAdmin, forKey: "isAdmin")
        coder.encode(tags.map { $0 as NSArray }, forKey: "tags")
        coder.encode(address, forKey: "address")
        coder.encode(birthday.map { $0 as NSDate }, forKey: "birthday")
        coder.encode(avatar.map { $0 as NSData }, forKey: "avatar")
        coder.encode(homepage.map { $0 as NSURL }, forKey: "homepage")
        coder.encode(id.map { $0 as NSUUID }, forKey: "id")
    }
}

final class EmployeeNS: PersonNS {
    var title: String?
    var manager: EmployeeNS?
    var reports: [EmployeeNS]?

    required init?(coder: NSCoder) {
        title = coder.decodeObject(forKey: "title") as? String
        manager = coder.decodeObject(forKey: "manager") as? EmployeeNS
        reports = coder.decodeObject(forKey: "reports") as? [EmployeeNS]
        super.init(coder: coder)
    }

    override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(title, forKey: "title")
        coder.encode(manager, forKey: "manager")
        coder.encode(reports.map { $0 as NSArray }, forKey: "reports")
    }
}

final class NodeNS: NSObject, NSCoding {
    var name: String?
    var parent: NodeNS?
    var children: [NodeNS]?

    init?(coder: NSCoder) {
        name = coder.decodeObject(forKey: "name") as? String
        parent = coder.decodeObject(forKey: "parent") as? NodeNS
        children = coder.decodeObject(forKey: "children") as? [NodeNS]
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(parent, forKey: "parent")
        coder.encode(children.map { $0 as NSArray }, forKey: "children")
    }
}

final class TeamNS: NSObject, NSCoding {
    var name: String?
    var members: [PersonNS]?
    var captain: PersonNS?

    init?(coder: NSCoder) {
        name = coder.decodeObject(forKey: "name") as? String
        members = coder.decodeObject(forKey: "members") as? [PersonNS]
        captain = coder.decodeObject(forKey: "captain") as? PersonNS
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(members.map { $0 as NSArray }, forKey: "members")
        coder.encode(captain, forKey: "captain")
    }
}

/// What Foundation's `NSKeyedUnarchiver` (on this platform) reads from an archive.
struct FoundationReading {
    let root: Any?
    let error: (any Error)?

    /// Reads the `root` object (or `key`) with secure coding off and `.setErrorAndReturn`, so an
    /// unreadable archive is an error here, never a `fatalError` inside Foundation.
    /// Never pass a cyclic archive: Foundation on Linux recurses until the stack overflows.
    /// `classes` maps archived class names to the twin classes that read them.
    init(_ data: Data, key: String = NSKeyedArchiveRootObjectKey, classes: [String: AnyClass] = [:]) {
        do {
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
            for name in classes.keys.sorted() { unarchiver.setClass(classes[name], forClassName: name) }
            unarchiver.requiresSecureCoding = false
            unarchiver.decodingFailurePolicy = .setErrorAndReturn
            root = unarchiver.decodeObject(forKey: key)
            error = unarchiver.error
            unarchiver.finishDecoding()
        } catch {
            root = nil
            self.error = error
        }
    }
}
