import Foundation
@_spi(Reader) import PropertyList

/// How values become graph objects: coded objects and their identities, lists, dictionaries and
/// values of any type, written with ``ArchiverCore``'s graph vocabulary (no table or byte format here).
extension ArchiverCore {
    /// One level deeper into coded objects and collections; fails past `maximumDepth`.
    /// The caller decrements `depth` when it leaves.
    func enterNesting() throws(ArchiveError) {
        depth += 1
        guard depth <= maximumDepth else {
            depth -= 1
            throw ArchiveError(
                .depthLimit,
                reason: "values are nested more than \(maximumDepth) deep; the unarchiver's default limit is 512 (raise maximumDepth on both sides for deeper graphs)")
        }
        guard stack.hasRoom() else {
            depth -= 1
            throw ArchiveError(.depthLimit, reason: StackGuard.reason(depth: depth + 1))
        }
    }

    /// Writes a coded object (`$class` plus fields) for a value of type `T`.
    ///
    /// A class instance gets one UID for its whole life in the archive: a second reference reuses
    /// it. An instance of a subclass is handed to the coder of its dynamic type. With
    /// `allowsCycles` false, meeting an instance again while its fields are being written is a cycle error.
    func encodeObject<T>(
        _ value: T, className: String, version: Int = 0, allowsCycles: Bool, fields: (ObjectFrame) throws -> Void
    ) throws -> Int {
        try encodeObject(value, allowsCycles: allowsCycles, fields: fields) {
            if let renamed = classNames.isEmpty ? nil : classNames[ObjectIdentifier(T.self)] {
                return classUID(renamed, classes: [renamed, ArchiveFormat.rootClass], version: version)
            }
            return classUID(className, classes: [className, ArchiveFormat.rootClass], version: version)
        }
    }

    /// ``encodeObject(_:className:allowsCycles:fields:)`` for a type whose class
    /// description UID `classUID` gives (called once the fields are written).
    func encodeObject<T>(
        _ value: T, allowsCycles: Bool, fields: (ObjectFrame) throws -> Void, classUID: () -> Int
    ) throws -> Int {
        var instance: AnyObject?
        if T.self is AnyClass {
            let object = asObject(value)
            let dynamicType: AnyObject.Type = type(of: object)
            if ObjectIdentifier(dynamicType) != ObjectIdentifier(T.self) {
                return try coders.coder(for: dynamicType).encodeAny(value, inline: false, self)
            }
            if let existing = existingUID(of: object) {
                if !allowsCycles { try checkAcyclic(object, typeName: String(reflecting: T.self)) }
                return uid(existing)
            }
            instance = object
        }
        guard let instance else { return try encodeValueObject(fields: fields, classUID: classUID) }
        try enterNesting()
        defer { depth -= 1 }
        let frame = beginObject()
        register(instance, uid: frame.uid)
        if !allowsCycles {
            do {
                try enterAcyclic(instance, typeName: String(reflecting: T.self))
            } catch {
                abandonObject(frame)
                throw error
            }
        }
        defer { if !allowsCycles { leaveAcyclic(instance) } }
        return try fill(frame, fields: fields, classUID: classUID)
    }

    /// Writes a coded object for a value without identity (a struct): a new UID every time.
    @inline(__always)
    func encodeValueObject(fields: (ObjectFrame) throws -> Void, classUID: () -> Int) throws -> Int {
        try enterNesting()
        defer { depth -= 1 }
        return try fill(beginObject(), fields: fields, classUID: classUID)
    }

    /// Writes the fields of the object begun as `frame`, then ends it with its class; on an
    /// error the object is abandoned. Returns its UID reference.
    @inline(__always)
    private func fill(_ frame: ObjectFrame, fields: (ObjectFrame) throws -> Void, classUID: () -> Int) throws -> Int {
        do {
            try fields(frame)
        } catch {
            abandonObject(frame)
            throw error
        }
        endObject(frame, classUID: classUID())
        return uid(frame.uid)
    }

    /// Writes `{$class: NSArray (NSSet when `asSet`), NS.objects: [UID…]}` from already ordered elements.
    func encodeList<E>(_ elements: [E], coder: TypedCoder<E>, asSet: Bool = false) throws -> Int {
        try enterNesting()
        defer { depth -= 1 }
        let frame = beginObject()
        do {
            let list = beginList()
            // An index loop: a generic `enumerated()` iterator costs hundreds of instructions per element.
            try elements.withBorrowedElements { elements in
                if E.self == String.self {
                    // Strings are added where they lie, without a copy (and its retain and release) each.
                    for i in 0..<elements.count { append(string(at: elements.address(at: i)), to: list) }
                    return
                }
                for i in 0..<elements.count {
                    append(try withKeyPath("[\(i)]") { try coder.encodeElement(at: elements.address(at: i), self) }, to: list)
                }
            }
            appendField(wellKnownKey(&wellKnown.objectsKey, ArchiveFormat.objectsField), value: endList(list))
        } catch {
            abandonObject(frame)
            throw error
        }
        endObject(
            frame,
            classUID: asSet
                ? wellKnownClass(&wellKnown.setClass, ArchiveFormat.setClass)
                : wellKnownClass(&wellKnown.arrayClass, ArchiveFormat.arrayClass))
        return uid(frame.uid)
    }

    /// Elements in an order that does not depend on hashing: strings by UTF-8, numbers by value,
    /// anything else by the bytes it archives to on its own.
    func canonicalOrder<E>(_ elements: [E]) throws -> [E] {
        if E.self == String.self {
            return sameType(sameType(elements, as: [String].self).sorted(by: utf8Precedes), as: [E].self)
        }
        if E.self == Int.self { return sameType(sameType(elements, as: [Int].self).sorted(), as: [E].self) }
        return try canonicalPermutation(of: elements).map { elements[$0] }
    }

    /// `entries` in the canonical order of their keys (see ``canonicalOrder(_:)``), each key kept
    /// with its own value: a key need not find itself again (a NaN is not equal to itself).
    func canonicalOrder<Key, Value>(entries: [(key: Key, value: Value)]) throws -> [(key: Key, value: Value)] {
        try canonicalPermutation(of: entries.map(\.key)).map { entries[$0] }
    }

    /// The positions of `elements` in canonical order: instances already in this archive first,
    /// by UID (which only depends on the order the graph was walked); anything else by the bytes
    /// it archives to on its own; elements archiving alike in the order given.
    private func canonicalPermutation<E>(of elements: [E]) throws -> [Int] {
        var keyed: [(uid: Int, bytes: [UInt8], position: Int)] = []
        keyed.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            if E.self is AnyClass || type(of: element as Any) is AnyClass,
                let uid = existingUID(of: element as AnyObject)
            {
                keyed.append((uid, [], position))
                continue
            }
            let scratch = ArchiverCore()
            scratch.copyClassNames(from: self)
            let reference = try scratch.coders.typed(E.self).encode(element, inline: false, scratch)
            keyed.append((Int.max, try scratch.finish(top: [("k", reference)]), position))
        }
        return keyed.sorted {
            if $0.uid != $1.uid { return $0.uid < $1.uid }
            if $0.bytes != $1.bytes { return $0.bytes.lexicographicallyPrecedes($1.bytes) }
            return $0.position < $1.position
        }.map(\.position)
    }

    /// Writes an `NSDictionary` object, keys in canonical order.
    func encodeDictionary<Key: Hashable, Value>(
        _ value: [Key: Value], keyCoder: TypedCoder<Key>, valueCoder: TypedCoder<Value>
    ) throws -> Int {
        // String and integer keys sort with their values beside them, in a temporary buffer (on
        // the stack for the small dictionaries models hold: no allocation per dictionary).
        // Other keys go through `canonicalOrder`, then each value is looked up once.
        guard Key.self == String.self || Key.self == Int.self else {
            // Keys that archive as null (`NSNull`s, nil optionals of any type) are one key once
            // decoded, which decoding refuses; so is archiving them.
            if value.keys.count(where: archivesAsNull) > 1 {
                throw ArchiveError(.invalidArchive, reason: "the dictionary has the key \(decodedNull) twice")
            }
            let entries = try canonicalOrder(entries: value.map { (key: $0.key, value: $0.value) })
            return try entries.withBorrowedElements { entries in
                try encodeDictionary(entries: entries, keyCoder: keyCoder, valueCoder: valueCoder)
            }
        }
        if Key.self == String.self {
            return try withSortedEntries(of: value, by: { utf8Precedes(sameType($0, as: String.self), sameType($1, as: String.self)) }) {
                try encodeDictionary(entries: $0, keyCoder: keyCoder, valueCoder: valueCoder)
            }
        }
        return try withSortedEntries(of: value, by: { sameType($0, as: Int.self) < sameType($1, as: Int.self) }) {
            try encodeDictionary(entries: $0, keyCoder: keyCoder, valueCoder: valueCoder)
        }
    }

    /// Writes an `NSDictionary` object of `entries`, in their order.
    private func encodeDictionary<Key, Value>(
        entries: BorrowedElements<(key: Key, value: Value)>, keyCoder: TypedCoder<Key>, valueCoder: TypedCoder<Value>
    ) throws -> Int {
        try enterNesting()
        defer { depth -= 1 }
        let frame = beginObject()
        do {
            let keyList = beginList()
            for i in 0..<entries.count {
                let key = entries[i].key
                append(try withKeyPath("\(key)") { try keyCoder.encode(key, inline: false, self) }, to: keyList)
            }
            let keys = endList(keyList)
            let valueList = beginList()
            for i in 0..<entries.count {
                append(try withKeyPath("\(entries[i].key)") { try valueCoder.encode(entries[i].value, inline: false, self) }, to: valueList)
            }
            let values = endList(valueList)
            appendField(wellKnownKey(&wellKnown.keysKey, ArchiveFormat.keysField), value: keys)
            appendField(wellKnownKey(&wellKnown.objectsKey, ArchiveFormat.objectsField), value: values)
        } catch {
            abandonObject(frame)
            throw error
        }
        endObject(frame, classUID: wellKnownClass(&wellKnown.dictionaryClass, ArchiveFormat.dictionaryClass))
        return uid(frame.uid)
    }

    /// Encodes a value by its dynamic type.
    func encodeDynamic(_ value: Any, inline: Bool) throws -> Int {
        if value is NSNull { return foundationObject(className: ArchiveFormat.nullClass, fields: []) }
        return try coders.coder(for: type(of: value)).encodeAny(value, inline: inline, self)
    }
}

/// Whether a value is archived as a null: an `NSNull`, or a nil optional (wrapped in any number
/// of optionals or an `AnyHashable`).
private func archivesAsNull(_ value: Any) -> Bool {
    switch value {
    case let hashable as AnyHashable where type(of: value) == AnyHashable.self: archivesAsNull(hashable.base)
    case is NSNull: true
    case let optional as any OptionalValue: optional.wrapped.map(archivesAsNull) ?? true
    default: false
    }
}

private protocol OptionalValue {
    var wrapped: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrapped: Any? { map { $0 as Any } }
}
