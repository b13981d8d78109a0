import Foundation
import PropertyList

extension Optional: ArchiveContainer {
    static func makeCoder() -> TypeCoder { OptionalCoder<Wrapped>() }
}

extension Array: ArchiveContainer {
    static func makeCoder() -> TypeCoder { ArrayCoder<Element>() }
}

extension Set: ArchiveContainer {
    static func makeCoder() -> TypeCoder { SetCoder<Element>() }
}

extension Dictionary: ArchiveContainer {
    static func makeCoder() -> TypeCoder { DictionaryCoder<Key, Value>() }
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

extension ArchiverCore {
    /// Writes `{$class: NSArray-like, NS.objects: [UID…]}` from already ordered elements.
    func encodeList<E>(_ elements: [E], coder: TypedCoder<E>, className: String) throws -> Int {
        try enterNesting()
        defer { depth -= 1 }
        let frame = beginObject()
        openFields(frame)
        do {
            let container = table.beginContainer()
            // An index loop: a generic `enumerated()` iterator costs hundreds of instructions per element.
            try elements.withUnsafeBufferPointer { buffer in
                for i in 0..<buffer.count {
                    table.appendReference(try withKeyPath("[\(i)]") { try coder.encode(buffer[i], inline: false, self) })
                }
            }
            table.endArray(container)
            addField(ArchiveFormat.objectsField, value: container.index)
        } catch {
            abandonObject(frame)
            throw error
        }
        endObject(frame, className: className, classes: [className, ArchiveFormat.rootClass])
        return uid(frame.uid)
    }

    /// Elements in an order that does not depend on hashing: strings by UTF-8, numbers by value,
    /// anything else by the bytes it archives to on its own.
    func canonicalOrder<E>(_ elements: [E]) throws -> [E] {
        if E.self == String.self {
            return unsafeBitCast(unsafeBitCast(elements, to: [String].self).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, to: [E].self)
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
            scratch.classNames = classNames
            let reference = try scratch.coders.typed(E.self).encode(element, inline: false, scratch)
            keyed.append((Int.max, try scratch.finish(top: [("k", reference)]), element))
        }
        return keyed.sorted { $0.uid != $1.uid ? $0.uid < $1.uid : $0.bytes.lexicographicallyPrecedes($1.bytes) }.map(\.element)
    }
}

extension UnarchiverCore {
    /// The object dictionary a reference points at, if its class is one of `classes`; and its UID.
    func collection(_ reference: Int, classes: Set<String>, expected: String) throws -> (ObjectDict, String) {
        guard case .object(let uid, let object, let index) = try target(reference) else {
            throw ArchiveError(.typeMismatch, reason: "expected \(expected), found nil", objectIndex: reference)
        }
        guard let (dict, description) = try objectDict(uid: uid, object: object, index: index) else {
            throw mismatch(expected, reference)
        }
        guard let known = ([description.name] + description.classes).first(where: classes.contains) else {
            throw ArchiveError(
                .typeMismatch, reason: "expected \(expected), found an object of class \(description.name)",
                byteOffset: object.offset, objectIndex: index)
        }
        return (dict, known)
    }

    /// The references of a list field (`NS.objects`, `NS.keys`): a bplist array of UIDs.
    func references(_ dict: ObjectDict, _ key: String, id: Int32? = nil) throws -> [Int] {
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
        var refs: [Int] = []
        refs.reserveCapacity(list.count)
        for i in 0..<list.count {
            let ref = try document.reference(list, i, index: listRef)
            guard try document.object(at: ref).kind == .uid else {
                throw ArchiveError(
                    .invalidArchive, reason: "element \(i) of \(key) is not a reference (UID)",
                    byteOffset: document.offsets[ref], objectIndex: ref, keyPath: key)
            }
            refs.append(ref)
        }
        return refs
    }

    /// The element references of an array, set or ordered set object.
    func elementReferences(_ dict: ObjectDict, className: String) throws -> [Int] {
        guard ArchiveFormat.orderedSetClasses.contains(className) else { return try references(dict, ArchiveFormat.objectsField, id: ArchiveKeyIDs.objectsKey) }
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
        guard inProgress.insert(dict.uid).inserted else {
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

private let listClasses = ArchiveFormat.arrayClasses.union(ArchiveFormat.setClasses).union(ArchiveFormat.orderedSetClasses)

/// `NSArray`: `{$class, NS.objects: [UID…]}`.
final class ArrayCoder<Element>: TypedCoder<[Element]>, @unchecked Sendable {
    private let element = CoderCache.global(Element.self)

    override func encode(_ value: [Element], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element, className: ArchiveFormat.arrayClass)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Element] {
        let (dict, className) = try unarchiver.collection(reference, classes: listClasses, expected: "an array")
        return try unarchiver.decodingValue(dict) {
            let coder = element
            var elements: [Element] = []
            let refs = try unarchiver.elementReferences(dict, className: className)
            elements.reserveCapacity(refs.count)
            for i in 0..<refs.count {
                elements.append(try withKeyPath("[\(i)]") { try coder.decode(refs[i], unarchiver) })
            }
            return elements
        }
    }
}

/// `NSSet`: `{$class, NS.objects: [UID…]}`, elements in a stable order.
final class SetCoder<Element: Hashable>: TypedCoder<Set<Element>>, @unchecked Sendable {
    private let element = CoderCache.global(Element.self)
    private let list = CoderCache.global([Element].self)

    override func encode(_ value: Set<Element>, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(try archiver.canonicalOrder(Array(value)), coder: element, className: ArchiveFormat.setClass)
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
        let keys = try archiver.canonicalOrder(Array(value.keys))
        try archiver.enterNesting()
        defer { archiver.depth -= 1 }
        let frame = archiver.beginObject()
        archiver.openFields(frame)
        do {
            let keyList = archiver.table.beginContainer()
            for key in keys {
                archiver.table.appendReference(try withKeyPath("\(key)") { try keyCoder.encode(key, inline: false, archiver) })
            }
            archiver.table.endArray(keyList)
            let valueList = archiver.table.beginContainer()
            for key in keys {
                archiver.table.appendReference(try withKeyPath("\(key)") { try valueCoder.encode(value[key]!, inline: false, archiver) })
            }
            archiver.table.endArray(valueList)
            archiver.addField(ArchiveFormat.keysField, value: keyList.index)
            archiver.addField(ArchiveFormat.objectsField, value: valueList.index)
        } catch {
            archiver.abandonObject(frame)
            throw error
        }
        archiver.endObject(
            frame, className: ArchiveFormat.dictionaryClass, classes: [ArchiveFormat.dictionaryClass, ArchiveFormat.rootClass])
        return archiver.uid(frame.uid)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Key: Value] {
        let (dict, _) = try unarchiver.collection(reference, classes: ArchiveFormat.dictionaryClasses, expected: "a dictionary")
        return try unarchiver.decodingValue(dict) {
            let keyRefs = try unarchiver.references(dict, ArchiveFormat.keysField, id: ArchiveKeyIDs.keysKey)
            let valueRefs = try unarchiver.references(dict, ArchiveFormat.objectsField, id: ArchiveKeyIDs.objectsKey)
            guard keyRefs.count == valueRefs.count else {
                throw ArchiveError(
                    .invalidArchive, reason: "NS.keys has \(keyRefs.count) entries but NS.objects has \(valueRefs.count)",
                    byteOffset: dict.object.offset, objectIndex: dict.index)
            }
            var result: [Key: Value] = [:]
            result.reserveCapacity(keyRefs.count)
            for i in 0..<keyRefs.count {
                let key = try withKeyPath("NS.keys[\(i)]") { try keyCoder.decode(keyRefs[i], unarchiver) }
                let value = try withKeyPath("\(key)") { try valueCoder.decode(valueRefs[i], unarchiver) }
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
