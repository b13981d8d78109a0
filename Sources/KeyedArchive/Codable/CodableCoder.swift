import Foundation
@_spi(Reader) import PropertyList

/// `Encodable` and `Decodable` types, through the archive's own `Encoder` and `Decoder`.
///
/// What a value becomes depends on the container its `encode(to:)` asks for (see
/// ``CodableEncoder``): a keyed container makes a coded object of class
/// `String(reflecting: T.self)` (or the name given with `setClassName(_:for:)`) whose fields are
/// the keys' `stringValue`s; an unkeyed container an `NSArray`; a single-value container the
/// value itself. Nested keyed containers, including the ones Swift synthesizes for enum cases
/// with associated values, are coded objects of class `KeyedArchive.CodableContainer`:
///
/// ```
/// case move(x: 1, y: 2)  →  {$class: MyApp.Command, move: →{$class: KeyedArchive.CodableContainer, x: 1, y: 2}}
/// case stop              →  {$class: MyApp.Command, stop: →{$class: KeyedArchive.CodableContainer}}
/// ```
///
/// Fields follow the archive's rules: integers, reals and booleans inline, everything else by
/// reference through its own coder (strings, Foundation values, collections, `Archivable`,
/// `KeyedCoding` and nested `Codable` values alike); a `nil` (also from `encodeIfPresent`) is a
/// reference to `$null`, and an absent key reads as nil too.
///
/// A class instance whose container is keyed or unkeyed keeps its identity (one UID however
/// often it is referenced, one instance when decoded), but cannot be in a cycle: its instance
/// exists only after `init(from:)` returns, so meeting it again while it is being coded is
/// `.cycle`. A class coded as a single value has no object of its own, so no identity.
///
/// `codingPath` runs from the nearest `Codable` value reached through `Codable` containers
/// (keyed, unkeyed, single-value, `encodeIfPresent`): a value inside an `Array`, `Dictionary`,
/// `Set`, `Archivable` or `KeyedCoding` value, which the archive's own coders write, starts a new
/// path. Error key paths are complete either way (`root.items[3].zip`): a `DecodingError` or
/// `EncodingError` thrown by the type's code becomes an `ArchiveError` (`.keyNotFound`,
/// `.typeMismatch`, `.unencodable`) whose key path is its coding path below that value.
///
/// The object is not made with `encodeObject` up front, because the kind of container (so
/// whether there is an object at all) is known only once `encode(to:)` asks for one; the encoder
/// does the same steps (subclass dispatch, identity, cycle check, depth) around it. Decoding a
/// coded object of the type's class goes through `decodeObject`.
final class CodableCoder<T>: TypeCoder {  // immutable after init
    private let name = defaultClassName(of: T.self)
    /// `$classes`: the name, superclass names, `NSObject`.
    private let classes: [String]
    private let encoding: (any EncodingWitness<T>)?
    private let decoding: (any DecodingWitness<T>)?
    private let isClass = T.self is AnyClass
    private let versioning = TypeVersioning.of(T.self)

    var className: String? { name }

    init() {
        encoding = makeEncodingWitness(T.self)
        decoding = makeDecodingWitness(T.self)
        classes = Self.classChain(name)
    }

    private static func classChain(_ name: String) -> [String] {
        var chain = [name]
        for superclass in FieldLayout.archivedSuperclasses(of: T.self) {
            let superName = defaultClassName(of: superclass)
            if chain.count >= 64 || superName == ArchiveFormat.rootClass || superName.hasPrefix("_Tt") || superName.hasPrefix("Swift.") { break }
            chain.append(superName)
        }
        chain.append(ArchiveFormat.rootClass)
        return chain
    }

    // MARK: Encoding

    func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try encode(value, inline: inline, archiver, path: .root)
    }

    /// Encodes `value` at `path` (the coding path its encoder reports; error key paths start below it).
    func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore, path: CodingPath) throws -> Int {
        guard let encoding else {
            throw ArchiveError(
                .notArchivable,
                reason: "\(name) is Decodable but not Encodable, so it cannot be archived: conform it to Encodable (or Codable)")
        }
        try versioning.checkVersion()
        var instance: AnyObject?
        if isClass {
            let object = value as AnyObject
            let dynamicType: AnyObject.Type = type(of: object)
            if ObjectIdentifier(dynamicType) != ObjectIdentifier(T.self) {
                return try archiver.coders.coder(for: dynamicType).encodeAny(value, inline: false, archiver)
            }
            if let existing = archiver.existingUID(of: object) {
                // Archived already: a reference, unless it is still being encoded (a cycle).
                try archiver.enterAcyclic(object, typeName: name)
                archiver.leaveAcyclic(object)
                return archiver.uid(existing)
            }
            try archiver.enterAcyclic(object, typeName: name)
            instance = object
        }
        defer { if let instance { archiver.leaveAcyclic(instance) } }
        archiver.depth += 1
        defer { archiver.depth -= 1 }
        guard archiver.depth <= archiver.maximumDepth else {
            throw ArchiveError(.depthLimit, reason: "values are nested more than \(archiver.maximumDepth) deep")
        }
        var (className, classes) = (name, classes)
        if !archiver.classNames.isEmpty, let renamed = archiver.classNames[ObjectIdentifier(T.self)] {
            className = renamed
            classes[0] = renamed
        }
        let session = EncodingSession()
        let encoder = CodableEncoder(
            archiver, path: path, base: path.depth, session: session, owner: name, className: className, classes: classes,
            version: versioning.version, instance: instance, inline: inline)
        do {
            try encoding.encode(value, to: encoder)
        } catch let error as EncodingError {
            throw ArchiveError(error, in: name, below: path.depth)
        }
        return try session.finish(encoder)
    }

    // MARK: Decoding

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T {
        try decode(reference, unarchiver, path: .root)
    }

    /// Decodes the value at `reference`, reporting `path` as its coding path.
    func decode(_ reference: Int, _ unarchiver: UnarchiverCore, path: CodingPath) throws -> T {
        guard let decoding else {
            throw ArchiveError(
                .notArchivable,
                reason: "\(name) is Encodable but not Decodable, so it cannot be unarchived: conform it to Decodable (or Codable)")
        }
        do {
            if case .object(let uid, let object, let index) = try unarchiver.target(reference) {
                if isClass, let existing = unarchiver.instances[uid] {
                    return try UnarchiverCore.cast(existing, to: T.self, object: object, index: index)
                }
                // A coded object of this type (or of a type mapped to its class name): a keyed container.
                if object.kind == .dict, let (_, description) = try unarchiver.objectDict(uid: uid, object: object, index: index),
                    description.name == name
                        || (!foundationClassNames.contains(description.name)
                            && (unarchiver.mappedType(forClassName: description.name) != nil
                                || unarchiver.isModuleMove(description.name, of: T.self)))
                {
                    return try unarchiver.decodeObject(
                        reference, as: T.self, ownName: name, versioning: versioning
                    ) { coded, _ in
                        let fields = try ObjectFields(unarchiver, coded, versioning)
                        let asked = unarchiver.reporter == nil ? nil : AskedKeys()
                        let decoder = CodableDecoder(
                            unarchiver, reference: reference, path: path, base: path.depth, className: name, owner: name,
                            isValue: true, fields: fields, asked: asked, chain: nil)
                        let value = try decoding.decode(from: decoder)
                        if let asked { unarchiver.reportFields(of: coded.dict.uid, archived: fields.keys, taken: asked.keys) }
                        return value
                    }
                }
            }
            // An unkeyed container's list, or a single value.
            try unarchiver.enter(reference)
            defer { unarchiver.leave() }
            let decoder = CodableDecoder(
                unarchiver, reference: reference, path: path, base: path.depth, className: name, owner: name,
                isValue: true, fields: nil, chain: nil)
            defer { if let uid = decoder.listUID { unarchiver.inProgress.remove(uid) } }
            let value = try decoding.decode(from: decoder)
            if isClass, let uid = decoder.listUID { unarchiver.register(value as AnyObject, uid: uid) }
            return value
        } catch let error as DecodingError {
            throw ArchiveError(error, in: name, below: path.depth)
        }
    }
}

/// Calls `encode(to:)` on a `Value` known to be `Encodable` only at run time, without boxing the value.
protocol EncodingWitness<Value>: Sendable {
    /// The type whose `encode(to:)` is called.
    associatedtype Value

    /// Calls `value.encode(to: encoder)`.
    func encode(_ value: Value, to encoder: CodableEncoder) throws
}

/// The witness of `T`, or nil if `T` is not `Encodable`.
private func makeEncodingWitness<T>(_: T.Type) -> (any EncodingWitness<T>)? {
    guard let type = T.self as? any Encodable.Type else { return nil }
    func open<E: Encodable>(_: E.Type) -> any EncodingWitness { EncodableWitness<E>() }
    // `E` is `T`, so the witness is an `EncodingWitness<T>`.
    return (open(type) as! any EncodingWitness<T>)
}

private struct EncodableWitness<E: Encodable>: EncodingWitness {
    func encode(_ value: E, to encoder: CodableEncoder) throws {
        try value.encode(to: encoder)
    }
}

/// Calls `init(from:)` on a `Value` known to be `Decodable` only at run time.
protocol DecodingWitness<Value>: Sendable {
    /// The type whose `init(from:)` is called.
    associatedtype Value

    /// Calls `Value(from: decoder)`.
    func decode(from decoder: CodableDecoder) throws -> Value
}

/// The witness of `T`, or nil if `T` is not `Decodable`.
private func makeDecodingWitness<T>(_: T.Type) -> (any DecodingWitness<T>)? {
    guard let type = T.self as? any Decodable.Type else { return nil }
    func open<D: Decodable>(_: D.Type) -> any DecodingWitness { DecodableWitness<D>() }
    return (open(type) as! any DecodingWitness<T>)
}

private struct DecodableWitness<D: Decodable>: DecodingWitness {
    func decode(from decoder: CodableDecoder) throws -> D {
        try D(from: decoder)
    }
}
