import ArchiveFileSystem
import Foundation
import KeyedArchive
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of its own under the temporary directory, removed when the value goes away.
private final class ScratchFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "archive-file-reading-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func file(_ name: String) -> URL { url.appending(path: name) }
}

/// `ArchiveFile(contentsOf:)` reads with `open`, `fstat` and `read`: bounded by
/// `maximumArchiveSize`, to the file's real end, with system errors as `.io` naming path and errno.
@Suite("ArchiveFile reading")
struct ArchiveFileReadingTests {
    /// An archive of a few hundred kilobytes: larger than a pipe's buffer and the reader's first steps.
    static func largeArchive() throws -> (Data, [String]) {
        let words = (0..<20_000).map { "word number \($0)" }
        var file = ArchiveFile()
        try file.set(words, forKey: "words")
        return (try file.encoded(), words)
    }

    @Test("An empty file is a format error, not a system error")
    func emptyFile() throws {
        let folder = try ScratchFolder()
        let url = folder.file("empty.archive")
        try Data().write(to: url)
        let error = try #require(throws: ArchiveError.self) { try ArchiveFile(contentsOf: url) }
        #expect(error.code == .notPropertyList)
    }

    @Test("A missing file and a directory are .io errors naming the path and errno")
    func systemErrors() throws {
        let folder = try ScratchFolder()
        let missing = folder.file("missing.archive")
        let missingError = try #require(throws: ArchiveError.self) { try ArchiveFile(contentsOf: missing) }
        #expect(missingError.code == .io)
        #expect(missingError.reason.contains(missing.path))
        #expect(missingError.reason.contains("(errno \(ENOENT))"))

        let directoryError = try #require(throws: ArchiveError.self) { try ArchiveFile(contentsOf: folder.url) }
        #expect(directoryError.code == .io)
        #expect(directoryError.reason.contains(folder.url.path))
        #expect(directoryError.reason.contains("(errno \(EISDIR))"))

        let remote = try #require(throws: ArchiveError.self) { try ArchiveFile(contentsOf: URL(string: "https://example.com/a.archive")!) }
        #expect(remote.code == .io)
    }

    @Test("A file of exactly maximumArchiveSize bytes is read; one byte less refuses it before reading")
    func sizeLimit() throws {
        let folder = try ScratchFolder()
        let url = folder.file("state.archive")
        var file = ArchiveFile()
        try file.set("value", forKey: "key")
        let data = try file.encoded()
        try data.write(to: url)
        var options = KeyedUnarchiver.Options()
        options.maximumArchiveSize = data.count
        #expect(try ArchiveFile(contentsOf: url, options: options).decode(String.self, forKey: "key") == "value")
        options.maximumArchiveSize = data.count - 1
        let error = try #require(throws: ArchiveError.self) { try ArchiveFile(contentsOf: url, options: options) }
        #expect(error.code == .sizeLimit)
        #expect(error.reason.contains("\(url.path) is \(data.count) bytes"))
        #expect(error.reason.contains("maximumArchiveSize"))
    }

    @Test("A file is read to its real end when it has shrunk or grown since fstat")
    func readsToTheRealEnd() throws {
        let folder = try ScratchFolder()
        let url = folder.file("bytes")
        let (data, _) = try Self.largeArchive()
        try data.write(to: url)
        let file = open(url.path, O_RDONLY)
        try #require(file >= 0)
        defer { close(file) }
        let tooLarge = { (size: String) in ArchiveError(.sizeLimit, reason: size) }
        // Shrunk: fstat said more than there is.
        let shrunk = try Directory.readToEnd(
            file, expectedSize: data.count * 3, maximumSize: data.count * 4, path: url.path, tooLarge: tooLarge)
        #expect(shrunk == data)
        // Grown: fstat said nothing (or less than there is).
        for expected in [0, 1, 100, data.count - 1] {
            lseek(file, 0, SEEK_SET)
            let grown = try Directory.readToEnd(file, expectedSize: expected, maximumSize: data.count, path: url.path, tooLarge: tooLarge)
            #expect(grown == data, "expected size \(expected)")
        }
    }

    @Test("A file that grows past the maximum stops being read one byte beyond it")
    func growthIsBounded() throws {
        let folder = try ScratchFolder()
        let url = folder.file("bytes")
        try Data(repeating: 7, count: 200_000).write(to: url)
        let file = open(url.path, O_RDONLY)
        try #require(file >= 0)
        defer { close(file) }
        for maximum in [0, 1, 1000, 70_000, 199_999] {
            lseek(file, 0, SEEK_SET)
            let error = try #require(throws: ArchiveError.self) {
                try Directory.readToEnd(file, expectedSize: 10 < maximum ? 10 : 0, maximumSize: maximum, path: url.path) {
                    ArchiveError(.sizeLimit, reason: $0)
                }
            }
            #expect(error.reason == "more than \(maximum)")
            #expect(lseek(file, 0, SEEK_CUR) == maximum + 1, "maximum \(maximum)")
        }
        lseek(file, 0, SEEK_SET)
        let exact = try Directory.readToEnd(file, expectedSize: 0, maximumSize: 200_000, path: url.path) {
            ArchiveError(.sizeLimit, reason: $0)
        }
        #expect(exact.count == 200_000)
    }

    @Test("An archive larger than a pipe's buffer is read from a named pipe")
    func namedPipe() throws {
        let folder = try ScratchFolder()
        let url = folder.file("pipe")
        try #require(mkfifo(url.path, 0o600) == 0)
        let (data, words) = try Self.largeArchive()
        let path = url.path
        let writer = Thread {
            // A reader that stops early makes write fail with EPIPE rather than end the process.
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let file = open(path, O_WRONLY)
            guard file >= 0 else { return }
            data.withUnsafeBytes { buffer in
                var written = 0
                while written < buffer.count {
                    let count = write(file, buffer.baseAddress! + written, buffer.count - written)
                    if count <= 0 { break }
                    written += count
                }
            }
            close(file)
        }
        writer.start()
        let file = try ArchiveFile(contentsOf: url)
        #expect(try file.decode([String].self, forKey: "words") == words)
    }
}
