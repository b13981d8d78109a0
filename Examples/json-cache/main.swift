// A JSON cache by key: whatever JSONSerialization returns is stored as it is, with an expiry
// kept inside the file.
import ArchiveStore
import Foundation
import KeyedArchive

let response = Data(
    #"{"banners":[{"id":1,"title":"Spring sale","discount":0.25,"active":true},{"id":2,"title":"Free delivery","discount":null,"active":false}],"version":7}"#
        .utf8)
let json = try JSONSerialization.jsonObject(with: response) as! [String: Any]

let cache = try ArchiveStore.cacheStore(named: "KeyedArchiveExamples-JSONCache")
try cache.save(json, forKey: "banners", expiresAfter: .seconds(3_600))
try cache.save(json, forKey: "flash-sale", expiresAfter: .milliseconds(200))
print("cached keys: \(cache.keys)")

guard let banners = try cache.load([String: Any].self, forKey: "banners"),
    let list = banners["banners"] as? [[String: Any]],
    let version = banners["version"] as? Int
else { fatalError("the cached JSON did not come back") }
for banner in list {
    let discount = (banner["discount"] as? Double).map { "\(Int($0 * 100))% off" } ?? "no discount"
    print("banner \(banner["id"] as? Int ?? 0): \(banner["title"] as? String ?? "?"), \(discount), active \(banner["active"] as? Bool ?? false)")
}
print("version \(version); the null discount came back as \(type(of: list[1]["discount"]!))")

// The same bytes come back out: the cached value turns into JSON again.
let again = try JSONSerialization.data(withJSONObject: banners, options: .sortedKeys)
let original = try JSONSerialization.data(withJSONObject: json, options: .sortedKeys)
print("JSON after the cache equals the response: \(again == original)")
guard again == original else { fatalError("the JSON changed in the cache") }

Thread.sleep(forTimeInterval: 0.3)
print("flash-sale after its expiry: \(try cache.load([String: Any].self, forKey: "flash-sale") == nil ? "gone" : "still there")")
try cache.removeExpired()
print("after removeExpired: \(cache.keys)")

try cache.removeAll()
// The store's own folder goes too, with the .journal, .lock and .configuration it keeps there.
try FileManager.default.removeItem(at: cache.directory)
print("removed the example's data")
