import Foundation
@_spi(Reader) import PropertyList

/// The state of one archive being read: the validated bplist document, `$objects`, decoded
/// class instances by UID, class descriptions, and the limits that bound hostile input.
///
/// Decoding is driven by the requested static type; the archive's class names only select
/// among the requested type, registered types and `setClass` mappings.
///
/// A core is used by one thread and never re-enters an update of the same property, so its
/// state opts out of the runtime's dynamic exclusivity checks (`@exclusivity(unchecked)`).
final class UnarchiverCore {
    /// The archive's bytes when the core holds its own copy; empty while it reads its caller's
    /// buffer (see ``init(borrowing:options:)`` and ``keepBytes()``).
    @exclusivity(unchecked) private var storage: RawBuffer<UInt8>
    @exclusivity(unchecked) private(set) var document: BPlistDocument
    /// `$objects`: an array whose references, read in place, give the bplist object index of each UID.
    let objectList: BPlistDocument.Object
    /// The number of `$objects` entries: UIDs run from 0 to `uidCount - 1`.
    let uidCount: Int
    /// `$top` key → value reference (a bplist object index, normally a UID).
    let top: [(key: String, reference: Int)]
    @exclusivity(unchecked) var coders: CoderCache = CoderCache()
    /// Class instances by UID, registered before their fields are decoded.
    @exclusivity(unchecked) var instances: InstanceColumn
    /// UIDs being decoded now, to catch cycles through values.
    @exclusivity(unchecked) var inProgress: UIDSet
    /// UIDs registered in `instances`, in order, so a failed top-level decode can take back what it registered.
    @exclusivity(unchecked) var registrations: [Int] = []
    @exclusivity(unchecked) var classMap: [String: Any.Type] = [:]
    @exclusivity(unchecked) var registered: [Any.Type] = [] {
        didSet { registeredByName = nil }
    }
    @exclusivity(unchecked) private var registeredByName: [String: Any.Type]?
    /// Class-description UID → the position of its description in `classDescriptions`.
    @exclusivity(unchecked) private var classSlots: IndexMap
    @exclusivity(unchecked) private var classDescriptions: [ClassDescription] = []
    /// Bplist object index of a key string → its `ArchiveKeyIDs` number (≥ 0), or `-2 - n` when
    /// it had none while `n` numbers existed. Keys not looked up yet are absent.
    @exclusivity(unchecked) private var keyIDs: IndexMap
    @exclusivity(unchecked) var depth: Int = 0
    @exclusivity(unchecked) var decodedCount: Int = 0
    /// Stops the recursion before the current thread's stack runs out; set per top-level decode.
    @exclusivity(unchecked) var stack = StackGuard()
    let options: KeyedUnarchiver.Options

    /// A class, so handing one out costs one reference count rather than one per name it holds.
    final class ClassDescription {
        let name: String
        let classes: [String]
        /// The first of `name` and `classes` that is a Foundation list class (array, set,
        /// ordered set) or dictionary class, found once per class description.
        let listClass: String?
        let dictionaryClass: String?
        /// Whether the class is `NSDate` or derives from it.
        let isDate: Bool

        init(name: String, classes: [String]) {
            self.name = name
            self.classes = classes
            let chain = [name] + classes
            listClass = chain.first(where: ArchiveFormat.listClasses.contains)
            dictionaryClass = chain.first(where: ArchiveFormat.dictionaryClasses.contains)
            isDate = chain.contains(ArchiveFormat.dateClass)
        }
    }

    /// The kinds of Foundation collection a decoder may ask for.
    enum CollectionFamily {
        case list, dictionary
    }

    /// Opens a copy of `bytes`: the core can outlive them.
    convenience init(bytes: some Collection<UInt8>, options: KeyedUnarchiver.Options) throws(ArchiveError) {
        try Self.checkSize(bytes.count, options)
        var storage = RawBuffer<UInt8>()
        storage.reserve(bytes.count)
        if bytes.withContiguousStorageIfAvailable({ storage.append(contentsOf: $0) }) == nil {
            for byte in bytes { storage.append(byte) }
        }
        let copy = UnsafeRawBufferPointer(storage.elements())
        try self.init(reading: copy, storage: storage, options: options)
    }

    /// Opens `buffer` where it lies, without copying it. The caller must either drop the core
    /// before the buffer goes away, or call ``keepBytes()`` first.
    convenience init(borrowing buffer: UnsafeRawBufferPointer, options: KeyedUnarchiver.Options) throws(ArchiveError) {
        try Self.checkSize(buffer.count, options)
        try self.init(reading: buffer, storage: RawBuffer(), options: options)
    }

    private static func checkSize(_ count: Int, _ options: KeyedUnarchiver.Options) throws(ArchiveError) {
        guard count <= options.maximumArchiveSize else {
            throw ArchiveError(
                .sizeLimit,
                reason: "the archive is \(count) bytes, more than the maximum of \(options.maximumArchiveSize) (raise maximumArchiveSize to read it)")
        }
    }

    private init(reading bytes: UnsafeRawBufferPointer, storage: consuming RawBuffer<UInt8>, options: KeyedUnarchiver.Options) throws(ArchiveError) {
        self.options = options
        let document = try BPlistDocument(
            bytes: bytes, maximumObjectCount: options.maximumObjectCount,
            maximumStringLength: options.maximumStringLength, maximumDataLength: options.maximumDataLength)
        self.document = document
        (objectList, top) = try Self.readTop(document)
        self.storage = storage
        uidCount = objectList.count
        instances = InstanceColumn(count: uidCount)
        inProgress = UIDSet(count: uidCount)
        classSlots = IndexMap()
        keyIDs = IndexMap()
    }

    deinit {
        instances.release(registered: registrations)
    }

    /// Copies a borrowed buffer into storage of the core's own, for a core that is still
    /// referenced when its caller's buffer goes away (a decoder kept by the type it decoded).
    func keepBytes() {
        guard storage.base == nil else { return }
        storage.append(contentsOf: document.bytes.assumingMemoryBound(to: UInt8.self))
        document = document.moved(to: UnsafeRawBufferPointer(storage.elements()))
    }

    /// Lets go of the class instances decoded so far. A one-shot decode whose decoder was kept
    /// does this as it returns: an instance that keeps its decoder would otherwise keep itself
    /// alive through the core's instance table.
    func forgetInstances() {
        for uid in registrations { instances[uid] = nil }
        registrations.removeAll()
    }

    private static func readTop(_ document: BPlistDocument) throws(ArchiveError) -> (BPlistDocument.Object, [(String, Int)]) {
        let rootIndex = document.topObject
        let root = try document.object(at: rootIndex)
        func bad(_ reason: String, _ object: BPlistDocument.Object? = nil) -> ArchiveError {
            ArchiveError(.invalidArchive, reason: reason, byteOffset: (object ?? root).offset, objectIndex: rootIndex)
        }
        guard root.kind == .dict else { throw bad("the property list's root is not a dictionary, so it is not a keyed archive") }
        var archiver: Int?, version: Int?, topRef: Int?, objectsRef: Int?
        for i in 0..<root.count {
            let keyRef = try document.reference(root, i, index: rootIndex)
            let key = try document.object(at: keyRef)
            guard key.kind == .asciiString || key.kind == .utf16String else { continue }
            let valueRef = try document.reference(root, root.count + i, index: rootIndex)
            switch try document.string(key, index: keyRef) {
            case ArchiveFormat.archiverKey: archiver = valueRef
            case ArchiveFormat.versionKey: version = valueRef
            case ArchiveFormat.topKey: topRef = valueRef
            case ArchiveFormat.objectsKey: objectsRef = valueRef
            default: continue
            }
        }
        guard let archiver else { throw bad("the archive has no $archiver entry") }
        let archiverObject = try document.object(at: archiver)
        guard archiverObject.kind == .asciiString || archiverObject.kind == .utf16String,
            try document.string(archiverObject, index: archiver) == ArchiveFormat.archiverName
        else { throw bad("$archiver is not \"NSKeyedArchiver\"", archiverObject) }
        guard let version else { throw bad("the archive has no $version entry") }
        let versionObject = try document.object(at: version)
        guard versionObject.kind == .int, try document.integer(versionObject, index: version).int64Value == ArchiveFormat.version else {
            throw bad("$version is not the integer 100000", versionObject)
        }
        guard let topRef else { throw bad("the archive has no $top entry") }
        let topObject = try document.object(at: topRef)
        guard topObject.kind == .dict else { throw bad("$top is not a dictionary", topObject) }
        guard let objectsRef else { throw bad("the archive has no $objects entry") }
        let objectsObject = try document.object(at: objectsRef)
        guard objectsObject.kind == .array else { throw bad("$objects is not an array", objectsObject) }
        guard objectsObject.count >= 1 else { throw bad("$objects is empty; it must start with \"$null\"", objectsObject) }
        try document.checkReferences(of: objectsObject, index: objectsRef)
        var top: [(String, Int)] = []
        for i in 0..<topObject.count {
            let keyRef = try document.reference(topObject, i, index: topRef)
            let key = try document.object(at: keyRef)
            guard key.kind == .asciiString || key.kind == .utf16String else {
                throw ArchiveError(.invalidArchive, reason: "a $top key is not a string", byteOffset: key.offset, objectIndex: keyRef)
            }
            top.append((try document.string(key, index: keyRef), try document.reference(topObject, topObject.count + i, index: topRef)))
        }
        return (objectsObject, top)
    }

    // MARK: Resolving references

    /// What a reference in a container or field points at.
    enum Target {
        /// `UID(0)`: nil.
        case null
        /// An `$objects` entry: its UID and bplist object.
        case object(uid: Int, BPlistDocument.Object, index: Int)
        /// A value stored inline (a field's integer, real or boolean).
        case inline(BPlistDocument.Object, index: Int)
    }

    func target(_ reference: Int) throws(ArchiveError) -> Target {
        let value: UInt64
        if let uid = document.uidValue(at: reference) {
            value = uid
        } else {
            let object = try document.object(at: reference)
            guard object.kind == .uid else { return .inline(object, index: reference) }
            value = document.uid(object)
        }
        guard value < UInt64(uidCount) else {
            let object = try document.object(at: reference)
            throw ArchiveError(
                .invalidReference, reason: "UID \(value) is out of range: $objects has \(uidCount) entries",
                byteOffset: object.offset, objectIndex: reference)
        }
        let uid = Int(value)
        if uid == 0 { return .null }
        let index = objectIndex(ofUID: uid)
        return .object(uid: uid, try document.object(at: index), index: index)
    }

    /// The bplist object index of `$objects[uid]` (`uid` below `uidCount`).
    @inline(__always)
    func objectIndex(ofUID uid: Int) -> Int {
        document.checkedReference(objectList, uid)
    }

    // MARK: Object dictionaries

    /// An object dictionary in `$objects`: its fields and its class.
    struct ObjectDict {
        let object: BPlistDocument.Object
        let index: Int
        let uid: Int
    }

    /// The value reference of `key` (already escaped) in `dict`, or nil when absent.
    func value(in dict: ObjectDict, escapedKey key: String) throws(ArchiveError) -> Int? {
        var key = key
        let result = key.withUTF8 { utf8 in
            Result { () throws(ArchiveError) in try value(in: dict.object, index: dict.index, utf8Key: utf8) }
        }
        return try result.get()
    }

    func value(in dict: BPlistDocument.Object, index: Int, utf8Key: UnsafeBufferPointer<UInt8>) throws(ArchiveError) -> Int? {
        for i in 0..<dict.count {
            let keyRef = try document.reference(dict, i, index: index)
            if try keyMatches(keyRef, utf8Key) { return try document.reference(dict, dict.count + i, index: index) }
        }
        return nil
    }

    /// The value reference of the key numbered `keyID` (see ``ArchiveKeyIDs``), searching from
    /// `hint` (the position after the previous match), so fields read in archive order cost one
    /// integer comparison each.
    func value(in dict: ObjectDict, keyID: Int32, hint: inout Int) throws(ArchiveError) -> Int? {
        let count = dict.object.count
        var i = hint < count ? hint : 0
        for _ in 0..<count {
            if try self.keyID(ofObject: try document.reference(dict.object, i, index: dict.index)) == keyID {
                hint = i + 1
                return try document.reference(dict.object, count + i, index: dict.index)
            }
            i = i + 1 == count ? 0 : i + 1
        }
        return nil
    }

    /// The key number of the string object at `index`: looked up once per key object.
    @inline(__always)
    private func keyID(ofObject index: Int) throws(ArchiveError) -> Int32 {
        if let known = keyIDs.value(for: index) {
            if known >= 0 { return known }
            if -2 - known == ArchiveKeyIDs.count { return -1 }
        }
        return try lookUpKeyID(index)
    }

    private func lookUpKeyID(_ index: Int) throws(ArchiveError) -> Int32 {
        let key = try document.object(at: index)
        let count = ArchiveKeyIDs.count
        guard key.kind == .asciiString || key.kind == .utf16String else {
            keyIDs.set(-2 - count, for: index)
            return -1
        }
        let id = ArchiveKeyIDs.existingID(for: try document.string(key, index: index))
        keyIDs.set(id >= 0 ? id : -2 - count, for: index)
        return id
    }

    private func keyMatches(_ keyRef: Int, _ utf8Key: UnsafeBufferPointer<UInt8>) throws(ArchiveError) -> Bool {
        let key = try document.object(at: keyRef)
        switch key.kind {
        case .asciiString:
            guard key.count == utf8Key.count else { return false }
            for i in 0..<key.count where document.bytes[key.payload + i] != utf8Key[i] { return false }
            return true
        case .utf16String:
            return try document.string(key, index: keyRef).utf8.elementsEqual(utf8Key)
        default:
            return false
        }
    }

    /// Every key of an object dictionary except `$class`, unescaped, in file order.
    func keys(of dict: ObjectDict) throws(ArchiveError) -> [String] {
        var keys: [String] = []
        for i in 0..<dict.object.count {
            let keyRef = try document.reference(dict.object, i, index: dict.index)
            let key = try document.object(at: keyRef)
            guard key.kind == .asciiString || key.kind == .utf16String else { continue }
            if let user = ArchiveFormat.unescape(try document.string(key, index: keyRef)) { keys.append(user) }
        }
        return keys
    }

    /// The object dictionary an `$objects` entry holds, with its class description, or nil if the entry is not one.
    func objectDict(uid: Int, object: BPlistDocument.Object, index: Int) throws(ArchiveError) -> (ObjectDict, ClassDescription)? {
        guard object.kind == .dict else { return nil }
        // Reading an object costs in proportion to its size, however often it is referenced:
        // count that against the decoding budget so shared wide objects cannot make decoding quadratic.
        decodedCount += object.count
        if decodedCount > options.maximumDecodedObjects {
            throw ArchiveError(
                .sizeLimit,
                reason: "the archive expands to more than \(options.maximumDecodedObjects) decoded values through shared references (raise maximumDecodedObjects to read it)",
                byteOffset: object.offset, objectIndex: index)
        }
        let dict = ObjectDict(object: object, index: index, uid: uid)
        var hint = 0
        guard let classRef = try value(in: dict, keyID: ArchiveKeyIDs.classKey, hint: &hint) else { return nil }
        let classObject = try document.object(at: classRef)
        guard classObject.kind == .uid else {
            throw ArchiveError(
                .invalidArchive, reason: "$class of object UID \(uid) is not a UID", byteOffset: classObject.offset, objectIndex: classRef)
        }
        return (dict, try classDescription(classRef))
    }

    private func classDescription(_ classRef: Int) throws(ArchiveError) -> ClassDescription {
        guard case .object(let uid, let object, let index) = try target(classRef) else {
            throw ArchiveError(.invalidArchive, reason: "$class points at $null", byteOffset: document.offset(of: classRef), objectIndex: classRef)
        }
        if let slot = classSlots.value(for: uid) { return classDescriptions[Int(slot)] }
        func bad(_ reason: String) -> ArchiveError {
            ArchiveError(.invalidArchive, reason: reason, byteOffset: object.offset, objectIndex: index)
        }
        guard object.kind == .dict else { throw bad("$class UID \(uid) does not point at a class description dictionary") }
        let dict = ObjectDict(object: object, index: index, uid: uid)
        guard let nameRef = try value(in: dict, escapedKey: ArchiveFormat.classNameKey) else {
            throw bad("the class description UID \(uid) has no $classname")
        }
        let nameObject = try document.object(at: nameRef)
        guard nameObject.kind == .asciiString || nameObject.kind == .utf16String else {
            throw bad("$classname of class description UID \(uid) is not a string")
        }
        // `$classes` (the chain) then `$classhints` (fallbacks Apple's writers add): names to try
        // when the class itself is not known here.
        var classes: [String] = []
        for listKey in [ArchiveFormat.classesKey, ArchiveFormat.classHintsKey] {
            guard let listRef = try value(in: dict, escapedKey: listKey) else { continue }
            let list = try document.object(at: listRef)
            guard list.kind == .array else { continue }
            for i in 0..<min(list.count, 64) {
                let ref = try document.reference(list, i, index: listRef)
                let element = try document.object(at: ref)
                if element.kind == .asciiString || element.kind == .utf16String {
                    classes.append(try document.string(element, index: ref))
                }
            }
        }
        let description = ClassDescription(name: try document.string(nameObject, index: nameRef), classes: classes)
        classSlots.set(Int32(classDescriptions.count), for: uid)
        classDescriptions.append(description)
        return description
    }

    // MARK: Class resolution

    /// The type an archived class name selects: a `setClass` mapping, else a registered type with that name.
    func mappedType(forClassName name: String) -> Any.Type? {
        if let mapped = classMap[name] { return mapped }
        if registeredByName == nil {
            var index: [String: Any.Type] = [:]
            for type in registered {
                for legacy in coders.coder(for: type).legacyClassNames where index[legacy] == nil { index[legacy] = type }
                index[archiveClassName(of: type)] = type
            }
            registeredByName = index
        }
        return registeredByName?[name]
    }

    func archiveClassName(of type: Any.Type) -> String {
        coders.coder(for: type).className ?? defaultClassName(of: type)
    }

    func register(_ instance: AnyObject, uid: Int) {
        instances[uid] = instance
        registrations.append(uid)
    }

    /// Runs a top-level decode; if it fails, instances it registered are let go of (see
    /// ``abandonInstances(from:)``), so a later decode never returns an instance whose fields
    /// were only partly decoded, and none outlives the error.
    func topLevel<R>(_ body: () throws -> R) throws -> R {
        let mark = registrations.count
        depth = 0
        decodedCount = 0
        inProgress.removeAll()
        stack = StackGuard()
        do {
            return try body()
        } catch {
            abandonInstances(from: mark)
            throw error
        }
    }

    // MARK: Limits

    func enter(_ reference: Int) throws(ArchiveError) {
        depth += 1
        decodedCount += 1
        if depth > options.maximumDepth {
            throw ArchiveError(
                .depthLimit, reason: "objects are nested more than \(options.maximumDepth) deep (raise maximumDepth to read it)",
                byteOffset: document.offset(of: reference), objectIndex: reference)
        }
        if decodedCount > options.maximumDecodedObjects {
            throw ArchiveError(
                .sizeLimit,
                reason: "the archive expands to more than \(options.maximumDecodedObjects) decoded values through shared references (raise maximumDecodedObjects to read it)",
                byteOffset: document.offset(of: reference), objectIndex: reference)
        }
        if !stack.hasRoom() {
            throw ArchiveError(
                .depthLimit, reason: StackGuard.reason(depth: depth), byteOffset: document.offset(of: reference), objectIndex: reference)
        }
    }

    func leave() { depth -= 1 }

    // MARK: Scalars

    func string(_ object: BPlistDocument.Object, index: Int) throws(ArchiveError) -> String {
        try document.string(object, index: index)
    }

    func mismatch(_ expected: String, _ reference: Int) -> ArchiveError {
        let found: String
        if let object = try? document.object(at: reference) {
            found = Self.describe(object)
            if object.kind == .uid, case .object(_, let target, let targetIndex)? = try? self.target(reference) {
                return ArchiveError(
                    .typeMismatch, reason: "expected \(expected), found \(Self.describe(target))",
                    byteOffset: target.offset, objectIndex: targetIndex)
            }
            return ArchiveError(.typeMismatch, reason: "expected \(expected), found \(found)", byteOffset: object.offset, objectIndex: reference)
        }
        return ArchiveError(.typeMismatch, reason: "expected \(expected)", objectIndex: reference)
    }

    static func describe(_ object: BPlistDocument.Object) -> String {
        switch object.kind {
        case .null: "null"
        case .bool: "a boolean"
        case .int: "an integer"
        case .real: "a real"
        case .date: "a date"
        case .data: "data"
        case .asciiString, .utf16String: "a string"
        case .uid: "a reference"
        case .array: "an array"
        case .set: "a set"
        case .dict: "an object"
        }
    }
}

extension UnarchiverCore {
    /// Lets go of the class instances registered from `registrations[mark]` on, whose top-level
    /// decode failed: none of them is handed out, and none outlives the error.
    ///
    /// Taking them out of `instances` is not enough. A reflection-coded class registers its
    /// instance before decoding its fields (so that cycles resolve), and the instances can hold
    /// each other in strong cycles that nothing else references once the error is thrown. Every
    /// such cycle runs through a field that reflection filled: an instance of a `KeyedCoding` or
    /// `Codable` class exists only once its initialiser has returned, so it can only hold
    /// instances that existed before it, and only a reflection-coded instance can be referenced
    /// while it is still being decoded. Those fields are reset to the values `init()` gives them
    /// (one extra `init()` per class, on this path only), which breaks every cycle; the instances
    /// are then released with the table. Instances decoded by earlier top-level decodes are
    /// never touched.
    func abandonInstances(from mark: Int) {
        // Grouped by class, in registration order, so that each coder makes one fresh instance.
        var groups: [(type: AnyObject.Type, instances: [AnyObject])] = []
        var groupIndex: [ObjectIdentifier: Int] = [:]
        for uid in registrations[mark...] {
            guard let instance = instances[uid] else { continue }
            let type: AnyObject.Type = Swift.type(of: instance)
            if let index = groupIndex[ObjectIdentifier(type)] {
                groups[index].instances.append(instance)
            } else {
                groupIndex[ObjectIdentifier(type)] = groups.count
                groups.append((type, [instance]))
            }
        }
        for group in groups { coders.coder(for: group.type).resetDecodedFields(of: group.instances) }
        groups.removeAll()
        for uid in registrations[mark...] { instances[uid] = nil }
        registrations.removeSubrange(mark...)
    }
}
