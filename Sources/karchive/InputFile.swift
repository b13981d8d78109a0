import ArchiveFileSystem
import KeyedArchive
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The whole content of the input, read with a size limit so a huge file fails fast.
struct InputFile {
    /// Files larger than this are refused: 256 MiB, far above any real archive and well within memory.
    static let maximumSize = 256 << 20

    /// The name used in messages (see ``InputSource/displayName``).
    let name: String
    let bytes: [UInt8]

    /// A file that could not be read, with a message for the user (without the file name).
    struct ReadError: Error {
        let message: String
    }

    /// Reads the whole input.
    ///
    /// A regular file's size is checked before anything is read; other inputs (standard input,
    /// pipes, devices) are read until end of file or until they exceed `maximumSize`.
    ///
    /// - Throws: ``ReadError`` when the file is missing, a directory, not permitted, fails to
    ///   read or is larger than `maximumSize`.
    init(contentsOf source: InputSource, maximumSize: Int = InputFile.maximumSize) throws(ReadError) {
        let descriptor: Int32
        switch source {
        case .standardInput:
            descriptor = 0
        case .path(let path):
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ReadError(message: "cannot open: \(Self.errorText(errno))") }
        }
        defer { if descriptor != 0 { close(descriptor) } }

        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw ReadError(message: "cannot read: \(Self.errorText(errno))") }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR {
            throw ReadError(message: "is a directory, not a file")
        }
        var capacity = 0
        if type == S_IFREG {
            let size = Int(info.st_size)
            guard size <= maximumSize else { throw Self.tooLarge("is \(size) bytes", maximumSize) }
            capacity = size
        }

        var bytes = [UInt8]()
        bytes.reserveCapacity(capacity)
        let chunkSize = 1 << 16
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = Directory.read(descriptor, into: &chunk, at: 0)
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(message: "cannot read: \(Self.errorText(errno))")
            }
            if count == 0 { break }
            guard bytes.count + count <= maximumSize else { throw Self.tooLarge("holds more than \(maximumSize) bytes", maximumSize) }
            bytes.append(contentsOf: chunk[0..<count])
        }
        self.name = source.displayName
        self.bytes = bytes
    }

    private static func tooLarge(_ what: String, _ limit: Int) -> ReadError {
        ReadError(message: "\(what), more than karchive reads (\(limit) bytes, \(limit >> 20) MiB)")
    }

    private static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
