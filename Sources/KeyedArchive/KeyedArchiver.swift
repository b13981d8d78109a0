import Foundation
@_spi(Reader) import PropertyList

/// Archives Swift values and object graphs in NSKeyedArchiver's layout, as a binary property
/// list (`bplist00`, the default) or an XML one (``outputFormat``).
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
/// let both = try archiver.encodedData
/// ```
///
/// The output is deterministic: the same graph gives the same bytes.
public final class KeyedArchiver {
    let core = ArchiverCore(sizedLikeLastArchive: true)
    private var top: [(String, Int)] = []
    private var finished: Result<Data, ArchiveError>?

    /// An empty archive, ready for ``encode(_:forKey:)``.
    public init() {}

    /// The property-list format of ``encodedData``: `.binary` (the default, and what Foundation's
    /// `NSKeyedArchiver` writes by default) or `.xml`, laid out as Apple's writer lays out an XML
    /// archive (UIDs as `{"CF$UID": n}` dictionaries, keys sorted). Set it before reading
    /// ``encodedData``; every reader of this library reads both.
    public var outputFormat: PlistFormat = .binary

    /// Coded objects nested deeper than this fail with `.depthLimit` instead of exhausting the
    /// stack. Default 512, the unarchiver's default, so whatever is written can be read back.
    public var maximumDepth: Int {
        get { core.maximumDepth }
        set { core.maximumDepth = newValue }
    }

    /// How an archiver writes: the settings a caller keeps and hands to many archivers (a
    /// store's `archiverOptions` does).
    public struct Options: Sendable, Equatable, Hashable {
        /// ``KeyedArchiver/maximumDepth``: coded objects nested deeper fail with `.depthLimit`.
        /// Raise it together with the reader's `KeyedUnarchiver.Options.maximumDepth`.
        public var maximumDepth = 512
        /// ``KeyedArchiver/outputFormat``: `.binary` (the default) or `.xml`.
        public var outputFormat: PlistFormat = .binary

        /// The defaults: depth 512, binary.
        public init() {}
    }

    /// An empty archive that writes as `options` say.
    public convenience init(options: Options) {
        self.init()
        self.options = options
    }

    /// The archiver's settings as one value (``maximumDepth`` and ``outputFormat``).
    public var options: Options {
        get {
            var options = Options()
            options.maximumDepth = maximumDepth
            options.outputFormat = outputFormat
            return options
        }
        set {
            maximumDepth = newValue.maximumDepth
            outputFormat = newValue.outputFormat
        }
    }

    /// Encodes `value` as the top-level object `key`. Several keys make a multi-object archive.
    ///
    /// The value is archived when this is called: changing a class instance afterwards changes
    /// nothing already encoded. Instances shared between keys are written once. Encoding a key
    /// again replaces its value.
    ///
    /// A failed encode leaves the archive as it was before the call: the keys encoded so far stay,
    /// and further keys can be encoded.
    ///
    /// - Parameters:
    ///   - value: Any value the archiver codes: property-list and Foundation values, Optional,
    ///     arrays, sets and dictionaries of them, ``KeyedCoding``, ``Archivable``,
    ///     `RawRepresentable` and `Codable` types, and `Any` holding any of these.
    ///   - key: The top-level key (`$top`) to store it under.
    /// - Throws: ``ArchiveError`` naming the key path of a value that cannot be coded
    ///   (`.notArchivable`, `.cycle`, `.depthLimit`, `.letField`, `.reflection`...); `.misuse`
    ///   after ``encodedData`` was read.
    public func encode<T>(_ value: T, forKey key: String) throws {
        if finished != nil {
            throw ArchiveError(.misuse, reason: "the archive was already finished by reading encodedData; start a new KeyedArchiver")
        }
        let mark = core.registrationCount
        core.stack = StackGuard()
        do {
            let reference = try core.coders.typed(T.self).encode(value, inline: false, core)
            appendTop(key, reference: reference)
        } catch let error as ArchiveError {
            core.rollBack(toRegistration: mark)
            throw error.prependingKeyPath(key)
        } catch {
            core.rollBack(toRegistration: mark)
            throw ArchiveError(.notArchivable, reason: "encoding failed: \(error)", keyPath: key)
        }
    }

    /// Adds a top-level entry whose value is already in the archive.
    func appendTop(_ key: String, reference: Int) {
        if let position = top.firstIndex(where: { $0.0 == key }) {
            top[position].1 = reference
        } else {
            top.append((key, reference))
        }
    }

    /// Puts the top-level entries in the order of `keys` (entries it does not name keep their place after them).
    func orderTop(like keys: [String]) {
        let position = Dictionary(keys.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        func rank(_ entry: (offset: Int, element: (String, Int))) -> (Int, Int) {
            (position[entry.element.0] ?? Int.max, entry.offset)
        }
        top = top.enumerated().sorted { rank($0) < rank($1) }.map(\.element)
    }

    /// The finished archive. Reading it ends encoding; reading it again gives the same bytes.
    ///
    /// - Throws: ``ArchiveError`` `.unencodable` if the archive cannot be laid out (a file of
    ///   4 GiB or more, or, in XML, a date outside the years 1 to 9999 stored as a property-list
    ///   date); reading it again throws the same error. No bytes are ever returned for
    ///   an archive that failed.
    public var encodedData: Data {
        get throws(ArchiveError) {
            switch finished {
            case .success(let data): return data
            case .failure(let error): throw error
            case nil:
                do {
                    let data = outputFormat == .xml ? try core.finishXML(top: top) : try core.finishData(top: top)
                    finished = .success(data)
                    return data
                } catch {
                    finished = .failure(error)
                    throw error
                }
            }
        }
    }

    /// Archives `type` under `name` instead of its own class name, in this archive.
    ///
    /// It overrides the type's `archiveClassName` and names the type in the `$classes` chains of
    /// its subclasses too. It applies to the objects encoded after the call; those encoded
    /// before keep the name they were written with.
    ///
    /// - Parameters:
    ///   - name: The `$classname` to write, such as the name an `NSCoding` class has elsewhere.
    ///   - type: A type archived as a coded object (an ``Archivable``, ``KeyedCoding`` or
    ///     `Codable` type).
    public func setClassName(_ name: String, for type: Any.Type) {
        core.setClassName(name, for: type)
    }

    /// Archives `root` under the top-level key `"root"`, as Foundation's one-object API does.
    ///
    /// Foundation's `NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(_:)` and
    /// ``KeyedUnarchiver/unarchivedObject(ofType:from:)`` read it.
    ///
    /// - Parameter root: Any value ``encode(_:forKey:)`` takes.
    /// - Returns: The finished archive.
    /// - Throws: As ``encode(_:forKey:)`` and ``encodedData`` throw.
    public static func archivedData<T>(withRootObject root: T) throws -> Data {
        let archiver = KeyedArchiver()
        try archiver.encode(root, forKey: ArchiveFormat.rootKey)
        return try archiver.encodedData
    }
}

@available(*, unavailable)
extension KeyedArchiver: Sendable {}
