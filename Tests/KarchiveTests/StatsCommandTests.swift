import Foundation
import TestSupport
import Testing

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

@Suite("karchive stats")
struct StatsCommandTests {
    /// The `label: value` rows of a stats report, labels without their indentation.
    private func rows(_ report: String) -> [String: String] {
        var rows: [String: String] = [:]
        for line in report.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let label = line[..<colon].trimmingCharacters(in: .whitespaces)
            rows[label] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return rows
    }

    /// The `count  class name` rows after `instances per class:`.
    private func classCounts(_ report: String) -> [String: Int] {
        guard let start = report.range(of: "instances per class:\n") else { return [:] }
        var counts: [String: Int] = [:]
        for line in report[start.upperBound...].split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let count = Int(parts[0]) else { continue }
            counts[parts[1]] = count
        }
        return counts
    }

    @Test func sharedPeopleAreCountedPerClass() async throws {
        let run = try await KarchiveProcess.run(["stats", KarchiveFixtures.path("Fixtures/foundation/k-people-shared.archive")])
        #expect(run.status == 0, "\(run.standardError)")
        let report = rows(run.standardOutput)
        #expect(report["file size"] == "1461 bytes")
        #expect(report["keyed archive"] == "NSKeyedArchiver 100000")
        #expect(report["top keys"] == "root")
        #expect(report["$objects"] == "31 entries")
        #expect(report["top object"] == "#0")
        let classes = classCounts(run.standardOutput)
        #expect(classes["keyedgen.Person"] == 2)
        #expect(classes["keyedgen.Address"] == 2)
        #expect(classes["NSArray"] == 3)
        #expect(classes["NSUUID"] == 2)
        #expect(report["instances"] == String(classes.values.reduce(0, +)))
        #expect(report["class records"] == "5")
    }

    @Test func personReportIsExact() async throws {
        let run = try await KarchiveProcess.run(["stats", KarchiveFixtures.path("Fixtures/foundation/k-person.archive")])
        #expect(
            run.standardOutput == """
                file size:             1113 bytes
                objects:               118
                  bool:                1
                  int:                 2
                  real:                2
                  data:                2
                  string (ASCII):      68
                  UID:                 21
                  array:               8
                  dict:                14
                top object:            #0
                reference width:       1 byte
                offset width:          2 bytes
                max depth:             4
                shared objects:        0 (0 containers)
                unreachable objects:   0
                keyed archive:         NSKeyedArchiver 100000
                  top keys:            root
                  $objects:            21 entries
                    instances:         6
                    class records:     6
                    other values:      9
                  instances per class:
                    1  NSArray
                    1  NSDate
                    1  NSURL
                    1  NSUUID
                    1  keyedgen.Address
                    1  keyedgen.Person

                """)
    }

    @Test(.needsPeerFixtures("bplist/valid/dag.bplist"))
    func sharedContainersAndDepthOfADAG() async throws {
        // dag.bplist: [A, A, "shared"] where A = ["shared"]: the array A and the string are shared.
        let run = try await KarchiveProcess.run(["stats", KarchiveFixtures.path("bplist/valid/dag.bplist")])
        let report = rows(run.standardOutput)
        #expect(report["objects"] == "3")
        #expect(report["shared objects"] == "2 (1 container)")
        #expect(report["max depth"] == "2")
        #expect(report["top object"] == "#2")
        #expect(report["keyed archive"] == "no")
        #expect(!run.standardOutput.contains("instances per class"))
    }

    @Test(
        "reference and offset widths come from the trailer", .needsPeerFixtures("bplist/valid and peers/libplist"),
        arguments: [
            ("bplist/valid/many-objects.bplist", "4 bytes", "4 bytes"),
            ("peers/libplist/dictref3bytes.bplist", "3 bytes", nil),
            ("peers/libplist/off8bytes.bplist", nil, "8 bytes"),
            ("bplist/valid/null.bplist", "1 byte", "1 byte"),
        ] as [(String, String?, String?)])
    func widths(file: String, referenceWidth: String?, offsetWidth: String?) async throws {
        let run = try await KarchiveProcess.run(["stats", KarchiveFixtures.path(file)])
        #expect(run.status == 0, "\(run.standardError)")
        let report = rows(run.standardOutput)
        if let referenceWidth { #expect(report["reference width"] == referenceWidth) }
        if let offsetWidth { #expect(report["offset width"] == offsetWidth) }
    }

    @Test(.needsPeerFixtures("bplist/valid/many-objects.bplist"))
    func manyObjectsAreCountedPerKind() async throws {
        let run = try await KarchiveProcess.run(["stats", KarchiveFixtures.path("bplist/valid/many-objects.bplist")])
        let report = rows(run.standardOutput)
        #expect(report["objects"] == "70001")
        #expect(report["string (ASCII)"] == "70000")
        #expect(report["array"] == "1")
        #expect(report["max depth"] == "1")
    }

    @Test func unreachableAndUnreadableObjectsAreCountedNotFatal() async throws {
        // Three objects: #0 false (the top), #1 true and #2 marker 0x70 (no such type), both unreachable.
        var bytes = Array("bplist00".utf8) + [0x08, 0x09, 0x70]
        bytes += [8, 9, 10]  // offset table at byte 11
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += [0, 0, 0, 0, 0, 0, 0, 3]  // objects
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]  // top
        bytes += [0, 0, 0, 0, 0, 0, 0, 11]  // offset table position
        let directory = try TemporaryDirectory()
        let file = directory.url.appending(path: "unreachable.bplist")
        try Data(bytes).write(to: file)

        let validate = try await KarchiveProcess.run(["validate", file.path])
        #expect(validate.standardOutput == "\(file.path): valid (binary property list)\n", "\(validate.standardError)")
        let run = try await KarchiveProcess.run(["stats", file.path])
        #expect(run.status == 0, "\(run.standardError)")
        let report = rows(run.standardOutput)
        #expect(report["objects"] == "3")
        #expect(report["bool"] == "2")
        #expect(report["unreadable"] == "1")
        #expect(report["unreachable objects"] == "2")
        #expect(report["max depth"] == "0")
    }

    @Test func largeArchiveStatsCountEveryPerson() async throws {
        let run = try await KarchiveProcess.run(["stats", KarchiveFixtures.path("Fixtures/foundation/k-team-large.archive")])
        #expect(run.status == 0, "\(run.standardError)")
        let classes = classCounts(run.standardOutput)
        #expect(classes["keyedgen.Person"] == 2000)
        #expect(classes["keyedgen.Team"] == 1)
    }
}
#endif
