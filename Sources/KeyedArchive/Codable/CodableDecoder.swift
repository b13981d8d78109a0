import Foundation
@_spi(Reader) import PropertyList

/// The `Decoder` of one `Codable` value: it reads the reference as what `init(from:)` asks for,
/// exactly as ``CodableEncoder`` wrote it.
///
/// - A keyed container: a coded object of the type's class (given by `decodeObject`, which has
///   checked the class name and identity), or, for a nested or super decoder, of
///   ``ArchiveFormat/codableContainerClass``.
/// - An unkeyed container: an `NSArray` (or `NSSet`, `NSOrderedSet`) object.
/// - A single-value container: the reference itself, decoded by the value's coder.
final class CodableDecoder: Decoder {
    let core: UnarchiverCore
    let reference: Int
    let path: CodingPath
    /// The depth of the path at the `Codable` value this decoder belongs to (see ``CodableEncoder/base``).
    let base: Int
    /// The class a keyed container's object must have.
    private let className: String
    /// What the value is, for messages: the type's name, or "a super decoder's value".
    let owner: String
    /// Whether this decoder is a `Codable` value's own (not a super decoder's).
    private let isValue: Bool
    /// The objects of the containers this decoder's value is nested in (a nested container that
    /// is one of them is a cycle).
    let chain: ObjectChain?
    /// The keyed container's object, once found (the value's own: given, after its type's
    /// migration when it needed one).
    private var fields: ObjectFields?
    /// The keys the value's container was asked for, when the unarchiver reports what was not mapped.
    private let asked: AskedKeys?
    /// The UID of the list this value's unkeyed container reads, marked as being decoded until the value is done.
    private(set) var listUID: Int?

    init(
        _ core: UnarchiverCore, reference: Int, path: CodingPath, base: Int, className: String, owner: String,
        isValue: Bool, fields: ObjectFields?, asked: AskedKeys? = nil, chain: ObjectChain?
    ) {
        self.fields = fields
        self.asked = asked
        self.core = core
        self.reference = reference
        self.path = path
        self.base = base
        self.className = className
        self.owner = owner
        self.isValue = isValue
        self.chain = chain
    }

    /// The decoder `superDecoder()` returns for the value at `reference`.
    static func superDecoder(
        _ core: UnarchiverCore, reference: Int, path: CodingPath, base: Int, chain: ObjectChain?
    ) -> CodableDecoder {
        CodableDecoder(
            core, reference: reference, path: path, base: base, className: ArchiveFormat.codableContainerClass,
            owner: "the super decoder's value", isValue: false, fields: nil, chain: chain)
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let fields = try withCodingPath(path, below: base, appending: nil) { try keyedObject() }
        return KeyedDecodingContainer(
            KeyedObjectDecoder<Key>(
                fields, path: path, base: base, owner: owner, chain: ObjectChain(uid: fields.dict.uid, parent: chain),
                asked: asked))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try withCodingPath(path, below: base, appending: nil) {
            let (dict, references) = try core.codableList(reference, chain: chain)
            if isValue, listUID != dict.uid {
                guard core.inProgress.insert(dict.uid) else { throw core.cycle(dict, owner) }
                listUID = dict.uid
            }
            return ListDecoder(
                core, references: references, path: path, base: base, owner: owner, chain: ObjectChain(uid: dict.uid, parent: chain))
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueDecoder(decoder: self)
    }

    private func keyedObject() throws -> ObjectFields {
        if let fields { return fields }
        let dict = try core.codableObject(reference, className: className, owner: owner, isValue: isValue, chain: chain)
        let found = ObjectFields(core, dict: dict)
        fields = found
        return found
    }
}

@available(*, unavailable)
extension CodableDecoder: Sendable {}

/// The UIDs of the objects a container is nested in, innermost first.
final class ObjectChain {
    let uid: Int
    let parent: ObjectChain?

    init(uid: Int, parent: ObjectChain?) {
        self.uid = uid
        self.parent = parent
    }

    func contains(_ uid: Int) -> Bool {
        var node: ObjectChain? = self
        while let current = node {
            if current.uid == uid { return true }
            node = current.parent
        }
        return false
    }
}


/// Class names that are never a `Codable` type's own: meeting one where a keyed object was
/// expected is a type mismatch, not an unknown class, and no registered type is looked up for it.
let foundationClassNames = ArchiveFormat.listClasses.union(ArchiveFormat.dictionaryClasses).union(ArchiveFormat.stringClasses)
    .union(ArchiveFormat.dataClasses)
    .union([
        ArchiveFormat.dateClass, ArchiveFormat.urlClass, ArchiveFormat.uuidClass, ArchiveFormat.nullClass,
        ArchiveFormat.codableContainerClass,
    ])

extension UnarchiverCore {
    /// Decodes a value met in a `Codable` container; a nested `Codable` value gets the coding path.
    @inline(__always)
    func decodeValue<V>(_ type: V.Type, _ reference: Int, path: @autoclosure () -> CodingPath) throws -> V {
        let coder = coders.typed(V.self)
        if let bridged = coder as? CodableCoder<V> { return try bridged.decode(reference, self, path: path()) }
        return try coder.decode(reference, self)
    }

    /// The object of a keyed container: a coded object of class `className`.
    func codableObject(_ reference: Int, className: String, owner: String, isValue: Bool, chain: ObjectChain?) throws -> ObjectDict {
        let expected = isValue ? "an object of type \(owner)" : "a keyed container (class \(input: className))"
        let uid: Int, object: ArchiveGraph.Object, index: Int
        switch try target(reference) {
        case .null:
            throw ArchiveError(.typeMismatch, reason: "expected \(expected), found nil", objectIndex: reference)
        case .inline:
            throw mismatch(expected, reference)
        case .object(let u, let o, let i):
            (uid, object, index) = (u, o, i)
        }
        guard let (dict, description) = try objectDict(uid: uid, object: object, index: index) else {
            throw mismatch(expected, reference)
        }
        guard description.name == className else {
            if isValue, !foundationClassNames.contains(description.name) {
                throw ArchiveError(
                    .unknownClass,
                    reason: "the archive holds class \(input: description.name) where \(owner) was expected; register its type with register(_:) or map the name with setClass(_:forClassName:)",
                    byteOffset: object.offset, objectIndex: index)
            }
            throw ArchiveError(
                .typeMismatch, reason: "expected \(expected), found an object of class \(input: description.name)",
                byteOffset: object.offset, objectIndex: index)
        }
        try enterNested(dict, owner, chain: chain)
        return dict
    }

    /// The list an unkeyed container reads, and its element references.
    func codableList(_ reference: Int, chain: ObjectChain?) throws -> (ObjectDict, [Int]) {
        let (dict, className) = try collection(reference, family: .list, expected: "an array (an unkeyed container)")
        try enterNested(dict, "the unkeyed container", chain: chain)
        return (dict, try elementReferences(dict, className: className))
    }

    /// Refuses a container nested in itself, and counts it against `maximumDecodedObjects`.
    private func enterNested(_ dict: ObjectDict, _ owner: String, chain: ObjectChain?) throws {
        if chain?.contains(dict.uid) == true { throw cycle(dict, owner) }
        try enter(dict.index)
        leave()
    }

    func cycle(_ dict: ObjectDict, _ owner: String) -> ArchiveError {
        ArchiveError(
            .cycle,
            reason: "object UID \(dict.uid) contains itself through \(owner), which cannot be decoded in a cycle (only Archivable classes can)",
            byteOffset: dict.object.offset, objectIndex: dict.index)
    }
}
