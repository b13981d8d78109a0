import ArchiveStore
import Foundation
import KeyedArchive
import Synchronization
import Testing

// An app that archives from many threads at once: eight threads start together, so the first
// use of every type below (its coder, its reflection layout, its archive keys) happens on several
// threads at the same time, and then each thread round-trips its own values, value by value,
// through archives, an ArchiveFile and one ArchiveStore they all share.
// `Scripts/sanitize.sh thread` runs this target under ThreadSanitizer.

private final class Crew: Archivable {
    var name = ""
    var sailors: [Sailor] = []
    var ports: [String] = []
    required init() {}
}

private final class Sailor: Archivable {
    var name = ""
    var age = 0
    var rating = 0.0
    var onDuty = false
    weak var crew: Crew?
    required init() {}
}

private struct Waypoint: Archivable, Equatable {
    var latitude = 0.0
    var longitude = 0.0
    var label = ""
    var legs: [Int] = []
    var note: String?
}

private struct Preferences: Codable, Equatable {
    var theme: String
    var fontSize: Int
    var flags: [String: Bool]
    var ratio: Double?
}

private final class LogEntry: KeyedCoding {
    let title: String
    let count: Int
    let when: Date

    init(title: String, count: Int, when: Date) {
        self.title = title
        self.count = count
        self.when = when
    }

    func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(title, forKey: "title")
        try coder.encode(count, forKey: "count")
        try coder.encode(when, forKey: "when")
    }

    init(from coder: KeyedDecodingCoder) throws {
        title = try coder.decode(String.self, forKey: "title")
        count = try coder.decode(Int.self, forKey: "count")
        when = try coder.decode(Date.self, forKey: "when")
    }
}

/// What went wrong on any thread, collected under a lock and checked once every thread is done.
private final class Mismatches: @unchecked Sendable {  // `list` is only touched under `lock`
    private let lock = NSLock()
    private var list: [String] = []

    func check(_ ok: Bool, _ what: @autoclosure () -> String) {
        guard !ok else { return }
        let message = what()
        lock.withLock { list.append(message) }
    }

    var all: [String] { lock.withLock { list } }
}

private func roundTrip<T>(_ value: T, as type: T.Type) throws -> T {
    try KeyedUnarchiver.unarchivedObject(ofType: type, from: KeyedArchiver.archivedData(withRootObject: value))
}

@Suite struct ManyThreadsTests {
    static let threads = 8
    static let rounds = 16

    @Test func eightThreadsArchiveAndUnarchiveAtOnce() throws {
        let folder = try TemporaryDirectory("many-threads")
        let store = try ArchiveStore(directory: folder.file("store"))
        let files = folder.url
        let mismatches = Mismatches()
        let started = Atomic<Int>(0)
        let finished = DispatchGroup()
        for thread in 0..<Self.threads {
            finished.enter()
            Thread {
                // Every thread waits for the others, so first uses meet.
                started.add(1, ordering: .relaxed)
                while started.load(ordering: .relaxed) < Self.threads {}
                for round in 0..<Self.rounds {
                    do {
                        try Self.work(thread: thread, round: round, store: store, files: files, mismatches)
                    } catch {
                        mismatches.check(false, "thread \(thread) round \(round): \(error)")
                    }
                }
                finished.leave()
            }.start()
        }
        finished.wait()
        let all = mismatches.all
        #expect(all.isEmpty, "\(all.count) mismatches, first: \(all.prefix(3))")
    }

    private static func work(
        thread: Int, round: Int, store: ArchiveStore, files: URL, _ mismatches: Mismatches
    ) throws {
        let tag = "\(thread)-\(round)"
        let crew = Crew()
        crew.name = "crew \(tag)"
        crew.ports = ["Lisbon", tag]
        for i in 0..<3 {
            let sailor = Sailor()
            sailor.name = "sailor \(i) \(tag)"
            sailor.age = 20 + i + round
            sailor.rating = Double(i) / 4
            sailor.onDuty = i % 2 == 0
            sailor.crew = crew
            crew.sailors.append(sailor)
        }
        let waypoint = Waypoint(
            latitude: Double(thread), longitude: Double(round), label: tag, legs: [thread, round],
            note: round % 2 == 0 ? nil : "note \(tag)")
        let preferences = Preferences(
            theme: "dark \(tag)", fontSize: 10 + round, flags: ["sync": true, "odd": thread % 2 == 1],
            ratio: round % 3 == 0 ? nil : 1.5)
        let when = Date(timeIntervalSince1970: Double(round * 1_000 + thread))
        let entry = LogEntry(title: "entry \(tag)", count: round, when: when)

        let steps: [() throws -> Void] = [
            {  // A class graph with weak back-references.
                let back = try roundTrip(crew, as: Crew.self)
                mismatches.check(back.name == crew.name && back.ports == crew.ports, "crew \(tag)")
                mismatches.check(back.sailors.count == crew.sailors.count, "crew size \(tag)")
                for (sent, got) in zip(crew.sailors, back.sailors) {
                    mismatches.check(
                        got.name == sent.name && got.age == sent.age && got.rating == sent.rating
                            && got.onDuty == sent.onDuty, "sailor \(tag)")
                    mismatches.check(got.crew === back, "sailor's crew \(tag)")
                }
            },
            {  // An Archivable struct, alone and in an array.
                mismatches.check(try roundTrip(waypoint, as: Waypoint.self) == waypoint, "waypoint \(tag)")
                mismatches.check(try roundTrip([waypoint, waypoint], as: [Waypoint].self) == [waypoint, waypoint], "waypoints \(tag)")
            },
            {  // A Codable struct and a KeyedCoding class.
                mismatches.check(try roundTrip(preferences, as: Preferences.self) == preferences, "preferences \(tag)")
                let back = try roundTrip(entry, as: LogEntry.self)
                mismatches.check(back.title == entry.title && back.count == entry.count && back.when == entry.when, "entry \(tag)")
            },
            {  // JSON as JSONSerialization hands it out, and Foundation objects.
                let text = #"{"code": \#(round), "msg": "ok \#(tag)", "data": {"items": [1, 2.5, "x", true, null]}}"#
                guard let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                    return mismatches.check(false, "JSONSerialization \(tag)")
                }
                let back = try roundTrip(json, as: [String: Any].self)
                mismatches.check((back["code"] as? NSNumber)?.intValue == round, "json code \(tag)")
                mismatches.check(back["msg"] as? String == "ok \(tag)", "json msg \(tag)")
                let items = (back["data"] as? [String: Any])?["items"] as? [Any] ?? []
                mismatches.check(items.count == 5, "json items \(tag)")
                if items.count == 5 {
                    mismatches.check((items[0] as? NSNumber)?.intValue == 1, "json item 0 \(tag)")
                    mismatches.check((items[1] as? NSNumber)?.doubleValue == 2.5, "json item 1 \(tag)")
                    mismatches.check(items[2] as? String == "x", "json item 2 \(tag)")
                    mismatches.check(items[3] as? Bool == true, "json item 3 \(tag)")
                    mismatches.check(items[4] is NSNull, "json item 4 \(tag)")
                }
                mismatches.check(try roundTrip(NSNumber(value: round * 7), as: NSNumber.self).intValue == round * 7, "NSNumber \(tag)")
                mismatches.check(try roundTrip(NSString(string: "ns \(tag)"), as: NSString.self) as String == "ns \(tag)", "NSString \(tag)")
                let array = NSArray(array: [NSNumber(value: thread), NSString(string: tag)])
                mismatches.check(try roundTrip(array, as: NSArray.self).isEqual(array), "NSArray \(tag)")
            },
            {  // An ArchiveFile of several keys, written and read back.
                var file = ArchiveFile()
                try file.set(crew, forKey: "crew")
                try file.set(waypoint, forKey: "waypoint")
                try file.set(preferences, forKey: "preferences")
                try file.set(entry, forKey: "entry")
                let url = files.appending(path: "file-\(thread).archive")
                try file.write(to: url)
                let read = try ArchiveFile(contentsOf: url)
                mismatches.check(Set(read.keys) == ["crew", "waypoint", "preferences", "entry"], "file keys \(tag)")
                mismatches.check(
                    try read.decode(Crew.self, forKey: "crew").sailors.map(\.name) == crew.sailors.map(\.name), "file crew \(tag)")
                mismatches.check(try read.decode(Waypoint.self, forKey: "waypoint") == waypoint, "file waypoint \(tag)")
                mismatches.check(try read.decode(Preferences.self, forKey: "preferences") == preferences, "file preferences \(tag)")
                mismatches.check(try read.decode(LogEntry.self, forKey: "entry").title == entry.title, "file entry \(tag)")
            },
            {  // One store, and its namespaces, shared by every thread.
                guard round % 8 == thread % 8 else { return }  // twice per thread: saves wait for the disk
                let key = "thread-\(thread)"
                try store.save(waypoint, forKey: key)
                mismatches.check(try store.load(Waypoint.self, forKey: key) == waypoint, "stored waypoint \(tag)")
                try store.save(crew, forKey: key + "-crew")
                mismatches.check(try store.load(Crew.self, forKey: key + "-crew")?.name == crew.name, "stored crew \(tag)")
                try store.set(round, forKey: key + "-int")
                mismatches.check(store.integer(forKey: key + "-int") == round, "stored int \(tag)")
                try store.set("text \(tag)", forKey: key + "-string")
                mismatches.check(store.string(forKey: key + "-string") == "text \(tag)", "stored string \(tag)")
                try store.set(when, forKey: key + "-date")
                mismatches.check(store.date(forKey: key + "-date") == when, "stored date \(tag)")
                let namespace = store.namespace("team-\(thread % 3)")
                try namespace.save(preferences, forKey: key)
                mismatches.check(try namespace.load(Preferences.self, forKey: key) == preferences, "namespaced \(tag)")
                mismatches.check(namespace.keys.contains(key), "namespace keys \(tag)")
                try namespace.remove(forKey: key)
                mismatches.check(try namespace.load(Preferences.self, forKey: key) == nil, "namespace removed \(tag)")
                try store.remove(forKey: key)
                mismatches.check(!store.contains(key), "removed \(tag)")
            },
        ]
        // Each thread takes the steps in its own order, so different first uses meet.
        for i in steps.indices { try steps[(i + thread) % steps.count]() }
    }
}
