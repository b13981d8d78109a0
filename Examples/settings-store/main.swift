// A UserDefaults-style settings store that never loses a write, used from many threads at once.
import ArchiveStore
import Dispatch
import Foundation
import KeyedArchive

let settings = try ArchiveStore.dataStore(named: "KeyedArchiveExamples-Settings")
settings.register(defaults: ["theme": "light", "fontSize": 13, "showsTips": true])
print("defaults: theme \(settings.string(forKey: "theme") ?? "-"), fontSize \(settings.integer(forKey: "fontSize")), showsTips \(settings.bool(forKey: "showsTips"))")

try settings.set("dark", forKey: "theme")
try settings.set(Float(1.25), forKey: "zoom")
try settings.set("42", forKey: "retries")  // a string, read as a number the way UserDefaults does
print("theme \(settings.string(forKey: "theme") ?? "-"), zoom \(settings.float(forKey: "zoom")), retries \(settings.integer(forKey: "retries"))")

// Eight threads write 25 settings each, all at once; every write is on disk when `set` returns.
let threads = 8
let writesPerThread = 25
DispatchQueue.concurrentPerform(iterations: threads) { thread in
    for write in 0..<writesPerThread {
        do {
            try settings.set(thread * 1_000 + write, forKey: "counter-\(thread)-\(write)")
        } catch {
            fatalError("thread \(thread) could not save: \(error)")
        }
    }
}
var missing = 0
for thread in 0..<threads {
    for write in 0..<writesPerThread where settings.integer(forKey: "counter-\(thread)-\(write)") != thread * 1_000 + write {
        missing += 1
    }
}
print("\(threads) threads wrote \(threads * writesPerThread) settings; lost: \(missing)")
guard missing == 0 else { fatalError("a write was lost") }

// Typed keys: one default for every reader, written through the key. In this top-level code
// (as in any function, async or not) the store's calls are synchronous; the async forms are
// reached through `settings.async` and run their file work off the caller.
extension ArchiveStore.Key {
    static var fontSize: ArchiveStore.Key<Int> { .init("fontSize", default: 12) }
}
settings[.fontSize] = 15
try settings.set(16, for: .fontSize)
try await settings.async.set(17, for: .fontSize)
let asyncTheme = await settings.async.string(forKey: "theme") ?? "-"
print("fontSize \(settings[.fontSize]) (registered 13, key's default 12), theme read off the caller: \(asyncTheme)")

// A second store on the same folder (another process would do the same) sees every value.
let reopened = try ArchiveStore(directory: settings.directory)
print("reopened: theme \(reopened.string(forKey: "theme") ?? "-"), \(reopened.keys.count) keys")

try settings.removeAll()
// The store's own folder goes too, with the .journal, .lock and .configuration it keeps there.
try FileManager.default.removeItem(at: settings.directory)
print("removed the example's data")
