import CFileSystem
import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Flushes of written files and renamed names to the drive, by what each must guarantee.
///
/// A drive keeps what it is given in a volatile cache; only a cache flush makes it survive a
/// power loss, and a cache flush is the expensive part (about 17 ms with `F_FULLFSYNC` on Apple's
/// NVMe drives). So a flush asks for what the caller needs, and several files share one:
///
/// - **Ordered** (``Goal/ordered``): what was written to these files reaches the drive before
///   anything written after the call (a rename that publishes them), but may still sit in the
///   drive's cache. On Apple platforms `F_BARRIERFSYNC`: the data is sent with a barrier and the
///   cache is not flushed; a later durable flush then covers it, and a power loss before that
///   can lose the rename but never keep the rename without the data. Elsewhere there is no
///   barrier call, so it is a durable flush.
/// - **Durable** (``Goal/durable``): on permanent storage when the call returns. On Apple
///   platforms `F_FULLFSYNC` on the last descriptor (one cache flush covers everything sent
///   before it, so the others only need `F_BARRIERFSYNC`); on Linux `fsync` for one descriptor
///   and one `syncfs(2)` of their file system for several (one journal commit and one cache
///   flush, where an `fsync` each would cost one of each per file; it also writes out whatever
///   other programs have pending on that file system).
///
/// A file system that refuses the Apple calls (a network or FAT volume) gets `fsync`.
package enum Flush {
    package enum Goal: Sendable {
        case ordered
        case durable
    }

    /// Flushes `descriptors` (open files or directories, all on one file system) for `goal`.
    ///
    /// - Returns: nil when it worked, else the `errno` of the call that failed.
    package static func flush(_ descriptors: [Int32], for goal: Goal) -> Int32? {
        guard !descriptors.isEmpty else { return nil }
        #if canImport(Darwin)
        for (position, descriptor) in descriptors.enumerated() {
            let last = position == descriptors.count - 1
            let command = goal == .durable && last ? F_FULLFSYNC : F_BARRIERFSYNC
            if fcntl(descriptor, command) == 0 { continue }
            if retryingInterrupts({ fsync(descriptor) }) != 0 { return errno }
        }
        return nil
        #else
        if descriptors.count > 1, archive_syncfs(descriptors[0]) == 0 { return nil }
        for descriptor in descriptors where retryingInterrupts({ fsync(descriptor) }) != 0 {
            // A directory on a file system that cannot flush one (EINVAL) has nothing to flush.
            if errno != EINVAL { return errno }
        }
        return nil
        #endif
    }
}
