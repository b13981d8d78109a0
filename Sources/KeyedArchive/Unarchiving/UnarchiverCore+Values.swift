import Foundation
@_spi(Reader) import PropertyList

/// How graph objects become values: coded objects and their instances, Foundation objects,
/// lists, dictionaries and values of any type, read through ``ArchiveGraph`` (no byte format here).
extension UnarchiverCore {
    /// The scalar object a reference stands for: the inline object, or the raw `$objects` entry it points at.
    func scalar(_ reference: Int, expected: @autoclosure () -> String) throws -> (ArchiveGraph.Object, Int) {
        switch try target(reference) {
        case .inline(let object, let index), .object(_, let object, let index): return (object, index)
        case .null: throw ArchiveError(.typeMismatch, reason: "expected \(expected()), found nil", objectIndex: reference)
        }
    }

    func foundationObject(_ reference: Int, classes: Set<String>, expected: String) throws -> ObjectDict {
        try foundationObject(reference, expected: expected) {
            classes.contains($0.name) || $0.classes.contains(where: classes.contains)
        }
    }

    /// ``foundationObject(_:classes:expected:)`` for `NSDate`, whose class check is kept with the class description.
    func dateObject(_ reference: Int) throws -> ObjectDict {
        try foundationObject(reference, expected: "a date") { $0.isDate }
    }

    /// The dictionary a reference points at, if `isExpected` accepts its class description.
    private func foundationObject(
        _ reference: Int, expected: String, isExpected: (ClassDescription) -> Bool
    ) throws -> ObjectDict {
        guard case .object(let uid, let object, let index) = try target(reference),
            let (dict, description) = try objectDict(uid: uid, object: object, index: index)
        else { throw mismatch(expected, reference) }
        guard isExpected(description) else {
            throw ArchiveError(
                .typeMismatch, reason: "expected \(expected), found an object of class \(input: description.name)",
                byteOffset: object.offset, objectIndex: index)
        }
        return dict
    }

    func requiredField(_ dict: ObjectDict, _ key: String, id: Int32? = nil) throws -> Int {
        var hint = 0
        let found = try id.map { try value(in: dict, keyID: $0, hint: &hint) } ?? value(in: dict, escapedKey: key)
        guard let reference = found else {
            throw ArchiveError(
                .keyNotFound, reason: "the \(key) entry is missing", byteOffset: dict.object.offset, objectIndex: dict.index)
        }
        return reference
    }

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
                .typeMismatch, reason: "expected \(expected), found an object of class \(input: description.name)",
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

    typealias ReferenceList = ArchiveGraph.ReferenceList

    /// The list field `key` of `dict`, its elements checked to be UIDs (read them with ``listElement(_:of:)``),
    /// counted against `maximumDecodedObjects`.
    func referenceList(_ dict: ObjectDict, _ key: String, id: Int32? = nil) throws -> ReferenceList {
        let listRef = try requiredField(dict, key, id: id)
        let list = try graph.referenceList(at: listRef, key: key)
        try charge(list.count, forObjectAt: listRef)
        return list
    }

    /// The reference at position `i` of a checked list.
    @inline(__always)
    func listElement(_ i: Int, of list: ReferenceList) throws -> Int {
        try graph.element(i, of: list)
    }

    /// The element references of an array, set or ordered set object.
    func elementReferences(_ dict: ObjectDict, className: String) throws -> [Int] {
        guard let prefix = numberedElementPrefix(className) else { return try references(dict, ArchiveFormat.objectsField, id: ArchiveKeyIDs.objectsKey) }
        return try graph.numberedFields(of: dict, prefix: prefix)
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

    /// Decodes an `NSArray`/`NSSet`/`NSOrderedSet` object as `[E]`.
    func decodeList<E>(_ reference: Int, coder: TypedCoder<E>) throws -> [E] {
        let (dict, className) = try collection(reference, family: .list, expected: "an array")
        return try reusingValue(of: dict, as: [E].self) { try decodingValue(dict) {
            var elements: [E] = []
            if let prefix = numberedElementPrefix(className) {
                let refs = try graph.numberedFields(of: dict, prefix: prefix)
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
        } }
    }

    /// The key prefix of a list class that keeps its elements as numbered fields: `NS.object.<n>`
    /// (ordered sets), `NS.object<n>` (counted sets, read here as their distinct elements); nil
    /// for a list with `NS.objects`.
    @inline(__always)
    func numberedElementPrefix(_ className: String) -> String? {
        // Arrays, by far the commonest, are told apart without hashing the name.
        if className == ArchiveFormat.arrayClass { return nil }
        if ArchiveFormat.orderedSetClasses.contains(className) { return ArchiveFormat.orderedSetPrefix }
        return className == ArchiveFormat.countedSetClass ? ArchiveFormat.countedObjectPrefix : nil
    }

    /// Decodes an `NSDictionary` object as `[Key: Value]`.
    func decodeDictionary<Key: Hashable, Value>(
        _ reference: Int, keyCoder: TypedCoder<Key>, valueCoder: TypedCoder<Value>
    ) throws -> [Key: Value] {
        let (dict, _) = try collection(reference, family: .dictionary, expected: "a dictionary")
        return try reusingValue(of: dict, as: [Key: Value].self) { try decodingValue(dict) {
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
        } }
    }

    /// An instance decoded before, as `T`.
    static func cast<T>(_ existing: AnyObject, to type: T.Type, object: ArchiveGraph.Object, index: Int) throws -> T {
        try cast(
            existing, to: T.self, object: object, index: index,
            reason: "expected \(String(reflecting: T.self)), found an instance of \(String(reflecting: Swift.type(of: existing)))")
    }

    /// `value` as `T`, or a `.typeMismatch` for `reason`. Out of line: its `T?` would otherwise
    /// make every `decodeObject` call look up `Optional<T>`'s metadata.
    @inline(never)
    static func cast<T>(
        _ value: Any, to type: T.Type, object: ArchiveGraph.Object, index: Int, reason: @autoclosure () -> String
    ) throws -> T {
        guard let typed = value as? T else {
            throw ArchiveError(.typeMismatch, reason: reason(), byteOffset: object.offset, objectIndex: index)
        }
        return typed
    }

    /// Decodes `reference` as the type `mapped` (which the archive's class name selects), as `T`.
    func decodeMapped<T>(
        _ reference: Int, as type: T.Type, mapped: Any.Type, className: String, object: ArchiveGraph.Object, index: Int
    ) throws -> T {
        try Self.cast(
            try coders.coder(for: mapped).decodeAny(reference, self), to: T.self, object: object, index: index,
            reason: "class \(input: className) is mapped to \(String(reflecting: mapped)), which is not a \(String(reflecting: T.self))")
    }

    /// Reads a coded object as `T`, choosing the type by the archive's class name: `T` itself
    /// (its own name, or a name mapped to `T`), or a registered or mapped type that is a `T`.
    ///
    /// `make` builds the value; a class that calls `register` with its instance before decoding
    /// its fields has references back to it (cycles) resolve to that instance (one that does not
    /// is registered when `make` returns).
    /// An object archived at another version than `versioning`'s is refused if it is newer (unless
    /// the options allow it); `make` reads its fields through an ``ObjectFields``.
    func decodeObject<T>(
        _ reference: Int, as type: T.Type, ownName: String, legacyNames: @autoclosure () -> [String] = [],
        versioning: TypeVersioning,
        make: (CodedObject, (AnyObject) -> Void) throws -> T
    ) throws -> T {
        var typeName: String { String(reflecting: T.self) }
        guard case .object(let uid, let object, let index) = try target(reference) else {
            throw mismatch("an object of type \(typeName)", reference)
        }
        if let existing = instances[uid] { return try Self.cast(existing, to: T.self, object: object, index: index) }
        guard let (dict, description) = try objectDict(uid: uid, object: object, index: index) else {
            throw mismatch("an object of type \(typeName)", reference)
        }
        if description.name != ownName, !legacyNames().contains(description.name) {
            // A name mapped or registered as it is wins over the type's own name from another module.
            let mapped =
                exactlyMappedType(forClassName: description.name)
                ?? (isModuleMove(description.name, of: T.self) ? T.self : mappedType(forClassName: description.name))
            guard let mapped else {
                throw unexpectedClass(description, expected: typeName, object: object, index: index)
            }
            if ObjectIdentifier(mapped) != ObjectIdentifier(T.self) {
                return try decodeMapped(reference, as: T.self, mapped: mapped, className: description.name, object: object, index: index)
            }
        }
        guard inProgress.insert(uid) else {
            throw ArchiveError(
                .cycle,
                reason: "an instance of \(typeName) contains itself; only Archivable classes can be unarchived in cycles",
                byteOffset: object.offset, objectIndex: index)
        }
        try enter(index)
        defer {
            leave()
            inProgress.remove(uid)
        }
        var pendingVersion = -1
        if description.version != versioning.plainVersion {
            pendingVersion = try migrationStart(dict, description, versioning) ?? -1
        }
        let coded = CodedObject(dict: dict, pendingVersion: pendingVersion)
        reporter?.stack.append(dict)
        defer { reporter?.stack.removeLast() }
        let value = try make(coded) { self.register($0, uid: uid) }
        if T.self is AnyClass, instances[uid] == nil { register(value as AnyObject, uid: uid) }
        return value
    }

    /// The error for an object of a class that neither is nor maps to the type `expected`. A
    /// class of Foundation's is a value of another kind (registering it would not help); any
    /// other class may be a type this process has not registered or mapped.
    func unexpectedClass(_ description: ClassDescription, expected: String, object: ArchiveGraph.Object, index: Int) -> ArchiveError {
        guard let found = ([description.name] + description.classes).first(where: Self.foundationClasses.contains) else {
            return ArchiveError(
                .unknownClass,
                reason: "the archive holds class \(input: description.name) where \(expected) was expected; register its type with register(_:) or map the name with setClass(_:forClassName:)",
                byteOffset: object.offset, objectIndex: index)
        }
        return ArchiveError(
            .typeMismatch,
            reason: "expected an object of type \(expected), found \(found)\(found == description.name ? "" : " (class \(input: description.name))"), which decodes as \(Self.swiftType(ofFoundationClass: found)); decode it as that, or read the value archived from \(expected)",
            byteOffset: object.offset, objectIndex: index)
    }

    /// The Swift type an object of one of Foundation's classes decodes as through `Any`.
    private static func swiftType(ofFoundationClass name: String) -> String {
        switch name {
        case _ where ArchiveFormat.arrayClasses.contains(name) || ArchiveFormat.orderedSetClasses.contains(name): "an array ([Any], or [T] of its elements' type)"
        case _ where ArchiveFormat.dictionaryClasses.contains(name): "a dictionary ([String: Any], or [K: V] of its keys' and values' types)"
        case _ where ArchiveFormat.setClasses.contains(name): "a set (Set<AnyHashable>)"
        case _ where ArchiveFormat.stringClasses.contains(name): "String"
        case _ where ArchiveFormat.dataClasses.contains(name): "Data"
        case _ where ArchiveFormat.indexSetClasses.contains(name): "IndexSet"
        case _ where ArchiveFormat.attributedStringClasses.contains(name): "ArchivedAttributedString (or NSAttributedString)"
        case ArchiveFormat.dateClass: "Date"
        case ArchiveFormat.urlClass: "URL"
        case ArchiveFormat.uuidClass: "UUID"
        case ArchiveFormat.nullClass: "nil (an Optional)"
        case ArchiveFormat.decimalNumberClass: "Decimal"
        case ArchiveFormat.indexPathClass: "IndexPath"
        case ArchiveFormat.localeClass: "Locale"
        case ArchiveFormat.timeZoneClass: "TimeZone"
        case ArchiveFormat.calendarClass: "Calendar"
        case ArchiveFormat.valueClass: "NSRange, CGPoint, CGSize or CGRect"
        case ArchiveFormat.measurementClass: "Measurement"
        case ArchiveFormat.countedSetClass: "NSCountedSet"
        case ArchiveFormat.notificationClass: "Notification"
        default: "a Foundation value"
        }
    }

    /// Decodes whatever a reference holds without a requested type.
    func decodeAny(_ reference: Int) throws -> Any {
        switch try target(reference) {
        case .null:
            return decodedNull
        case .inline(let object, let index):
            return try plainValue(object, index: index, reference: reference)
        case .object(let uid, let object, let index):
            guard object.kind == .dict, let (dict, description) = try objectDict(uid: uid, object: object, index: index) else {
                return try plainValue(object, index: index, reference: reference)
            }
            if let instance = instances[uid] { return instance }
            return try reusingValue(of: dict, as: Any.self) { try decodeAnyObject(reference, description, object: object, index: index) }
        }
    }

    /// ``decodeAny(_:)`` of an object dictionary that is not an instance decoded before.
    private func decodeAnyObject(_ reference: Int, _ description: ClassDescription, object: ArchiveGraph.Object, index: Int) throws -> Any {
        // The class itself if this process knows it, else the first known name in its chain or hints.
        let candidates = [description.name] + description.classes
        let name =
            candidates.first { mappedType(forClassName: $0) != nil || Self.foundationClasses.contains($0) }
            ?? description.name
        if ArchiveFormat.arrayClasses.contains(name) || ArchiveFormat.orderedSetClasses.contains(name) {
            return try ArrayCoder<Any>().decode(reference, self)
        }
        if ArchiveFormat.dictionaryClasses.contains(name) {
            let anyKeyed = try DictionaryCoder<AnyHashable, Any>().decode(reference, self)
            if anyKeyed.keys.allSatisfy({ $0.base is String }) {
                return Dictionary(uniqueKeysWithValues: anyKeyed.map { ($0.key.base as! String, $0.value) })
            }
            return anyKeyed
        }
        if ArchiveFormat.setClasses.contains(name) { return try SetCoder<AnyHashable>().decode(reference, self) }
        if let mapped = mappedType(forClassName: name) {
            return try coders.coder(for: mapped).decodeAny(reference, self)
        }
        switch name {
        case ArchiveFormat.dateClass: return try DateCoder().decode(reference, self)
        case ArchiveFormat.urlClass: return try URLCoder().decode(reference, self)
        case ArchiveFormat.uuidClass: return try UUIDCoder().decode(reference, self)
        case ArchiveFormat.nullClass: return decodedNull
        case ArchiveFormat.decimalNumberClass: return try DecimalCoder().decode(reference, self)
        case _ where ArchiveFormat.stringClasses.contains(name): return try StringCoder.decodeValue(reference, self)
        case _ where ArchiveFormat.dataClasses.contains(name): return try DataCoder().decode(reference, self)
        default:
            if let value = try decodeAppleValue(named: name, reference) { return value }
            throw ArchiveError(
                .unknownClass,
                reason: "the archive holds an object of class \(input: name) where any value was expected; register its type with register(_:) or map the name with setClass(_:forClassName:)",
                byteOffset: object.offset, objectIndex: index)
        }
    }

    private static let foundationClasses: Set<String> = ArchiveFormat.arrayClasses
        .union(ArchiveFormat.orderedSetClasses).union(ArchiveFormat.dictionaryClasses).union(ArchiveFormat.setClasses)
        .union(ArchiveFormat.stringClasses).union(ArchiveFormat.dataClasses)
        .union([
            ArchiveFormat.dateClass, ArchiveFormat.urlClass, ArchiveFormat.uuidClass, ArchiveFormat.nullClass,
            ArchiveFormat.decimalNumberClass,
        ]).union(ArchiveFormat.appleValueClasses)

    /// A plain property-list value: integers as Int (or UInt64 above Int.max), 8-byte reals as
    /// Double and 4-byte reals as Float (what was archived from a `Float`).
    private func plainValue(_ object: ArchiveGraph.Object, index: Int, reference: Int) throws -> Any {
        switch object.kind {
        case .bool: return graph.boolean(object)
        case .int:
            let value = try graph.integer(object, index: index)
            if let small = value.int64Value { return Int(small) }
            return value.uint64Value!
        case .real:
            if let f = graph.singlePrecision(object) { return f }
            return graph.double(object)
        case .date: return Date(timeIntervalSinceReferenceDate: graph.date(object))
        case .data: return try DataCoder().decode(reference, self)
        case .asciiString, .utf16String: return try string(object, index: index)
        default: throw mismatch("a property-list value", reference)
        }
    }
}
