import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

// Decoding is a function of the bytes and the options alone. Swift seeds `Hasher` randomly in
// every process (unless SWIFT_DETERMINISTIC_HASHING is set), so a key type whose hash disagrees
// with its equality makes the same file decode one way in one process and another way (or trap)
// in the next. These tests decode a family of archives whose dictionaries and sets hold keys
// that are equal, or nearly so, only once decoded (`$null`, NSNull objects, `1` and `1.0`, ...)
// in several child processes, each with its own seed, and expect one outcome from all of them
// and from this process.

/// Builds a keyed archive object by object: `$objects[0]` is `$null`, and each class
/// description is added once.
struct KeyedObjectsBuilder {
    private(set) var objects: [PlistValue] = ["$null"]
    private var classes: [String: PlistValue] = [:]

    /// Appends an `$objects` entry and returns its UID.
    mutating func add(_ object: PlistValue) -> PlistValue {
        objects.append(object)
        return .uid(UInt64(objects.count - 1))
    }

    /// An object dictionary of class `name` with `fields`.
    mutating func object(_ name: String, supers: [String] = ["NSObject"], fields: PlistDictionary = [:]) -> PlistValue {
        var dict = fields
        if let known = classes[name] {
            dict["$class"] = known
        } else {
            let description = add(ZooArchive.classDescription(name, supers))
            classes[name] = description
            dict["$class"] = description
        }
        return add(.dict(dict))
    }

    /// A new `NSNull` object (each call makes another one).
    mutating func null() -> PlistValue { object("NSNull") }

    mutating func dictionary(_ pairs: [(key: PlistValue, value: PlistValue)]) -> PlistValue {
        object("NSDictionary", fields: ["NS.keys": .array(pairs.map(\.key)), "NS.objects": .array(pairs.map(\.value))])
    }

    mutating func set(_ elements: [PlistValue]) -> PlistValue { object("NSSet", fields: ["NS.objects": .array(elements)]) }

    mutating func array(_ elements: [PlistValue]) -> PlistValue { object("NSArray", fields: ["NS.objects": .array(elements)]) }

    mutating func date(_ seconds: Double) -> PlistValue { object("NSDate", fields: ["NS.time": .real(seconds)]) }

    mutating func url(_ relative: String, base: PlistValue = .uid(0)) -> PlistValue {
        let string = add(.string(relative))
        return object("NSURL", fields: ["NS.base": base, "NS.relative": string])
    }

    /// An `NSDecimalNumber` of `mantissa` × 10^`exponent` (a mantissa of one 16-bit word).
    mutating func decimal(_ mantissa: UInt16, exponent: Int64) -> PlistValue {
        var words = [UInt8](repeating: 0, count: 16)
        words[0] = UInt8(truncatingIfNeeded: mantissa)
        words[1] = UInt8(truncatingIfNeeded: mantissa >> 8)
        return object(
            "NSDecimalNumber", supers: ["NSNumber", "NSValue", "NSObject"],
            fields: [
                "NS.exponent": .int(exponent), "NS.length": .int(1), "NS.negative": .bool(false),
                "NS.compact": .bool(true), "NS.mantissa.bo": .int(1), "NS.mantissa": .data(words),
            ])
    }

    /// The archive with `root` under `$top`'s `root`.
    func archive(root: PlistValue) throws -> Data {
        try ZooArchive.archive(objects: objects, top: ["root": root])
    }
}

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow
@Suite("Hash seeds")
struct HashSeedTests {
    /// What decoding a file's root as `Any` must give.
    enum Outcome {
        /// The child's description of the decoded value (see `DecodedValueDescription`).
        case value(String)
        case error(ArchiveError.Code, reason: String, keyPath: String)
    }

    struct Case: CustomStringConvertible {
        let name: String
        let data: Data
        let outcome: Outcome
        var description: String { name }
    }

    static let child = ChildProcess.builtExecutable(named: "archive-store-crash-child", override: "ARCHIVE_STORE_CRASH_CHILD")

    /// Child processes per check; each draws its own hash seed.
    static let processes = 8

    static let regression = Fixtures.own("fuzz-regressions/null-key-hash-seed.archive")

    static func twice(_ key: String, at keyPath: String = "root") -> Outcome {
        .error(.invalidArchive, reason: "the dictionary has the key \(key) twice", keyPath: keyPath)
    }

    /// Archives whose root dictionary (or set) has the keys (elements) `make` returns, each
    /// key's value its position (1, 2, ...).
    static func keyed(_ name: String, _ outcome: Outcome, _ make: (inout KeyedObjectsBuilder) -> [PlistValue]) throws -> Case {
        var builder = KeyedObjectsBuilder()
        let keys = make(&builder)
        let values = keys.indices.map { builder.add(.int(Int64($0 + 1))) }
        let root = builder.dictionary(Array(zip(keys, values)))
        return Case(name: name, data: try builder.archive(root: root), outcome: outcome)
    }

    static func other(_ name: String, _ outcome: Outcome, _ make: (inout KeyedObjectsBuilder) -> PlistValue) throws -> Case {
        var builder = KeyedObjectsBuilder()
        let root = make(&builder)
        return Case(name: name, data: try builder.archive(root: root), outcome: outcome)
    }

    static func family() throws -> [Case] {
        let null = PlistValue.uid(0)
        return [
            Case(name: "null-key-hash-seed.archive", data: try Data(contentsOf: regression), outcome: twice("<null>", at: "root.data.banners[4]")),
            try keyed("null-uid-twice", twice("<null>")) { _ in [null, null] },
            try keyed("null-uid-and-nsnull", twice("<null>")) { [null, $0.null()] },
            try keyed("nsnull-and-null-uid", twice("<null>")) { [$0.null(), null] },
            try keyed("two-nsnull-objects", twice("<null>")) { [$0.null(), $0.null()] },
            try keyed("one-nsnull-object-twice", twice("<null>")) { b in
                let one = b.null()
                return [one, one]
            },
            try keyed("string-then-sixteen-nulls", twice("<null>")) { b in [b.add("a"), null] + (0..<15).map { _ in b.null() } },
            try keyed("null-and-string-$null", .value(#"any-keyed {"$null": int(2), null: int(1)}"#)) { [null, $0.add("$null")] },
            try keyed("string-and-null", .value(#"any-keyed {"a": int(1), null: int(2)}"#)) { [$0.add("a"), null] },
            try keyed("int-and-real", twice("1.0")) { [$0.add(.int(1)), $0.add(.real(1))] },
            try keyed("int-and-float", twice("1.0")) { [$0.add(.int(1)), $0.add(.float(1))] },
            try keyed("float-and-real", twice("1.5")) { [$0.add(.float(1.5)), $0.add(.real(1.5))] },
            try keyed("zero-and-negative-zero", twice("-0.0")) { [$0.add(.real(0)), $0.add(.real(-0.0))] },
            try keyed("int-and-bool", .value("any-keyed {int(1): int(1), true: int(2)}")) { [$0.add(.int(1)), $0.add(.bool(true))] },
            try keyed("int-and-string", .value(#"any-keyed {"1": int(2), int(1): int(1)}"#)) { [$0.add(.int(1)), $0.add("1")] },
            try keyed("uint-and-real", twice("9.223372036854776e+18")) {
                [$0.add(.uint(1 << 63)), $0.add(.real(9_223_372_036_854_775_808))]
            },
            try keyed("two-nans", .value("any-keyed {real(nan 0x7ff8000000000000): int(1), real(nan 0x7ff8000000000000): int(2)}")) {
                [$0.add(.real(.nan)), $0.add(.real(.nan))]
            },
            try keyed("precomposed-and-decomposed", twice("e\u{301}")) { [$0.add("\u{E9}"), $0.add("e\u{301}")] },
            try keyed("two-strings", .value(#"{"a": int(2), "b": int(1)}"#)) { [$0.add("b"), $0.add("a")] },
            try keyed("zero-dates", twice("2001-01-01 00:00:00 +0000")) { [$0.date(0), $0.date(-0.0)] },
            try keyed("equal-decimals", twice("1")) { [$0.decimal(1, exponent: 0), $0.decimal(10, exponent: -1)] },
            try keyed(
                "relative-and-absolute-urls",
                .value(#"any-keyed {url("b" relative to url("https://example.com/a/")): int(1), url("https://example.com/a/b"): int(2)}"#)
            ) { b in
                let base = b.url("https://example.com/a/")
                return [b.url("b", base: base), b.url("https://example.com/a/b")]
            },
            try keyed("sets-of-null", twice("[AnyHashable(<null>)]")) { b in [b.set([null]), b.set([b.null()])] },
            try keyed("array-key", .error(.typeMismatch, reason: "expected a hashable value, found an object", keyPath: "root.NS.keys[0]")) {
                [$0.array([$0.add(.int(1))])]
            },
            try other("set-of-nulls", .value("set[null]")) { b in b.set([null, b.null(), b.null(), null, b.null()]) },
            try other("set-of-equal-numbers", .value("set[int(1), true]")) { b in
                b.set([b.add(.int(1)), b.add(.real(1)), b.add(.bool(true)), b.add(.float(1))])
            },
            try other("nested-null-keys", twice("<null>", at: "root[1].inner")) { b in
                let inner = b.dictionary([(null, b.add(.int(1))), (b.null(), b.add(.int(2)))])
                let good = b.dictionary([(null, b.add("kept"))])
                return b.array([good, b.dictionary([(b.add("inner"), inner)])])
            },
            try other("null-keyed-values", .value(#"[any-keyed {null: "x"}, any-keyed {null: [null, null]}, set[null]]"#)) { b in
                let first = b.dictionary([(b.null(), b.add("x"))])
                let second = b.dictionary([(null, b.array([null, b.null()]))])
                return b.array([first, second, b.set([b.null(), null])])
            },
        ]
    }

    /// This process's environment without SWIFT_DETERMINISTIC_HASHING, so a child draws a random seed.
    static var childEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_DETERMINISTIC_HASHING"] = nil
        return environment
    }

    /// Runs the child `processes` times with `arguments`; returns each run's lines after its
    /// `seed` line, and checks that the runs did not all share one seed.
    static func runChildren(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String]] {
        let child = try #require(child, "archive-store-crash-child was not built next to the tests", sourceLocation: sourceLocation)
        var seeds: Set<String> = []
        var runs: [[String]] = []
        for _ in 0..<processes {
            let run = try ChildProcess.run(child, arguments, environment: childEnvironment)
            try #require(run.status == 0, "the child exited with \(run.status): \(run.error)", sourceLocation: sourceLocation)
            var lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last == "" { lines.removeLast() }
            let seed = try #require(lines.first, "the child printed nothing", sourceLocation: sourceLocation)
            try #require(seed.hasPrefix("seed "), "the child's first line is \(seed)", sourceLocation: sourceLocation)
            seeds.insert(seed)
            runs.append(Array(lines.dropFirst()))
        }
        // Without different seeds the comparison would prove nothing.
        #expect(seeds.count > 1, "every child had the hash seed \(seeds)", sourceLocation: sourceLocation)
        return runs
    }

    /// Expects every run to have printed exactly (byte for byte) the same lines as the first.
    static func expectOneOutcome(_ runs: [[String]], sourceLocation: SourceLocation = #_sourceLocation) {
        let first = runs[0]
        for (index, run) in runs.enumerated().dropFirst() {
            #expect(run.count == first.count, "child \(index) printed \(run.count) lines, child 0 \(first.count)", sourceLocation: sourceLocation)
            for (a, b) in zip(first, run) where !a.utf8.elementsEqual(b.utf8) {
                Issue.record("child 0 and child \(index) differ:\n  \(a)\n  \(b)", sourceLocation: sourceLocation)
            }
        }
    }

    static func writeFamily(to directory: URL) throws -> (cases: [Case], paths: [String]) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cases = try family()
        var paths: [String] = []
        for item in cases {
            let url = directory.appending(path: item.name)
            try item.data.write(to: url)
            paths.append(url.path)
        }
        return (cases, paths)
    }

    static func scratchDirectory() -> URL {
        FileManager.default.temporaryDirectory.appending(path: "hash-seeds-\(UUID().uuidString)")
    }

    /// The line the child prints for decoding `item` as `Any`, checked against its expected
    /// outcome in this process; nil (with an issue recorded) if this process disagrees.
    static func expectedLine(_ item: Case, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        switch item.outcome {
        case .value(let description):
            do {
                _ = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: item.data)
            } catch {
                Issue.record("\(item.name): expected \(description), got \(error)", sourceLocation: sourceLocation)
                return nil
            }
            return "\(item.name): \(description)"
        case .error(let code, let reason, let keyPath):
            guard let error = ZooArchive.decodeError(Any.self, from: item.data, sourceLocation: sourceLocation) else { return nil }
            guard error.code == code, error.reason == reason, error.keyPath == keyPath else {
                Issue.record("\(item.name): expected \(code) \(keyPath): \(reason), got \(error)", sourceLocation: sourceLocation)
                return nil
            }
            return "\(item.name): error \(error)"
        }
    }

    @Test("Every process decodes each archive of the family to the same value or the same error")
    func decodingIsTheSameInEveryProcess() throws {
        let directory = Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cases, paths) = try Self.writeFamily(to: directory)
        let runs = try Self.runChildren(["decode"] + paths)
        Self.expectOneOutcome(runs)
        #expect(runs[0].count == cases.count)
        for (item, line) in zip(cases, runs[0]) {
            guard let expected = Self.expectedLine(item) else { continue }
            #expect(line.utf8.elementsEqual(expected.utf8), "\(item.name):\n  child: \(line)\n  expected: \(expected)")
        }
    }

    /// A printed error without its place in the file (`(at byte …, object #…)`), which moves when
    /// `ArchiveFile` writes the objects again.
    static func withoutPlace(_ line: String) -> String {
        guard line.contains(": error "), let open = line.range(of: " (at byte ", options: .backwards) else { return line }
        return String(line[..<open.lowerBound])
    }

    @Test("Every process rewrites each archive with ArchiveFile to one that reads back as the original did")
    func rewritingIsTheSameInEveryProcess() throws {
        let directory = Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cases, paths) = try Self.writeFamily(to: directory.appending(path: "in"))
        let output = directory.appending(path: "out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let runs = try Self.runChildren(["rewrite", output.path] + paths)
        Self.expectOneOutcome(runs)
        let lines = runs[0]
        for item in cases {
            let own = lines.filter { $0.hasPrefix(item.name + " ") }
            let expected = try #require(Self.expectedLine(item)).dropFirst(item.name.count + 2)
            #expect(own.first == "\(item.name) keys: [\"root\"]", "\(own)")
            #expect(own.contains("\(item.name) before root: \(expected)"), "\(own)")
            #expect(own.contains("\(item.name) rewritten keys: [\"root\", \"added\"]"), "\(own)")
            #expect(own.contains("\(item.name) after added: {\"added\": int(1)}"), "\(own)")
            // The kept key reads back as it read before (an error's place in the file aside).
            let before = own.first { $0.hasPrefix("\(item.name) before root: ") }.map(Self.withoutPlace)
            let after = own.first { $0.hasPrefix("\(item.name) after root: ") }.map(Self.withoutPlace)
            let same = before.map { $0.replacingOccurrences(of: " before root: ", with: " after root: ") }
            #expect(after != nil && same.map { Array($0.utf8) } == after.map { Array($0.utf8) }, "\(own)")
        }
    }

    @Test("Typed NSNull keys and elements: every null is one value, so the outcome is the same in every run")
    func typedNullCollections() throws {
        var builder = KeyedObjectsBuilder()
        let nulls = (0..<8).map { _ in builder.null() }
        let set = builder.set(nulls)
        let setArchive = try builder.archive(root: set)
        let decodedSet = try KeyedUnarchiver.unarchivedObject(ofType: Set<NSNull>.self, from: setArchive)
        #expect(decodedSet.count == 1)
        let anySet = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: setArchive) as? Set<AnyHashable>)
        #expect(anySet.count == 1)
        // Decoded nulls compare and hash as one value wherever they come from.
        let list = builder.array(nulls)
        let lists = try KeyedUnarchiver.unarchivedObject(ofType: [AnyHashable].self, from: try builder.archive(root: list))
        #expect(Set(lists).count == 1)
        #expect(Set(lists.map(\.hashValue)).count == 1)

        var keyed = KeyedObjectsBuilder()
        let keys = (0..<8).map { _ in keyed.null() }
        let values = keys.indices.map { keyed.add(.int(Int64($0))) }
        let root = keyed.dictionary(Array(zip(keys, values)))
        let dictionary = try keyed.archive(root: root)
        let error = try #require(ZooArchive.decodeError([NSNull: Int].self, from: dictionary))
        #expect(error.code == .invalidArchive && error.reason == "the dictionary has the key <null> twice", "\(error)")
    }
}
#endif

@Suite("Null keys when archiving")
struct NullKeyArchivingTests {
    @Test("A dictionary whose keys would decode as one null is refused when archived, with the decoder's error")
    func twoNullKeysAreRefused() throws {
        var keys: [AnyHashable: Any] = [AnyHashable(Int?.none): 1, AnyHashable(String?.none): 2, "a": 3]
        #expect(keys.count == 3, "nil optionals of two types are two keys before archiving")
        let error = try #require(ZooArchive.encodeError(keys))
        #expect(error.code == .invalidArchive && error.reason == "the dictionary has the key <null> twice", "\(error)")
        keys = [AnyHashable(NSNull()): 1, AnyHashable(Int??.some(nil)): 2]
        let mixed = try #require(ZooArchive.encodeError(keys))
        #expect(mixed.code == .invalidArchive && mixed.reason == error.reason, "\(mixed)")
        // Inside a field of `Any`, the key path says where.
        let nested = try #require(ZooArchive.encodeError(["outer": [keys] as [Any]] as [String: Any]))
        #expect(nested.code == .invalidArchive && nested.keyPath == "root.outer[0]", "\(nested)")
    }

    @Test("One null key among others archives and decodes back as NSNull")
    func oneNullKeyRoundTrips() throws {
        let keys: [AnyHashable: Any] = [AnyHashable(Int?.none): 1, "a": 2, AnyHashable(Int?.some(3)): 4]
        let back = try #require(try ZooArchive.roundTrip(keys as Any) as? [AnyHashable: Any])
        #expect(back.count == 3)
        #expect(back[AnyHashable(try ZooArchive.roundTrip(NSNull() as Any) as! NSNull)] as? Int == 1)
        #expect(back["a"] as? Int == 2)
        #expect(back[3] as? Int == 4)
    }
}
