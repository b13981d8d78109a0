import ArchiveFileSystem
import Foundation
@_spi(Reader) import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One file holding several keyed root objects: a multi-object NSKeyedArchiver archive.
///
/// Every key is a top-level entry of one archive (`$top`), so objects shared between keys stay
/// shared. Reading a file decodes nothing until a key is asked for, and then only that key's objects.
///
/// ```swift
/// var file = ArchiveFile()
/// try file.set(user, forKey: "user")
/// try file.set(settings, forKey: "settings")
/// try file.write(to: url)
///
/// let loaded = try ArchiveFile(contentsOf: url)
/// print(loaded.keys)                                   // ["user", "settings"]
/// let settings = try loaded.decode(Settings.self, forKey: "settings")
/// ```
///
/// ``set(_:forKey:)`` archives the value when it is called: changing a class instance afterwards
/// does not change what the file holds. Values set one after another share the instances they
/// have in common; once a key is set a second time, or a key just set is decoded, what was set
/// before is kept as archived and later values are archived on their own. Setting a key of a file
/// read from disk replaces that key; the file's other keys are kept as they were (their objects are
/// copied over unchanged) when it is written again.
public struct ArchiveFile {
    /// The archive the file started from (read from disk, or made of earlier sets), if any.
    private var base: Snapshot?
    /// The keys of `base` that are still the file's, in order.
    private var baseKeys: [String] = []
    /// Values archived since `base`, in one archive so that they share their instances.
    private var pending: Pending?
    /// The limits every archive of this file is read within.
    private var options = KeyedUnarchiver.Options()

    /// A finished archive and the unarchiver that reads it, made on first use.
    private final class Snapshot {
        let data: Data
        let unarchiver: KeyedUnarchiver
        init(data: Data, options: KeyedUnarchiver.Options) throws {
            self.data = data
            unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: options)
        }
    }

    /// An archive being added to; finished (and then read-only) when its bytes are first needed.
    private final class Pending {
        private let archiver = KeyedArchiver()
        private(set) var keys: [String] = []
        private var finished: Snapshot?

        /// Whether `key` can be added: the archive is not finished and does not have the key yet.
        func accepts(_ key: String) -> Bool { finished == nil && !keys.contains(key) }

        func encode<T>(_ value: T, forKey key: String) throws {
            try archiver.encode(value, forKey: key)
            keys.append(key)
        }

        func snapshot() throws -> Snapshot {
            if let finished { return finished }
            let made = try Snapshot(data: try archiver.encodedData, options: .init())
            finished = made
            return made
        }
    }

    /// The property-list format ``write(to:)`` and ``encoded()`` use: the format of the file
    /// read by ``init(contentsOf:options:)``, or `.binary` for a new file. Set it to write the
    /// other from then on; ``write(to:format:)`` writes one file in a format without changing it.
    ///
    /// An XML file lists its keys sorted, as Apple's writer sorts every dictionary, `$top`
    /// included: read back, an XML file's ``keys`` are in sorted order, a binary file's in the
    /// order they were set.
    public var format: PlistFormat = .binary

    /// An empty file.
    public init() {}

    /// Reads the archive at `url`, checking its structure; values are decoded on demand, within
    /// the limits of `options`.
    ///
    /// ```swift
    /// var options = KeyedUnarchiver.Options()
    /// options.maximumArchiveSize = 1 << 20
    /// let file = try ArchiveFile(contentsOf: url, options: options)
    /// ```
    ///
    /// - Parameters:
    ///   - url: A file URL of a keyed archive, written by ``write(to:)``, `KeyedArchiver` or
    ///     Foundation.
    ///   - options: The unarchiver's limits; the defaults (``KeyedUnarchiver/Options/init()``)
    ///     when omitted.
    /// - Throws: ``ArchiveError`` `.io` (with the path and the system's error) if the file cannot
    ///   be read, `.sizeLimit` if it is larger than `options.maximumArchiveSize` (found before it is
    ///   read whole), or a format error (`.notPropertyList`, `.truncated`, `.invalidArchive`...).
    public init(contentsOf url: URL, options: KeyedUnarchiver.Options = .init()) throws {
        guard url.isFileURL else { throw ArchiveError(.io, reason: "cannot read \(url): it is not a file URL") }
        let path = url.path
        let data = try Directory.readFile(atPath: path, maximumSize: options.maximumArchiveSize) { size in
            ArchiveError(
                .sizeLimit,
                reason: "\(path) is \(size) bytes, more than the maximum of \(options.maximumArchiveSize) (raise maximumArchiveSize to read it)")
        }
        let snapshot = try Snapshot(data: data, options: options)
        self.options = options
        format = PlistFormat(of: data) ?? .binary
        base = snapshot
        baseKeys = snapshot.unarchiver.allKeys
    }

    /// The top-level keys: those read from disk, then those set, without repeats.
    public var keys: [String] {
        var keys = baseKeys
        for key in pending?.keys ?? [] where !keys.contains(key) { keys.append(key) }
        return keys
    }

    /// Archives `value` under `key` now, replacing any value the key had.
    ///
    /// - Parameters:
    ///   - value: Anything ``KeyedArchiver/encode(_:forKey:)`` takes.
    ///   - key: The top-level key; a new key goes after the file's other keys.
    /// - Throws: ``ArchiveError`` if the value cannot be archived (or could not be read back, as
    ///   a `let` field of a reflection-coded type); the file is then unchanged.
    public mutating func set<T>(_ value: T, forKey key: String) throws {
        if pending != nil, !(isKnownUniquelyReferenced(&pending) && pending?.accepts(key) == true) {
            // This archive can take no more values (or is shared with a copy of this file):
            // what it holds becomes the base, and a new one starts.
            let snapshot = try Snapshot(data: try encoded(), options: options)
            base = snapshot
            baseKeys = keys
            pending = nil
        }
        let target = pending ?? Pending()
        try target.encode(value, forKey: key)
        pending = target
    }

    /// Decodes the value under `key` as `type`.
    ///
    /// Only the objects of that key are decoded.
    ///
    /// - Parameters:
    ///   - type: The type to decode, which drives decoding (see ``KeyedUnarchiver``).
    ///   - key: One of ``keys``.
    /// - Returns: The decoded value.
    /// - Throws: `.keyNotFound` for an unknown key, or any decoding error.
    public func decode<T>(_ type: T.Type, forKey key: String) throws -> T {
        if let pending, pending.keys.contains(key) {
            return try pending.snapshot().unarchiver.decode(type, forKey: key)
        }
        guard let base, baseKeys.contains(key) else {
            throw ArchiveError(.keyNotFound, reason: "the file has no key \(quoted: key) (it has \(input: "\(keys)"))", keyPath: key)
        }
        return try base.unarchiver.decode(type, forKey: key)
    }

    /// The whole archive as bytes in ``format``, without writing it: what ``write(to:)`` would write.
    ///
    /// - Returns: One keyed archive with every key of the file in ``keys`` order.
    /// - Throws: ``ArchiveError`` if the archive cannot be finished (`.unencodable` for an archive
    ///   of 4 GiB or more).
    public func encoded() throws -> Data {
        try encoded(format: format)
    }

    /// The whole archive as bytes in `format`, without writing it.
    ///
    /// - Parameter format: `.binary` or `.xml`.
    /// - Returns: One keyed archive with every key of the file in ``keys`` order.
    /// - Throws: ``ArchiveError`` as ``encoded()`` throws.
    public func encoded(format: PlistFormat) throws -> Data {
        let data = try encodedInEitherFormat()
        guard PlistFormat(of: data) != format else { return data }
        return Data(try PlistReader().read(data).bytes(format: format))
    }

    /// The archive as bytes: those read from disk when nothing changed (in their format), else binary.
    private func encodedInEitherFormat() throws -> Data {
        let added = pending?.keys ?? []
        let kept = baseKeys.filter { !added.contains($0) }
        if let base, added.isEmpty, base.unarchiver.allKeys == baseKeys { return base.data }
        if kept.isEmpty, let pending { return try pending.snapshot().data }
        let archiver = KeyedArchiver()
        if let base, !kept.isEmpty { try archiver.keep(kept, of: base.data) }
        if let pending { try archiver.keep(added, of: try pending.snapshot().data) }
        archiver.orderTop(like: keys)
        return try archiver.encodedData
    }

    /// Writes the archive to `url` in ``format`` as durably as `ArchiveStore` saves: the whole
    /// archive is made first, then written to a temporary file in the same directory and flushed
    /// to disk, renamed over `url`, and the directory flushed.
    ///
    /// - Parameter url: A file URL in an existing directory; a file already there is replaced.
    /// - Throws: ``ArchiveError`` if the archive cannot be made, or `.io` (with the path and the
    ///   system's error) if it cannot be written; either way a file already at `url` is intact.
    public func write(to url: URL) throws {
        try write(to: url, format: format)
    }

    /// Writes the archive to `url` in `format`, as durably as ``write(to:)``.
    ///
    /// ```swift
    /// try file.write(to: url, format: .xml)   // readable text, for a tool or a diff
    /// ```
    ///
    /// - Parameters:
    ///   - url: A file URL in an existing directory; a file already there is replaced.
    ///   - format: `.binary` or `.xml` (Apple's XML layout, UIDs as `CF$UID` dictionaries).
    /// - Throws: As ``write(to:)`` throws.
    public func write(to url: URL, format: PlistFormat) throws {
        let data = try encoded(format: format)
        guard url.isFileURL else { throw ArchiveError(.io, reason: "cannot write to \(url): it is not a file URL") }
        let folder = url.deletingLastPathComponent().path
        guard let directory = try Directory.open(path: folder.isEmpty ? "." : folder) else {
            throw ArchiveError.io(errno: ENOENT, "open the directory of", path: url.path)
        }
        let name = url.lastPathComponent
        try directory.replaceFile(name, with: data, temporaryName: ".\(name).\(UUID().uuidString).tmp")
        try directory.sync()
    }
}

extension KeyedArchiver {
    /// Copies the top-level keys `keys` of an existing archive, with their objects, into this one.
    func keep(_ keys: [String], of data: Data) throws {
        guard case .dict(let root) = try PlistReader().read(data),
            case .array(let objects)? = root[ArchiveFormat.objectsKey],
            case .dict(let top)? = root[ArchiveFormat.topKey]
        else {
            throw ArchiveError(.invalidArchive, reason: "the archive lost its $top or $objects")
        }
        var map: [Int: Int] = [:]
        for key in keys {
            guard case .uid(let old)? = top[key] else {
                throw ArchiveError(
                    .invalidArchive, reason: "the $top entry \(quoted: key) is not a UID, so it cannot be carried over to the new file",
                    keyPath: key)
            }
            guard old < UInt64(objects.count) else {
                throw ArchiveError(
                    .invalidReference, reason: "UID \(old) is out of range: $objects has \(objects.count) entries", keyPath: key)
            }
            let new = try core.transplant(uid: Int(old), from: objects, map: &map)
            appendTop(key, reference: core.uid(new))
        }
    }
}
