import Foundation
import KeyedArchive
import PropertyList

/// The content of a stored file: one keyed archive holding the value and the store's metadata.
///
/// | `$top` key | value |
/// |---|---|
/// | `root` | the stored value, exactly as `KeyedArchiver.archivedData(withRootObject:)` writes it |
/// | `key` | the key, as a string |
/// | `expires` | seconds since 2001-01-01 UTC as a real number; absent when the value never expires |
///
/// So a stored file is an ordinary keyed archive: `karchive dump` shows it and
/// `KeyedUnarchiver.unarchivedObject(ofType:from:)` reads its value.
struct StoreRecord {
    private let unarchiver: KeyedUnarchiver
    /// The file's bytes.
    let data: Data
    /// The file's path, for error messages.
    let path: String
    /// The key the file says it holds; nil for a plain keyed archive put there by hand.
    let key: String?
    /// The expiry time in seconds since 2001, if any.
    let expires: Double?

    /// The bytes of a file holding `value` under `key`.
    ///
    /// - Throws: `ArchiveError` when the value cannot be archived (nothing touched the disk yet).
    static func encode<T>(
        _ value: T, key: String, expires: Date?, options: KeyedArchiver.Options = KeyedArchiver.Options()
    ) throws -> Data {
        let archiver = KeyedArchiver(options: options)
        try archiver.encode(value, forKey: StoreFormat.rootKey)
        try archiver.encode(key, forKey: StoreFormat.keyKey)
        if let expires {
            try archiver.encode(expires.timeIntervalSinceReferenceDate, forKey: StoreFormat.expiresKey)
        }
        return try archiver.encodedData
    }

    /// Opens a stored file's bytes under the store's limits and reads its metadata (not its value).
    ///
    /// The store's registered types and class names apply to ``decodeValue(_:)``.
    ///
    /// - Throws: the unarchiver's `ArchiveError` (`.notPropertyList`, `.truncated`,
    ///   `.sizeLimit`, `.invalidArchive`...) with the path in its reason; `.invalidArchive` for an
    ///   archive without a `root` value or with metadata of the wrong kind.
    init(_ data: Data, path: String, configuration: StoreConfiguration) throws {
        self.path = path
        self.data = data
        do {
            unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: configuration.unarchiverOptions)
        } catch let error as ArchiveError {
            throw ArchiveError.unreadableFile(path: path, error)
        }
        configuration.configure(unarchiver)
        guard unarchiver.containsValue(forKey: StoreFormat.rootKey) else {
            throw ArchiveError.foreignFile(
                path: path, "is a keyed archive without a \"root\" value, not a stored value")
        }
        do {
            key =
                unarchiver.containsValue(forKey: StoreFormat.keyKey)
                ? try unarchiver.decode(String.self, forKey: StoreFormat.keyKey) : nil
            expires =
                unarchiver.containsValue(forKey: StoreFormat.expiresKey)
                ? try unarchiver.decode(Double.self, forKey: StoreFormat.expiresKey) : nil
        } catch let error as ArchiveError {
            throw ArchiveError.foreignFile(path: path, "has store metadata of the wrong kind (\(error.reason))")
        }
    }

    /// True when the value has expired at `now`.
    func isExpired(at now: Date) -> Bool {
        guard let expires else { return false }
        return now.timeIntervalSinceReferenceDate >= expires
    }

    /// Checks that the file belongs to `expected` (compared by exact UTF-8 bytes).
    ///
    /// A file without a `key` entry is accepted under a reversible file name (whose name spells
    /// the key), not under a hashed one.
    func check(key expected: String, hashedName: Bool) throws {
        if let key {
            guard key.utf8.elementsEqual(expected.utf8) else {
                throw ArchiveError.foreignFile(path: path, "holds the value of another key (\(Self.quoted(key)))")
            }
        } else if hashedName {
            throw ArchiveError.foreignFile(
                path: path, "has no \"key\" entry, so it cannot be told apart from another key's file")
        }
    }

    /// Whether the stored value is made of objects of a class in `names` (see
    /// `KeyedUnarchiver.holdsObjects(ofClassesNamed:forKey:)`).
    func holdsObjects(ofClassesNamed names: Set<String>, in collection: ArchivedCollection?) -> Bool {
        unarchiver.holdsObjects(ofClassesNamed: names, in: collection, forKey: StoreFormat.rootKey)
    }

    /// Decodes the stored value as `type`.
    ///
    /// - Throws: `.typeMismatch` (and the unarchiver's other codes), with the path in the reason.
    func decodeValue<T>(_ type: T.Type) throws -> T {
        do {
            return try unarchiver.decode(type, forKey: StoreFormat.rootKey)
        } catch let error as ArchiveError {
            throw ArchiveError(
                error.code, reason: "\(path): \(error.reason)", byteOffset: error.byteOffset,
                objectIndex: error.objectIndex, keyPath: error.keyPath)
        }
    }

    /// A key for a message: quoted, control characters escaped, long keys shortened.
    static func quoted(_ key: String) -> String {
        let shown = key.unicodeScalars.count > 80 ? String(key.unicodeScalars.prefix(80)) + "…" : key
        return "\"" + shown.unicodeScalars.map { $0.escaped(asASCII: false) }.joined() + "\""
    }
}

@available(*, unavailable)
extension StoreRecord: Sendable {}
