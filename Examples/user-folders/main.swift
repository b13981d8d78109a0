// Per-user data folders, keyed by phone number: each user's models, lists, URLs and numbers live
// in a namespace of their own, and one user's data can be cleared without touching the others.
import ArchiveStore
import Foundation
import KeyedArchive

final class Profile: Archivable {
    var name = ""
    var avatar: URL?
    var favouriteColours: [String] = []
    var loginCount = 0
    var balance = 0.0
    required init() {}
    static var archiveClassName: String? { "Examples.Profile" }
}

struct Contact: Archivable, Equatable {
    var name = ""
    var phone = ""
}

let store = try ArchiveStore.dataStore(named: "KeyedArchiveExamples-UserFolders")
print("store folder: \(store.directory.path)")

let users: [(phone: String, name: String, contacts: [Contact])] = [
    ("+44 20 7946 0001", "Ann", [Contact(name: "Bob", phone: "+44 20 7946 0002")]),
    ("+1 (555) 010-0199", "Zoë", [Contact(name: "Cy", phone: "+1 555 010 0100"), Contact(name: "Di", phone: "+1 555 010 0101")]),
]

for user in users {
    let folder = store.namespace(user.phone)
    let profile = Profile()
    profile.name = user.name
    profile.avatar = URL(string: "https://example.com/avatars/\(user.name).png")
    profile.favouriteColours = ["teal", "amber"]
    profile.balance = 12.5
    try folder.save(profile)  // stored under the type's archive name, "Examples.Profile"
    try folder.save(user.contacts, forKey: "contacts")
    try folder.set(folder.integer(forKey: "launchCount") + 1, forKey: "launchCount")
    try folder.set(URL(fileURLWithPath: "/tmp/\(user.name)-export.csv"), forKey: "lastExport")
    print("saved \(user.name)'s profile, \(user.contacts.count) contact(s) and counters under \(user.phone)")
}

print("users on this device: \(store.namespaces)")

for phone in store.namespaces {
    let folder = store.namespace(phone)
    guard let profile = try folder.load(Profile.self), let contacts = try folder.load([Contact].self, forKey: "contacts") else {
        fatalError("\(phone): nothing was loaded")
    }
    let export = folder.url(forKey: "lastExport")?.path ?? "none"
    print("\(phone): \(profile.name), avatar \(profile.avatar?.absoluteString ?? "none"), contacts \(contacts.map(\.name)), launches \(folder.integer(forKey: "launchCount")), last export \(export)")
}

// Ann signs out of this device: her folder goes, Zoë's stays.
try store.namespace("+44 20 7946 0001").removeAll()
print("cleared +44 20 7946 0001; users left: \(store.namespaces)")
guard try store.namespace("+44 20 7946 0001").load(Profile.self) == nil,
    try store.namespace("+1 (555) 010-0199").load(Profile.self)?.name == "Zoë"
else { fatalError("clearing one user touched another") }

try store.removeAll()
// The store's own folder goes too, with the .journal, .lock and .configuration it keeps there.
try FileManager.default.removeItem(at: store.directory)
print("removed the example's data")
