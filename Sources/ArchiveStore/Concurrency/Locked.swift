import Foundation

/// A value that threads share, read and changed only while its lock is held.
///
/// The lock is Foundation's `NSLock` (a `pthread_mutex_t`), which ThreadSanitizer sees, so an
/// app testing with `--sanitize=thread` gets no false reports from the store.
/// (`Synchronization.Mutex` waits on a futex directly on Linux, which ThreadSanitizer does not
/// model.) No I/O and no user code runs while the lock is held.
///
/// ```swift
/// let count = Locked(0)
/// count.withLock { $0 += 1 }
/// ```
final class Locked<Value> {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value and returns its result.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

// The value is only reached through `withLock`, which holds the lock for the whole access.
extension Locked: @unchecked Sendable where Value: Sendable {}
