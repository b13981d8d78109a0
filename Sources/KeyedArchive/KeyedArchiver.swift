import Foundation
import PropertyList

/// Archives Swift values and object graphs in NSKeyedArchiver's layout (`bplist00`).
///
/// Each value is coded by the first strategy that fits its type: property-list and Foundation
/// values, Optional and collections, ``KeyedCoding``, ``Archivable`` (reflection),
/// `RawRepresentable`, `Codable`. Class instances keep their identity — a shared instance is
/// written once and referenced by UID — so shared references and cycles round-trip.
///
/// ```swift
/// let data = try KeyedArchiver.archivedData(withRootObject: user)
///
/// let archiver = KeyedArchiver()
/// try archiver.encode(user, forKey: "user")
/// try archiver.encode(settings, forKey: "settings")
/// let both = archiver.encodedData
/// ```
///
/// The output is deterministic: the same graph gives the same bytes.
public final class KeyedArchiver {
    let core = ArchiverCore()
    private var top: [(String, Int)] = []
    private var finished: [UInt8]?
    private var failure: ArchiveError?

    public init() {}

    /// Encodes `value` as the top-level object `key`. Several keys make a multi-object archive.
    ///
    /// - Throws: ``ArchiveError`` naming the key path of a value that cannot be coded
    ///   (`.notArchivable`, `.cycle`, `.reflection`...); `.misuse` after ``encodedData`` was read
    ///   or after an earlier failure (the archive is then incomplete).
    public func encode<T>(_ value: T, forKey key: String) throws {
        if finished != nil {
            throw ArchiveError(.misuse, reason: "the archive was already finished by reading encodedData; start a new KeyedArchiver")
        }
        if let failure {
            throw ArchiveError(.misuse, reason: "an earlier encode failed (\(failure.reason)); start a new KeyedArchiver")
        }
        do {
            let reference = try withKeyPath(key) { try core.coders.typed(T.self).encode(value, inline: false, core) }
            if let position = top.firstIndex(where: { $0.0 == key }) {
                top[position].1 = reference
            } else {
                top.append((key, reference))
            }
        } catch let error as ArchiveError {
            failure = error
            throw error
        } catch {
            let wrapped = ArchiveError(.notArchivable, reason: "encoding failed: \(error)", keyPath: key)
            failure = wrapped
            throw wrapped
        }
    }

    /// Adds a top-level entry whose value is already in the archive.
    func appendTop(_ key: String, reference: Int) {
        top.removeAll { $0.0 == key }
        top.append((key, reference))
    }

    /// The finished archive. Reading it ends encoding; reading it again gives the same bytes.
    public var encodedData: Data {
        if let finished { return Data(finished) }
        let bytes = (try? core.finish(top: top)) ?? []
        finished = bytes
        return Data(bytes)
    }

    /// Archives `type` under `name` instead of its own class name, in this archive.
    public func setClassName(_ name: String, for type: Any.Type) {
        core.classNames[ObjectIdentifier(type)] = name
    }

    /// Archives `root` under the top-level key `"root"`, as Foundation's one-object API does.
    public static func archivedData<T>(withRootObject root: T) throws -> Data {
        let archiver = KeyedArchiver()
        try archiver.encode(root, forKey: ArchiveFormat.rootKey)
        return archiver.encodedData
    }
}

@available(*, unavailable)
extension KeyedArchiver: Sendable {}
