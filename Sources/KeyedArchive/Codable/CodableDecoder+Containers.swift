import Foundation
@_spi(Reader) import PropertyList

/// The keyed container of a ``CodableDecoder``: the fields of a coded object, looked up by their
/// escaped `stringValue` and decoded by the value type's coder. A key that holds `$null` or is
/// absent reads as nil in `decodeIfPresent`.
struct KeyedObjectDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The object's fields (the value's own container: after its type's migration, when it needed one).
    private let fields: ObjectFields
    private let path: CodingPath
    private let base: Int
    private let owner: String
    private let chain: ObjectChain
    /// The keys asked for, when the unarchiver reports what was not mapped (the value's own container only).
    private let asked: AskedKeys?

    init(_ fields: ObjectFields, path: CodingPath, base: Int, owner: String, chain: ObjectChain, asked: AskedKeys? = nil) {
        self.fields = fields
        self.asked = asked
        self.path = path
        self.base = base
        self.owner = owner
        self.chain = chain
    }

    private var core: UnarchiverCore { fields.core }

    var codingPath: [any CodingKey] { path.keys }

    /// The keys of the object that `Key` has a case for, in archive order.
    var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool {
        asked?.insert(key.stringValue)
        return fields.contains(key.stringValue)
    }

    /// Where the value under `key` is; nil when absent.
    @inline(__always)
    private func slot(_ key: some CodingKey) throws -> ObjectFields.Slot? {
        asked?.insert(key.stringValue)
        return try fields.slot(forKey: key.stringValue)
    }

    /// Where `key`'s value is: the archive and reference holding it (for a value a migration
    /// set, that value's own archive), and the set value itself.
    private func located(_ key: some CodingKey) throws -> (core: UnarchiverCore, reference: Int, set: SetValue?)? {
        try slot(key).map(fields.location(of:))
    }

    /// ``located(_:)``; absent is `.keyNotFound`.
    private func requiredLocation(_ key: Key) throws -> (core: UnarchiverCore, reference: Int, set: SetValue?) {
        guard let location = try located(key) else { throw keyNotFound(key) }
        return location
    }

    private func keyNotFound(_ key: Key) -> ArchiveError {
        fields.keyNotFound(
            key.stringValue, owner: owner,
            advice: "; decode it with decodeIfPresent (an optional property) to read archives without it", withKeyPath: false)
    }

    /// A value of a type whose coder is not `Codable`'s (no coding path to pass on).
    @inline(__always)
    private func get<V>(_ type: V.Type, _ key: Key) throws -> V {
        try withCodingPath(path, below: base, appending: key) {
            guard let slot = try slot(key) else { throw keyNotFound(key) }
            return try fields.read(slot, as: V.self)
        }
    }

    @inline(__always)
    private func getIfPresent<V>(_ type: V.Type, _ key: Key) throws -> V? {
        try withCodingPath(path, below: base, appending: key) {
            guard let slot = try slot(key) else { return nil }
            return try fields.readIfPresent(slot, as: V.self)
        }
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try withCodingPath(path, below: base, appending: key) {
            let (core, reference, _) = try requiredLocation(key)
            if case .null = try core.target(reference) { return true }
            return false
        }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try get(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try get(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try get(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try get(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try get(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try get(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try get(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try get(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try get(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try get(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try get(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try get(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try get(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try get(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try withCodingPath(path, below: base, appending: key) {
            guard let (core, reference, set) = try located(key) else {
                // An Optional type reads an absent key as nil, as everywhere in the archive.
                if let optional = core.coders.typed(T.self) as? any AbsentAsNil, let none = optional.absentValue as? T { return none }
                throw keyNotFound(key)
            }
            if let set, let typed = set.value as? T { return typed }
            return try core.decodeValue(T.self, reference, path: path.appending(key))
        }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try getIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try getIfPresent(type, key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try withCodingPath(path, below: base, appending: key) {
            guard let (core, reference, set) = try located(key) else { return nil }
            if case .null = try core.target(reference) { return nil }
            if let set, let typed = set.value as? T { return typed }
            return try core.decodeValue(T.self, reference, path: path.appending(key))
        }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try withCodingPath(path, below: base, appending: key) {
            // A value a migration set is read from its own archive, where this object's chain does not apply.
            let (core, reference, set) = try requiredLocation(key)
            let chain = set == nil ? chain : nil
            let nested = try core.codableObject(
                reference, className: ArchiveFormat.codableContainerClass, owner: "the nested container",
                isValue: false, chain: chain)
            return KeyedDecodingContainer(
                KeyedObjectDecoder<NestedKey>(
                    ObjectFields(core, dict: nested), path: path.appending(key), base: base, owner: "the nested container",
                    chain: ObjectChain(uid: nested.uid, parent: chain)))
        }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try withCodingPath(path, below: base, appending: key) {
            let (core, reference, set) = try requiredLocation(key)
            let chain = set == nil ? chain : nil
            let (list, references) = try core.codableList(reference, chain: chain)
            return ListDecoder(
                core, references: references, path: path.appending(key), base: base, owner: "the nested container",
                chain: ObjectChain(uid: list.uid, parent: chain))
        }
    }

    func superDecoder() throws -> any Decoder {
        try superDecoder(named: NamedKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try superDecoder(named: key)
    }

    private func superDecoder(named key: some CodingKey) throws -> any Decoder {
        try withCodingPath(path, below: base, appending: key) {
            guard let (core, reference, set) = try located(key) else {
                throw fields.keyNotFound(key.stringValue, owner: owner, advice: ", which superDecoder() reads", withKeyPath: false)
            }
            return CodableDecoder.superDecoder(
                core, reference: reference, path: path.appending(key), base: base, chain: set == nil ? chain : nil)
        }
    }
}

/// The unkeyed container of a ``CodableDecoder``: the elements of a list object, in order.
struct ListDecoder: UnkeyedDecodingContainer {
    private let core: UnarchiverCore
    private let references: [Int]
    private let path: CodingPath
    private let base: Int
    private let owner: String
    private let chain: ObjectChain
    private(set) var currentIndex = 0

    init(_ core: UnarchiverCore, references: [Int], path: CodingPath, base: Int, owner: String, chain: ObjectChain) {
        self.core = core
        self.references = references
        self.path = path
        self.base = base
        self.owner = owner
        self.chain = chain
    }

    var codingPath: [any CodingKey] { path.keys }
    var count: Int? { references.count }
    var isAtEnd: Bool { currentIndex >= references.count }

    /// The reference of the current element; past the end is `.keyNotFound`.
    private func current() throws -> Int {
        guard currentIndex < references.count else {
            throw ArchiveError(
                .keyNotFound, reason: "the array ends after \(references.count) element\(references.count == 1 ? "" : "s"); \(owner) reads one more")
        }
        return references[currentIndex]
    }

    @inline(__always)
    private mutating func next<V>(_ type: V.Type) throws -> V {
        let value = try withCodingPath(path, below: base, appending: IndexKey(currentIndex)) {
            try core.coders.typed(V.self).decode(try current(), core)
        }
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        let isNull = try withCodingPath(path, below: base, appending: IndexKey(currentIndex)) {
            if case .null = try core.target(try current()) { return true }
            return false
        }
        if isNull { currentIndex += 1 }
        return isNull
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let key = IndexKey(currentIndex)
        let value = try withCodingPath(path, below: base, appending: key) {
            try core.decodeValue(T.self, try current(), path: path.appending(key))
        }
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let key = IndexKey(currentIndex)
        let container = try withCodingPath(path, below: base, appending: key) {
            let nested = try core.codableObject(
                try current(), className: ArchiveFormat.codableContainerClass, owner: "the nested container", isValue: false,
                chain: chain)
            return KeyedDecodingContainer(
                KeyedObjectDecoder<NestedKey>(
                    ObjectFields(core, dict: nested), path: path.appending(key), base: base, owner: "the nested container",
                    chain: ObjectChain(uid: nested.uid, parent: chain)))
        }
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let key = IndexKey(currentIndex)
        let container = try withCodingPath(path, below: base, appending: key) {
            let (list, references) = try core.codableList(try current(), chain: chain)
            return ListDecoder(
                core, references: references, path: path.appending(key), base: base, owner: "the nested container",
                chain: ObjectChain(uid: list.uid, parent: chain))
        }
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let key = IndexKey(currentIndex)
        let decoder = try withCodingPath(path, below: base, appending: key) {
            CodableDecoder.superDecoder(core, reference: try current(), path: path.appending(key), base: base, chain: chain)
        }
        currentIndex += 1
        return decoder
    }
}

/// The single-value container of a ``CodableDecoder``: the value's own reference, decoded as the requested type.
struct SingleValueDecoder: SingleValueDecodingContainer {
    private let decoder: CodableDecoder

    init(decoder: CodableDecoder) { self.decoder = decoder }

    var codingPath: [any CodingKey] { decoder.path.keys }

    func decodeNil() -> Bool {
        if case .null? = try? decoder.core.target(decoder.reference) { return true }
        return false
    }

    @inline(__always)
    private func get<V>(_ type: V.Type) throws -> V {
        let core = decoder.core
        return try withCodingPath(decoder.path, below: decoder.base, appending: nil) {
            try core.coders.typed(V.self).decode(decoder.reference, core)
        }
    }

    func decode(_ type: Bool.Type) throws -> Bool { try get(type) }
    func decode(_ type: String.Type) throws -> String { try get(type) }
    func decode(_ type: Double.Type) throws -> Double { try get(type) }
    func decode(_ type: Float.Type) throws -> Float { try get(type) }
    func decode(_ type: Int.Type) throws -> Int { try get(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try get(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try get(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try get(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try get(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try get(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try get(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try get(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try get(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try get(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let core = decoder.core
        return try withCodingPath(decoder.path, below: decoder.base, appending: nil) {
            try core.decodeValue(T.self, decoder.reference, path: decoder.path)
        }
    }
}
