import ArchiveStore
import Foundation
import KeyedArchive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The `batches`, `check-batches` and `verify-batches` modes: a writer making numbered batches
// over 64 keys, a reader checking while it runs that a batch, once any of its changes is seen,
// is seen whole from then on, and a check after each kill of what is left on disk.
//
// What batch n changes is a function of n alone (`BatchPlan`), so every process can work out
// what any batch did, and the value a batch saves names the batch and what it changed, so that
// a value read anywhere tells which batch wrote it. The test that kills the writer restarts it
// at the batch after the newest one left on disk (a killed batch that was never published is
// made again, the same), so the batches made are always 0, 1, ..., N without gaps: seeing a
// value of batch m proves that every batch before m was made, whole.

/// How many keys the batches share: `k0` ... `k63`.
let batchKeyCount = 64

func batchKey(_ index: Int) -> String { "k\(index)" }

/// What batch n saves and removes: 2 to 50 of the 64 keys, about one in five of them removed
/// and the others saved (at least one saved, so that every batch leaves a value naming it).
struct BatchPlan: Equatable {
    var saved: [String] = []
    var removed: [String] = []

    init(_ n: Int) {
        // SplitMix64 written out (as Tests/TestSupport has it, which this executable does not
        // link) rather than the standard library's shuffle, whose algorithm may change: a batch
        // number in a failure's report then names the same plan in any later build.
        var state = UInt64(bitPattern: Int64(n))
        func next(below bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        let count = 2 + next(below: 49)
        var pool = Array(0..<batchKeyCount)
        for position in 0..<count {
            pool.swapAt(position, position + next(below: batchKeyCount - position))
            let key = batchKey(pool[position])
            if next(below: 5) == 0 { removed.append(key) } else { saved.append(key) }
        }
        if saved.isEmpty { saved.append(removed.removeFirst()) }
    }

    /// Whether the batch saves (true), removes (false) or leaves (nil) `key`.
    func change(of key: String) -> Bool? {
        saved.contains(key) ? true : removed.contains(key) ? false : nil
    }
}

/// The value batch n saves under each key it saves: the batch's number and everything it changed.
struct BatchValue: Archivable, Equatable {
    static var archiveClassName: String? { "CrashChild.BatchValue" }
    var batch = 0
    var saved: [String] = []
    var removed: [String] = []

    /// What is wrong with this value as the one loaded for `key`, or nil: it must be what its
    /// batch's plan says, and that plan must save `key`.
    func problem(asValueOf key: String) -> String? {
        guard batch >= 0 else { return "\(key) holds a value of batch \(batch), which no batch is" }
        let plan = BatchPlan(batch)
        guard saved == plan.saved, removed == plan.removed else {
            return "\(key) holds a value of batch \(batch) whose lists are not the batch's: saved \(saved), removed \(removed)"
        }
        guard plan.saved.contains(key) else { return "\(key) holds a value of batch \(batch), which did not save it" }
        return nil
    }
}

/// `batches <directory> <first> [--buffered]`: makes batches first, first + 1, ... forever,
/// writing "ack <n>" after each returns.
func runBatches(directory: String, first: Int, buffered: Bool) throws -> Never {
    let store = try ArchiveStore(
        directory: URL(fileURLWithPath: directory, isDirectory: true), durability: buffered ? .buffered : .full)
    var n = first
    while true {
        let plan = BatchPlan(n)
        let value = BatchValue(batch: n, saved: plan.saved, removed: plan.removed)
        try store.batch { batch in
            for key in plan.saved { try batch.save(value, forKey: key) }
            for key in plan.removed { try batch.remove(forKey: key) }
        }
        emit("ack \(n)")
        n += 1
    }
}

/// What a reader knows must be on disk: every batch up to `newest` was made (the batches made
/// have no gaps), so each key holds the value of the newest of them that changed it, or a
/// later one.
struct BatchFloor {
    /// The newest batch known to be made (seen, or proved by a removal seen); -1 for none.
    private(set) var newest = -1
    /// How `newest` came to be known, for the report of a violation.
    private(set) var newestReason = "none seen"
    /// Per key, the newest batch up to `newest` that changed it, and whether it saved it.
    private var last: [(batch: Int, saved: Bool)?] = Array(repeating: nil, count: batchKeyCount)

    /// Learns that batch `n` was made, and with it every batch before it.
    mutating func learn(_ n: Int, because reason: String) {
        guard n > newest else { return }
        newestReason = reason
        for batch in (newest + 1)...n {
            let plan = BatchPlan(batch)
            for key in plan.saved { last[Int(key.dropFirst())!] = (batch, true) }
            for key in plan.removed { last[Int(key.dropFirst())!] = (batch, false) }
        }
        newest = n
    }

    /// What is wrong with loading `value` (nil: absent) for key `index`, given what is known; and
    /// learns what the load proves (a value's batch; for an absent key whose newest known change
    /// saved it, the first later batch removing it).
    mutating func check(_ value: BatchValue?, at index: Int) -> String? {
        let key = batchKey(index)
        if let value {
            if let problem = value.problem(asValueOf: key) { return problem }
            if let last = last[index], last.saved ? value.batch < last.batch : value.batch <= last.batch {
                return "\(key) holds batch \(value.batch), but batch \(last.batch) \(last.saved ? "saved" : "removed") it"
                    + " and batch \(newest) was made (\(newestReason))"
            }
            if value.batch > newest { learn(value.batch, because: "seen in \(key)") }
            return nil
        }
        guard let last = last[index], last.saved else { return nil }
        // Only a later batch removing the key explains its absence (batches between may save it
        // again): the first such batch must then have been made, and so every batch before it.
        var later = newest + 1
        while BatchPlan(later).change(of: key) != false {
            later += 1
            if later > newest + 1_000_000 {
                return "\(key) is absent, but batch \(last.batch) saved it and no batch removes it later"
            }
        }
        learn(later, because: "\(key) was absent after batch \(last.batch) saved it")
        return nil
    }
}

/// `check-batches <directory> [--until-file PATH] [--interval-ms N] [--memory-bytes N]`: loads
/// the 64 keys one at a time, in rounds, until PATH exists (one round without it), checking
/// each load against every batch seen so far; "violation ..." and exit 1 on the first that
/// fails, "checked <rounds> <loads>" and exit 0 at the end.
func runCheckBatches(_ arguments: ArraySlice<String>) throws -> Never {
    var positional: [String] = []
    var untilFile: String?
    var interval = 0
    var memoryBytes: Int?
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
        switch argument {
        case "--until-file": untilFile = iterator.next()
        case "--interval-ms": interval = iterator.next().flatMap { Int($0) } ?? 0
        case "--memory-bytes": memoryBytes = iterator.next().flatMap { Int($0) }
        default: positional.append(argument)
        }
    }
    guard positional.count == 1 else {
        fail("usage: check-batches <directory> [--until-file PATH] [--interval-ms N] [--memory-bytes N]", status: 2)
    }
    let store = try ArchiveStore(
        directory: URL(fileURLWithPath: positional[0], isDirectory: true), limits: .init(memoryBytes: memoryBytes))
    var floor = BatchFloor()
    var rounds = 0
    var loads = 0
    while true {
        for index in 0..<batchKeyCount {
            let value: BatchValue?
            do {
                value = try store.load(BatchValue.self, forKey: batchKey(index))
            } catch {
                emit("violation round \(rounds), load \(loads): \(batchKey(index)) does not load: \(error)")
                exit(1)
            }
            loads += 1
            if let problem = floor.check(value, at: index) {
                emit("violation round \(rounds), load \(loads): \(problem)")
                exit(1)
            }
        }
        rounds += 1
        guard let untilFile, !FileManager.default.fileExists(atPath: untilFile) else { break }
        if interval > 0 { usleep(UInt32(interval) * 1_000) }
    }
    emit("checked \(rounds) \(loads)")
    exit(0)
}

/// `verify-batches <directory> <last acked>`: loads the 64 keys once the writer is dead; the
/// newest batch N found must be at least the last acknowledged one, and every key must hold
/// what batches 0 ... N leave (the value of the newest of them that saved it, or nothing when
/// the newest removed it or none changed it). Prints "newest <N>" (-1 for an empty store) and
/// exits 0, or prints each problem on standard error and exits 1.
func runVerifyBatches(directory: String, lastAcknowledged: Int) throws -> Never {
    let store = try ArchiveStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
    var values: [BatchValue?] = []
    var problems: [String] = []
    for index in 0..<batchKeyCount {
        do {
            values.append(try store.load(BatchValue.self, forKey: batchKey(index)))
        } catch {
            problems.append("\(batchKey(index)) does not load: \(error)")
            values.append(nil)
        }
    }
    let newest = values.compactMap { $0?.batch }.max() ?? -1
    if newest < lastAcknowledged {
        problems.append("the newest batch on disk is \(newest), but batch \(lastAcknowledged) was acknowledged")
    }
    // The newest batch up to N that changed each key, found going back from N (a few dozen
    // batches cover every key).
    var expected: [Int: (batch: Int, saved: Bool)] = [:]
    var batch = newest
    while batch >= 0, expected.count < batchKeyCount {
        let plan = BatchPlan(batch)
        for (keys, saved) in [(plan.saved, true), (plan.removed, false)] {
            for key in keys where expected[Int(key.dropFirst())!] == nil { expected[Int(key.dropFirst())!] = (batch, saved) }
        }
        batch -= 1
    }
    for (index, value) in values.enumerated() {
        let key = batchKey(index)
        if let value, let problem = value.problem(asValueOf: key) { problems.append(problem) }
        switch (expected[index], value) {
        case (let change?, let value?) where change.saved && value.batch == change.batch:
            continue
        case (let change?, nil) where !change.saved:
            continue
        case (nil, nil):
            continue
        case (let change, let value):
            let held = value.map { "batch \($0.batch)" } ?? "nothing"
            let wanted =
                change.map { $0.saved ? "batch \($0.batch), which saved it" : "nothing (batch \($0.batch) removed it)" }
                ?? "nothing (none changed it)"
            problems.append("\(key) holds \(held), but batches up to \(newest) leave \(wanted)")
        }
    }
    for problem in problems { emit(problem, to: STDERR_FILENO) }
    emit("newest \(newest)")
    exit(problems.isEmpty ? 0 : 1)
}
