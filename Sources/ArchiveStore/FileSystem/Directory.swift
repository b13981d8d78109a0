import Foundation
import KeyedArchive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open directory, and the few system calls the store makes relative to it.
///
/// Every file operation goes through `*at` calls on a directory descriptor with plain names
/// (never paths with `/`), and namespace directories are opened with `O_NOFOLLOW`, so nothing
/// is ever read or written outside the store directory, even if a namespace directory is
/// replaced by a symbolic link. Not Sendable: one is opened per operation and closed after it.
final class Directory {
    /// The descriptor (`O_RDONLY | O_DIRECTORY`).
    let descriptor: Int32
    /// The directory's path, for error messages.
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Opens the directory at `path` (following symbolic links: the caller chose it).
    ///
    /// - Returns: nil if it does not exist.
    static func open(path: String) throws -> Directory? {
        let descriptor = retryingInterrupts { systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw ArchiveError.io(errno: errno, "open the directory", path: path)
        }
        return Directory(descriptor: descriptor, path: path)
    }

    /// Creates the directory at `path` and any missing parents, each made durable in its parent.
    static func create(path: String) throws {
        var parent = path.hasPrefix("/") ? "/" : "."
        for component in path.split(separator: "/") {
            let current = parent == "/" ? "/" + component : parent + "/" + component
            if mkdir(current, mode_t(StoreFormat.directoryMode)) == 0 {
                try Directory.open(path: parent)?.sync()
            } else if errno != EEXIST {
                throw ArchiveError.io(errno: errno, "create the directory", path: current)
            }
            parent = current
        }
    }

    /// The full path of entry `name`.
    func path(of name: String) -> String { path + "/" + name }

    /// Opens the subdirectory `name` without following a symbolic link, creating it (and making
    /// its entry durable) when `create` is true.
    ///
    /// - Returns: nil when it does not exist and `create` is false.
    func subdirectory(_ name: String, create: Bool) throws -> Directory? {
        while true {
            let opened = retryingInterrupts {
                openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            if opened >= 0 { return Directory(descriptor: opened, path: path(of: name)) }
            let number = errno
            guard number == ENOENT, create else {
                if number == ENOENT { return nil }
                throw ArchiveError.io(errno: number, "open the namespace directory", path: path(of: name))
            }
            if mkdirat(descriptor, name, mode_t(StoreFormat.directoryMode)) != 0, errno != EEXIST {
                throw ArchiveError.io(errno: errno, "create the namespace directory", path: path(of: name))
            }
            try sync()
        }
    }

    /// The names in the directory, without `.` and `..`.
    func entries() throws -> [String] {
        let copy = dup(descriptor)
        guard copy >= 0, let stream = fdopendir(copy) else {
            let number = errno
            if copy >= 0 { close(copy) }
            throw ArchiveError.io(errno: number, "list the directory", path: path)
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw ArchiveError.io(errno: errno, "list the directory", path: path) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
    }

    /// The identity and kind of entry `name`, without following a symbolic link; nil if absent.
    func status(of name: String) throws -> stat? {
        var info = stat()
        if fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return info }
        if errno == ENOENT { return nil }
        throw ArchiveError.io(errno: errno, "inspect", path: path(of: name))
    }

    /// The whole content of the regular file `name`; nil if it does not exist.
    ///
    /// - Throws: `ArchiveError` `.sizeLimit` for a file of more than `maximumSize` bytes (before
    ///   reading it), `.io` when it cannot be opened or read or is not a regular file.
    func readFile(_ name: String, maximumSize: Int) throws -> Data? {
        let file = retryingInterrupts { openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        if file < 0 {
            if errno == ENOENT { return nil }
            throw ArchiveError.io(errno: errno, "open", path: path(of: name))
        }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0 else { throw ArchiveError.io(errno: errno, "inspect", path: path(of: name)) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ArchiveError(.io, reason: "could not read \(path(of: name)): it is not a regular file")
        }
        guard info.st_size <= maximumSize else { throw tooLarge(name, size: "\(info.st_size)", maximumSize) }
        // Read until end of file, whatever fstat said (the file is never written in place, but be exact).
        var data = Data(count: Int(info.st_size) + 1)
        var length = 0
        while true {
            if length == data.count {
                guard data.count <= maximumSize else {
                    throw tooLarge(name, size: "more than \(maximumSize)", maximumSize)
                }
                data.count *= 2
            }
            let count = data.withUnsafeMutableBytes { buffer in
                retryingInterrupts { read(file, buffer.baseAddress! + length, buffer.count - length) }
            }
            if count < 0 { throw ArchiveError.io(errno: errno, "read", path: path(of: name)) }
            if count == 0 { break }
            length += count
        }
        guard length <= maximumSize else { throw tooLarge(name, size: "\(length)", maximumSize) }
        data.count = length
        return data
    }

    @inline(never)
    private func tooLarge(_ name: String, size: String, _ maximumSize: Int) -> ArchiveError {
        ArchiveError(
            .sizeLimit,
            reason:
                "\(path(of: name)) is \(size) bytes, more than the maximum of \(maximumSize) the store reads (raise the store's unarchiverOptions.maximumArchiveSize to read it); the file was left in place"
        )
    }

    /// Creates the new file `name` (failing if it exists), with `content` written and flushed to disk.
    ///
    /// On failure the partly written file is removed before the error is thrown.
    func createDurableFile(_ name: String, content: Data) throws {
        let file = retryingInterrupts {
            openat(descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(StoreFormat.fileMode))
        }
        if file < 0 { throw ArchiveError.io(errno: errno, "create the temporary file", path: path(of: name)) }
        var failure: ArchiveError?
        content.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = retryingInterrupts { write(file, buffer.baseAddress! + written, buffer.count - written) }
                if count < 0 {
                    failure = ArchiveError.io(errno: errno, "write", path: path(of: name))
                    return
                }
                written += count
            }
        }
        if failure == nil, !Directory.flushToDisk(file) {
            failure = ArchiveError.io(errno: errno, "flush to disk", path: path(of: name))
        }
        if close(file) != 0, failure == nil, errno != EINTR {
            failure = ArchiveError.io(errno: errno, "close", path: path(of: name))
        }
        if let failure {
            _ = unlinkat(descriptor, name, 0)
            throw failure
        }
    }

    /// Atomically replaces `target` with `source` (both entries of this directory).
    func rename(_ source: String, to target: String) throws {
        if renameat(descriptor, source, descriptor, target) != 0 {
            throw ArchiveError.io(errno: errno, "rename \(path(of: source)) to", path: path(of: target))
        }
    }

    /// Removes the file `name`. Returns false if it did not exist.
    @discardableResult
    func removeFile(_ name: String) throws -> Bool {
        if unlinkat(descriptor, name, 0) == 0 { return true }
        if errno == ENOENT { return false }
        throw ArchiveError.io(errno: errno, "remove", path: path(of: name))
    }

    /// Removes the subdirectory `name` if it is empty; keeps it (without error) if it is not.
    func removeDirectoryIfEmpty(_ name: String) throws {
        if unlinkat(descriptor, name, AT_REMOVEDIR) == 0 { return }
        switch errno {
        case ENOENT, ENOTEMPTY, EEXIST: return
        default: throw ArchiveError.io(errno: errno, "remove the directory", path: path(of: name))
        }
    }

    /// Makes the directory's entries (created, renamed, removed names) durable.
    func sync() throws {
        if !Directory.flushToDisk(descriptor), errno != EINVAL {
            throw ArchiveError.io(errno: errno, "flush to disk", path: path)
        }
    }

    /// `fsync`, or `F_FULLFSYNC` where plain `fsync` leaves data in the drive's cache (Apple).
    static func flushToDisk(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
        #endif
        return retryingInterrupts { fsync(descriptor) } == 0
    }
}

/// Calls `body` again while it fails with `EINTR`.
func retryingInterrupts<Result: BinaryInteger>(_ body: () -> Result) -> Result {
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
