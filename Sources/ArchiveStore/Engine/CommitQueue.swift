import Foundation
import KeyedArchive

/// The commits waiting for the durable writer, and who is writing (see the notes above).
final class CommitQueue: @unchecked Sendable {
    // @unchecked: every property is touched only while `condition` is locked.
    private let condition = NSCondition()
    private var waiting: [(commit: Commit, ticket: Int)] = []
    private var outcomes: [Int: Result<Void, ArchiveError>] = [:]
    private var nextTicket = 0
    private var leading = false
    /// Saves started (their values being encoded) that have not joined the queue yet.
    private var arriving = 0
    /// How many commits a group is expected to hold: the largest of the recent groups (it falls
    /// by one a group when fewer come), since threads saving in a loop come back about as many.
    private var expectedGroupSize = 1

    /// How long a leader at `.full` durability waits for saves that other threads have started.
    static let gatheringLimit: TimeInterval = 0.001

    /// Says that a commit is on its way (its value is being encoded), so that a leader waits for
    /// it; ``submit(_:announced:gathering:write:)`` or ``withdraw()`` must follow.
    func announce() {
        condition.withLock { arriving += 1 }
    }

    /// Takes back an announcement whose commit will not come (its value could not be encoded).
    func withdraw() {
        condition.withLock {
            arriving -= 1
            condition.broadcast()
        }
    }

    /// Queues `commit` and returns once it is written: by this thread, leading a group of every
    /// commit queued, or by the thread leading when it arrived.
    ///
    /// - Parameters:
    ///   - announced: ``announce()`` was called for this commit.
    ///   - gathering: whether a leader waits for announced commits before writing (`.full`).
    ///   - write: writes a group, returning one outcome per commit, in order.
    func submit(
        _ commit: Commit, announced: Bool, gathering: Bool, write: ([Commit]) -> [Result<Void, ArchiveError>]
    ) throws {
        condition.lock()
        defer { condition.unlock() }
        if announced { arriving -= 1 }
        let ticket = nextTicket
        nextTicket += 1
        waiting.append((commit, ticket))
        condition.broadcast()
        while outcomes[ticket] == nil {
            guard !leading else {
                condition.wait()
                continue
            }
            leading = true
            if gathering, arriving > 0 || waiting.count < expectedGroupSize {
                // The saves on their way, and the callers of recent groups, who are likely to
                // save again at once: each costs far less to wait for than a round of flushes.
                let deadline = Date(timeIntervalSinceNow: Self.gatheringLimit)
                while arriving > 0 || waiting.count < expectedGroupSize, condition.wait(until: deadline) {}
            }
            let group = waiting
            expectedGroupSize = max(group.count, expectedGroupSize - 1)
            waiting.removeAll()
            condition.unlock()
            let results = write(group.map(\.commit))
            condition.lock()
            for (entry, result) in zip(group, results) { outcomes[entry.ticket] = result }
            leading = false
            condition.broadcast()
        }
        let outcome = outcomes.removeValue(forKey: ticket)!
        try outcome.get()
    }
}
