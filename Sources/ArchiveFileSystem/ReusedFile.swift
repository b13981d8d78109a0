import Foundation
import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file of a value evicted to make room for a save, taken over to hold the saved value.
///
/// Deleting a file and creating another costs the file system an inode freed and one
/// allocated, and on many file systems that is what makes a save past the limits slower than
/// a save that evicts nothing. So a save that evicts a value of its own folder renames the
/// victim's file to its temporary name (under the store's exclusive lock, which makes that
/// the eviction), then writes its value into it (``write(_:mode:)``), and flushes it and
/// renames it into place as it would a new file.
///
/// Readers take no lock, so a load may have opened the victim's file before the rename. It
/// cannot be fooled: a file is only written after it left its name, and each reuse gives it a
/// new modification time, so a load that finds its key's name no longer naming the same,
/// unchanged file once it has the bytes reads again (``Directory/readFileAndStatus(_:maximumSize:)``).
///
/// Only a regular file of this user with one link is reused (a hard link elsewhere would see
/// the new value); any other victim is deleted. A reused file that is dropped before it is
/// renamed into place is deleted.
package final class ReusedFile {
    private let directory: Directory
    /// The temporary name it has until it is renamed into place.
    package let name: String
    private var descriptor: Int32
    private var handedOver = false

    private init(directory: Directory, name: String, descriptor: Int32) {
        self.directory = directory
        self.name = name
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !handedOver { _ = unlinkat(directory.descriptor, name, 0) }
    }

    /// What ``take(_:in:as:)`` did with a victim.
    package enum Taking {
        /// Renamed, to be reused.
        case reused(ReusedFile)
        /// Gone from its name: already gone, or renamed and deleted (not a file to reuse).
        case removed
        /// Left where it was: it could not be renamed.
        case failed
    }

    /// Renames `victim` to `temporaryName` and opens it to be reused.
    package static func take(_ victim: String, in directory: Directory, as temporaryName: String) -> Taking {
        if renameat(directory.descriptor, victim, directory.descriptor, temporaryName) != 0 {
            return errno == ENOENT ? .removed : .failed
        }
        let descriptor = retryingInterrupts {
            openat(directory.descriptor, temporaryName, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        }
        var status = stat()
        guard descriptor >= 0, fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
            status.st_nlink == 1, status.st_uid == geteuid()
        else {
            if descriptor >= 0 { close(descriptor) }
            _ = unlinkat(directory.descriptor, temporaryName, 0)
            return .removed
        }
        return .reused(ReusedFile(directory: directory, name: temporaryName, descriptor: descriptor))
    }

    /// Writes `content` over the file's old bytes with the exact permissions `mode` and gives it
    /// the current time as its modification time; the written file is then the returned
    /// ``WrittenFile``'s, to be flushed and renamed into place like a new one.
    ///
    /// - Throws: `.io` if anything fails, or if the file no longer has its temporary name (a
    ///   sweep of temporary files came between the eviction and this write); the caller then
    ///   writes a new file instead.
    package func write(_ content: Data, mode: UInt32) throws -> WrittenFile {
        let path = directory.path(of: name)
        var opened = stat()
        var linked = stat()
        guard fstat(descriptor, &opened) == 0, fstatat(directory.descriptor, name, &linked, AT_SYMLINK_NOFOLLOW) == 0,
            opened.st_ino == linked.st_ino, opened.st_dev == linked.st_dev
        else { throw ArchiveError(.io, reason: "\(path) is no longer the evicted file taken over") }
        guard fchmod(descriptor, mode_t(mode)) == 0 else {
            throw ArchiveError.io(errno: errno, "set the permissions of", path: path)
        }
        guard Directory.writeAll(content, to: descriptor) else { throw ArchiveError.io(errno: errno, "write", path: path) }
        guard retryingInterrupts({ ftruncate(descriptor, off_t(content.count)) }) == 0 else {
            throw ArchiveError.io(errno: errno, "truncate", path: path)
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        guard futimens(descriptor, [now, now]) == 0 else {
            throw ArchiveError.io(errno: errno, "set the modification time of", path: path)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ArchiveError.io(errno: errno, "inspect", path: path) }
        // The descriptor and the name are the written file's from here on.
        let written = WrittenFile(directory: directory, name: name, descriptor: descriptor, status: status)
        descriptor = -1
        handedOver = true
        return written
    }
}
