import KeyedArchive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory `flock(2)` lock on the store's `.lock` file, held until the value is released.
///
/// - Every save holds it **shared** from creating its temporary file until the rename is done.
/// - Read-modify-write operations hold it **exclusive**: deleting an expired value (checked
///   again under the lock, so a value saved meanwhile is never deleted), `removeExpired()`,
///   `removeAll()` and the sweep of temporary files left by killed processes (under the
///   exclusive lock every temporary file belongs to a dead save), which a store opening its
///   folder tries without waiting (``ArchiveStore/sweepTemporaryFilesIfIdle(root:)``).
///
/// `flock` locks belong to an open file description, and each lock opens the file anew, so the
/// lock excludes threads of one process as well as other processes. Loads take no lock: a
/// rename replaces a file atomically, so a reader sees the old file or the new one.
final class StoreLock {
    enum Mode {
        case shared, exclusive
    }

    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Waits for and takes the lock of the store whose root directory is `root`.
    ///
    /// `fileMode` is the lock file's mode if this call creates it.
    static func acquire(_ mode: Mode, in root: Directory, fileMode: UInt16) throws -> StoreLock {
        let lock = try open(in: root, fileMode: fileMode)
        let operation = mode == .shared ? LOCK_SH : LOCK_EX
        if retryingInterrupts({ flock(lock.descriptor, operation) }) != 0 {
            throw ArchiveError.io(errno: errno, "lock", path: root.path(of: StoreFormat.lockFileName))
        }
        return lock
    }

    /// Turns the exclusive lock into a shared one, without closing the lock file.
    ///
    /// Not atomic (`flock(2)` gives up the lock before taking the new one): another holder may
    /// take the exclusive lock in between, as if this one had been released and taken again.
    func downgrade(in root: Directory) throws {
        if retryingInterrupts({ flock(descriptor, LOCK_SH) }) != 0 {
            throw ArchiveError.io(errno: errno, "lock", path: root.path(of: StoreFormat.lockFileName))
        }
    }

    /// Takes the exclusive lock if no one holds the lock now; nil otherwise (or if the lock
    /// file cannot be opened, as in a read-only directory, or is absent and `creating` is false).
    static func tryExclusive(in root: Directory, fileMode: UInt16, creating: Bool = true) -> StoreLock? {
        guard let lock = try? open(in: root, fileMode: fileMode, creating: creating) else { return nil }
        return retryingInterrupts({ flock(lock.descriptor, LOCK_EX | LOCK_NB) }) == 0 ? lock : nil
    }

    private static func open(in root: Directory, fileMode: UInt16, creating: Bool = true) throws -> StoreLock {
        var descriptor = retryingInterrupts {
            openat(root.descriptor, StoreFormat.lockFileName, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        }
        if descriptor < 0, errno == ENOENT, creating {
            descriptor = retryingInterrupts {
                openat(
                    root.descriptor, StoreFormat.lockFileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                    mode_t(fileMode))
            }
            if descriptor >= 0 { _ = fchmod(descriptor, mode_t(fileMode)) }
        }
        if descriptor < 0 {
            let number = errno
            if number == EACCES || number == EROFS || number == EPERM {
                // A directory this process may read but not write: an existing lock file still locks.
                descriptor = retryingInterrupts {
                    openat(root.descriptor, StoreFormat.lockFileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                }
            }
            if descriptor < 0 {
                throw ArchiveError.io(
                    errno: number, "open the lock file", path: root.path(of: StoreFormat.lockFileName))
            }
        }
        return StoreLock(descriptor: descriptor)
    }
}
