import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory `flock(2)` lock on a lock file in a directory, held until the value is released.
///
/// `flock` locks belong to an open file description, and each lock opens the file anew, so a
/// lock excludes the other threads of this process as well as other processes. What each mode
/// protects is the caller's protocol (the store's is told by `StoreLock` in `ArchiveStore`).
package final class FileLock {
    package enum Mode: Sendable {
        case shared, exclusive
    }

    private let descriptor: Int32
    /// The lock file's name in its directory.
    private let name: String

    private init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    deinit {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Waits for and takes the lock of the store whose root directory is `root`.
    ///
    /// `fileMode` is the lock file's mode if this call creates it.
    package static func acquire(_ mode: Mode, named name: String, in root: Directory, fileMode: UInt16) throws -> FileLock {
        let lock = try open(name, in: root, fileMode: fileMode)
        let operation = mode == .shared ? LOCK_SH : LOCK_EX
        if retryingInterrupts({ flock(lock.descriptor, operation) }) != 0 {
            throw ArchiveError.io(errno: errno, "lock", path: root.path(of: name))
        }
        return lock
    }

    /// Turns the exclusive lock into a shared one, without closing the lock file.
    ///
    /// Not atomic (`flock(2)` gives up the lock before taking the new one): another holder may
    /// take the exclusive lock in between, as if this one had been released and taken again.
    package func downgrade(in root: Directory) throws {
        if retryingInterrupts({ flock(descriptor, LOCK_SH) }) != 0 {
            throw ArchiveError.io(errno: errno, "lock", path: root.path(of: name))
        }
    }

    /// Takes the exclusive lock if no one holds the lock now; nil otherwise (or if the lock
    /// file cannot be opened, as in a read-only directory, or is absent and `creating` is false).
    package static func tryExclusive(named name: String, in root: Directory, fileMode: UInt16, creating: Bool = true) -> FileLock? {
        guard let lock = try? open(name, in: root, fileMode: fileMode, creating: creating) else { return nil }
        return retryingInterrupts({ flock(lock.descriptor, LOCK_EX | LOCK_NB) }) == 0 ? lock : nil
    }

    private static func open(_ name: String, in root: Directory, fileMode: UInt16, creating: Bool = true) throws -> FileLock {
        var descriptor = retryingInterrupts {
            openat(root.descriptor, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        }
        if descriptor < 0, errno == ENOENT, creating {
            descriptor = retryingInterrupts {
                openat(
                    root.descriptor, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                    mode_t(fileMode))
            }
            if descriptor >= 0 { _ = fchmod(descriptor, mode_t(fileMode)) }
        }
        if descriptor < 0 {
            let number = errno
            if number == EACCES || number == EROFS || number == EPERM {
                // A directory this process may read but not write: an existing lock file still locks.
                descriptor = retryingInterrupts {
                    openat(root.descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                }
            }
            if descriptor < 0 {
                throw ArchiveError.io(
                    errno: number, "open the lock file", path: root.path(of: name))
            }
        }
        return FileLock(descriptor: descriptor, name: name)
    }
}
