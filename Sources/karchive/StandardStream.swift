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
        var text = text
        text.withUTF8 { bytes in
            guard var next = bytes.baseAddress else { return }
            var remaining = bytes.count
            while remaining > 0 {
                let written = systemWrite(rawValue, next, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                next += written
                remaining -= written
            }
        }
    }
}

/// `write(2)`; a free function because `StandardStream.write` hides the C name inside the type.
private func systemWrite(_ fd: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
    write(fd, bytes, count)
}
