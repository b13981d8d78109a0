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

/// The store's journal: `.journal` in the root directory, a log of what happened to each stored
/// file, which every process using the store appends to and reads.
///
/// It is what lets a store know its size, its keys, each value's expiry and the order in which
/// values were last used without reading every file, across launches and between processes. It
/// is an index, never the truth: the files are. A journal that is missing, damaged or behind the
/// files (a process killed between a rename and its record) is rebuilt from a scan of the
/// store's directories (``StoreIndex``), and no value is ever deleted because of what the journal
/// alone says, except by the limits' eviction, which is what the limits ask for.
///
/// Layout: the 8-byte magic `KAJRNL01`, the length of the snapshot that follows as a
/// little-endian `UInt64` (the records written by the last compaction, its top bit set when a
/// compaction wrote the file, clear for a journal started empty), then records. A record
/// is a little-endian `UInt32` body length, the FNV-1a hash of the body (`UInt32`), and the body:
/// kind (`UInt8`), time (`Float64`, seconds since 2001), size (`Int64`), expiry (`Float64`,
/// NaN for none), then three length-prefixed UTF-8 strings: the directory relative to the root
/// (`""`, `ns-a`, `ns-a/ns-b`), the file name, and the key.
///
/// Appends are single `write(2)` calls on a descriptor opened with `O_APPEND`, so records from
/// several processes never interleave. A compaction (under the store's exclusive lock) writes
/// the snapshot to a new file and renames it over the journal; readers notice the new file by
/// its inode and read it from the start.
enum StoreJournal {
    static let fileName = ".journal"
    static let magic: [UInt8] = Array("KAJRNL01".utf8)
    static let headerSize = 16
    /// A record longer than this is damage, not a record.
    static let maximumRecordLength = 1 << 20
    /// Keys longer than this are not written into records (their file names are hashed, and the
    /// index reads the key from the file when it lists it).
    static let maximumRecordedKeyLength = 64 << 10
    /// Sizes above this in a record are damage (no file is that large).
    static let maximumRecordedSize = 1 << 52
    /// A journal longer than this is not read: it is rebuilt from the files.
    static let maximumJournalLength = 256 << 20
    /// The top bit of the header's snapshot length: a compaction wrote this file.
    static let compactedFlag: UInt64 = 1 << 63
    /// The journal is compacted once it is this long and at least three times its snapshot.
    static let compactionThreshold = 1 << 20

    enum Kind: UInt8 {
        /// A save is about to rename its file into place (the record comes first, so a killed
        /// save leaves the index counting at least what is on disk).
        case saving = 1
        /// The save's rename is done.
        case saved = 2
        /// The value was loaded.
        case used = 3
        case removed = 4
        case expired = 5
        case evicted = 6
        /// A compaction's record of an entry, oldest use first.
        case snapshot = 7
        /// What a key's file holds after a save that failed before its rename (the value did
        /// not change; the record replaces what `saving` announced).
        case restated = 8
    }

    struct Record: Equatable {
        var kind: Kind
        var time: Double
        var size: Int
        var expires: Double?
        /// The directory relative to the store's root, `""` for the root.
        var directory: String
        var fileName: String
        var key: String

        /// The entry's identity in the index: its path relative to the root.
        var path: String { StoreJournal.path(directory: directory, fileName: fileName) }
    }

    static func path(directory: String, fileName: String) -> String {
        directory.isEmpty ? fileName : directory + "/" + fileName
    }

    // MARK: Encoding

    static func append(_ record: Record, to bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 8))  // length and checksum, filled in below
        bytes.append(record.kind.rawValue)
        appendInteger(record.time.bitPattern, to: &bytes)
        appendInteger(UInt64(bitPattern: Int64(record.size)), to: &bytes)
        appendInteger((record.expires ?? .nan).bitPattern, to: &bytes)
        appendText(record.directory, to: &bytes)
        appendText(record.fileName, to: &bytes)
        appendText(record.key.utf8.count > maximumRecordedKeyLength ? "" : record.key, to: &bytes)
        let length = UInt32(bytes.count - start - 8)
        let hash = checksum(bytes[(start + 8)...])
        for i in 0..<4 {
            bytes[start + i] = UInt8(truncatingIfNeeded: length >> (8 * i))
            bytes[start + 4 + i] = UInt8(truncatingIfNeeded: hash >> (8 * i))
        }
    }

    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        appendInteger(UInt32(text.utf8.count), to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    static func header(snapshotLength: Int, compacted: Bool) -> [UInt8] {
        var bytes = magic
        appendInteger(UInt64(snapshotLength) | (compacted ? compactedFlag : 0), to: &bytes)
        return bytes
    }

    /// Appends `value`'s bytes, least significant first.
    private static func appendInteger<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: T.bitWidth, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// FNV-1a, 32 bits: enough to tell a torn or overwritten record from a whole one.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in bytes {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return hash
    }

    // MARK: Decoding

    /// What ``parse(_:from:)`` found.
    struct Parsed {
        var records: [Record] = []
        /// Where the next read starts: after the last whole record.
        var end: Int
        /// A record that fails its checksum or makes no sense: the journal must be rebuilt.
        var damaged = false
    }

    /// Parses the records in `bytes` from `start` (at least ``headerSize``). A record cut off at
    /// the end is left for the next read (another process may be writing it).
    static func parse(_ bytes: [UInt8], from start: Int) -> Parsed {
        var parsed = Parsed(end: start)
        var position = start
        while bytes.count - position >= 8 {
            let length = Int(readInteger(UInt32.self, bytes, position))
            guard length >= 37, length <= maximumRecordLength else {
                parsed.damaged = true
                return parsed
            }
            guard bytes.count - position - 8 >= length else { break }
            let body = bytes[(position + 8)..<(position + 8 + length)]
            guard checksum(body) == readInteger(UInt32.self, bytes, position + 4), let record = decode(body) else {
                parsed.damaged = true
                return parsed
            }
            parsed.records.append(record)
            position += 8 + length
            parsed.end = position
        }
        return parsed
    }

    private static func decode(_ body: ArraySlice<UInt8>) -> Record? {
        var position = body.startIndex
        guard let kind = Kind(rawValue: body[position]) else { return nil }
        position += 1
        let time = Double(bitPattern: readInteger(UInt64.self, body, position))
        let size = Int64(bitPattern: readInteger(UInt64.self, body, position + 8))
        let expires = Double(bitPattern: readInteger(UInt64.self, body, position + 16))
        position += 24
        var texts: [String] = []
        for _ in 0..<3 {
            guard body.endIndex - position >= 4 else { return nil }
            let length = Int(readInteger(UInt32.self, body, position))
            position += 4
            guard body.endIndex - position >= length,
                let text = String(validating: body[position..<(position + length)], as: UTF8.self)
            else { return nil }
            texts.append(text)
            position += length
        }
        guard position == body.endIndex, size >= 0, size <= maximumRecordedSize, time.isFinite,
            !expires.isInfinite, isValidPlace(directory: texts[0], fileName: texts[1])
        else { return nil }
        return Record(
            kind: kind, time: time, size: Int(size), expires: expires.isNaN ? nil : expires, directory: texts[0],
            fileName: texts[1], key: texts[2])
    }

    private static func readInteger<T: FixedWidthInteger, Bytes: RandomAccessCollection<UInt8>>(
        _: T.Type, _ bytes: Bytes, _ index: Int
    ) -> T where Bytes.Index == Int {
        var value: T = 0
        for i in 0..<(T.bitWidth / 8) { value |= T(bytes[index + i]) << (8 * i) }
        return value
    }

    /// Whether a record names a place the store itself writes: a directory made of namespace
    /// folders and a key file in it (no record may send the store outside its folder, to `..`
    /// or a path with `/`).
    static func isValidPlace(directory: String, fileName: String) -> Bool {
        for component in directory.split(separator: "/", omittingEmptySubsequences: false) where !directory.isEmpty {
            switch StoreFileName.classify(String(component)) {
            case .namespace, .hashedNamespace: continue
            default: return false
            }
        }
        switch StoreFileName.classify(fileName) {
        case .key, .hashedKey: return true
        default: return false
        }
    }

    // MARK: Files

    /// The journal's identity (device and inode): a compaction replaces the file.
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    /// Where an ``append(_:in:mode:)`` wrote: the file and the journal's length after the write.
    struct Appended {
        var identity: Identity
        var end: Int
        /// Where the records start if no one appended after them before the length was taken
        /// (else later: an index at exactly this offset of this file read everything before
        /// them, and they are the last records).
        var start: Int
    }

    /// Appends `records` in one write. Best effort: a journal that cannot be written leaves the
    /// index behind the files, which the next scan repairs; the values themselves are not at risk.
    ///
    /// - Returns: where the records went, or nil when nothing was written.
    @discardableResult
    static func append(_ records: [Record], in root: Directory, mode: UInt32) -> Appended? {
        guard !records.isEmpty else { return nil }
        var bytes: [UInt8] = []
        for record in records { append(record, to: &bytes) }
        var file = retryingInterrupts {
            openat(root.descriptor, fileName, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        }
        if file < 0, errno == ENOENT {
            file = create(in: root, mode: mode)
        }
        guard file >= 0 else { return nil }
        defer { close(file) }
        guard Directory.writeAll(bytes, to: file) else { return nil }
        var info = stat()
        guard fstat(file, &info) == 0 else { return nil }
        let end = Int(info.st_size)
        return Appended(identity: Identity(info), end: end, start: end - bytes.count)
    }

    /// Creates an empty journal (its header only) unless another process just did, and opens it.
    ///
    /// The header is written to a temporary file first and linked into place, so no one ever
    /// sees (or appends to) a journal without its header. Appends take no lock, so a sweep of
    /// temporary files (a store opening its folder, ``ArchiveStore/trim()``) may delete that
    /// file before it is linked; it is then written again, a few times at most.
    private static func create(in root: Directory, mode: UInt32) -> Int32 {
        for _ in 0..<3 {
            let temporary = "\(StoreFormat.temporaryPrefix)journal-\(getpid())-\(UInt32.random(in: .min ... .max))"
            guard
                (try? root.createDurableFile(
                    temporary, content: Data(header(snapshotLength: 0, compacted: false)), mode: mode)) != nil
            else { break }
            let swept = linkat(root.descriptor, temporary, root.descriptor, fileName, 0) != 0 && errno == ENOENT
            _ = unlinkat(root.descriptor, temporary, 0)
            if !swept { break }
        }
        return retryingInterrupts { openat(root.descriptor, fileName, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC) }
    }

    /// What ``read(in:from:identity:maximumLength:)`` returns.
    struct Contents {
        var identity: Identity
        /// True when the file is another one than `identity` named (or the caller had none):
        /// the records start from the journal's beginning.
        var restarted: Bool
        var parsed: Parsed
        /// A compaction wrote the file: its snapshot lists every value (on a restart).
        var compacted = false
    }

    /// Reads the records after `offset` of the journal `identity` names, or all of them when the
    /// journal is another file now. Nil when there is no journal; a journal with a bad header or
    /// longer than `maximumLength` comes back damaged.
    static func read(
        in root: Directory, from offset: Int, identity: Identity?, maximumLength: Int = maximumJournalLength
    ) -> Contents? {
        var info = stat()
        // The common case, nothing new, costs one `stat`.
        if let identity, offset >= headerSize, fstatat(root.descriptor, fileName, &info, AT_SYMLINK_NOFOLLOW) == 0,
            info.st_mode & S_IFMT == S_IFREG, Identity(info) == identity, Int(info.st_size) == offset
        {
            return Contents(identity: identity, restarted: false, parsed: Parsed(end: offset))
        }
        let file = retryingInterrupts { openat(root.descriptor, fileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard file >= 0 else { return nil }
        defer { close(file) }
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let current = Identity(info)
        let length = Int(info.st_size)
        // Another file, or this one truncated or rewritten in place: read it from the start.
        let restarted = current != identity || length < offset || offset < headerSize
        let start = restarted ? 0 : offset
        guard length <= maximumLength else {
            return Contents(identity: current, restarted: restarted, parsed: Parsed(end: start, damaged: true))
        }
        guard length > start || restarted else {
            return Contents(identity: current, restarted: false, parsed: Parsed(end: start))
        }
        let bytes = bytes(of: file, from: start, count: length - start)
        if restarted {
            guard let header = header(of: bytes) else {
                return Contents(identity: current, restarted: true, parsed: Parsed(end: 0, damaged: true))
            }
            return Contents(
                identity: current, restarted: true, parsed: parse(bytes, from: headerSize), compacted: header.compacted)
        }
        // Offsets in the bytes read are relative to `start`.
        var parsed = parse(bytes, from: 0)
        parsed.end += start
        return Contents(identity: current, restarted: false, parsed: parsed)
    }

    /// Up to `count` bytes of `file` from `start` (fewer if it ends sooner).
    static func bytes(of file: Int32, from start: Int, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var filled = 0
        while filled < bytes.count {
            let read = Directory.read(file, into: &bytes, at: filled, fileOffset: start + filled)
            if read <= 0 { break }
            filled += read
        }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }

    /// The header at the start of `bytes`: the snapshot's length and whether a compaction wrote
    /// the file; nil when it is not a journal header.
    private static func header(of bytes: [UInt8]) -> (snapshotLength: Int, compacted: Bool)? {
        guard bytes.count >= headerSize, bytes[0..<magic.count].elementsEqual(magic) else { return nil }
        let word = readInteger(UInt64.self, bytes, magic.count)
        return (Int(clamping: word & ~compactedFlag), word & compactedFlag != 0)
    }

    /// The snapshot length the journal's header records; nil when it cannot be read.
    static func snapshotLength(in root: Directory) -> Int? {
        let file = retryingInterrupts { openat(root.descriptor, fileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard file >= 0 else { return nil }
        defer { close(file) }
        return header(of: bytes(of: file, from: 0, count: headerSize))?.snapshotLength
    }

    /// Replaces the journal with `records` as its snapshot (the caller holds the exclusive lock).
    ///
    /// - Returns: The new journal's identity and length, where a reader of it goes on from.
    static func rewrite(
        _ records: [Record], in root: Directory, mode: UInt32, temporaryName: String
    ) throws -> (identity: Identity, length: Int) {
        var body: [UInt8] = []
        for record in records { append(record, to: &body) }
        let content = header(snapshotLength: body.count, compacted: true) + body
        let written = try root.replaceFile(fileName, with: Data(content), temporaryName: temporaryName, mode: mode)
        return (Identity(written), content.count)
    }
}
