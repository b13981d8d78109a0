import Foundation
@_spi(Reader) import PropertyList

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
/// Setting a key of a file read from disk replaces that key; the file's other keys are kept
/// as they were (their objects are copied over unchanged) when it is written again.
public struct ArchiveFile {
    /// Values set since the file was created or read, in order, as encoding steps.
    private var entries: [(key: String, encode: (KeyedArchiver) throws -> Void)] = []
    /// The archive read from disk, if any.
    private var source: Source?

    private final class Source {
        let unarchiver: KeyedUnarchiver
        let data: Data
        init(data: Data, options: KeyedUnarchiver.Options) throws {
            self.data = data
            unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: options)
        }
    }

    /// An empty file.
    public init() {}

    /// Reads the archive at `url`, checking its structure; values are decoded on demand, within
    /// the limits of `options`.
    ///
    /// - Throws: ``ArchiveError`` `.io` if the file cannot be read, or a format error.
    public init(contentsOf url: URL, options: KeyedUnarchiver.Options = .init()) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ArchiveError(.io, reason: "cannot read \(url.path): \(error.localizedDescription)")
        }
        source = try Source(data: data, options: options)
    }

    /// The top-level keys: those read from disk, then those set, without repeats.
    public var keys: [String] {
        var keys = source?.unarchiver.allKeys ?? []
        for entry in entries where !keys.contains(entry.key) { keys.append(entry.key) }
        return keys
    }

    /// Sets `value` under `key`, replacing any value the key had.
    ///
    /// - Throws: ``ArchiveError`` if the value cannot be archived; the file is then unchanged.
    public mutating func set<T>(_ value: T, forKey key: String) throws {
        let step: (KeyedArchiver) throws -> Void = { try $0.encode(value, forKey: key) }
        try step(KeyedArchiver())  // fails here, before the file changes, if the value cannot be archived
        entries.removeAll { $0.key == key }
        entries.append((key, step))
    }

    /// Decodes the value under `key` as `type`.
    ///
    /// - Throws: `.keyNotFound` for an unknown key, or any decoding error.
    public func decode<T>(_ type: T.Type, forKey key: String) throws -> T {
        if entries.contains(where: { $0.key == key }) {
            return try KeyedUnarchiver.decode(type, forKey: key, from: try encoded())
        }
        guard let source else {
            throw ArchiveError(.keyNotFound, reason: "the file has no key \"\(key)\" (it has \(keys))", keyPath: key)
        }
        return try source.unarchiver.decode(type, forKey: key)
    }

    /// The whole archive as bytes.
    public func encoded() throws -> Data {
        let archiver = KeyedArchiver()
        if let source {
            let replaced = Set(entries.map(\.key))
            let kept = source.unarchiver.allKeys.filter { !replaced.contains($0) }
            if !kept.isEmpty { try archiver.keep(kept, of: source.data) }
        }
        for entry in entries { try entry.encode(archiver) }
        return try archiver.encodedData
    }

    /// Writes the archive to `url` atomically: a temporary file in the same directory, then a rename.
    ///
    /// - Throws: ``ArchiveError`` `.io` if the file cannot be written; the old file is then intact.
    public func write(to url: URL) throws {
        let data = try encoded()
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw ArchiveError(.io, reason: "cannot write \(url.path): \(error.localizedDescription)")
        }
    }
}

extension KeyedArchiver {
    /// Copies the top-level keys `keys` of an existing archive, with their objects, into this one.
    func keep(_ keys: [String], of data: Data) throws {
        guard case .dict(let root) = try BPlistReader().read(data),
            case .array(let objects)? = root[ArchiveFormat.objectsKey],
            case .dict(let top)? = root[ArchiveFormat.topKey]
        else {
            throw ArchiveError(.invalidArchive, reason: "the archive lost its $top or $objects")
        }
        var map: [Int: Int] = [:]
        for key in keys {
            guard case .uid(let old)? = top[key] else {
                throw ArchiveError(
                    .invalidArchive, reason: "the $top entry \"\(key)\" is not a UID, so it cannot be carried over to the new file",
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
