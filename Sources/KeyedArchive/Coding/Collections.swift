import Foundation
@_spi(Reader) import PropertyList

extension Optional: ArchiveContainer {
    static func makeCoder() -> TypeCoder { OptionalCoder<Wrapped>() }
}

extension Array: ArchiveContainer {
    static func makeCoder() -> TypeCoder {
        // The commonest element types get coders compiled for them (no generic code per element).
        if Element.self == String.self { return StringArrayCoder() }
        if Element.self == Int.self { return IntArrayCoder() }
        if Element.self == Double.self { return DoubleArrayCoder() }
        return ArrayCoder<Element>()
    }
}

extension Set: ArchiveContainer {
    static func makeCoder() -> TypeCoder { SetCoder<Element>() }
}

extension Dictionary: ArchiveContainer {
    static func makeCoder() -> TypeCoder {
        if Key.self == String.self {
            if Value.self == String.self { return StringToStringCoder() }
            if Value.self == Int.self { return StringToIntCoder() }
            if Value.self == Double.self { return StringToDoubleCoder() }
        }
        return DictionaryCoder<Key, Value>()
    }
}

/// `nil` is a UID pointing at `$null`; a value is coded as the wrapped type.
final class OptionalCoder<Wrapped>: TypedCoder<Wrapped?>, @unchecked Sendable {
    private let wrapped = CoderCache.global(Wrapped.self)

    override func encode(_ value: Wrapped?, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        guard let value else { return archiver.nullReference }
        return try wrapped.encode(value, inline: inline, archiver)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Wrapped? {
        if case .null = try unarchiver.target(reference) { return nil }
        return try wrapped.decode(reference, unarchiver)
    }
}

/// Whether `a` sorts before `b` by their UTF-8 bytes (the canonical order of string keys and set elements).
@inline(__always)
func utf8Precedes(_ a: String, _ b: String) -> Bool {
    // Native strings (and small ones) lend their UTF-8 without a copy; others are made contiguous.
    if let inPlace = a.utf8.withContiguousStorageIfAvailable({ x in b.utf8.withContiguousStorageIfAvailable { y in bytesPrecede(x, y) } }),
        let result = inPlace
    {
        return result
    }
    var a = a
    var b = b
    return a.withUTF8 { x in b.withUTF8 { y in bytesPrecede(x, y) } }
}

@inline(__always)
private func bytesPrecede(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
    let common = min(x.count, y.count)
    let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
    return order != 0 ? order < 0 : x.count < y.count
}

/// Sorts `entries` by key with `precedes`: an insertion sort for the few entries most archived
/// dictionaries hold (no closure context, no scratch buffer), the standard sort beyond that.
@inline(__always)
func sortEntries<Key, Value>(_ entries: UnsafeMutableBufferPointer<(key: Key, value: Value)>, by precedes: (Key, Key) -> Bool) {
    guard entries.count <= 16 else {
        var entries = entries
        entries.sort { precedes($0.key, $1.key) }
        return
    }
    for i in entries.indices.dropFirst() {
        var j = i
        while j > 0, precedes(entries[j].key, entries[j - 1].key) {
            entries.swapAt(j, j - 1)
            j -= 1
        }
    }
}

extension ArchiverCore {
    /// Writes `{$class: NSArray (NSSet when `asSet`), NS.objects: [UID…]}` from already ordered elements.
    func encodeList<E>(_ elements: [E], coder: TypedCoder<E>, asSet: Bool = false) throws -> Int {
        try enterNesting()
        defer { depth -= 1 }
        let frame = beginObject()
        do {
            let container = table.beginContainer()
            // An index loop: a generic `enumerated()` iterator costs hundreds of instructions per element.
            try elements.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                for i in 0..<buffer.count {
                    table.appendReference(try withKeyPath("[\(i)]") { try coder.encodeElement(at: base + i, self) })
                }
            }
            table.endArray(container)
            appendField(wellKnownKey(&wellKnown.objectsKey, ArchiveFormat.objectsField), value: container.index)
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
            return unsafeBitCast(unsafeBitCast(elements, to: [String].self).sorted(by: utf8Precedes), to: [E].self)
        }
        if E.self == Int.self { return unsafeBitCast(unsafeBitCast(elements, to: [Int].self).sorted(), to: [E].self) }
        // Instances already in this archive sort first, by UID (which only depends on the order the
        // graph was walked); anything else by the bytes it archives to on its own.
        var keyed: [(uid: Int, bytes: [UInt8], element: E)] = []
        keyed.reserveCapacity(elements.count)
        for element in elements {
            if E.self is AnyClass || type(of: element as Any) is AnyClass,
                let uid = existingUID(of: element as AnyObject)
            {
                keyed.append((uid, [], element))
                continue
            }
            let scratch = ArchiverCore()
            scratch.copyClassNames(from: self)
            let reference = try scratch.coders.typed(E.self).encode(element, inline: false, scratch)
            keyed.append((Int.max, try scratch.finish(top: [("k", reference)]), element))
        }
        return keyed.sorted { $0.uid != $1.uid ? $0.uid < $1.uid : $0.bytes.lexicographicallyPrecedes($1.bytes) }.map(\.element)
    }
}

extension UnarchiverCore {
    /// The object dictionary a reference points at, if its class is one of `classes`; and its UID.
    func collection(_ reference: Int, family: CollectionFamily, expected: String) throws -> (ObjectDict, String) {
        guard case .object(let uid, let object, let index) = try target(reference) else {
            throw ArchiveError(.typeMismatch, reason: "expected \(expected), found nil", objectIndex: reference)
        }
        guard let (dict, description) = try objectDict(uid: uid, object: object, index: index) else {
            throw mismatch(expected, reference)
        }
        guard let known = family == .list ? description.listClass : description.dictionaryClass else {
            throw ArchiveError(
                .typeMismatch, reason: "expected \(expected), found an object of class \(description.name)",
                byteOffset: object.offset, objectIndex: index)
        }
        return (dict, known)
    }

    /// The references of a list field (`NS.objects`, `NS.keys`): a bplist array of UIDs.
    func references(_ dict: ObjectDict, _ key: String, id: Int32? = nil) throws -> [Int] {
        let list = try referenceList(dict, key, id: id)
        var refs: [Int] = []
        refs.reserveCapacity(list.count)
        for i in 0..<list.count { refs.append(try listElement(i, of: list)) }
        return refs
    }

    /// A list field whose elements were all checked to be references (UIDs).
    struct ReferenceList {
        let list: BPlistDocument.Object
        let index: Int
        var count: Int { list.count }
    }

    /// The list field `key` of `dict`, its elements checked to be UIDs (read them with ``listElement(_:of:)``).
    func referenceList(_ dict: ObjectDict, _ key: String, id: Int32? = nil) throws -> ReferenceList {
        let listRef = try requiredField(dict, key, id: id)
        let list = try document.object(at: listRef)
        guard list.kind == .array else {
            throw ArchiveError(
                .invalidArchive, reason: "\(key) is \(Self.describe(list)), not an array of references",
                byteOffset: list.offset, objectIndex: listRef, keyPath: key)
        }
        decodedCount += list.count
        if decodedCount > options.maximumDecodedObjects {
            throw ArchiveError(
                .sizeLimit,
                reason: "the archive expands to more than \(options.maximumDecodedObjects) decoded values through shared references (raise maximumDecodedObjects to read it)",
                byteOffset: list.offset, objectIndex: listRef)
        }
        for i in 0..<list.count {
            let ref = try document.reference(list, i, index: listRef)
            // A well-formed UID is recognised from its marker; anything else is decoded to say what it is.
            if document.uidValue(at: ref) == nil, try document.object(at: ref).kind != .uid {
                throw ArchiveError(
                    .invalidArchive, reason: "element \(i) of \(key) is not a reference (UID)",
                    byteOffset: document.offset(of: ref), objectIndex: ref, keyPath: key)
            }
        }
        return ReferenceList(list: list, index: listRef)
    }

    /// The reference at position `i` of a checked list.
    @inline(__always)
    func listElement(_ i: Int, of list: ReferenceList) throws -> Int {
        try document.reference(list.list, i, index: list.index)
    }

    /// The element references of an array, set or ordered set object.
    func elementReferences(_ dict: ObjectDict, className: String) throws -> [Int] {
        guard isOrderedSet(className) else { return try references(dict, ArchiveFormat.objectsField, id: ArchiveKeyIDs.objectsKey) }
        // One pass over the keys: `NS.object.<n>` goes to slot n; the elements are slots 0, 1, … up to the first gap.
        var slots = [Int](repeating: -1, count: dict.object.count)
        let prefix = Array(ArchiveFormat.orderedSetPrefix.utf8)
        for i in 0..<dict.object.count {
            let keyRef = try document.reference(dict.object, i, index: dict.index)
            let key = try document.object(at: keyRef)
            guard key.kind == .asciiString, key.count > prefix.count, key.count <= prefix.count + 18 else { continue }
            let bytes = UnsafeRawBufferPointer(rebasing: document.bytes[key.payload..<(key.payload + key.count)])
            guard bytes.prefix(prefix.count).elementsEqual(prefix),
                let n = Int(String(decoding: bytes.dropFirst(prefix.count), as: UTF8.self)), n >= 0, n < slots.count,
                slots[n] < 0
            else { continue }
            slots[n] = try document.reference(dict.object, dict.object.count + i, index: dict.index)
        }
        return Array(slots.prefix { $0 >= 0 })
    }

    /// Runs `body` while `uid` is marked as being decoded; a value that contains itself is a cycle.
    func decodingValue<R>(_ dict: ObjectDict, _ body: () throws -> R) throws -> R {
        guard inProgress.insert(dict.uid) else {
            throw ArchiveError(
                .cycle, reason: "object UID \(dict.uid) contains itself through values that cannot form cycles (only Archivable classes can)",
                byteOffset: dict.object.offset, objectIndex: dict.index)
        }
        try enter(dict.index)
        defer {
            leave()
            inProgress.remove(dict.uid)
        }
        return try body()
    }
}


/// `NSArray`: `{$class, NS.objects: [UID…]}`.
final class ArrayCoder<Element>: TypedCoder<[Element]>, @unchecked Sendable {
    private let element = CoderCache.global(Element.self)

    override func encode(_ value: [Element], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Element] {
        try unarchiver.decodeList(reference, coder: element)
    }
}

/// `[String]`, `[Int]` and `[Double]`: the same coding as ``ArrayCoder``, with the element type
/// fixed at compile time so the list code is specialised for it.
final class StringArrayCoder: TypedCoder<[String]>, @unchecked Sendable {
    private let element = StringCoder()

    override func encode(_ value: [String], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [String] {
        try unarchiver.decodeList(reference, coder: element)
    }
}

final class IntArrayCoder: TypedCoder<[Int]>, @unchecked Sendable {
    private let element = IntegerCoder<Int>()

    override func encode(_ value: [Int], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Int] {
        try unarchiver.decodeList(reference, coder: element)
    }
}

final class DoubleArrayCoder: TypedCoder<[Double]>, @unchecked Sendable {
    private let element = DoubleCoder()

    override func encode(_ value: [Double], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Double] {
        try unarchiver.decodeList(reference, coder: element)
    }
}

extension UnarchiverCore {
    /// Decodes an `NSArray`/`NSSet`/`NSOrderedSet` object as `[E]`.
    func decodeList<E>(_ reference: Int, coder: TypedCoder<E>) throws -> [E] {
        let (dict, className) = try collection(reference, family: .list, expected: "an array")
        return try decodingValue(dict) {
            var elements: [E] = []
            if isOrderedSet(className) {
                let refs = try elementReferences(dict, className: className)
                elements.reserveCapacity(refs.count)
                for i in 0..<refs.count {
                    elements.append(try withKeyPath("[\(i)]") { try coder.decode(refs[i], self) })
                }
            } else {
                let list = try referenceList(dict, ArchiveFormat.objectsField, id: ArchiveKeyIDs.objectsKey)
                elements.reserveCapacity(list.count)
                for i in 0..<list.count {
                    let ref = try listElement(i, of: list)
                    elements.append(try withKeyPath("[\(i)]") { try coder.decode(ref, self) })
                }
            }
            return elements
        }
    }

    /// Whether a list class keeps its elements as `NS.object.<n>` fields (ordered sets).
    @inline(__always)
    func isOrderedSet(_ className: String) -> Bool {
        // Arrays, by far the commonest, are told apart without hashing the name.
        className != ArchiveFormat.arrayClass && ArchiveFormat.orderedSetClasses.contains(className)
    }
}

/// `NSSet`: `{$class, NS.objects: [UID…]}`, elements in a stable order.
final class SetCoder<Element: Hashable>: TypedCoder<Set<Element>>, @unchecked Sendable {
    private let element = CoderCache.global(Element.self)
    private let list = CoderCache.global([Element].self)

    override func encode(_ value: Set<Element>, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(try archiver.canonicalOrder(Array(value)), coder: element, asSet: true)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Set<Element> {
        Set(try list.decode(reference, unarchiver))
    }
}

/// `NSDictionary`: `{$class, NS.keys: [UID…], NS.objects: [UID…]}`, keys in a stable order.
final class DictionaryCoder<Key: Hashable, Value>: TypedCoder<[Key: Value]>, @unchecked Sendable {
    private let keyCoder = CoderCache.global(Key.self)
    private let valueCoder = CoderCache.global(Value.self)

    override func encode(_ value: [Key: Value], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeDictionary(value, keyCoder: keyCoder, valueCoder: valueCoder)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Key: Value] {
        try unarchiver.decodeDictionary(reference, keyCoder: keyCoder, valueCoder: valueCoder)
    }
}

/// `[String: String]`, `[String: Int]` and `[String: Double]`: ``DictionaryCoder``'s coding with
/// both types fixed at compile time (hashing, sorting and collection code specialised for them).
final class StringToStringCoder: TypedCoder<[String: String]>, @unchecked Sendable {
    private let keyCoder = StringCoder()
    private let valueCoder = StringCoder()

    override func encode(_ value: [String: String], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeDictionary(value, keyCoder: keyCoder, valueCoder: valueCoder)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [String: String] {
        try unarchiver.decodeDictionary(reference, keyCoder: keyCoder, valueCoder: valueCoder)
    }
}

final class StringToIntCoder: TypedCoder<[String: Int]>, @unchecked Sendable {
    private let keyCoder = StringCoder()
    private let valueCoder = IntegerCoder<Int>()

    override func encode(_ value: [String: Int], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeDictionary(value, keyCoder: keyCoder, valueCoder: valueCoder)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [String: Int] {
        try unarchiver.decodeDictionary(reference, keyCoder: keyCoder, valueCoder: valueCoder)
    }
}

final class StringToDoubleCoder: TypedCoder<[String: Double]>, @unchecked Sendable {
    private let keyCoder = StringCoder()
    private let valueCoder = DoubleCoder()

    override func encode(_ value: [String: Double], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeDictionary(value, keyCoder: keyCoder, valueCoder: valueCoder)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [String: Double] {
        try unarchiver.decodeDictionary(reference, keyCoder: keyCoder, valueCoder: valueCoder)
    }
}

extension ArchiverCore {
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
            let entries = try canonicalOrder(Array(value.keys)).map { (key: $0, value: value[$0]!) }
            return try entries.withUnsafeBufferPointer { entries in
                try encodeDictionary(entries: entries, keyCoder: keyCoder, valueCoder: valueCoder)
            }
        }
        return try withUnsafeTemporaryAllocation(of: (key: Key, value: Value).self, capacity: value.count) { buffer in
            var filled = buffer.startIndex
            for entry in value {
                buffer.initializeElement(at: filled, to: entry)
                filled += 1
            }
            let entries = UnsafeMutableBufferPointer(rebasing: buffer[..<filled])
            defer { entries.deinitialize() }
            if Key.self == String.self {
                sortEntries(entries) { utf8Precedes(unsafeBitCast($0, to: String.self), unsafeBitCast($1, to: String.self)) }
            } else {
                sortEntries(entries) { unsafeBitCast($0, to: Int.self) < unsafeBitCast($1, to: Int.self) }
            }
            return try encodeDictionary(entries: UnsafeBufferPointer(entries), keyCoder: keyCoder, valueCoder: valueCoder)
        }
    }

    /// Writes an `NSDictionary` object of `entries`, in their order.
    private func encodeDictionary<Key, Value>(
        entries: UnsafeBufferPointer<(key: Key, value: Value)>, keyCoder: TypedCoder<Key>, valueCoder: TypedCoder<Value>
    ) throws -> Int {
        try enterNesting()
        defer { depth -= 1 }
        let frame = beginObject()
        do {
            let keyList = table.beginContainer()
            for i in 0..<entries.count {
                let key = entries[i].key
                table.appendReference(try withKeyPath("\(key)") { try keyCoder.encode(key, inline: false, self) })
            }
            table.endArray(keyList)
            let valueList = table.beginContainer()
            for i in 0..<entries.count {
                table.appendReference(
                    try withKeyPath("\(entries[i].key)") { try valueCoder.encode(entries[i].value, inline: false, self) })
            }
            table.endArray(valueList)
            appendField(wellKnownKey(&wellKnown.keysKey, ArchiveFormat.keysField), value: keyList.index)
            appendField(wellKnownKey(&wellKnown.objectsKey, ArchiveFormat.objectsField), value: valueList.index)
        } catch {
            abandonObject(frame)
            throw error
        }
        endObject(frame, classUID: wellKnownClass(&wellKnown.dictionaryClass, ArchiveFormat.dictionaryClass))
        return uid(frame.uid)
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

extension UnarchiverCore {
    /// Decodes an `NSDictionary` object as `[Key: Value]`.
    func decodeDictionary<Key: Hashable, Value>(
        _ reference: Int, keyCoder: TypedCoder<Key>, valueCoder: TypedCoder<Value>
    ) throws -> [Key: Value] {
        let (dict, _) = try collection(reference, family: .dictionary, expected: "a dictionary")
        return try decodingValue(dict) {
            let keyRefs = try referenceList(dict, ArchiveFormat.keysField, id: ArchiveKeyIDs.keysKey)
            let valueRefs = try referenceList(dict, ArchiveFormat.objectsField, id: ArchiveKeyIDs.objectsKey)
            guard keyRefs.count == valueRefs.count else {
                throw ArchiveError(
                    .invalidArchive, reason: "NS.keys has \(keyRefs.count) entries but NS.objects has \(valueRefs.count)",
                    byteOffset: dict.object.offset, objectIndex: dict.index)
            }
            var result = [Key: Value](minimumCapacity: keyRefs.count)
            for i in 0..<keyRefs.count {
                let keyRef = try listElement(i, of: keyRefs)
                let valueRef = try listElement(i, of: valueRefs)
                let key = try withKeyPath("NS.keys[\(i)]") { try keyCoder.decode(keyRef, self) }
                let value = try withKeyPath("\(key)") { try valueCoder.decode(valueRef, self) }
                guard result.updateValue(value, forKey: key) == nil else {
                    throw ArchiveError(
                        .invalidArchive, reason: "the dictionary has the key \(key) twice",
                        byteOffset: dict.object.offset, objectIndex: dict.index)
                }
            }
            return result
        }
    }
}
