import Foundation

/// A value shared between threads, every access under one lock.
///
/// The lock is `NSLock`, a POSIX mutex on every platform, so ThreadSanitizer sees each access
/// ordered by it. (`Synchronization.Mutex` on Linux waits with futexes ThreadSanitizer cannot
/// see, which made an app's own `swift test --sanitize=thread` report races in this library.)
/// No caller runs user code while holding it (the store's index holds it while it reads its journal).
///
/// ```swift
/// let count = Locked(0)
/// count.withLock { $0 += 1 }
/// ```
package final class Locked<Value> {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

// `value` is only reached through `withLock`, which holds the lock for the whole access.
extension Locked: @unchecked Sendable where Value: Sendable {}
