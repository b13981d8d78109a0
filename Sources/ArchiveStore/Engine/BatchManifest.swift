import ArchiveFileSystem
import Foundation
import KeyedArchive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a batch changes: the temporary files it renames over keys' files, the keys' files it
/// deletes, and the journal records that tell the store's index and observers about it.
///
/// Written (and, at `.full` durability, flushed with the values) before the batch's first
/// rename, and published as the store's `.batch` file (``BatchMarker``); from then on the batch
/// is committed: whoever finds the file left by a killed process finishes it from here.
///
/// Layout: the magic `KABATCH1`, a flags byte (bit 0: flush when finishing), the number of
/// renames (`UInt32`, little-endian) and for each its folder (relative to the root), temporary
/// name and key file name; the number of removals and for each its folder and key file name
/// (each text a `UInt32` length and UTF-8 bytes); then journal records as ``StoreJournal``
/// writes them, to the end, and the FNV-1a hash of everything before it (`UInt32`).
struct BatchManifest: Equatable {
    struct Rename: Equatable {
        var directory: String
        var temporaryName: String
        var fileName: String
    }

    struct Removal: Equatable {
        var directory: String
        var fileName: String
    }

    var renames: [Rename] = []
    var removals: [Removal] = []
    var records: [StoreJournal.Record] = []
    /// Whether the batch was written at `.full` durability: finishing it flushes its folders.
    var durable: Bool

    static let magic: [UInt8] = Array("KABATCH1".utf8)
    /// A manifest longer than this is damage.
    static let maximumLength = 64 << 20

    init(durable: Bool) {
        self.durable = durable
    }

    var isEmpty: Bool { renames.isEmpty && removals.isEmpty }

    func encoded() -> [UInt8] {
        var bytes = Self.magic
        bytes.append(durable ? 1 : 0)
        Self.appendInteger(UInt32(renames.count), to: &bytes)
        for rename in renames {
            for text in [rename.directory, rename.temporaryName, rename.fileName] { Self.appendText(text, to: &bytes) }
        }
        Self.appendInteger(UInt32(removals.count), to: &bytes)
        for removal in removals {
            for text in [removal.directory, removal.fileName] { Self.appendText(text, to: &bytes) }
        }
        for record in records { StoreJournal.append(record, to: &bytes) }
        Self.appendInteger(StoreJournal.checksum(bytes), to: &bytes)
        return bytes
    }

    /// Reads a manifest; nil for anything that is not a whole manifest naming only places the
    /// store writes (a file planted as `.batch` can never make the store rename or delete
    /// anything else).
    init?(decoding bytes: [UInt8]) {
        guard bytes.count >= Self.magic.count + 13, bytes.count <= Self.maximumLength,
            bytes.starts(with: Self.magic)
        else { return nil }
        let body = bytes[..<(bytes.count - 4)]
        var position = Self.magic.count
        guard StoreJournal.checksum(body) == Self.integer(UInt32.self, at: bytes.count - 4, in: bytes) else { return nil }
        let end = body.count
        let flags = bytes[position]
        position += 1
        durable = flags & 1 != 0
        guard let renameCount = Self.readInteger(UInt32.self, bytes, &position, end: end) else { return nil }
        for _ in 0..<renameCount {
            guard let directory = Self.readText(bytes, &position, end: end),
                let temporaryName = Self.readText(bytes, &position, end: end),
                let fileName = Self.readText(bytes, &position, end: end),
                StoreJournal.isValidPlace(directory: directory, fileName: fileName),
                StoreFileName.classify(temporaryName) == .temporary
            else { return nil }
            renames.append(Rename(directory: directory, temporaryName: temporaryName, fileName: fileName))
        }
        guard let removalCount = Self.readInteger(UInt32.self, bytes, &position, end: end) else { return nil }
        for _ in 0..<removalCount {
            guard let directory = Self.readText(bytes, &position, end: end),
                let fileName = Self.readText(bytes, &position, end: end),
                StoreJournal.isValidPlace(directory: directory, fileName: fileName)
            else { return nil }
            removals.append(Removal(directory: directory, fileName: fileName))
        }
        let parsed = StoreJournal.parse(Array(bytes[position..<end]), from: 0)
        guard !parsed.damaged, parsed.end == end - position else { return nil }
        records = parsed.records
    }

    private static func appendInteger(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        appendInteger(UInt32(text.utf8.count), to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    private static func integer(_: UInt32.Type, at position: Int, in bytes: [UInt8]) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[position + $1]) << (8 * $1) }
    }

    private static func readInteger(_: UInt32.Type, _ bytes: [UInt8], _ position: inout Int, end: Int) -> UInt32? {
        guard end - position >= 4 else { return nil }
        defer { position += 4 }
        return integer(UInt32.self, at: position, in: bytes)
    }

    private static func readText(_ bytes: [UInt8], _ position: inout Int, end: Int) -> String? {
        guard let length = readInteger(UInt32.self, bytes, &position, end: end), end - position >= Int(length),
            let text = String(validating: bytes[position..<(position + Int(length))], as: UTF8.self)
        else { return nil }
        position += Int(length)
        return text
    }
}

/// The store's `.batch` file: a batch's ``BatchManifest``, present from just before the batch's
/// first rename until its last change is made (and, at `.full`, flushed).
///
/// The writer creates it under a temporary name, takes an exclusive `flock(2)` lock on it, writes
/// the manifest and only then links it as `.batch` (failing if one is there: one batch at a time
/// per store, across processes), so the file never appears unlocked or incomplete. It unlinks
/// it when done, and its lock goes with its descriptor.
///
/// Every load first looks for `.batch` (one `fstatat`) and, when it is there, waits for its
/// lock (``settle(in:finishing:)``). If the file is still linked once the lock is had, its
/// writer was killed: the batch is finished from the manifest (renames of temporary files
/// still there, deletions) and the file removed. So once one change of a batch can be seen,
/// every later load sees all of them, in this process and every other, and a kill at any
/// moment leaves all of a batch or none of it (none when it dies before `.batch` exists).
/// The sweeps of temporary files settle `.batch` first, so the temporary files it names are
/// never taken for a killed save's.
final class BatchMarker {
    static let fileName = ".batch"

    let descriptor: Int32
    private let temporaryName: String
    private var published = false
    private var closed = false

    private init(descriptor: Int32, temporaryName: String) {
        self.descriptor = descriptor
        self.temporaryName = temporaryName
    }

    deinit { closeDescriptor() }

    private func closeDescriptor() {
        guard !closed else { return }
        closed = true
        close(descriptor)  // releases the lock
    }

    /// Writes `manifest` to a new temporary file in `root`, locked exclusive.
    static func prepare(_ manifest: BatchManifest, in root: Directory, temporaryName: String, mode: UInt32) throws -> BatchMarker {
        let descriptor = retryingInterrupts {
            openat(root.descriptor, temporaryName, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        }
        if descriptor < 0 { throw ArchiveError.io(errno: errno, "create the batch file", path: root.path(of: temporaryName)) }
        let marker = BatchMarker(descriptor: descriptor, temporaryName: temporaryName)
        guard fchmod(descriptor, mode_t(mode)) == 0, retryingInterrupts({ flock(descriptor, LOCK_EX) }) == 0,
            Directory.writeAll(manifest.encoded(), to: descriptor)
        else {
            let error = ArchiveError.io(errno: errno, "write the batch file", path: root.path(of: temporaryName))
            _ = unlinkat(root.descriptor, temporaryName, 0)
            throw error
        }
        return marker
    }

    /// Links the manifest as `.batch`, once any other batch's is gone (see ``settle(in:finishing:)``).
    func publish(in root: Directory, finishing: (BatchManifest) throws -> Void) throws {
        while linkat(root.descriptor, temporaryName, root.descriptor, Self.fileName, 0) != 0 {
            guard errno == EEXIST else {
                throw ArchiveError.io(errno: errno, "publish the batch file", path: root.path(of: Self.fileName))
            }
            try Self.settle(in: root, finishing: finishing)
        }
        published = true
        _ = unlinkat(root.descriptor, temporaryName, 0)
    }

    /// Removes `.batch` once every change is made: later loads no longer wait.
    func withdraw(in root: Directory) {
        if published {
            // No one else unlinks it: that takes its lock, which this marker holds.
            _ = unlinkat(root.descriptor, Self.fileName, 0)
        } else {
            _ = unlinkat(root.descriptor, temporaryName, 0)
        }
        closeDescriptor()
    }

    /// Gives up a batch none of whose changes was made.
    func abandon(in root: Directory) {
        withdraw(in: root)
    }

    /// Leaves `.batch` published for someone to finish (a change failed after publication).
    func leave() {
        closeDescriptor()
    }

    /// Waits while a batch is being published, and finishes one left by a killed process (with
    /// `finishing`); returns at once when there is no `.batch` (one `fstatat`).
    ///
    /// A `.batch` that is not a manifest (damage, or a file put there by hand) is removed.
    ///
    /// - Throws: `finishing`'s error; `.batch` is then left for the next one to try.
    static func settle(in root: Directory, finishing: (BatchManifest) throws -> Void) throws {
        var status = stat()
        guard fstatat(root.descriptor, fileName, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return }
        while true {
            let descriptor = retryingInterrupts { openat(root.descriptor, fileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            guard retryingInterrupts({ flock(descriptor, LOCK_EX) }) == 0 else {
                throw ArchiveError.io(errno: errno, "lock", path: root.path(of: fileName))
            }
            // Still the published file? Else its writer finished (or someone finished it): look again.
            var opened = stat()
            guard fstat(descriptor, &opened) == 0, fstatat(root.descriptor, fileName, &status, AT_SYMLINK_NOFOLLOW) == 0
            else { return }
            guard opened.st_ino == status.st_ino, opened.st_dev == status.st_dev else { continue }
            let length = Int(opened.st_size)
            if length <= BatchManifest.maximumLength,
                let manifest = BatchManifest(decoding: StoreJournal.bytes(of: descriptor, from: 0, count: length))
            {
                try finishing(manifest)
            }
            _ = unlinkat(root.descriptor, fileName, 0)
            return
        }
    }
}
