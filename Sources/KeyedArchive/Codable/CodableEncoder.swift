import Foundation
@_spi(Reader) import PropertyList

extension ArchiveFormat {
    /// The class of the objects that hold nested keyed containers (`nestedContainer(keyedBy:forKey:)`,
    /// the payload containers Swift synthesizes for enum cases, a keyed `superEncoder()`): a coded
    /// object like a type's own, with fields under their `stringValue` keys.
    static let codableContainerClass = "KeyedArchive.CodableContainer"
    static let codableContainerClasses = [codableContainerClass, rootClass]
}

/// The `Encoder` of one `Codable` value: it becomes what `encode(to:)` asks for.
///
/// - A keyed container: a coded object of the type's class (a nested or super encoder's: of
///   ``ArchiveFormat/codableContainerClass``), with fields under their `stringValue` keys,
///   scalars inline.
/// - An unkeyed container: an `NSArray` object whose elements are references.
/// - A single-value container: the value itself, coded by its own coder.
/// - No container: an empty coded object.
///
/// An object's UID is reserved when its container is created, so objects are numbered parent
/// first as everywhere else; its fields are collected in an ``EncodedObject`` (containers may be
/// used in any order, even interleaved) and written to the table when the value's `encode(to:)`
/// has returned.
final class CodableEncoder: Encoder {
    enum Content {
        case none
        case object(EncodedObject)
        case single(Int)
    }

    let core: ArchiverCore
    let path: CodingPath
    /// The depth of the path at the `Codable` value this encoder belongs to: error key paths are
    /// relative to it (the coders outside add the rest as the error travels out).
    let base: Int
    let session: EncodingSession
    /// The class name and chain of the object a keyed container makes.
    private let className: String
    private let classes: [String]
    /// The type's `archiveVersion`, written in the class description (0 for containers).
    private let version: Int
    /// What the value is, for messages: the type's name, or "the super encoder's value".
    private let owner: String
    /// The class instance whose object this is; registered when its object's UID is known.
    private let instance: AnyObject?
    /// Whether a single value may be stored inline (it is a field of a coded object).
    let inline: Bool
    private(set) var content = Content.none

    init(
        _ core: ArchiverCore, path: CodingPath, base: Int, session: EncodingSession,
        owner: String, className: String, classes: [String], version: Int = 0, instance: AnyObject?, inline: Bool
    ) {
        self.core = core
        self.owner = owner
        self.path = path
        self.base = base
        self.session = session
        self.className = className
        self.classes = classes
        self.version = version
        self.instance = instance
        self.inline = inline
    }

    /// The encoder `superEncoder()` returns: its value is a field or element of an object of `session`.
    static func superEncoder(
        _ core: ArchiverCore, path: CodingPath, base: Int, session: EncodingSession, inline: Bool
    ) -> CodableEncoder {
        CodableEncoder(
            core, path: path, base: base, session: session, owner: "the super encoder's value",
            className: ArchiveFormat.codableContainerClass,
            classes: ArchiveFormat.codableContainerClasses, instance: nil, inline: inline)
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedObjectEncoder<Key>(core, object: object(isList: false), path: path, base: base, session: session))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        ListEncoder(core, object: object(isList: true), path: path, base: base, session: session)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueEncoder(encoder: self)
    }

    /// The object of this value's keyed or unkeyed container, made on first use.
    private func object(isList: Bool) -> EncodedObject {
        switch content {
        case .none:
            let object =
                isList
                ? session.makeList(core)
                : session.makeObject(core, className: className, classes: classes, version: version)
            if let instance { core.register(instance, uid: object.uid) }
            content = .object(object)
            return object
        case .object(let object) where object.isList == isList:
            return object
        case .object, .single:
            session.misuse(
                "\(owner) asked for \(isList ? "an unkeyed" : "a keyed") container after another kind of container; encode(to:) must use one kind of container for a value")
            return EncodedObject.detached(isList: isList)
        }
    }

    /// Records the reference of the single value.
    func setSingle(_ reference: Int) {
        guard case .none = content else {
            session.misuse("\(owner) used a single-value container after encoding a value or using another container; encode(to:) must encode one single value")
            return
        }
        content = .single(reference)
    }

    /// The reference that stands for this encoder's value (an empty object if it asked for no container).
    func reference() -> Int {
        switch content {
        case .none: core.uid(object(isList: false).uid)
        case .object(let object): core.uid(object.uid)
        case .single(let reference): reference
        }
    }
}

@available(*, unavailable)
extension CodableEncoder: Sendable {}

/// The objects one `Codable` value (with its nested containers and super encoders) is building.
final class EncodingSession {
    private var objects: [EncodedObject] = []
    private var failure: ArchiveError?

    func makeObject(_ core: ArchiverCore, className: String, classes: [String], version: Int = 0) -> EncodedObject {
        let object = EncodedObject(core, className: className, classes: classes, version: version)
        objects.append(object)
        return object
    }

    func makeList(_ core: ArchiverCore) -> EncodedObject {
        let object = EncodedObject(core, className: ArchiveFormat.arrayClass, classes: [ArchiveFormat.arrayClass, ArchiveFormat.rootClass])
        object.isList = true
        objects.append(object)
        return object
    }

    /// Container misuse; reported when the value finishes (container requests cannot throw).
    func misuse(_ reason: String) {
        if failure == nil { failure = ArchiveError(.misuse, reason: reason) }
    }

    /// Writes every object to the table; returns `encoder`'s reference.
    func finish(_ encoder: CodableEncoder) throws -> Int {
        let reference = encoder.reference()
        if let failure { throw failure }
        var i = 0
        while i < objects.count {  // resolving a super encoder may add an empty object
            objects[i].finish(encoder.core)
            i += 1
        }
        return reference
    }
}

/// One keyed or unkeyed container's object: its reserved UID and slot, and the fields collected so far.
final class EncodedObject {
    let uid: Int
    /// The reserved object; nil for a detached object that is never written.
    private let reserved: ArchiverCore.ReservedObject?
    fileprivate(set) var isList = false
    /// Escaped-key table indices (keyed) and value references; `$class` first.
    private var keys: [Int] = []
    private(set) var values: [Int] = []
    /// Values taken from super encoders when the object is finished.
    private var deferred: [(position: Int, encoder: CodableEncoder)] = []

    fileprivate init(_ core: ArchiverCore, className: String, classes: [String], version: Int = 0) {
        let reserved = core.reserveObject()
        self.reserved = reserved
        uid = reserved.uid
        keys.append(core.classKeyIndex)
        values.append(core.uid(core.classUID(className, classes: classes, version: version)))
    }

    private init(detached isList: Bool) {
        uid = 0
        reserved = nil
        self.isList = isList
        keys = [-1]
        values = [-1]
    }

    /// An object that collects and drops what a misused container writes.
    static func detached(isList: Bool) -> EncodedObject { EncodedObject(detached: isList) }

    /// Elements of a list (after `$class`).
    var count: Int { values.count - 1 }

    /// Sets a field; a repeated key replaces the earlier value.
    func set(key: Int, value: Int) {
        let position = position(of: key)
        values[position] = value
        if !deferred.isEmpty { deferred.removeAll { $0.position == position } }
    }

    /// Sets a field to the value a super encoder will have made by the time the object is finished.
    func setDeferred(key: Int, encoder: CodableEncoder) {
        let position = position(of: key)
        deferred.removeAll { $0.position == position }
        deferred.append((position, encoder))
    }

    private func position(of key: Int) -> Int {
        // Position 0 is `$class`, which no escaped user key equals.
        if let existing = keys[1...].firstIndex(of: key) { return existing }
        keys.append(key)
        values.append(-1)
        return keys.count - 1
    }

    func append(_ value: Int) { values.append(value) }

    func appendDeferred(_ encoder: CodableEncoder) {
        values.append(-1)
        deferred.append((values.count - 1, encoder))
    }

    /// Writes the object: `{$class, fields…}`, or `{$class, NS.objects: […]}` for a list.
    fileprivate func finish(_ core: ArchiverCore) {
        for (position, encoder) in deferred { values[position] = encoder.reference() }
        deferred.removeAll()
        guard let reserved else { return }
        if isList {
            core.writeList(reserved, classReference: values[0], elements: values[1...])
        } else {
            core.write(reserved, keys: keys, values: values)
        }
    }
}

extension ArchiverCore {
    /// Encodes a value met in a `Codable` container; a nested `Codable` value gets the coding path.
    @inline(__always)
    func encodeValue<V>(_ value: V, inline: Bool, path: @autoclosure () -> CodingPath) throws -> Int {
        let coder = coders.typed(V.self)
        if let bridged = coder as? CodableCoder<V> { return try bridged.encode(value, inline: inline, self, path: path()) }
        return try coder.encode(value, inline: inline, self)
    }
}
