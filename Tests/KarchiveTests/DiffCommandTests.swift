import Foundation
import KeyedArchive
import PropertyList
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

/// `karchive diff A B`: keyed archives compared as object graphs, whatever their numbering,
/// other files (and archives with `--plist`) as plain property lists; 0 same, 1 different, 2 trouble.
@Suite("karchive diff")
struct DiffCommandTests {
    static let born = Date(timeIntervalSinceReferenceDate: 123_456_789.5)

    /// A team as Foundation's value classes: dictionaries, arrays, strings, numbers, data and a
    /// date shared by three places, four levels deep.
    static func foundationTeam() -> NSDictionary {
        let shared = NSDate(timeIntervalSinceReferenceDate: born.timeIntervalSinceReferenceDate)
        let friends = NSArray(array: [
            NSDictionary(dictionary: [
                "name": NSString(string: "Ann"), "age": NSNumber(value: 34), "born": shared,
                "photo": NSData(bytes: [1, 2, 255] as [UInt8], length: 3),
            ]),
            NSDictionary(dictionary: [
                "name": NSString(string: "Bo"), "age": NSNumber(value: 29), "seen": shared,
                "tags": NSArray(array: [NSString(string: "x"), NSString(string: "y")]),
            ]),
        ])
        return NSDictionary(dictionary: [
            "title": NSString(string: "Core"), "count": NSNumber(value: 2), "ratio": NSNumber(value: 0.5),
            "friends": friends, "lead": shared,
            "nested": NSDictionary(dictionary: ["deeper": NSArray(array: [NSDictionary(dictionary: ["leaf": NSString(string: "end")])])]),
        ])
    }

    /// The same team as Swift values, archived by this library; `bo` names the second friend.
    static func libraryTeam(bo: String = "Bo") throws -> Data {
        let team: [String: Any] = [
            "title": "Core", "count": 2, "ratio": 0.5, "lead": born,
            "friends": [
                ["name": "Ann", "age": 34, "born": born, "photo": Data([1, 2, 255])] as [String: Any],
                ["name": bo, "age": 29, "seen": born, "tags": ["x", "y"]] as [String: Any],
            ],
            "nested": ["deeper": [["leaf": "end"]]],
        ]
        return try KeyedArchiver.archivedData(withRootObject: team)
    }

    static func foundationArchive(_ root: Any) -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(root, forKey: "root")
        archiver.finishEncoding()
        return archiver.encodedData
    }

    static func objects(_ data: Data) throws -> [PlistValue] {
        try #require(try PlistReader().read(data).dictValue?["$objects"]?.arrayValue)
    }

    static func diff(_ arguments: [String], stdin: URL? = nil, timeLimit: Double = 60) async throws -> KarchiveProcess.Outcome {
        try await KarchiveProcess.run(["diff"] + arguments, standardInput: stdin, timeLimit: timeLimit)
    }

    /// The same archive with `$objects` in the reverse order (`$null` kept first) and every UID
    /// renumbered to match: the same graph, other numbers.
    static func renumbered(_ data: Data) throws -> Data {
        var root = try #require(try PlistReader().read(data).dictValue)
        let objects = try #require(root["$objects"]?.arrayValue)
        let count = UInt64(objects.count)
        func remap(_ value: PlistValue) -> PlistValue {
            switch value {
            case .uid(let uid): .uid(uid == 0 ? 0 : count - uid)
            case .array(let elements): .array(elements.map(remap))
            case .dict(let dict): .dict(PlistDictionary(uniqueKeysWithValues: zip(dict.keys, dict.values.map(remap))))
            default: value
            }
        }
        var reordered = objects
        for index in 1..<objects.count { reordered[objects.count - index] = remap(objects[index]) }
        root["$objects"] = .array(reordered)
        root["$top"] = try remap(#require(root["$top"]))
        return Data(try BPlistWriter().write(.dict(root)))
    }

    @Test("The same graph from Foundation's NSKeyedArchiver and from KeyedArchiver is the same, though $objects differ")
    func foundationAndLibraryArchivesAreTheSame() async throws {
        let directory = try TemporaryDirectory()
        let foundationData = Self.foundationArchive(Self.foundationTeam())
        let libraryData = try Self.libraryTeam()
        let foundation = try directory.file("foundation.archive", foundationData)
        let library = try directory.file("library.archive", libraryData)

        let (foundationObjects, libraryObjects) = (try Self.objects(foundationData), try Self.objects(libraryData))
        #expect(foundationObjects != libraryObjects, "the two writers number and order $objects differently")
        // Foundation writes dictionary keys in hash order, this library sorted: the strings come
        // in another order (and Foundation writes the shared date once).
        let strings = { (objects: [PlistValue]) in objects.filter { $0.stringValue != nil } }
        #expect(strings(foundationObjects) != strings(libraryObjects))

        let run = try await Self.diff([foundation, library])
        #expect(run.status == 0 && run.standardError.isEmpty, "\(run.standardError)")
        #expect(run.standardOutput.isEmpty, "\(run.standardOutput)")
        // The reverse order, and one side from standard input, are the same too.
        let reversed = try await Self.diff(["-", foundation], stdin: URL(fileURLWithPath: library))
        #expect(reversed.status == 0 && reversed.standardOutput.isEmpty, "\(reversed.standardOutput)\(reversed.standardError)")
        // So is the library's archive with its $objects reversed.
        let renumbered = try directory.file("renumbered.archive", Self.renumbered(libraryData))
        let reordered = try await Self.diff([foundation, renumbered])
        #expect(reordered.status == 0 && reordered.standardOutput.isEmpty, "\(reordered.standardOutput)\(reordered.standardError)")
    }

    @Test("A value changed deep in the graph is reported by its key path, exit 1")
    func deepChangeIsReportedByKeyPath() async throws {
        let directory = try TemporaryDirectory()
        let foundation = try directory.file("foundation.archive", Self.foundationArchive(Self.foundationTeam()))
        let changed = try directory.file("changed.archive", Self.libraryTeam(bo: "Bob"))

        let run = try await Self.diff([foundation, changed])
        #expect(run.status == 1)
        #expect(run.standardOutput == "root.friends[1].name: \"Bo\" != \"Bob\"\n")
        #expect(run.standardError.isEmpty)
    }

    @Test("A damaged file is an error naming it, exit 2, whichever side it is on")
    func damagedFileExitsTwo() async throws {
        let directory = try TemporaryDirectory()
        let data = try Self.libraryTeam()
        let good = try directory.file("good.archive", data)
        let truncated = try directory.file("truncated.archive", data.prefix(data.count - 10))

        for arguments in [[good, truncated], [truncated, good]] {
            let run = try await Self.diff(arguments)
            #expect(run.status == 2)
            #expect(run.standardOutput.isEmpty)
            #expect(run.standardError.hasPrefix("karchive: \(truncated): ArchiveError."), "\(run.standardError)")
        }
        let missing = try await Self.diff([good, directory.url.appending(path: "none").path])
        #expect(missing.status == 2)
        #expect(missing.standardError.hasSuffix("none: cannot open: No such file or directory\n"))
    }

    @Test("--plist compares two archives of one graph as the property lists they are, which differ")
    func plistOptionComparesThePropertyLists() async throws {
        let directory = try TemporaryDirectory()
        let data = try Self.libraryTeam()
        let original = try directory.file("original.archive", data)
        let renumbered = try directory.file("renumbered.archive", Self.renumbered(data))

        let graph = try await Self.diff([original, renumbered])
        #expect(graph.status == 0 && graph.standardOutput.isEmpty, "\(graph.standardOutput)\(graph.standardError)")
        let plain = try await Self.diff(["--plist", original, renumbered])
        #expect(plain.status == 1)
        #expect(plain.standardOutput.contains("$top.root: UID(1) != UID(\(try Self.objects(data).count - 1))\n"), "\(plain.standardOutput)")
        #expect(plain.standardOutput.contains("$objects[1]"))
    }

    @Test("A set's elements compare as a multiset, in whatever order each writer put them")
    func setsCompareWithoutOrder() async throws {
        let directory = try TemporaryDirectory()
        let foundation = try directory.file("foundation.archive", Self.foundationArchive(NSSet(array: ["a", "b", "c", "d", "e"])))
        let same = try directory.file("same.archive", KeyedArchiver.archivedData(withRootObject: Set(["e", "d", "c", "b", "a"])))
        let other = try directory.file("other.archive", KeyedArchiver.archivedData(withRootObject: Set(["a", "b", "c", "d", "f"])))

        let run = try await Self.diff([foundation, same])
        #expect(run.status == 0 && run.standardOutput.isEmpty, "\(run.standardOutput)\(run.standardError)")
        let changed = try await Self.diff([foundation, other])
        #expect(changed.status == 1)
        #expect(changed.standardOutput == "root: element string \"e\" only in A\nroot: element string \"f\" only in B\n")
    }

    final class Item: Archivable {
        var name = ""
        var next: Item?
        required init() {}

        init(_ name: String) { self.name = name }
    }

    final class Holder: Archivable {
        var a: Item?
        var b: Item?
        required init() {}
    }

    @Test("A cycle equals itself renumbered, and a changed cycle is reported once, by its path")
    func cyclesEndAndCompare() async throws {
        func ring(_ names: [String]) throws -> Data {
            let items = names.map(Item.init)
            for (index, item) in items.enumerated() { item.next = items[(index + 1) % items.count] }
            defer { for item in items { item.next = nil } }
            return try KeyedArchiver.archivedData(withRootObject: items[0])
        }
        let directory = try TemporaryDirectory()
        let abc = try directory.file("ring.archive", ring(["a", "b", "c"]))
        let abcRenumbered = try directory.file("ring-renumbered.archive", Self.renumbered(ring(["a", "b", "c"])))
        let abC = try directory.file("ring-changed.archive", ring(["a", "b", "C"]))
        let alone = try directory.file("self.archive", ring(["a"]))
        let aloneRenumbered = try directory.file("self-renumbered.archive", Self.renumbered(ring(["a"])))

        let same = try await Self.diff([abc, abcRenumbered])
        #expect(same.status == 0 && same.standardOutput.isEmpty, "\(same.standardOutput)\(same.standardError)")
        let selfReference = try await Self.diff([alone, aloneRenumbered])
        #expect(selfReference.status == 0 && selfReference.standardOutput.isEmpty, "\(selfReference.standardOutput)")
        let different = try await Self.diff([abc, abC])
        #expect(different.status == 1)
        #expect(different.standardOutput == "root.next.next.name: \"c\" != \"C\"\n")
        // A ring of three beside a ring of one: A's second object meets B's first again.
        let shorter = try await Self.diff([abc, alone])
        #expect(shorter.standardOutput == "root.next: shared with root in B, not in A\n", "\(shorter.standardOutput)")
    }

    @Test("One object in two places beside two equal copies is a difference of sharing")
    func sharingIsCompared() async throws {
        let shared = Holder()
        shared.a = Item("x")
        shared.b = shared.a
        let copies = Holder()
        copies.a = Item("x")
        copies.b = Item("x")
        let directory = try TemporaryDirectory()
        let sharedFile = try directory.file("shared.archive", KeyedArchiver.archivedData(withRootObject: shared))
        let copiesFile = try directory.file("copies.archive", KeyedArchiver.archivedData(withRootObject: copies))

        let run = try await Self.diff([sharedFile, copiesFile])
        #expect(run.status == 1)
        #expect(run.standardOutput == "root.b: shared with root.a in A, not in B\n")
        let reverse = try await Self.diff([copiesFile, sharedFile])
        #expect(reverse.standardOutput == "root.b: shared with root.a in B, not in A\n")
    }

    @Test("Classes are compared by name")
    func classNamesAreCompared() async throws {
        let holder = Holder()
        holder.a = Item("x")
        let renamed = KeyedArchiver()
        renamed.setClassName("Other", for: Item.self)
        try renamed.encode(holder, forKey: "root")
        let directory = try TemporaryDirectory()
        let original = try directory.file("original.archive", KeyedArchiver.archivedData(withRootObject: holder))
        let other = try directory.file("other.archive", renamed.encodedData)

        let run = try await Self.diff([original, other])
        #expect(run.status == 1)
        #expect(run.standardOutput == "root.a: class \(String(reflecting: Item.self)) != Other\n", "\(run.standardOutput)")
    }

    @Test("Plain property lists: XML and binary of one list are the same; types, keys and elements differ by path")
    func plainPropertyLists() async throws {
        let list: PlistValue = [
            // Whole seconds: XML dates have no fraction.
            "count": .int(3), "name": "Ann", "when": .date(86_400), "blob": .data([1, 2, 3]),
            "tags": ["a", "b"], "info": ["first name": "Ann", "ok": .bool(true)],
        ]
        let directory = try TemporaryDirectory()
        let binary = try directory.file("list.bplist", BPlistWriter().write(list))
        let xml = try directory.file("list.plist", XMLPlistWriter().write(list))
        let other: PlistValue = [
            "count": .real(3), "name": "Ann", "when": .date(86_401), "blob": .data([1, 2, 4]),
            "tags": ["a", "b", "c"], "info": ["first name": "Anne"], "extra": .int(1),
        ]
        let changed = try directory.file("changed.plist", XMLPlistWriter().write(other))

        let same = try await Self.diff([binary, xml])
        #expect(same.status == 0 && same.standardOutput.isEmpty, "\(same.standardOutput)\(same.standardError)")
        let run = try await Self.diff([binary, changed])
        #expect(run.status == 1)
        #expect(
            run.standardOutput == """
                blob: data (3 bytes) 010203 != data (3 bytes) 010204
                count: integer 3 != real 3.0
                extra: only in B
                info["first name"]: "Ann" != "Anne"
                info.ok: only in A
                tags[2]: only in B
                when: 2001-01-02T00:00:00Z != 2001-01-02T00:00:01Z

                """)
        let root = try await Self.diff([binary, KarchiveFixtures.path("Fixtures/foundation/k-string.archive"), "--plist"])
        #expect(root.status == 1)
        #expect(root.standardOutput.hasPrefix("$archiver: only in B\n"), "\(root.standardOutput)")
    }

    /// A keyed archive of `length` objects, each one's `next` the following one; the last
    /// one's `next` is `last` (nil, or a UID past `$objects` for a damaged file).
    static func chain(length: Int, last: PlistValue = .uid(0)) throws -> Data {
        let classRecord = UInt64(length + 1)
        var objects: [PlistValue] = ["$null"]
        for index in 1...length {
            objects.append(["$class": .uid(classRecord), "next": index == length ? last : .uid(UInt64(index + 1))])
        }
        objects.append(["$classname": "Link", "$classes": ["Link", "NSObject"]])
        let archive: PlistValue = [
            "$archiver": "NSKeyedArchiver", "$version": .int(100_000), "$top": ["root": .uid(1)], "$objects": .array(objects),
        ]
        return Data(try BPlistWriter().write(archive))
    }

    @Test("A dangling UID and nesting past 512 levels are errors (exit 2), not crashes")
    func damagedGraphsAreErrors() async throws {
        let directory = try TemporaryDirectory()
        let short = try directory.file("short.archive", Self.chain(length: 3))
        let dangling = try directory.file("dangling.archive", Self.chain(length: 3, last: .uid(99)))
        let long = try directory.file("long.archive", Self.chain(length: 600))

        let run = try await Self.diff([short, dangling])
        #expect(run.status == 2)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "karchive: \(dangling): root.next.next.next: UID(99) is past the 5 objects of $objects\n")
        let deep = try await Self.diff([long, long], timeLimit: 10)
        #expect(deep.status == 2)
        #expect(deep.standardError.hasSuffix(": nested deeper than 512 levels, past what diff compares\n"), "\(deep.standardError)")
    }

    @Test("At most 100 differences are printed, then a count of the rest")
    func differencesAreCapped() async throws {
        let directory = try TemporaryDirectory()
        let a = try directory.file("a.bplist", BPlistWriter().write(.array((0..<150).map { .int($0) })))
        let b = try directory.file("b.bplist", BPlistWriter().write(.array((0..<150).map { .int($0 + 1) })))
        let run = try await Self.diff([a, b])
        #expect(run.status == 1)
        let lines = run.standardOutput.split(separator: "\n")
        #expect(lines.count == 101)
        #expect(lines.first == "[0]: 0 != 1")
        #expect(lines.last == "… 50 more differences")
    }

    @Test(
        "Usage errors exit 2 with one usage line",
        arguments: [
            (["diff", "a"], "missing FILE B after 'diff a': 'diff' compares two files"),
            (["diff", "a", "b", "c"], "unexpected argument 'c': 'diff' takes exactly two FILEs, A and B"),
            (["diff", "-", "-"], "standard input (-) is named more than once; it can be read only once"),
            (["diff", "--pretty", "a", "b"], "'diff' does not take --pretty"),
        ] as [([String], String)])
    func usageErrorsExitTwo(arguments: [String], message: String) async throws {
        let run = try await KarchiveProcess.run(arguments)
        #expect(run.status == 2)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "karchive: \(message)\nusage: karchive diff [--plist] A B  (karchive --help for more)\n")
    }
}

extension TemporaryDirectory {
    /// Writes `bytes` to a file named `name` in the directory, and returns its path.
    fileprivate func file(_ name: String, _ bytes: some Sequence<UInt8>) throws -> String {
        let file = url.appending(path: name)
        try Data(bytes).write(to: file)
        return file.path
    }
}
#endif
