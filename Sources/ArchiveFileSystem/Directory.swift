// Unsafe code in this file: buffers are handed to `read(2)` and `write(2)` with exactly the bytes they hold, and
// `readdir` names are read within their fixed-size field.

import Foundation
import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open directory, and the few system calls the store and `ArchiveFile` make relative to it.
///
/// Every file operation goes through `*at` calls on a directory descriptor with plain names
/// (never paths with `/`), and namespace directories are opened with `O_NOFOLLOW`, so nothing
/// is ever read or written outside the store directory, even if a namespace directory is
/// replaced by a symbolic link. Not Sendable: one is opened per operation and closed after it.
package final class Directory {
    /// Permissions of new files and directories (`rw-r--r--`, `rwxr-xr-x`), before the umask.
    package static let fileMode: UInt32 = 0o644
    package static let directoryMode: UInt32 = 0o755

    /// The descriptor (`O_RDONLY | O_DIRECTORY`).
    package let descriptor: Int32
    /// The directory's path, for error messages.
    package let path: String

    package init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Opens the directory at `path` (following symbolic links: the caller chose it).
    ///
    /// - Returns: nil if it does not exist.
    package static func open(path: String) throws -> Directory? {
        let descriptor = retryingInterrupts { systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw ArchiveError.io(errno: errno, "open the directory", path: path)
        }
        return Directory(descriptor: descriptor, path: path)
    }

    /// Creates the directory at `path` and any missing parents, each made durable in its parent.
    ///
    /// - Parameter mode: The exact permissions of the directories created (whatever the umask);
    ///   nil for ``directoryMode`` less the umask. Existing directories keep theirs.
    package static func create(path: String, mode: UInt32? = nil) throws {
        var parent = path.hasPrefix("/") ? "/" : "."
        for component in path.split(separator: "/") {
            let current = parent == "/" ? "/" + component : parent + "/" + component
            if mkdir(current, mode_t(mode ?? Directory.directoryMode)) == 0 {
                if let mode {
                    // Through a descriptor opened without following links: never another file's mode.
                    let created = retryingInterrupts { systemOpen(current, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
                    let failed = created < 0 || fchmod(created, mode_t(mode)) != 0
                    let number = errno
                    if created >= 0 { close(created) }
                    if failed { throw ArchiveError.io(errno: number, "set the permissions of", path: current) }
                }
                try Directory.open(path: parent)?.sync()
            } else if errno != EEXIST {
                throw ArchiveError.io(errno: errno, "create the directory", path: current)
            }
            parent = current
        }
    }

    /// The full path of entry `name`.
    package func path(of name: String) -> String { path + "/" + name }

    /// The identity and kind of entry `name`, without following a symbolic link; nil if absent.
    package func status(of name: String) throws -> stat? {
        var info = stat()
        if fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return info }
        if errno == ENOENT { return nil }
        throw ArchiveError.io(errno: errno, "inspect", path: path(of: name))
    }

    /// Creates the new file `name` (failing if it exists), with `content` written and flushed to disk.
    ///
    /// On failure the partly written file is removed before the error is thrown.
    ///
    /// - Parameter mode: The file's exact permissions (whatever the umask); nil for
    ///   ``fileMode`` less the umask.
    /// - Returns: The new file's status (its inode stays the same through a rename).
    @discardableResult
    package func createDurableFile(_ name: String, content: Data, mode: UInt32? = nil) throws -> stat {
        let file = try writeNewFile(name, content: content, mode: mode)
        if !Directory.flushToDisk(file.descriptor) {
            let failure = ArchiveError.io(errno: errno, "flush to disk", path: path(of: name))
            file.discard()
            throw failure
        }
        return file.status
    }

    /// Creates the new file `name` (failing if it exists) with `content` written, and keeps it
    /// open to be flushed (``Flush``) with others before it is renamed into place.
    ///
    /// On failure the partly written file is removed before the error is thrown.
    ///
    /// - Parameter mode: The file's exact permissions (whatever the umask); nil for
    ///   ``fileMode`` less the umask.
    package func writeNewFile(_ name: String, content: some ContiguousBytes, mode: UInt32? = nil) throws -> WrittenFile {
        let file = retryingInterrupts {
            openat(
                descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                mode_t(mode ?? Directory.fileMode))
        }
        if file < 0 { throw ArchiveError.io(errno: errno, "create the temporary file", path: path(of: name)) }
        var failure: ArchiveError?
        if let mode, fchmod(file, mode_t(mode)) != 0 {
            failure = ArchiveError.io(errno: errno, "set the permissions of", path: path(of: name))
        }
        if failure == nil, !Directory.writeAll(content, to: file) { failure = ArchiveError.io(errno: errno, "write", path: path(of: name)) }
        var status = stat()
        if failure == nil, fstat(file, &status) != 0 {
            failure = ArchiveError.io(errno: errno, "inspect", path: path(of: name))
        }
        if let failure {
            close(file)
            _ = unlinkat(descriptor, name, 0)
            throw failure
        }
        return WrittenFile(directory: self, name: name, descriptor: file, status: status)
    }

    /// Atomically replaces `target` with `source` (both entries of this directory).
    package func rename(_ source: String, to target: String) throws {
        if renameat(descriptor, source, descriptor, target) != 0 {
            throw ArchiveError.io(errno: errno, "rename \(path(of: source)) to", path: path(of: target))
        }
    }

    /// Replaces the file `name` with `content`: a new file `temporaryName` written and flushed to
    /// disk, then renamed over `name`. A failure leaves the old file as it was (and no temporary
    /// file). The rename is durable once ``sync()`` returns.
    ///
    /// - Returns: The status of the file written (taken before the rename).
    @discardableResult
    package func replaceFile(_ name: String, with content: Data, temporaryName: String, mode: UInt32? = nil) throws -> stat {
        let status = try createDurableFile(temporaryName, content: content, mode: mode)
        do {
            try rename(temporaryName, to: name)
        } catch {
            _ = try? removeFile(temporaryName)
            throw error
        }
        return status
    }

    /// Removes the file `name`. Returns false if it did not exist.
    @discardableResult
    package func removeFile(_ name: String) throws -> Bool {
        if unlinkat(descriptor, name, 0) == 0 { return true }
        if errno == ENOENT { return false }
        throw ArchiveError.io(errno: errno, "remove", path: path(of: name))
    }

    /// Removes the subdirectory `name` if it is empty; keeps it (without error) if it is not.
    package func removeDirectoryIfEmpty(_ name: String) throws {
        if unlinkat(descriptor, name, AT_REMOVEDIR) == 0 { return }
        switch errno {
        case ENOENT, ENOTEMPTY, EEXIST: return
        default: throw ArchiveError.io(errno: errno, "remove the directory", path: path(of: name))
        }
    }

    /// Makes the directory's entries (created, renamed, removed names) durable.
    package func sync() throws {
        if !Directory.flushToDisk(descriptor), errno != EINVAL {
            throw ArchiveError.io(errno: errno, "flush to disk", path: path)
        }
    }

    /// Makes what was written to `descriptor` durable (see ``Flush``); false with `errno` set if
    /// it failed.
    package static func flushToDisk(_ descriptor: Int32) -> Bool {
        guard let number = Flush.flush([descriptor], for: .durable) else { return true }
        errno = number
        return false
    }
}

/// A file just written by ``Directory/writeNewFile(_:content:mode:)``, still open so that it can
/// be flushed with others; closed when released.
package final class WrittenFile {
    package let directory: Directory
    /// Its name in `directory` (until it is renamed).
    package let name: String
    package let descriptor: Int32
    /// Its status once written (the inode stays the same through a rename).
    package let status: stat

    init(directory: Directory, name: String, descriptor: Int32, status: stat) {
        self.directory = directory
        self.name = name
        self.descriptor = descriptor
        self.status = status
    }

    deinit { close(descriptor) }

    /// Removes the file (it was not renamed into place).
    package func discard() {
        _ = unlinkat(directory.descriptor, name, 0)
    }
}

extension Directory {
    /// The whole content of the file at `path` (following symbolic links: the caller chose it),
    /// read with `open`, `fstat` and `read`, never more than `maximumSize` bytes of it.
    ///
    /// - Parameter tooLarge: the error for a file of more than `maximumSize` bytes, given its size
    ///   as text (`"2048"`, or `"more than 1024"` when it outgrew what `fstat` said).
    /// - Throws: `ArchiveError` `.io` (with the path and `errno`) if the file cannot be opened or
    ///   read, or `tooLarge`'s error.
    package static func readFile(atPath path: String, maximumSize: Int, tooLarge: (String) -> ArchiveError) throws -> Data {
        let file = retryingInterrupts { systemOpen(path, O_RDONLY | O_CLOEXEC) }
        if file < 0 { throw ArchiveError.io(errno: errno, "open", path: path) }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0 else { throw ArchiveError.io(errno: errno, "inspect", path: path) }
        // Only a regular file's size means anything; a pipe or device is read until it ends.
        let expectedSize = info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : 0
        return try readToEnd(file, expectedSize: expectedSize, maximumSize: maximumSize, path: path, tooLarge: tooLarge)
    }

    /// Reads the open descriptor `file` to its end, expecting about `expectedSize` bytes (what
    /// `fstat` said): a file that grew or shrank since is read to its real end, and reading stops
    /// with `tooLarge`'s error as soon as it yields more than `maximumSize` bytes.
    ///
    /// - Throws: `tooLarge`'s error (before reading anything when `expectedSize` is already too
    ///   large), or `.io` (with `path` and `errno`) if a read fails.
    package static func readToEnd(
        _ file: Int32, expectedSize: Int, maximumSize: Int, path: String, tooLarge: (String) -> ArchiveError
    ) throws -> Data {
        let maximumSize = max(maximumSize, 0)
        guard expectedSize <= maximumSize else { throw tooLarge("\(expectedSize)") }
        // One byte more than the maximum tells a file at the limit from one beyond it.
        let limit = maximumSize == Int.max ? maximumSize : maximumSize + 1
        // One byte more than expected finds the end of an unchanged file in the first read.
        var data = Data(count: min(max(expectedSize, 0) + 1, limit))
        var length = 0
        while true {
            if length == data.count {
                guard length < limit else { throw tooLarge("more than \(maximumSize)") }
                data.count = data.count >= limit / 2 ? limit : min(max(data.count * 2, 1 << 16), limit)
            }
            let count = retryingInterrupts { Directory.read(file, into: &data, at: length) }
            if count < 0 { throw ArchiveError.io(errno: errno, "read", path: path) }
            if count == 0 { break }
            length += count
        }
        data.count = length
        return data
    }
}

// MARK: Descriptors

// The buffer-handling ends of `read(2)`, `write(2)` and `readdir(3)`, for every module of the
// package: the only place outside the byte format and reflection where a buffer is handed to
// the system by address. Each passes exactly the bytes the buffer holds.

extension Directory {
    /// Writes all of `bytes` to `descriptor`, retrying short and interrupted writes; false (with
    /// `errno` set) if a write fails.
    package static func writeAll(_ bytes: some ContiguousBytes, to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = retryingInterrupts { write(descriptor, buffer.baseAddress! + written, buffer.count - written) }
                if count < 0 { return false }
                written += count
            }
            return true
        }
    }

    /// One `read(2)` from `descriptor` into `buffer` from position `start` to its end; what
    /// `read` returns (the byte count, 0 at the end, -1 with `errno` set).
    package static func read(_ descriptor: Int32, into buffer: inout Data, at start: Int) -> Int {
        precondition(start >= 0 && start <= buffer.count, "read outside the buffer")
        return buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress! + start, $0.count - start) }
    }

    /// ``read(_:into:at:)`` into an array of bytes.
    package static func read(_ descriptor: Int32, into buffer: inout [UInt8], at start: Int) -> Int {
        precondition(start >= 0 && start <= buffer.count, "read outside the buffer")
        return buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress! + start, $0.count - start) }
    }

    /// One `pread(2)` from `descriptor` at file offset `offset` into `buffer` from position
    /// `start` to its end (retried when interrupted); what `pread` returns (the byte count, 0 at
    /// the end of the file, -1 with `errno` set).
    package static func read(_ descriptor: Int32, into buffer: inout [UInt8], at start: Int, fileOffset offset: Int) -> Int {
        precondition(start >= 0 && start <= buffer.count && offset >= 0, "read outside the buffer or the file")
        return buffer.withUnsafeMutableBytes { bytes in
            retryingInterrupts { pread(descriptor, bytes.baseAddress! + start, bytes.count - start, off_t(offset)) }
        }
    }

    /// The name of a directory entry `readdir` returned.
    package static func name(of entry: dirent) -> String {
        withUnsafeBytes(of: entry.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// `read(2)` under a name that does not clash with ``Directory/read(_:into:at:)``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.read(descriptor, buffer, count)
    #elseif canImport(Musl)
    Musl.read(descriptor, buffer, count)
    #else
    Glibc.read(descriptor, buffer, count)
    #endif
}

/// Calls `body` again while it fails with `EINTR`.
package func retryingInterrupts<Result: BinaryInteger>(_ body: () -> Result) -> Result {
    while true {
        let result = body()
        if result >= 0 || errno != EINTR { return result }
    }
}

/// `open(2)` under a name that does not clash with ``Directory/open(path:)``.
private func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
    #if canImport(Darwin)
    Darwin.open(path, flags)
    #elseif canImport(Musl)
    Musl.open(path, flags)
    #else
    Glibc.open(path, flags)
    #endif
}

extension ArchiveError {
    /// A failed system call on `path`, with the system's text for `number` (`errno`).
    ///
    /// `errno` comes first so that it is read before the other arguments are built.
    @inline(never)
    package static func io(errno number: Int32, _ action: String, path: String) -> ArchiveError {
        let text = String(cString: strerror(number))
        var reason = "could not \(action) \(path): \(text) (errno \(number))"
        switch number {
        case EACCES, EPERM: reason += "; check the directory's permissions and owner"
        case EROFS: reason += "; the file system is mounted read-only"
        case ENOSPC, EDQUOT: reason += "; free some disk space (the previous value is intact)"
        case EFBIG: reason += "; the file size limit was reached (the previous value is intact)"
        default: break
        }
        return ArchiveError(.io, reason: reason)
    }
}
