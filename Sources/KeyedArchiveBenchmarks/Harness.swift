// Unsafe code in this file: glibc's `malloc_trim`, found with `dlsym`, is cast to its C signature, `int (size_t)`.

import ArchiveFileSystem
import KeyedArchive
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A small benchmark harness: peers are timed side by side, round by round, so that the
// ratios between them hold on a noisy machine even when absolute times drift.

/// One way of doing an operation, timed against its peers.
struct Contender {
    /// Short identifier used by `--only` (`ours`, `serialization`, `codable`).
    let id: String
    /// Name printed in the table.
    let name: String
    /// A deep check of one result against the expected value, run once before timing.
    /// Throws ``BenchmarkFailure`` when the result is wrong, so a failure is never timed.
    let verify: () throws -> Void
    /// The timed operation. Returns a cheap fingerprint of its result (an element or byte
    /// count); every timed run must return the fingerprint of the first run.
    let run: () throws -> Int
    /// The size of what this contender writes (or reads), in bytes, for the table; nil if none.
    var outputBytes: Int? = nil
    /// A slow contender (a quadratic peer at a large N) skips the warm-up and is timed only in
    /// the first `--slow-rounds` timed rounds; its ratios are taken over those rounds.
    var isSlow = false
}

/// A contender that was not timed, and why (for example a quadratic peer at a large N).
struct SkippedContender: Codable {
    let id: String
    let name: String
    let reason: String
}

/// A floor on "peer time / our time" that the project aims for.
struct Goal: Sendable {
    let peerID: String
    let minimumRatio: Double
}

/// One operation of one workload, done by several contenders. The first contender is ours
/// and is the baseline of every ratio.
struct Comparison {
    let workload: String
    let operation: String
    /// The size of the document in bytes (our `bplist00` encoding), the basis of MB/s.
    let documentBytes: Int
    let contenders: [Contender]
    let goals: [Goal]
    /// Contenders left out of this comparison, reported in the table and the JSON.
    var skipped: [SkippedContender] = []
    /// How many items (users, records) one run handles, for the items/s column; nil if not counted.
    var itemCount: Int? = nil
    /// What an item is, for the column header ("users").
    var itemName = "items"

    var label: String { "\(workload)/\(operation)" }
}

/// A named workload whose inputs are built only when it is selected.
struct Workload {
    let name: String
    let summary: String
    let operations: [String]
    /// Builds the inputs.
    let prepare: () throws -> PreparedWorkload
}

/// A workload's comparisons, and facts about its inputs for the report (sizes, object
/// counts), computed only when a report is printed, after its comparisons ran.
struct PreparedWorkload {
    let comparisons: [Comparison]
    let facts: () throws -> [String: String]
}

/// A benchmark result that is wrong, or a bad command line.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Settings

/// What the command line asked for.
struct BenchmarkSettings {
    var rounds = 15
    var warmUpRounds = 2
    var json = false
    /// Also write the JSON report to this file (the table still goes to stdout).
    var jsonFile: String?
    /// `CONTENDER-OPERATION`, such as `ours-read`: run that one contender once per selected
    /// comparison, untimed by the harness, for profilers such as callgrind.
    var only: (contender: String, operation: String)?
    /// Substrings of `workload/operation`; empty selects everything.
    var filters: [String] = []
    var listOnly = false
    var helpOnly = false
    /// Timed rounds of a slow contender (one marked `isSlow`) at most.
    var slowRounds = 3

    static let usage = """
        usage: KeyedArchiveBenchmarks [options] [FILTER...]
          FILTER            run only comparisons whose "workload/operation" contains it (e.g. plist-A, read)
          --quick           fewer rounds (1 warm-up, 5 timed)
          --rounds N        timed rounds (default 15)
          --warmup N        untimed warm-up rounds (default 2)
          --slow-rounds N   timed rounds of slow peers such as NSKeyedArchiver at N=10,000 (default 3)
          --json            print the results as JSON on stdout (progress goes to stderr)
          --json-file PATH  also write the JSON results to PATH (the table still goes to stdout)
          --only ID-OP      run one contender once after the warm-up runs, e.g. --only ours-read, --only ours-encode
                            (for profilers: valgrind --tool=callgrind --toggle-collect='*runMarked*')
          --list            list the workloads and exit
        """

    static func parse(_ arguments: some Sequence<String>) throws -> BenchmarkSettings {
        var settings = BenchmarkSettings()
        var iterator = arguments.makeIterator()
        func number(after flag: String) throws -> Int {
            guard let text = iterator.next(), let value = Int(text), value >= 0 else {
                throw BenchmarkFailure("\(flag) needs a non-negative number\n\(usage)")
            }
            return value
        }
        while let argument = iterator.next() {
            switch argument {
            case "--quick":
                settings.rounds = 5
                settings.warmUpRounds = 1
            case "--rounds": settings.rounds = max(1, try number(after: argument))
            case "--warmup": settings.warmUpRounds = try number(after: argument)
            case "--slow-rounds": settings.slowRounds = max(1, try number(after: argument))
            case "--json": settings.json = true
            case "--json-file":
                guard let path = iterator.next() else { throw BenchmarkFailure("--json-file needs a path\n\(usage)") }
                settings.jsonFile = path
            case "--list": settings.listOnly = true
            case "--only":
                guard let spec = iterator.next(), let dash = spec.firstIndex(of: "-") else {
                    throw BenchmarkFailure("--only needs CONTENDER-OPERATION, such as ours-read\n\(usage)")
                }
                settings.only = (String(spec[..<dash]), String(spec[spec.index(after: dash)...]))
            case "-h", "--help": settings.helpOnly = true
            default:
                guard !argument.hasPrefix("--") else { throw BenchmarkFailure("unknown option \(argument)\n\(usage)") }
                settings.filters.append(argument.lowercased())
            }
        }
        return settings
    }

    func selects(workload: String, operation: String) -> Bool {
        if let only, only.operation != operation { return false }
        let label = "\(workload)/\(operation)".lowercased()
        return filters.isEmpty || filters.contains { label.contains($0) }
    }
}

// MARK: - Results

struct ContenderResult: Codable {
    let id: String
    let name: String
    /// Timed samples in milliseconds, in round order.
    let samplesMilliseconds: [Double]
    let medianMilliseconds: Double
    let minimumMilliseconds: Double
    /// Interquartile range as a percentage of the median: how noisy the samples were.
    let spreadPercent: Double
    let megabytesPerSecond: Double
    /// Median over rounds of (this contender's time / our time) in the same round; nil for ours.
    let ratioToOurs: Double?
    /// This contender's fastest run / our fastest run: the least noise-sensitive ratio when
    /// the machine is busy; nil for ours.
    let ratioOfMinimums: Double?
    /// Peak resident set size of the process during one extra untimed run of this contender
    /// (VmHWM, reset just before it where the kernel allows), in bytes.
    let peakResidentBytes: Int
    /// How far that peak rose above the resident size just before the run, in bytes.
    let addedResidentBytes: Int
    /// What this contender writes or reads, in bytes; nil if it has no output.
    let outputBytes: Int?
    /// Items per second at the median time; nil if the comparison does not count items.
    let itemsPerSecond: Double?
    /// Rounds in which this contender was timed.
    let timedRounds: Int
}

struct GoalResult: Codable {
    let peer: String
    let minimumRatio: Double
    /// The peer's `ratioToOurs`; the goal is judged on it.
    let ratio: Double
    let ratioOfMinimums: Double
    let met: Bool
}

struct ComparisonResult: Codable {
    let workload: String
    let operation: String
    let documentBytes: Int
    let itemCount: Int?
    let itemName: String
    let contenders: [ContenderResult]
    let skipped: [SkippedContender]
    let goals: [GoalResult]
}

/// A figure derived from several comparisons (a ratio between two workloads, a size ratio),
/// judged against a target when there is one.
struct SummaryLine: Codable {
    /// What is measured, such as "keyed encode linearity (10k / 1k)".
    let name: String
    /// The figure; nil when it could not be measured (the text says why).
    let value: Double?
    /// The figure and its parts in words.
    let text: String
    /// The target, such as "≤ 11×"; nil for a plain figure.
    let target: String?
    /// Whether the target was met; nil when there is no target or no figure.
    let met: Bool?
}

struct RunReport: Codable {
    let rounds: Int
    let warmUpRounds: Int
    let processors: Int
    let peakResetSupported: Bool
    let notes: [String: [String: String]]
    let comparisons: [ComparisonResult]
    /// Figures derived from several comparisons, from the workloads' summarizers.
    var summary: [SummaryLine] = []
}

/// Derives summary lines from a finished report (nothing when its comparisons were not run).
typealias Summarizer = (RunReport) -> [SummaryLine]

// MARK: - Memory

/// Reads the process's resident set from `/proc/self/status`, falling back to `getrusage`.
enum ResidentMemory {
    /// Resets the peak (VmHWM) to the current resident size; false if the kernel refuses.
    /// Freed heap memory is first handed back to the kernel, so the next peak shows what
    /// the next run really touches rather than what earlier runs left cached in malloc.
    static func resetPeak() -> Bool {
        releaseFreedHeap()
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var command: UInt8 = UInt8(ascii: "5")
        return write(fd, &command, 1) == 1
    }

    /// Calls glibc's `malloc_trim(0)` where it exists (it is not in Swift's Glibc module, so
    /// it is looked up at run time).
    private static func releaseFreedHeap() {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }

    /// Current and peak resident bytes.
    static func sample() -> (current: Int, peak: Int) {
        if let status = readStatus() {
            let current = field("VmRSS:", in: status)
            let peak = field("VmHWM:", in: status)
            if let current, let peak { return (current * 1024, peak * 1024) }
        }
        var usage = rusage()
        #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
        let peak = Int(usage.ru_maxrss)
        #else
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let peak = Int(usage.ru_maxrss) * 1024
        #endif
        return (peak, peak)
    }

    private static func readStatus() -> String? {
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = Directory.read(fd, into: &chunk, at: 0)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The number in kB on the line that starts with `name`.
    private static func field(_ name: String, in status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return Int(line.dropFirst(name.count).filter(\.isNumber))
        }
        return nil
    }
}

// MARK: - Running

/// Runs the selected comparisons and reports them.
struct Harness {
    let settings: BenchmarkSettings
    var summarizers: [Summarizer] = []

    /// Runs everything the settings select; returns the process exit code.
    func run(_ workloads: [Workload]) -> Int32 {
        if settings.helpOnly {
            print(BenchmarkSettings.usage)
            return 0
        }
        if settings.listOnly {
            for workload in workloads {
                print("\(workload.name)  [\(workload.operations.joined(separator: ", "))]  \(workload.summary)")
            }
            return 0
        }
        do {
            if let only = settings.only {
                try runOnce(workloads, contender: only.contender, operation: only.operation)
                return 0
            }
            var report = try measure(workloads)
            report.summary = summarizers.flatMap { $0(report) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            if let path = settings.jsonFile {
                try encoder.encode(report).write(to: URL(fileURLWithPath: path))
            }
            if settings.json {
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                printTable(report)
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }

    private func selected(_ workloads: [Workload]) -> [Workload] {
        workloads.filter { workload in
            workload.operations.contains { settings.selects(workload: workload.name, operation: $0) }
        }
    }

    private func progress(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// The `--only` mode: build the inputs, then run one contender once per selected comparison,
    /// after `--warmup` unmarked runs (so caches a first run builds are not in the profile).
    private func runOnce(_ workloads: [Workload], contender id: String, operation: String) throws {
        var ran = 0
        for workload in selected(workloads) {
            for comparison in try workload.prepare().comparisons
            where settings.selects(workload: comparison.workload, operation: comparison.operation) {
                guard let contender = comparison.contenders.first(where: { $0.id == id }) else { continue }
                for _ in 0..<settings.warmUpRounds { _ = try contender.run() }
                let peakReset = ResidentMemory.resetPeak()
                let before = ResidentMemory.sample().current
                let start = ContinuousClock.now
                let fingerprint = try runMarked(contender)
                let elapsed = Self.milliseconds(ContinuousClock.now - start)
                let added = peakReset ? ", +RSS \(Self.format(Double(ResidentMemory.sample().peak - before) / 1_048_576, digits: 1)) MB" : ""
                progress(
                    "\(comparison.label) \(contender.name): one run, \(Self.format(elapsed, digits: 2)) ms\(added), fingerprint \(fingerprint)")
                ran += 1
            }
        }
        guard ran > 0 else { throw BenchmarkFailure("--only \(id)-\(operation) selected nothing; see --list") }
    }

    /// Runs a contender once. Kept out of line so a profiler can collect only inside it
    /// (`valgrind --tool=callgrind --toggle-collect='*runMarked*'`).
    @inline(never)
    private func runMarked(_ contender: Contender) throws -> Int {
        try contender.run()
    }

    private func measure(_ workloads: [Workload]) throws -> RunReport {
        var allNotes: [String: [String: String]] = [:]
        var results: [ComparisonResult] = []
        let resetSupported = ResidentMemory.resetPeak()
        for workload in selected(workloads) {
            progress("preparing \(workload.name): \(workload.summary)")
            let prepared = try workload.prepare()
            for comparison in prepared.comparisons where settings.selects(workload: comparison.workload, operation: comparison.operation) {
                progress("measuring \(comparison.label) (\(settings.warmUpRounds) warm-up + \(settings.rounds) rounds)")
                results.append(try measure(comparison, resetSupported: resetSupported))
            }
            // After the comparisons, so facts can report what the verifications found.
            allNotes[workload.name] = try prepared.facts()
        }
        return RunReport(
            rounds: settings.rounds, warmUpRounds: settings.warmUpRounds,
            processors: ProcessInfo.processInfo.activeProcessorCount, peakResetSupported: resetSupported,
            notes: allNotes, comparisons: results)
    }

    /// Verifies every contender, then times them round by round, rotating who goes first.
    private func measure(_ comparison: Comparison, resetSupported: Bool) throws -> ComparisonResult {
        let contenders = comparison.contenders
        for contender in contenders {
            do { try contender.verify() } catch {
                throw BenchmarkFailure("\(comparison.label) \(contender.name): verification failed: \(error)")
            }
        }
        var fingerprints = [Int?](repeating: nil, count: contenders.count)
        func check(_ fingerprint: Int, of which: Int, round: Int) throws {
            if let expected = fingerprints[which] {
                guard fingerprint == expected else {
                    throw BenchmarkFailure(
                        "\(comparison.label) \(contenders[which].name): round \(round) gave fingerprint \(fingerprint), expected \(expected)")
                }
            } else {
                fingerprints[which] = fingerprint
            }
        }
        // samples[contender][timed round]: nil where a slow contender sat the round out.
        var samples = [[Double?]](repeating: [], count: contenders.count)
        var peaks = [Int](repeating: 0, count: contenders.count)
        var added = [Int](repeating: 0, count: contenders.count)
        let totalRounds = settings.warmUpRounds + settings.rounds
        for round in 0..<totalRounds {
            let timedRound = round - settings.warmUpRounds
            for step in 0..<contenders.count {
                let which = (round + step) % contenders.count
                let contender = contenders[which]
                if contender.isSlow, timedRound < 0 || timedRound >= settings.slowRounds {
                    if timedRound >= 0 { samples[which].append(nil) }
                    continue
                }
                let start = ContinuousClock.now
                let fingerprint = try contender.run()
                let elapsed = Self.milliseconds(ContinuousClock.now - start)
                try check(fingerprint, of: which, round: round)
                if timedRound >= 0 { samples[which].append(elapsed) }
            }
        }
        // Memory is measured in one extra untimed run each: handing freed memory back to the
        // kernel before a timed run would make that run pay for page faults a warm process avoids.
        for (which, contender) in contenders.enumerated() {
            if resetSupported { _ = ResidentMemory.resetPeak() }
            let before = ResidentMemory.sample().current
            let fingerprint = try contender.run()
            let after = ResidentMemory.sample().peak
            try check(fingerprint, of: which, round: totalRounds)
            peaks[which] = after
            added[which] = max(0, after - before)
        }
        let ours = samples[0]
        var results: [ContenderResult] = []
        for (index, contender) in contenders.enumerated() {
            let times = samples[index].compactMap { $0 }
            let median = Self.median(times)
            let ratio =
                index == 0
                ? nil : Self.median(zip(samples[index], ours).compactMap { peer, our in peer.flatMap { p in our.map { p / $0 } } })
            let ourMinimum = ours.compactMap { $0 }.min() ?? 1
            results.append(
                ContenderResult(
                    id: contender.id, name: contender.name, samplesMilliseconds: times,
                    medianMilliseconds: median, minimumMilliseconds: times.min() ?? 0,
                    spreadPercent: median > 0 ? (Self.quantile(times, 0.75) - Self.quantile(times, 0.25)) / median * 100 : 0,
                    megabytesPerSecond: median > 0 ? Double(comparison.documentBytes) / 1e6 / (median / 1000) : 0,
                    ratioToOurs: ratio,
                    ratioOfMinimums: index == 0 ? nil : (times.min() ?? 0) / max(ourMinimum, .leastNonzeroMagnitude),
                    peakResidentBytes: peaks[index], addedResidentBytes: added[index],
                    outputBytes: contender.outputBytes,
                    itemsPerSecond: comparison.itemCount.flatMap { count in median > 0 ? Double(count) / (median / 1000) : nil },
                    timedRounds: times.count))
        }
        let goals = comparison.goals.compactMap { goal -> GoalResult? in
            guard let peer = results.first(where: { $0.id == goal.peerID }), let ratio = peer.ratioToOurs else { return nil }
            return GoalResult(
                peer: peer.name, minimumRatio: goal.minimumRatio, ratio: ratio,
                ratioOfMinimums: peer.ratioOfMinimums ?? ratio, met: ratio >= goal.minimumRatio)
        }
        return ComparisonResult(
            workload: comparison.workload, operation: comparison.operation, documentBytes: comparison.documentBytes,
            itemCount: comparison.itemCount, itemName: comparison.itemName,
            contenders: results, skipped: comparison.skipped, goals: goals)
    }

    // MARK: Statistics and formatting

    static func milliseconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) * 1e3 + Double(parts.attoseconds) / 1e15
    }

    static func quantile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let position = q * Double(sorted.count - 1)
        let low = Int(position.rounded(.down))
        let high = min(low + 1, sorted.count - 1)
        let fraction = position - Double(low)
        return sorted[low] + (sorted[high] - sorted[low]) * fraction
    }

    static func median(_ values: [Double]) -> Double { quantile(values, 0.5) }

    static func format(_ value: Double, digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    private func printTable(_ report: RunReport) {
        print("KeyedArchiveBenchmarks: \(report.warmUpRounds) warm-up + \(report.rounds) timed rounds, peers interleaved round by round, \(report.processors) processors")
        print("median = median ms per run; spread = interquartile range / median; MB/s = our bplist size / median time;")
        print("peer/ours = median over rounds of (peer time / our time in that round): > 1 means we are faster;")
        print("min ratio = peer's fastest run / our fastest run (steadier when the machine is busy);")
        let peakNote = report.peakResetSupported ? "freed heap trimmed and VmHWM reset first" : "process-wide VmHWM, never reset"
        print("peak RSS = VmHWM in one extra untimed run (\(peakNote)); +RSS = that peak minus the resident size just before it.")
        for (workload, notes) in report.notes.sorted(by: { $0.key < $1.key }) {
            print("")
            print("\(workload):")
            for (key, value) in notes.sorted(by: { $0.key < $1.key }) { print("  \(key): \(value)") }
        }
        print("")
        let itemNames = Set(report.comparisons.compactMap { $0.itemCount == nil ? nil : $0.itemName })
        let itemHeader = (itemNames.count == 1 ? itemNames.first! : "items") + "/s"
        var table = TextTable(
            headers: [
                "workload", "op", "contender", "median ms", "min ms", "spread", "MB/s", itemHeader, "bytes", "peer/ours", "min ratio",
                "peak RSS MB", "+RSS MB",
            ])
        for comparison in report.comparisons {
            for contender in comparison.contenders {
                table.append([
                    comparison.workload, comparison.operation,
                    contender.name + (contender.timedRounds < report.rounds ? " [\(contender.timedRounds) rounds]" : ""),
                    Self.format(contender.medianMilliseconds, digits: 2),
                    Self.format(contender.minimumMilliseconds, digits: 2),
                    Self.format(contender.spreadPercent, digits: 1) + "%",
                    Self.format(contender.megabytesPerSecond, digits: 1),
                    contender.itemsPerSecond.map { Self.format($0, digits: 0) } ?? "",
                    contender.outputBytes.map(String.init) ?? "",
                    contender.ratioToOurs.map { Self.format($0, digits: 2) + "×" } ?? "baseline",
                    contender.ratioOfMinimums.map { Self.format($0, digits: 2) + "×" } ?? "",
                    Self.format(Double(contender.peakResidentBytes) / 1_048_576, digits: 1),
                    Self.format(Double(contender.addedResidentBytes) / 1_048_576, digits: 1),
                ])
            }
            for skipped in comparison.skipped {
                table.append([comparison.workload, comparison.operation, skipped.name, "skipped"])
            }
            table.separate()
        }
        print(table.render())
        let skipped = report.comparisons.flatMap { comparison in comparison.skipped.map { (comparison, $0) } }
        if !skipped.isEmpty {
            print("")
            print("skipped:")
            for (comparison, contender) in skipped {
                print("  \(comparison.workload) \(comparison.operation) \(contender.name): \(contender.reason)")
            }
        }
        let goals = report.comparisons.flatMap { comparison in comparison.goals.map { (comparison, $0) } }
        if !goals.isEmpty {
            print("")
            print("goals (peer/ours):")
            for (comparison, goal) in goals {
                let verdict = goal.met ? "met" : "MISSED"
                print("  \(comparison.workload) \(comparison.operation): ≥ \(Self.format(goal.minimumRatio, digits: goal.minimumRatio == goal.minimumRatio.rounded() ? 0 : 2))× vs \(goal.peer): \(Self.format(goal.ratio, digits: 2))× (min ratio \(Self.format(goal.ratioOfMinimums, digits: 2))×)  \(verdict)")
            }
        }
        if !report.summary.isEmpty {
            print("")
            print("summary:")
            for line in report.summary {
                let verdict = line.met.map { $0 ? "met" : "MISSED" } ?? ""
                let target = line.target.map { " (target \($0))" } ?? ""
                print("  \(line.name): \(line.text)\(target)  \(verdict)")
            }
        }
    }
}

/// A plain-text table with aligned columns: text left, numbers right.
struct TextTable {
    private let headers: [String]
    private var rows: [[String]?] = []  // nil = a separator line

    init(headers: [String]) { self.headers = headers }

    mutating func append(_ row: [String]) { rows.append(row) }
    mutating func separate() { rows.append(nil) }

    func render() -> String {
        var widths = headers.map(\.count)
        for case let row? in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                let numeric = cell.first.map { $0.isNumber } ?? false
                return numeric ? pad + cell : cell + pad
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        var lines = [line(headers), rule]
        for row in rows.dropLast(rows.last == nil ? 1 : 0) {
            lines.append(row.map(line) ?? rule)
        }
        return lines.joined(separator: "\n")
    }
}
