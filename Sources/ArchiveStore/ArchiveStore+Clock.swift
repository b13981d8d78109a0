import Foundation
import Synchronization

extension ArchiveStore {
    /// Where a store reads the current time: the system's wall clock, or one a test sets.
    ///
    /// The store's time decides when a value saved with `expiresAfter` expires, which values
    /// ``Limits/maximumAge`` removes, and the order of use that eviction follows. Give a store a
    /// ``ManualClock`` to test all of that without waiting:
    ///
    /// ```swift
    /// let clock = ArchiveStore.ManualClock()
    /// let cache = try ArchiveStore.inMemory(limits: .init(maximumAge: .seconds(3_600)), clock: clock.clock)
    /// try cache.save(feed, forKey: "feed", expiresAfter: .seconds(600))
    /// clock.advance(by: .seconds(601))
    /// try cache.load(Feed.self, forKey: "feed")   // nil: expired
    /// ```
    ///
    /// Times the file system keeps are not the store's: a file found by a scan of the folder
    /// (saved by hand, or by a process whose journal record was lost) counts as last used at its
    /// modification time.
    public struct Clock: Sendable {
        private let read: @Sendable () -> Date

        /// A clock that reads the time from `now`.
        public init(_ now: @escaping @Sendable () -> Date) {
            read = now
        }

        /// The system's wall clock (`Date()`): the default of every store.
        public static var system: Clock { Clock { Date() } }

        /// The current time.
        public var now: Date { read() }
    }

    /// A clock that stands still until it is moved: for tests of expiry, ``Limits/maximumAge``
    /// and eviction order.
    ///
    /// Thread-safe; every store given its ``clock`` sees each change at once.
    public final class ManualClock: Sendable {
        private let time: Mutex<Date>

        /// A clock that reads `start` until it is moved (by default the time it was made).
        public init(startingAt start: Date = Date()) {
            time = Mutex(start)
        }

        /// The time the clock reads; setting it moves the clock (backwards too).
        public var now: Date {
            get { time.withLock { $0 } }
            set { time.withLock { $0 = newValue } }
        }

        /// Moves the clock forward by `duration`.
        public func advance(by duration: Duration) {
            time.withLock { $0 = $0.addingTimeInterval(duration.seconds) }
        }

        /// The clock to give a store.
        public var clock: Clock {
            Clock { [self] in now }
        }
    }
}
