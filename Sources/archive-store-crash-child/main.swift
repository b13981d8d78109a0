// A helper process for ArchiveStore's crash and failure tests, and for tests that compare what
// processes with different hash seeds decode (not a product).
//
//   archive-store-crash-child loop <directory> <key>...
//       Loads every key (exit 3 if one fails), then saves growing values forever: round n saves
//       [0, 1, ..., n-1] under each key in turn, n starting above the longest value found.
//       After each save returns, writes "ack <key index> <n>" to standard output, unbuffered.
//       Meant to be killed with SIGKILL at a random moment.
//
//   archive-store-crash-child evicting-loop <directory> <maximum bytes> <first>
//       Saves item-<n> = [0, 1, ..., size(n)-1] for n = first, first+1, ... forever in a store
//       limited to <maximum bytes>, so that saves evict the least recently used items; after
//       each save returns, writes "ack <n>". size(n) = 20 + (37 n mod 200). Meant to be killed.
//
//   archive-store-crash-child verify <directory> <key>...
//       Loads every key as [Int] and prints "<key index> <count>" for each (count 0 when absent).
//       Exits 1, with the reason on standard error, if a load throws or a value is not
//       [0, 1, ..., count-1] (an incomplete or mixed save).
//
//   archive-store-crash-child open <directory>
//       Opens a store on the directory, as an app does at launch, prints "opened" and exits 0
//       (exit 1, with the error, if it cannot be opened).
//
//   archive-store-crash-child save <directory> <key> <count> [--namespace NAME]
//                                  [--file-size-limit BYTES] [--killed-past-file-size BYTES]
//                                  [--drop-privileges] [--umask OCTAL] [--group]
//                                  [--maximum-bytes BYTES] [--print-count]
//       Saves [0, ..., count-1] under key once, after lowering RLIMIT_FSIZE (a full disk as
//       seen by write(2): EFBIG) and/or switching from root to "nobody" (so directory
//       permissions apply), under the given umask, with the group permissions and/or a byte
//       limit (without --group or --maximum-bytes the store applies what its folder keeps).
//       Prints "saved" (and with --print-count "count <the store's count after the save>") or
//       "error <code>\t<description>"; exits 0 either way.
//       --killed-past-file-size lowers RLIMIT_FSIZE but leaves SIGXFSZ to kill the process
//       when a write passes it (without a core dump): a save killed halfway through writing
//       its temporary file, at a moment known in advance.
//
//   archive-store-crash-child decode <file>...
//       Prints "seed <fingerprint of this process's hash seed>", then "<file name>: <outcome>"
//       per file: the root decoded as Any, described by DecodedValueDescription, or
//       "error <ArchiveError>". Exits 0.
//
//   archive-store-crash-child rewrite <directory> <file>...
//       Prints the seed line, then per file: its keys and each key decoded as Any ("before"),
//       after opening it with ArchiveFile; sets the key "added", writes the file to
//       <directory>/<file name>, opens that and prints its keys and each key again ("after").
//
//   archive-store-crash-child upgrade <directory>
//       Prints "start", runs upgradeAll(StoredNote.self) (UpgradeMode.swift) and prints
//       "upgraded <count> in <microseconds>".
//       Meant to be killed with SIGKILL at a random moment.
//
//   archive-store-crash-child batches <directory> <first> [--buffered]
//       Makes batches n = first, first + 1, ... forever (BatchModes.swift): batch n saves to 2
//       to 50 of the keys k0 ... k63 a value naming n and every key the batch saved and
//       removed, and removes some others, all chosen from n alone (BatchPlan). After each
//       batch returns, writes "ack <n>". At .full durability, or .buffered with --buffered.
//       Meant to be killed with SIGKILL at a random moment, and restarted at the batch after
//       the newest one verify-batches finds, so that the batches made have no gaps.
//
//   archive-store-crash-child check-batches <directory> [--until-file PATH] [--interval-ms N]
//                                           [--memory-bytes N]
//       Loads k0 ... k63 one at a time, in rounds (pausing N ms between them), until PATH
//       exists (one round without it), while batches runs: once a value of batch n has been
//       seen, each later load of a key must hold what batches 0 ... n left there, or a later
//       batch's value (an absent key whose newest known change saved it proves that a later
//       batch removing it was made). --memory-bytes gives the store a memory tier, so that
//       loads also come from it. Prints "violation <what was seen>" and exits 1 at the first
//       load that breaks this or throws; prints "checked <rounds> <loads>" and exits 0.
//
//   archive-store-crash-child verify-batches <directory> <last acknowledged>
//       Once the batches child is dead: loads k0 ... k63; the newest batch N found must be at
//       least the last acknowledged one (-1 for none), and each key must hold what batches
//       0 ... N leave there. Prints "newest <N>" (-1 for none); exits 1, with each problem on
//       standard error, if any.

import ArchiveFileSystem
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

func emit(_ line: String, to descriptor: Int32 = STDOUT_FILENO) {
    if !Directory.writeAll(Array((line + "\n").utf8), to: descriptor) { exit(4) }
}

func fail(_ message: String, status: Int32) -> Never {
    emit(message, to: STDERR_FILENO)
    exit(status)
}

func runLoop(directory: String, keys: [String]) throws -> Never {
    let store = try ArchiveStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
    var longest = 0
    for key in keys {
        do {
            longest = max(longest, try store.load([Int].self, forKey: key)?.count ?? 0)
        } catch {
            fail("load of \(key.debugDescription) failed at start: \(error)", status: 3)
        }
    }
    var count = longest + 1
    while true {
        let value = Array(0..<count)
        for (index, key) in keys.enumerated() {
            try store.save(value, forKey: key)
            emit("ack \(index) \(count)")
        }
        count += 1
    }
}

/// The length of the value the evicting loop saves as item-`n`.
func evictingLoopSize(_ n: Int) -> Int { 20 + (37 * n) % 200 }

func runEvictingLoop(directory: String, maximumBytes: Int, first: Int) throws -> Never {
    let store = try ArchiveStore(
        directory: URL(fileURLWithPath: directory, isDirectory: true), limits: .init(maximumBytes: maximumBytes))
    var n = first
    while true {
        try store.save(Array(0..<evictingLoopSize(n)), forKey: "item-\(n)")
        emit("ack \(n)")
        n += 1
    }
}

func runVerify(directory: String, keys: [String]) throws -> Never {
    let store = try ArchiveStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
    var failed = false
    for (index, key) in keys.enumerated() {
        do {
            let value = try store.load([Int].self, forKey: key) ?? []
            if value != Array(0..<value.count) {
                emit("key \(index): value of \(value.count) elements is not 0..<\(value.count)", to: STDERR_FILENO)
                failed = true
            }
            emit("\(index) \(value.count)")
        } catch {
            emit("key \(index): load failed: \(error)", to: STDERR_FILENO)
            failed = true
        }
    }
    exit(failed ? 1 : 0)
}

func dropPrivileges() {
    guard geteuid() == 0 else { return }
    let nobody: UInt32 = 65534
    guard setgroups(0, nil) == 0, setgid(nobody) == 0, setuid(nobody) == 0 else {
        fail("could not switch to user nobody: \(String(cString: strerror(errno)))", status: 5)
    }
}

/// Lowers RLIMIT_FSIZE to `bytes`: a write past it fails with EFBIG, or with `fatal` the
/// process is killed by SIGXFSZ (its core dump turned off; the signal unblocked, as the
/// parent's mask may block it).
func limitFileSize(_ bytes: UInt64, fatal: Bool = false) {
    signal(SIGXFSZ, fatal ? SIG_DFL : SIG_IGN)
    if fatal {
        setLimit(RLIMIT_CORE, 0, name: "RLIMIT_CORE")
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGXFSZ)
        guard pthread_sigmask(SIG_UNBLOCK, &signals, nil) == 0 else { fail("could not unblock SIGXFSZ", status: 5) }
    }
    setLimit(RLIMIT_FSIZE, bytes, name: "RLIMIT_FSIZE")
}

#if canImport(Glibc)
func setLimit(_ resource: __rlimit_resource, _ value: UInt64, name: String) {
    setLimit(__rlimit_resource_t(resource.rawValue), value, name: name)
}
#endif

func setLimit(_ resource: Int32, _ value: UInt64, name: String) {
    var limit = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(value))
    #if canImport(Glibc)
    let result = setrlimit(__rlimit_resource_t(resource), &limit)
    #else
    let result = setrlimit(resource, &limit)
    #endif
    guard result == 0 else { fail("could not set \(name): \(String(cString: strerror(errno)))", status: 5) }
}

func runSave(_ arguments: ArraySlice<String>) throws {
    var positional: [String] = []
    var namespace: String?
    var iterator = arguments.makeIterator()
    var limit: UInt64?
    var fatalLimit = false
    var drop = false
    // Nil unless given: the store then applies what its folder keeps.
    var permissions: ArchiveStore.Permissions?
    var limits: ArchiveStore.Limits?
    var printsCount = false
    while let argument = iterator.next() {
        switch argument {
        case "--namespace": namespace = iterator.next()
        case "--file-size-limit": limit = iterator.next().flatMap { UInt64($0) }
        case "--killed-past-file-size":
            limit = iterator.next().flatMap { UInt64($0) }
            fatalLimit = true
        case "--drop-privileges": drop = true
        case "--umask":
            guard let mask = iterator.next().flatMap({ UInt32($0, radix: 8) }) else { fail("--umask OCTAL", status: 2) }
            umask(mode_t(mask))
        case "--group": permissions = .group
        case "--print-count": printsCount = true
        case "--maximum-bytes": limits = ArchiveStore.Limits(maximumBytes: iterator.next().flatMap { Int($0) })
        default: positional.append(argument)
        }
    }
    guard positional.count == 3, let count = Int(positional[2]) else {
        fail("usage: save <directory> <key> <count>", status: 2)
    }
    var store = try ArchiveStore(
        directory: URL(fileURLWithPath: positional[0], isDirectory: true), limits: limits, permissions: permissions)
    if let namespace { store = store.namespace(namespace) }
    if drop { dropPrivileges() }
    if let limit { limitFileSize(limit, fatal: fatalLimit) }
    do {
        try store.save(Array(0..<count), forKey: positional[1])
        emit("saved")
        if printsCount { emit("count \(store.count)") }
    } catch let error as ArchiveError {
        emit("error \(error.code)\t\(error)")
    }
}

let arguments = CommandLine.arguments
do {
    switch arguments.dropFirst().first {
    case "loop" where arguments.count >= 4:
        try runLoop(directory: arguments[2], keys: Array(arguments[3...]))
    case "evicting-loop" where arguments.count == 5:
        guard let maximumBytes = Int(arguments[3]), let first = Int(arguments[4]) else {
            fail("usage: evicting-loop <directory> <maximum bytes> <first>", status: 2)
        }
        try runEvictingLoop(directory: arguments[2], maximumBytes: maximumBytes, first: first)
    case "verify" where arguments.count >= 4:
        try runVerify(directory: arguments[2], keys: Array(arguments[3...]))
    case "open" where arguments.count == 3:
        _ = try ArchiveStore(directory: URL(fileURLWithPath: arguments[2], isDirectory: true))
        emit("opened")
    case "save":
        try runSave(arguments.dropFirst(2))
    case "decode":
        runDecode(files: Array(arguments.dropFirst(2)))
    case "rewrite" where arguments.count >= 3:
        runRewrite(directory: arguments[2], files: Array(arguments.dropFirst(3)))
    case "upgrade" where arguments.count == 3:
        try runUpgrade(directory: arguments[2])
    case "batches" where arguments.count == 4 || (arguments.count == 5 && arguments[4] == "--buffered"):
        guard let first = Int(arguments[3]), first >= 0 else { fail("usage: batches <directory> <first> [--buffered]", status: 2) }
        try runBatches(directory: arguments[2], first: first, buffered: arguments.count == 5)
    case "check-batches":
        try runCheckBatches(arguments.dropFirst(2))
    case "verify-batches" where arguments.count == 4:
        guard let last = Int(arguments[3]) else { fail("usage: verify-batches <directory> <last acknowledged>", status: 2) }
        try runVerifyBatches(directory: arguments[2], lastAcknowledged: last)
    default:
        fail(
            "usage: archive-store-crash-child loop|verify <directory> <key>... | open <directory>"
                + " | save <directory> <key> <count> [options]"
                + " | decode <file>... | rewrite <directory> <file>... | upgrade <directory>"
                + " | batches <directory> <first> [--buffered] | check-batches <directory> [options]"
                + " | verify-batches <directory> <last acknowledged>",
            status: 2)
    }
} catch {
    fail("unexpected error: \(error)", status: 1)
}
