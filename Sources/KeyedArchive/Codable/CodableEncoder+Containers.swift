import Foundation
@_spi(Reader) import PropertyList

/// The keyed container of a ``CodableEncoder``: fields of a coded object, values coded by their
/// own coders (integers, reals and booleans inline; a `nil` as a reference to `$null`, as the
/// archive writes nil everywhere, so `encodeIfPresent` keeps the key).
struct KeyedObjectEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    private let core: ArchiverCore
    private let object: EncodedObject
    private let path: CodingPath
    private let base: Int
    private let session: EncodingSession

    init(_ core: ArchiverCore, object: EncodedObject, path: CodingPath, base: Int, session: EncodingSession) {
        self.core = core
        self.object = object
        self.path = path
        self.base = base
        self.session = session
    }

    var codingPath: [any CodingKey] { path.keys }

    @inline(__always)
    private func keyIndex(_ key: Key) -> Int {
        core.fieldKey(key.stringValue)
    }

    /// A value of a type whose coder is not `Codable`'s (no coding path to pass on).
    @inline(__always)
    private func put<V>(_ value: V, _ key: Key) throws {
        let reference = try withCodingPath(path, below: base, appending: key) {
            try core.coders.typed(V.self).encode(value, inline: true, core)
        }
        object.set(key: keyIndex(key), value: reference)
    }

    @inline(__always)
    private func putIfPresent<V>(_ value: V?, _ key: Key) throws {
        guard let value else { return object.set(key: keyIndex(key), value: core.nullReference) }
        try put(value, key)
    }

    mutating func encodeNil(forKey key: Key) throws {
        object.set(key: keyIndex(key), value: core.nullReference)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let reference = try withCodingPath(path, below: base, appending: key) {
            try core.encodeValue(value, inline: true, path: path.appending(key))
        }
        object.set(key: keyIndex(key), value: reference)
    }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try putIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try putIfPresent(value, key) }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        guard let value else { return object.set(key: keyIndex(key), value: core.nullReference) }
        try encode(value, forKey: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = session.makeObject(
            core, className: ArchiveFormat.codableContainerClass, classes: ArchiveFormat.codableContainerClasses)
        object.set(key: keyIndex(key), value: core.uid(nested.uid))
        return KeyedEncodingContainer(
            KeyedObjectEncoder<NestedKey>(core, object: nested, path: path.appending(key), base: base, session: session))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = session.makeList(core)
        object.set(key: keyIndex(key), value: core.uid(nested.uid))
        return ListEncoder(core, object: nested, path: path.appending(key), base: base, session: session)
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(named: NamedKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key)
    }

    private func superEncoder(named key: some CodingKey) -> any Encoder {
        let encoder = CodableEncoder.superEncoder(core, path: path.appending(key), base: base, session: session, inline: true)
        object.setDeferred(key: core.fieldKey(key.stringValue), encoder: encoder)
        return encoder
    }
}

/// The unkeyed container of a ``CodableEncoder``: the elements of an `NSArray` object, each a reference.
struct ListEncoder: UnkeyedEncodingContainer {
    private let core: ArchiverCore
    private let object: EncodedObject
    private let path: CodingPath
    private let base: Int
    private let session: EncodingSession

    init(_ core: ArchiverCore, object: EncodedObject, path: CodingPath, base: Int, session: EncodingSession) {
        self.core = core
        self.object = object
        self.path = path
        self.base = base
        self.session = session
    }

    var codingPath: [any CodingKey] { path.keys }
    var count: Int { object.count }

    @inline(__always)
    private func append<V>(_ value: V) throws {
        let key = IndexKey(object.count)
        let reference = try withCodingPath(path, below: base, appending: key) {
            try core.coders.typed(V.self).encode(value, inline: false, core)
        }
        object.append(reference)
    }

    mutating func encodeNil() throws {
        object.append(core.nullReference)
    }

    mutating func encode(_ value: Bool) throws { try append(value) }
    mutating func encode(_ value: String) throws { try append(value) }
    mutating func encode(_ value: Double) throws { try append(value) }
    mutating func encode(_ value: Float) throws { try append(value) }
    mutating func encode(_ value: Int) throws { try append(value) }
    mutating func encode(_ value: Int8) throws { try append(value) }
    mutating func encode(_ value: Int16) throws { try append(value) }
    mutating func encode(_ value: Int32) throws { try append(value) }
    mutating func encode(_ value: Int64) throws { try append(value) }
    mutating func encode(_ value: UInt) throws { try append(value) }
    mutating func encode(_ value: UInt8) throws { try append(value) }
    mutating func encode(_ value: UInt16) throws { try append(value) }
    mutating func encode(_ value: UInt32) throws { try append(value) }
    mutating func encode(_ value: UInt64) throws { try append(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = IndexKey(object.count)
        let reference = try withCodingPath(path, below: base, appending: key) {
            try core.encodeValue(value, inline: false, path: path.appending(key))
        }
        object.append(reference)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = IndexKey(object.count)
        let nested = session.makeObject(
            core, className: ArchiveFormat.codableContainerClass, classes: ArchiveFormat.codableContainerClasses)
        object.append(core.uid(nested.uid))
        return KeyedEncodingContainer(
            KeyedObjectEncoder<NestedKey>(core, object: nested, path: path.appending(key), base: base, session: session))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = IndexKey(object.count)
        let nested = session.makeList(core)
        object.append(core.uid(nested.uid))
        return ListEncoder(core, object: nested, path: path.appending(key), base: base, session: session)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = CodableEncoder.superEncoder(
            core, path: path.appending(IndexKey(object.count)), base: base, session: session, inline: false)
        object.appendDeferred(encoder)
        return encoder
    }
}

/// The single-value container of a ``CodableEncoder``: the value is coded by its own coder and
/// stands for the `Codable` value itself (a wrapper around a string archives as the string).
struct SingleValueEncoder: SingleValueEncodingContainer {
    private let encoder: CodableEncoder

    init(encoder: CodableEncoder) { self.encoder = encoder }

    var codingPath: [any CodingKey] { encoder.path.keys }

    @inline(__always)
    private func put<V>(_ value: V) throws {
        let core = encoder.core
        let reference = try withCodingPath(encoder.path, below: encoder.base, appending: nil) {
            try core.coders.typed(V.self).encode(value, inline: encoder.inline, core)
        }
        encoder.setSingle(reference)
    }

    mutating func encodeNil() throws {
        encoder.setSingle(encoder.core.nullReference)
    }

    mutating func encode(_ value: Bool) throws { try put(value) }
    mutating func encode(_ value: String) throws { try put(value) }
    mutating func encode(_ value: Double) throws { try put(value) }
    mutating func encode(_ value: Float) throws { try put(value) }
    mutating func encode(_ value: Int) throws { try put(value) }
    mutating func encode(_ value: Int8) throws { try put(value) }
    mutating func encode(_ value: Int16) throws { try put(value) }
    mutating func encode(_ value: Int32) throws { try put(value) }
    mutating func encode(_ value: Int64) throws { try put(value) }
    mutating func encode(_ value: UInt) throws { try put(value) }
    mutating func encode(_ value: UInt8) throws { try put(value) }
    mutating func encode(_ value: UInt16) throws { try put(value) }
    mutating func encode(_ value: UInt32) throws { try put(value) }
    mutating func encode(_ value: UInt64) throws { try put(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let core = encoder.core
        let reference = try withCodingPath(encoder.path, below: encoder.base, appending: nil) {
            try core.encodeValue(value, inline: encoder.inline, path: encoder.path)
        }
        encoder.setSingle(reference)
    }
}
