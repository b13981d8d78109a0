import Foundation
import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What only the store does with a directory: namespace subdirectories, listing, and reading
/// stored files within the store's size limit.
extension Directory {
    /// Opens the subdirectory `name` without following a symbolic link, creating it (and making
    /// its entry durable) when `create` is true.
    ///
    /// - Returns: nil when it does not exist and `create` is false.
    /// `mode` is the exact mode of a directory it creates.
    /// `created` is called with the path of a directory it creates.
    package func subdirectory(
        _ name: String, create: Bool, mode: UInt16 = 0o700, created whenCreated: (String) -> Void = { _ in }
    ) throws -> Directory? {
        var created = false
        while true {
            let opened = retryingInterrupts {
                openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            if opened >= 0 {
                let directory = Directory(descriptor: opened, path: path(of: name))
                if created {
                    if fchmod(opened, mode_t(mode)) != 0 {
                        throw ArchiveError.io(errno: errno, "set the permissions of", path: path(of: name))
                    }
                    whenCreated(path(of: name))
                }
                return directory
            }
            let number = errno
            guard number == ENOENT, create else {
                if number == ENOENT { return nil }
                throw ArchiveError.io(errno: number, "open the namespace directory", path: path(of: name))
            }
            if mkdirat(descriptor, name, mode_t(mode)) == 0 {
                created = true
            } else if errno != EEXIST {
                throw ArchiveError.io(errno: errno, "create the namespace directory", path: path(of: name))
            }
            try sync()
        }
    }

    /// The names in the directory, without `.` and `..`.
    package func entries() throws -> [String] {
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
            let name = Directory.name(of: entry.pointee)
            if name != ".", name != ".." { names.append(name) }
        }
    }

    /// The whole content of the regular file `name`; nil if it does not exist.
    ///
    /// - Throws: `ArchiveError` `.sizeLimit` for a file of more than `maximumSize` bytes (before
    ///   reading it), `.io` when it cannot be opened or read or is not a regular file.
    package func readFile(_ name: String, maximumSize: Int) throws -> Data? {
        try readFileAndStatus(name, maximumSize: maximumSize)?.data
    }

    /// ``readFile(_:maximumSize:)``, with the status of the file read (from the same descriptor).
    ///
    /// The bytes are those of one version of the file: a save past the store's limits reuses
    /// an evicted value's file for the value it writes (``ReusedFile``), renaming it away from
    /// its name before writing into it, so a read that raced with that is told by the name no
    /// longer naming the same, unchanged file once the bytes are in. It is then read again, and
    /// a file gone by then is absent.
    package func readFileAndStatus(_ name: String, maximumSize: Int) throws -> (data: Data, status: stat)? {
        for _ in 0..<Self.readAttempts {
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
            let data = try Directory.readToEnd(
                file, expectedSize: Int(info.st_size), maximumSize: maximumSize, path: path(of: name),
                tooLarge: { tooLarge(name, size: $0, maximumSize) })
            var after = stat()
            if fstatat(descriptor, name, &after, AT_SYMLINK_NOFOLLOW) != 0 {
                if errno == ENOENT { return nil }
                throw ArchiveError.io(errno: errno, "inspect", path: path(of: name))
            }
            if FileIdentity(after) == FileIdentity(info) { return (data, info) }
        }
        throw ArchiveError(
            .io, reason: "could not read \(path(of: name)): it was replaced \(Self.readAttempts) times while being read")
    }

    /// How many times a file replaced while being read is read again.
    package static let readAttempts = 16

    @inline(never)
    private func tooLarge(_ name: String, size: String, _ maximumSize: Int) -> ArchiveError {
        ArchiveError(
            .sizeLimit,
            reason:
                "\(path(of: name)) is \(size) bytes, more than the maximum of \(maximumSize) the store reads (raise the store's unarchiverOptions.maximumArchiveSize to read it); the file was left in place"
        )
    }

}
