// A model cache in the caches folder: each model is stored under its type's name, and the whole
// cache is cleared when the user logs out.
import ArchiveStore
import Foundation
import KeyedArchive

final class Feed: Archivable {
    var title = ""
    var items: [FeedItem] = []
    var fetched = Date(timeIntervalSinceReferenceDate: 0)
    required init() {}
    static var archiveClassName: String? { "Examples.Feed" }
}

struct FeedItem: Archivable, Equatable {
    var id = 0
    var headline = ""
    var link: URL?
}

struct AccountSummary: Archivable, Equatable {
    var plan = ""
    var seats = 0
    static var archiveClassName: String? { "Examples.AccountSummary" }
}

let cache = try ArchiveStore.cacheStore(named: "KeyedArchiveExamples-ModelCache")
print("cache folder: \(cache.directory.path)")

let feed = Feed()
feed.title = "Front page"
feed.fetched = Date(timeIntervalSinceReferenceDate: 810_000_000)
feed.items = (1...3).map { FeedItem(id: $0, headline: "Story \($0)", link: URL(string: "https://example.com/\($0)")) }
try cache.save(feed)
try cache.save(AccountSummary(plan: "team", seats: 5))
print("cached models: \(cache.keys)")

guard let cachedFeed = try cache.load(Feed.self), let summary = try cache.load(AccountSummary.self) else {
    fatalError("the cache lost a model")
}
guard cachedFeed.items == feed.items else { fatalError("the feed changed in the cache") }
print("from the cache: \(cachedFeed.title) with \(cachedFeed.items.count) items, plan \(summary.plan) for \(summary.seats) seats")

// Logout: everything cached for this user goes.
try cache.removeAll()
print("logged out; cached models left: \(cache.keys.count); feed cached: \(try cache.load(Feed.self) != nil)")

// The example's own cache folder goes too, with the .journal, .lock and .configuration the store
// keeps there (an app keeps its cache folder for the next user).
try FileManager.default.removeItem(at: cache.directory)
print("removed the example's data")
