import ArchiveFileSystem
import KeyedArchive
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output or standard error, written through the file descriptor (no C `FILE` globals).
enum StandardStream: Int32 {
    case output = 1
    case error = 2

    /// Writes all of `text` as UTF-8, retrying short writes; gives up silently if the stream is closed.
    func write(_ text: String) {
        _ = Directory.writeAll(Array(text.utf8), to: rawValue)
    }
}

extension StandardStream {
    /// Writes all of `bytes`, retrying short writes; gives up silently if the stream is closed.
    func write(bytes: [UInt8]) {
        _ = Directory.writeAll(bytes, to: rawValue)
    }
}
