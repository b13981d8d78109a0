import Foundation
@_spi(Reader) import PropertyList

/// Reads archives in NSKeyedArchiver's layout back into Swift values, driven by the requested type.
///
/// The archive's class names never choose a type by themselves: an object decodes as the type
/// asked for, as a type mapped with ``setClass(_:forClassName:)``, or as a type listed with
/// ``register(_:)`` (for polymorphic fields and `Any`). Everything is checked: a malformed,
/// truncated or hostile archive throws ``ArchiveError`` with the key path and byte offset.
///
/// ```swift
/// let user = try KeyedUnarchiver.unarchivedObject(ofType: User.self, from: data)
///
/// let unarchiver = try KeyedUnarchiver(forReadingFrom: foundationData)
/// unarchiver.setClass(Person.self, forClassName: "MyApp.Person")
/// let people = try unarchiver.decode([Person].self, forKey: "root")
/// ```
public final class KeyedUnarchiver {
    /// Limits that bound what a hostile archive can make the unarchiver do.
    public struct Options: Sendable, Hashable {
        /// The property-list limits the archive is read within, binary or XML: the same type the
        /// plist readers take (``ReadingLimits``). The limits below that name its fields read
        /// and write it.
        public var readingLimits = ReadingLimits()
        /// Objects nested deeper than this fail with `.depthLimit`. Default 512.
        public var maximumDepth: Int {
            get { readingLimits.maximumDepth }
            set { readingLimits.maximumDepth = newValue }
        }
        /// The most objects decoded in total, counting a shared value once per place it is
        /// decoded. Default 16,777,216; fails with `.sizeLimit`.
        public var maximumDecodedObjects = 1 << 24
        /// The most the counts of the `NSCountedSet` objects one decode builds may add up to
        /// (Foundation's counted set takes each count one `add` at a time). A set read as a
        /// `Set` or an array, which keeps its distinct elements only, counts nothing here.
        /// Default 524,288; fails with `.sizeLimit`.
        public var maximumCountedSetCounts = 1 << 19
        /// The most attributes the `NSAttributedString` objects one decode builds may set, in
        /// total: each run counts the entries of its attribute dictionary, and one more
        /// (Foundation copies every run's attributes into storage of its own, which costs far
        /// more than decoding a value). Reading attributed strings as ``ArchivedAttributedString``
        /// (through `Any`) builds none and counts nothing here. Default 131,072; fails with `.sizeLimit`.
        public var maximumAttributedStringAttributes = 1 << 17
        /// The most objects the property list may declare. Default 16,777,216.
        public var maximumObjectCount: Int {
            get { readingLimits.maximumObjectCount }
            set { readingLimits.maximumObjectCount = newValue }
        }
        /// The largest archive accepted, in bytes. Default 1,073,741,824 (1 GiB); fails with `.sizeLimit`.
        public var maximumArchiveSize: Int {
            get { readingLimits.maximumArchiveSize }
            set { readingLimits.maximumArchiveSize = newValue }
        }
        /// The longest string accepted, in characters as stored (ASCII bytes or UTF-16 code units).
        /// Default 268,435,456; fails with `.sizeLimit`.
        public var maximumStringLength: Int {
            get { readingLimits.maximumStringLength }
            set { readingLimits.maximumStringLength = newValue }
        }
        /// The longest data object accepted, in bytes. Default 1,073,741,824; fails with `.sizeLimit`.
        public var maximumDataLength: Int {
            get { readingLimits.maximumDataLength }
            set { readingLimits.maximumDataLength = newValue }
        }
        /// Reads objects archived at a higher version than their type's `archiveVersion` (written
        /// by a newer build) as they are, the fields this version does not know ignored. Default
        /// false: such an object fails with `.newerVersion`, so an older build never reads, and
        /// saves back, a value it understood only in part.
        public var allowsNewerVersions = false
        /// Records what each decode did not map, in ``KeyedUnarchiver/report``. Default false.
        public var collectsReport = false
        /// Lets a field of an `Archivable` type whose archived value cannot be read as the
        /// field's type — `$null` in a non-optional field, a value of another kind
        /// (`.typeMismatch`), an object of a class no type is known for (`.unknownClass`) — keep
        /// the value `init()` gave it, instead of failing the whole decode; each such field is
        /// listed in ``DecodeReport/invalidFields`` when ``collectsReport`` is set. Default
        /// false. Damage and limits (`.invalidArchive`, `.sizeLimit`, `.depthLimit`...) still
        /// fail the decode; `KeyedCoding` and `Codable` types choose for themselves (a
        /// `decodeIfPresent` or a `try?` in their own code).
        public var keepsDefaultForInvalidFields = false

        /// The default limits, as listed with each option.
        public init() {}
    }

    private let core: UnarchiverCore

    /// Opens an archive, checking its property list and its `$archiver`, `$version`, `$top` and `$objects`.
    ///
    /// Nothing is decoded until ``decode(_:forKey:)`` asks for a key. The unarchiver keeps its
    /// own copy of the bytes.
    ///
    /// - Parameters:
    ///   - data: A property list in NSKeyedArchiver's layout, binary or XML (found from the
    ///     content), from this library or from Foundation.
    ///   - options: The limits to read within; the defaults (``Options/init()``) when omitted.
    /// - Throws: ``ArchiveError``: the property-list codes (`.notPropertyList`, `.truncated`,
    ///   `.invalidTrailer`, `.invalidXML`, `.sizeLimit`...), or `.invalidArchive` for a property
    ///   list that is not a keyed archive. Errors in an XML archive's text give its line and
    ///   column; errors found past them (a wrong `$version`, a type mismatch) give key paths only.
    public init(forReadingFrom data: Data, options: Options = Options()) throws {
        core = try UnarchiverCore(bytes: data, options: options)
    }

    /// The top-level keys, in archive order.
    public var allKeys: [String] { core.top.map(\.key) }

    /// Whether the archive has the top-level key `key`.
    public func containsValue(forKey key: String) -> Bool {
        core.top.contains { $0.key == key }
    }

    /// Decodes the top-level object `key` as `type`.
    ///
    /// A class instance is decoded once per unarchiver: an instance shared between two keys
    /// comes back as one instance from both calls. A call that throws forgets the instances it
    /// decoded, so no later call returns one whose fields were only partly decoded.
    ///
    /// - Parameters:
    ///   - type: The type to decode, which drives decoding.
    ///   - key: A top-level key (see ``allKeys``).
    /// - Returns: The decoded value.
    /// - Throws: `.keyNotFound`, `.typeMismatch`, `.unknownClass`, `.cycle`, `.letField`, ... with a key path.
    public func decode<T>(_ type: T.Type, forKey key: String) throws -> T {
        try Self.decode(type, forKey: key, from: core)
    }

    private static func decode<T>(_ type: T.Type, forKey key: String, from core: UnarchiverCore) throws -> T {
        guard let entry = core.top.first(where: { $0.key == key }) else {
            throw ArchiveError(
                .keyNotFound, reason: "the archive has no top-level key \(quoted: key) (it has \(input: "\(core.top.map(\.key))"))", keyPath: key)
        }
        if let reporter = core.reporter {
            reporter.topKey = key
            reporter.topReference = entry.reference
        }
        do {
            return try core.topLevel { try core.coders.typed(T.self).decode(entry.reference, core) }
        } catch let error as ArchiveError {
            throw error.prependingKeyPath(key)
        } catch {
            throw ArchiveError(.typeMismatch, reason: "decoding failed: \(error)", keyPath: key)
        }
    }

    /// Whether the value under the top-level key `key` is made of objects of a class in `names`:
    /// without `collection`, the object itself has one of them; with it, the object is a
    /// Foundation collection of that kind and the archive holds an object of one of them.
    package func holdsObjects(ofClassesNamed names: Set<String>, in collection: ArchivedCollection?, forKey key: String) -> Bool {
        guard let entry = core.top.first(where: { $0.key == key }),
            case .object(let uid, let object, let index)? = try? core.target(entry.reference),
            let (_, description) = try? core.objectDict(uid: uid, object: object, index: index)
        else { return false }
        switch collection {
        case nil: return names.contains(description.name)
        case .list?: guard description.listClass != nil else { return false }
        case .dictionary?: guard description.dictionaryClass != nil else { return false }
        }
        for other in 1..<core.graph.uidCount {
            guard case .object(_, let object, let index)? = try? core.graph.target(uid: other),
                let (_, description) = try? core.objectDict(uid: other, object: object, index: index)
            else { continue }
            if names.contains(description.name) { return true }
        }
        return false
    }

    /// What the decodes so far did not map: archived keys no field took, fields the archive
    /// lacked and migrations run, by key path. Empty unless the options set
    /// ``Options/collectsReport``; a decode that throws adds nothing.
    public var report: DecodeReport { core.reporter?.report ?? DecodeReport() }

    /// Decodes objects archived under class name `name` as `type` (renamed or moved types,
    /// or archives written by Foundation with another module name).
    ///
    /// A later call for the same name replaces the earlier one.
    ///
    /// - Parameters:
    ///   - type: The type to decode those objects as, where the requested type allows it (the
    ///     type itself, a subclass of a requested class, or anything inside `Any`).
    ///   - name: A `$classname` as it appears in archives, such as `OldApp.Point`.
    public func setClass(_ type: Any.Type, forClassName name: String) {
        core.classMap[name] = type
    }

    /// Allows these concrete types where a polymorphic field or `Any` meets their class names.
    ///
    /// Needed for a field declared as a base class that holds a subclass, and for instances of
    /// your own types inside `Any`, `[Any]` or `[String: Any]`: no type is ever looked up by name.
    ///
    /// ```swift
    /// let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
    /// unarchiver.register(Car.self)              // a Vehicle field may hold a Car
    /// let garage = try unarchiver.decode(Garage.self, forKey: "root")
    /// ```
    ///
    /// - Parameter types: ``Archivable``, ``KeyedCoding`` or `Codable` types; registering one
    ///   twice is harmless.
    public func register(_ types: Any.Type...) {
        core.registered.append(contentsOf: types)
    }

    /// Decodes the object archived under `"root"`.
    ///
    /// The one-object counterpart of ``KeyedArchiver/archivedData(withRootObject:)``, with the
    /// default ``Options``. It reads `data` where it lies, without copying it.
    ///
    /// - Parameters:
    ///   - type: The type to decode, which drives decoding.
    ///   - data: A keyed archive whose `$top` has the key `"root"` (Foundation's
    ///     `archivedData(withRootObject:)` writes one too).
    /// - Returns: The decoded root object.
    /// - Throws: As ``init(forReadingFrom:options:)`` and ``decode(_:forKey:)`` throw;
    ///   `.keyNotFound` when the archive has no `"root"`.
    public static func unarchivedObject<T>(ofType type: T.Type, from data: Data) throws -> T {
        // The archive is read where it lies: nothing outlives the call but what it returns.
        try UnarchiverCore.reading(data, options: Options()) { core in try decode(type, forKey: ArchiveFormat.rootKey, from: core) }
    }
}

@available(*, unavailable)
extension KeyedUnarchiver: Sendable {}
