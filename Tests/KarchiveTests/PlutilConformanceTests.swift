#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import PropertyList
import TestSupport
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

/// karchive's `plutil` spellings against the toolchain's own `plutil` (swift-corelibs-foundation),
/// on every fixture of this package: the same standard output and exit status, except for the
/// deliberate differences of `Docs/karchive-plutil.md`, each named in ``Difference`` with the
/// check that recognises it. A difference no rule explains fails the test.
@Suite("karchive: plutil's spellings against plutil")
struct PlutilConformanceTests {
    /// The toolchain's `plutil`: on `PATH`, or beside `swift`.
    static let plutil: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appending(path: "plutil")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }()

    /// The deliberate differences (Docs/karchive-plutil.md), each with what it looks like.
    enum Difference: String, CaseIterable {
        /// plutil refuses values holding UIDs ("Dictionaries are required to have string keys"),
        /// and prints them in `-p` as memory addresses; karchive writes and prints them.
        case uidsAreValues
        /// `-p` data: karchive prints two hex digits a byte.
        case dataBytesInPrint
        /// Compact JSON: plutil's keys come in hash order; karchive sorts them.
        case jsonKeyOrder
        /// `binary1`: the same values in karchive's object order.
        case binaryObjectOrder
        /// karchive's strict reader accepts a UID wider than 4 bytes, which CF refuses.
        case wideUIDAccepted
        /// Dates plutil's `Date.description` cannot print (`<description unavailable>`).
        case dateDescription
        /// `-0.0` in XML: plutil writes `0.0`.
        case negativeZeroInXML
        /// JSON numbers with more digits than a double holds: Foundation reads them as decimal
        /// numbers, karchive as reals (the same double).
        case jsonDecimalNumbers
    }

    /// Every property list among the fixtures: binary, XML and their plist-json twins (plain JSON to plutil).
    static let fixtures: [String] = {
        let root = Fixtures.packageRoot.appending(path: "Fixtures")
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var files: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            if ["bplist", "plist", "archive", "json"].contains(url.pathExtension) { files.append(url.path) }
        }
        return files.sorted()
    }()

    struct Run: Equatable {
        let status: Int32
        let output: Data
        let error: String
    }

    /// Runs a program to completion with `posix_spawn` (far cheaper than `Process` for the
    /// thousands of short runs here), its output going to temporary files.
    static func run(_ executable: URL, _ arguments: [String]) throws -> Run {
        let scratch = FileManager.default.temporaryDirectory.appending(path: "plutil-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outPath = scratch.appending(path: "stdout").path
        let errPath = scratch.appending(path: "stderr").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSDebugDescriptionErrorKey: "posix_spawn failed: \(spawned)"]) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // Exited normally: the status; killed: 128 + the signal, as a shell reports it.
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Run(
            status: exitStatus, output: try Data(contentsOf: URL(fileURLWithPath: outPath)),
            error: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
    }

    /// A key path into `value` that leads somewhere: its first key (or index 0), and one level deeper.
    static func keyPath(in value: PlistValue) -> String {
        switch value {
        case .dict(let dict):
            guard let key = dict.keys.sorted().first(where: { !$0.contains(".") }) else { return "missing" }
            if case .dict(let inner)? = dict[key], let next = inner.keys.sorted().first(where: { !$0.contains(".") }) { return key + "." + next }
            if case .array(let inner)? = dict[key], !inner.isEmpty { return key + ".0" }
            return key
        case .array(let elements): return elements.isEmpty ? "0" : "0"
        default: return "missing"
        }
    }

    static func containsUID(_ value: PlistValue) -> Bool {
        switch value {
        case .uid: return true
        case .array(let elements), .set(let elements): return elements.contains(where: containsUID)
        case .dict(let dict): return dict.values.contains(where: containsUID)
        default: return false
        }
    }

    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// Which listed difference explains `ours` differing from `theirs`, or nil when none does.
    static func explanation(_ arguments: [String], value: PlistValue?, theirs: Run, ours: Run) -> Difference? {
        let file = arguments.last ?? ""
        if file.hasSuffix("archivefile-top-uid-beyond-int-max.archive"), theirs.status != 0, ours.status == 0 { return .wideUIDAccepted }
        let uidRefusal = "Dictionaries are required to have string keys in property lists"
        if theirs.status == 1, theirs.error.contains(uidRefusal), ours.status == 0, let value, containsUID(value) { return .uidsAreValues }
        if arguments.first == "-p", theirs.status == ours.status {
            func normalised(_ run: Run, _ patterns: [(String, String)]) -> String {
                patterns.reduce(text(run.output)) { text, rule in text.replacingOccurrences(of: rule.0, with: rule.1, options: .regularExpression) }
            }
            let data = [(#"bytes = 0x[^}]*\}"#, "bytes = …}")]
            if normalised(theirs, data) == normalised(ours, data) { return .dataBytesInPrint }
            let uids = [(#"<_NSKeyedArchiverUID: 0x[0-9a-f]+>"#, "<UID>"), (#"<UID [0-9]+>"#, "<UID>")]
            if normalised(theirs, uids + data) == normalised(ours, uids + data) { return .uidsAreValues }
            let dates = [(#"=> .*(<description unavailable>|[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} \+0000)"#, "=> <date>")]
            if normalised(theirs, uids + data + dates) == normalised(ours, uids + data + dates) { return .dateDescription }
        }
        if !arguments.contains("-r"), theirs.status == 0, ours.status == 0,
            let a = try? JSONSerialization.jsonObject(with: theirs.output, options: [.fragmentsAllowed]) as? NSObject,
            let b = try? JSONSerialization.jsonObject(with: ours.output, options: [.fragmentsAllowed]) as? NSObject, a == b
        {
            return .jsonKeyOrder
        }
        if theirs.status == 0, ours.status == 0,
            text(ours.output).replacingOccurrences(of: "<real>-0.0</real>", with: "<real>0.0</real>") == text(theirs.output)
        {
            return .negativeZeroInXML
        }
        if file.hasSuffix(".json"), arguments.first == "-p", theirs.status == 0, ours.status == 0 {
            let a = text(theirs.output).split(separator: "\n")
            let b = text(ours.output).split(separator: "\n")
            func number(_ line: Substring) -> Double? { line.components(separatedBy: "=> ").last.flatMap(Double.init) }
            if a.count == b.count, zip(a, b).allSatisfy({ $0 == $1 || (number($0) != nil && number($0) == number($1)) }) { return .jsonDecimalNumbers }
        }
        if theirs.output.starts(with: Data("bplist00".utf8)), ours.output.starts(with: Data("bplist00".utf8)), theirs.status == 0, ours.status == 0,
            let a = try? PlistReader().read(Array(theirs.output)), let b = try? PlistReader().read(Array(ours.output)), a == b
        {
            return .binaryObjectOrder
        }
        return nil
    }

    /// Runs plutil and karchive on each argument list, a few lists at a time.
    static func runBoth(_ argumentLists: [[String]], plutil: URL, karchive: URL) async throws -> [(theirs: Run, ours: Run)] {
        try await withThrowingTaskGroup(of: (Int, Run, Run).self) { group in
            var collected: [(Int, Run, Run)] = []
            var next = 0
            func start() {
                let index = next
                let arguments = argumentLists[index]
                group.addTask { (index, try run(plutil, arguments), try run(karchive, arguments)) }
                next += 1
            }
            // A few at a time: the machine's cores are shared.
            while next < min(4, argumentLists.count) { start() }
            for try await result in group {
                collected.append(result)
                if next < argumentLists.count { start() }
            }
            return collected.sorted { $0.0 < $1.0 }.map { ($0.1, $0.2) }
        }
    }

    /// Runs both on every case and tallies identical results and explained differences.
    ///
    /// Cases that differ only by their file (the last argument) and whose files share a folder
    /// are first run together, all files on one command line (each verb takes several); when the
    /// two tools agree on the whole batch, every case in it is identical, else each is run alone.
    static func compare(_ cases: [(arguments: [String], value: PlistValue?)], plutil: URL, karchive: URL) async throws
        -> (identical: Int, explained: [Difference: Int], unexplained: [String])
    {
        var groups: [[Int]] = []
        var groupOf: [String: Int] = [:]
        for (index, item) in cases.enumerated() {
            let file = item.arguments.last ?? ""
            let folder = file.split(separator: "/").dropLast().joined(separator: "/")
            let key = item.arguments.dropLast().joined(separator: "\u{0}") + "\u{1}" + folder
            if file.hasPrefix("/"), let group = groupOf[key] {
                groups[group].append(index)
            } else {
                groupOf[key] = groups.count
                groups.append([index])
            }
        }
        let batches = groups.filter { $0.count > 1 }
        let batchResults = try await runBoth(
            batches.map { group in Array(cases[group[0]].arguments.dropLast()) + group.map { cases[$0].arguments.last ?? "" } },
            plutil: plutil, karchive: karchive)
        var identical = 0
        var alone: [Int] = groups.filter { $0.count == 1 }.flatMap { $0 }
        for (group, result) in zip(batches, batchResults) {
            if result.theirs.status == result.ours.status, result.theirs.output == result.ours.output {
                identical += group.count
            } else {
                alone += group
            }
        }
        alone.sort()
        let results = try await runBoth(alone.map { cases[$0].arguments }, plutil: plutil, karchive: karchive)
        var explained: [Difference: Int] = [:]
        var unexplained: [String] = []
        for (index, (theirs, ours)) in zip(alone, results) {
            let item = cases[index]
            if theirs.status == ours.status, theirs.output == ours.output {
                identical += 1
            } else if let difference = explanation(item.arguments, value: item.value, theirs: theirs, ours: ours) {
                explained[difference, default: 0] += 1
            } else {
                unexplained.append(
                    "\(item.arguments.joined(separator: " ")): plutil \(theirs.status) \(text(theirs.output).prefix(300).debugDescription) \(theirs.error.prefix(200).debugDescription) / karchive \(ours.status) \(text(ours.output).prefix(300).debugDescription) \(ours.error.prefix(200).debugDescription)"
                )
            }
        }
        return (identical, explained, unexplained)
    }

    @Test("Every verb and format on every fixture: plutil's output and exit status, or a listed difference")
    func everyFixture() async throws {
        guard let plutil = Self.plutil else {
            print("PlutilConformanceTests: skipped, no plutil on PATH (it ships with the Swift toolchain on Linux)")
            return
        }
        let karchive = try #require(KarchiveProcess.executable, "karchive was not built next to the tests")
        var cases: [(arguments: [String], value: PlistValue?)] = []
        for file in Self.fixtures {
            let value = try? PlistReader().read(try Fixtures.bytes(at: URL(fileURLWithPath: file)))
            let isJSON = file.hasSuffix(".json")
            cases.append((["-lint", file], value))
            cases.append((["-p", file], value))
            for format in isJSON ? ["xml1", "json"] : ["xml1", "binary1", "json", "swift", "objc"] {
                cases.append((["-convert", format, "-o", "-", file], value))
            }
            if isJSON { continue }
            cases.append((["-convert", "json", "-r", "-o", "-", file], value))
            let path = value.map(Self.keyPath(in:)) ?? "missing"
            let found = value.flatMap { plistValue(at: path, in: $0) }
            cases.append((["-type", path, file], found))
            cases.append((["-extract", path, "raw", "-n", file], found))
            cases.append((["-extract", path, "xml1", "-o", "-", file], found))
        }
        let (identical, explained, unexplained) = try await Self.compare(cases, plutil: plutil, karchive: karchive)
        print("PlutilConformanceTests: \(cases.count) runs on \(Self.fixtures.count) fixtures: \(identical) identical; differences: \(explained.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", "))")
        #expect(unexplained.isEmpty, "\(unexplained.count) unexplained:\n\(unexplained.prefix(20).joined(separator: "\n"))")
        #expect(identical > cases.count / 2, "most runs must match plutil byte for byte")
    }

    /// The value at a plain key path (as plutil's `-extract` finds it).
    func plistValue(at path: String, in value: PlistValue) -> PlistValue? {
        var current = value
        for key in path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            switch current {
            case .dict(let dict): guard let next = dict[key] else { return nil }; current = next
            case .array(let elements): guard let index = Int(key), elements.indices.contains(index) else { return nil }; current = elements[index]
            default: return nil
            }
        }
        return current
    }

    /// A small plist with one value of every kind, for the editing verbs.
    static let editable: PlistValue = [
        "name": "Ann", "age": 34, "score": 97.5, "admin": false, "tags": ["a", "b"], "friends": [["name": "Bo"], ["name": "Cy"]],
        "when": .date(700_000_000), "blob": .data([0, 1, 0x0A, 0xFF]), "empty": .dict([:]),
    ]

    @Test("Editing verbs, -create and argument errors: plutil's output, exit status and (for errors) message")
    func editingAndErrors() async throws {
        guard let plutil = Self.plutil else {
            print("PlutilConformanceTests: skipped, no plutil on PATH (it ships with the Swift toolchain on Linux)")
            return
        }
        let karchive = try #require(KarchiveProcess.executable)
        let directory = try TemporaryDirectory()
        let xml = directory.url.appending(path: "edit.plist").path
        let binary = directory.url.appending(path: "edit.bplist").path
        let json = directory.url.appending(path: "edit.json").path
        try Data(try XMLPlistWriter().write(Self.editable)).write(to: URL(fileURLWithPath: xml))
        try Data(try BPlistWriter().write(Self.editable)).write(to: URL(fileURLWithPath: binary))
        try Data(#"{"name":"Ann","tags":["a","b"],"n":{"x":1.5}}"#.utf8).write(to: URL(fileURLWithPath: json))

        let edits: [[String]] = [
            ["-insert", "new", "-bool", "YES"], ["-insert", "new", "-bool", "nope"], ["-insert", "new", "-integer", "-42x"],
            ["-insert", "new", "-float", "2.5e3"], ["-insert", "new", "-string", "hi \"there\""],
            ["-insert", "new", "-date", "2024-05-06T07:08:09Z"], ["-insert", "new", "-data", "AAEK/w=="],
            ["-insert", "new", "-xml", "<array><integer>1</integer><string>x</string></array>"],
            ["-insert", "new", "-json", #"{"a":[1,2.5,true,"s"],"b":{}}"#], ["-insert", "new", "-array"], ["-insert", "new", "-dictionary"],
            ["-insert", "tags", "-string", "c", "-append"], ["-insert", "tags.0", "-string", "first"], ["-insert", "tags.2", "-string", "end"],
            ["-insert", "friends.1.age", "-integer", "9"], ["-replace", "name", "-string", "Anne"], ["-replace", "friends.0.name", "-string", "Bob"],
            ["-replace", "empty", "-json", "[1]"], ["-remove", "tags.0"], ["-remove", "friends"], ["-remove", "empty"],
            // Failures: message and status.
            ["-insert", "name", "-string", "x"], ["-insert", "tags.7", "-string", "x"], ["-insert", "tags.x", "-string", "x"],
            ["-insert", "name.x", "-string", "x"], ["-insert", "no.such", "-string", "x"], ["-insert", "name", "-integer", "1", "-append"],
            ["-remove", "no.such"], ["-remove", "tags.5"], ["-insert", "x", "-data", "!!!"], ["-insert", "x", "-json", "{"],
            ["-insert", "x", "-bogus", "1"], ["-insert", "x"], ["-remove"],
        ]
        var cases: [(arguments: [String], value: PlistValue?)] = []
        for file in [xml, binary, json] {
            for edit in edits { cases.append((edit + ["-o", "-", file], nil)) }
            for edit in edits.prefix(3) { cases.append((edit + ["-r", "-o", "-", file], nil)) }
            cases.append((["-extract", "tags", "raw", file], nil))
            cases.append((["-extract", "name", "raw", "-expect", "integer", file], nil))
            cases.append((["-extract", "nothing", "json", file], nil))
            cases.append((["-type", "tags.1", "-n", file], nil))
        }
        for format in ["xml1", "binary1", "json", "swift", "objc", "raw", "type"] {
            cases.append((["-create", format, "-"], nil))
            cases.append((["-create", format, "-r", "-n", "-"], nil))
        }
        let argumentErrors: [[String]] = [
            ["-convert"], ["-convert", "yaml", xml], ["-p", "-o", "x", xml], ["-p", "-e", "x", xml], ["-lint", "-o", "x", xml],
            ["-lint", "-q", xml], ["-lint"], ["-extract", "a"], ["-extract", "a", "json", "-expect", "thing", xml], ["-type"],
            ["-convert", "xml1", "-header", xml], ["-create"], ["-lint", "-s", xml, "/no/such/file"], ["-p", "-s", xml],
        ]
        for arguments in argumentErrors { cases.append((arguments, nil)) }

        let (identical, explained, unexplained) = try await Self.compare(cases, plutil: plutil, karchive: karchive)
        print("PlutilConformanceTests: \(cases.count) editing, -create and error runs: \(identical) identical; differences: \(explained.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", "))")
        #expect(unexplained.isEmpty, "\(unexplained.count) unexplained:\n\(unexplained.prefix(20).joined(separator: "\n"))")

        // Errors: the same message as well (the file name differs only by the directory, which is the same).
        for arguments in argumentErrors.dropLast(2) + [["-insert", "name", "-string", "x", xml], ["-remove", "no.such", xml], ["-insert", "tags.7", "-string", "x", xml]] {
            let theirs = try Self.run(plutil, arguments)
            let ours = try Self.run(karchive, arguments)
            #expect(ours.status == theirs.status && ours.error == theirs.error, "\(arguments): \(theirs.error.debugDescription) / \(ours.error.debugDescription)")
        }
    }
}
#endif
