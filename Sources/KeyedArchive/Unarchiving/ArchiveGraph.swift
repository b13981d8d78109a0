// Unsafe code in this file: bytes are read only within the payload ranges the document validated.

import Foundation
@_spi(Reader) import PropertyList

/// The archive graph as decoding reads it: the reading side of the seam between the byte
/// format and the keyed-archive layout.
///
/// Everything the unarchiver and the coders learn from an archive goes through this view:
/// the `$top` entries, what a reference stands for (``Target``: nil, an `$objects` entry by
/// UID, or a value stored inline), an object's fields by key, its class description, list
/// elements, and scalars. A validated `bplist00` document (``BPlistDocument``, read in place)
/// is its one implementation; no other file of this module reads the document. A reference is
/// an object index of that document; objects are its ``BPlistDocument/Object`` handles, of which
/// coders use `kind`, `count` and `offset` (for error messages) only.
///
/// Reading is bounded as the document is: every index is checked before it is followed. A class,
/// so that the core and the coders reach it through one reference (a large non-copyable value
/// held by the core was moved in and out of a temporary on every call).
final class ArchiveGraph {
    typealias Object = BPlistDocument.Object

    @exclusivity(unchecked) private var document: BPlistDocument
    /// `$objects`: an array whose references, read in place, give the object index of each UID.
    private let objectList: Object
    /// The number of `$objects` entries: UIDs run from 0 to `uidCount - 1`.
    var uidCount: Int { objectList.count }
    /// `$top` key → value reference (normally a UID).
    let top: [(key: String, reference: Int)]
    /// Object index of a key string → its ``ArchiveKeyIDs`` number (≥ 0), or `-2 - n` when it
    /// had none while `n` numbers existed. Keys not looked up yet are absent.
    @exclusivity(unchecked) private var keyIDs: IndexMap

    /// Opens the keyed archive in `bytes` (which must outlive the graph, see ``moved(to:)``).
    init(bytes: UnsafeRawBufferPointer, options: KeyedUnarchiver.Options) throws(ArchiveError) {
        let document = try BPlistDocument(
            bytes: bytes, maximumObjectCount: options.maximumObjectCount,
            maximumStringLength: options.maximumStringLength, maximumDataLength: options.maximumDataLength)
        let (objectList, top) = try Self.readTop(document)
        self.document = document
        self.objectList = objectList
        self.top = top
        keyIDs = IndexMap()
    }

    /// The bytes the graph reads.
    var bytes: UnsafeRawBufferPointer { document.bytes }

    /// Reads from `bytes` from now on: a copy of the bytes it read until now.
    func moved(to bytes: UnsafeRawBufferPointer) {
        document = document.moved(to: bytes)
    }

    private static func readTop(_ document: BPlistDocument) throws(ArchiveError) -> (Object, [(String, Int)]) {
        let rootIndex = document.topObject
        let root = try document.object(at: rootIndex)
        func bad(_ reason: String, _ object: Object? = nil) -> ArchiveError {
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

    // MARK: References

    /// What a reference in a container or field points at.
    enum Target {
        /// `UID(0)`: nil.
        case null
        /// An `$objects` entry: its UID and object.
        case object(uid: Int, Object, index: Int)
        /// A value stored inline (a field's integer, real or boolean).
        case inline(Object, index: Int)
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
        let index = document.checkedReference(objectList, uid)
        return .object(uid: uid, try document.object(at: index), index: index)
    }

    /// What the `$objects` entry `uid` is (nil for 0): for walks over every object.
    func target(uid: Int) throws(ArchiveError) -> Target {
        guard uid > 0, uid < uidCount else { return .null }
        let index = document.checkedReference(objectList, uid)
        return .object(uid: uid, try document.object(at: index), index: index)
    }

    /// The object a reference names itself (a UID object for a reference to `$objects`).
    func object(at reference: Int) throws(ArchiveError) -> Object {
        try document.object(at: reference)
    }

    /// The byte offset of the object a reference names, for error messages.
    func offset(of reference: Int) -> Int? {
        document.offset(of: reference)
    }

    /// Whether the reference names a UID (an `$objects` entry or nil) rather than an inline value.
    func isUID(_ reference: Int) throws(ArchiveError) -> Bool {
        // A well-formed UID is recognised from its marker; anything else is decoded to say what it is.
        if document.uidValue(at: reference) != nil { return true }
        return try document.object(at: reference).kind == .uid
    }

    // MARK: Fields

    /// An object dictionary in `$objects`: its fields and its class.
    struct ObjectDict {
        let object: Object
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

    private func value(in dict: Object, index: Int, utf8Key: UnsafeBufferPointer<UInt8>) throws(ArchiveError) -> Int? {
        for i in 0..<dict.count {
            let keyRef = try document.reference(dict, i, index: index)
            if try keyMatches(keyRef, utf8Key) { return try document.reference(dict, dict.count + i, index: index) }
        }
        return nil
    }

    /// The value reference of the key numbered `keyID` (see ``ArchiveKeyIDs``), searching from
    /// `hint` (the position after the previous match), so fields read in archive order cost one
    /// integer comparison each.
    @inline(__always)
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
        try fields(of: dict).map(\.key)
    }

    /// Every field of an object dictionary except `$class`: its key unescaped and its value
    /// reference, in file order.
    func fields(of dict: ObjectDict) throws(ArchiveError) -> [(key: String, reference: Int)] {
        var fields: [(key: String, reference: Int)] = []
        fields.reserveCapacity(dict.object.count)
        for i in 0..<dict.object.count {
            let keyRef = try document.reference(dict.object, i, index: dict.index)
            let key = try document.object(at: keyRef)
            guard key.kind == .asciiString || key.kind == .utf16String else { continue }
            if let user = ArchiveFormat.unescape(try document.string(key, index: keyRef)) {
                fields.append((user, try document.reference(dict.object, dict.object.count + i, index: dict.index)))
            }
        }
        return fields
    }

    /// The values of the fields `<prefix><n>` (an ordered set's `NS.object.<n>`), for n = 0, 1, …
    /// up to the first one missing, in one pass over the keys.
    func numberedFields(of dict: ObjectDict, prefix: String) throws(ArchiveError) -> [Int] {
        var slots = [Int](repeating: -1, count: dict.object.count)
        let prefix = Array(prefix.utf8)
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

    // MARK: Class descriptions

    /// The name and the chain (`$classes`, then `$classhints`: names to try when the class
    /// itself is not known here) of the class description `$objects[uid]`.
    func classDescription(uid: Int, _ object: Object, index: Int) throws(ArchiveError) -> (name: String, classes: [String], version: Int) {
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
        var version = 0
        if let versionRef = try value(in: dict, escapedKey: ArchiveFormat.classVersionKey) {
            let versionObject = try document.object(at: versionRef)
            let bits = versionObject.kind == .int ? try document.integerBits(versionObject, index: versionRef) : nil
            guard let bits, !bits.aboveInt64, Int64(bitPattern: bits.bits) >= 0, Int64(bitPattern: bits.bits) <= Int64(Int32.max) else {
                let found = bits.map { $0.aboveInt64 ? "\($0.bits)" : "\(Int64(bitPattern: $0.bits))" } ?? Self.describe(versionObject)
                throw ArchiveError(
                    .invalidArchive,
                    reason: "$classversion of class description UID \(uid) is \(found), not a version (an integer from 0 to \(Int32.max))",
                    byteOffset: versionObject.offset, objectIndex: versionRef)
            }
            version = Int(bits.bits)
        }
        return (try document.string(nameObject, index: nameRef), classes, version)
    }

    // MARK: Lists

    /// A list (`NS.objects`, `NS.keys`) whose elements were all checked to be references (UIDs).
    struct ReferenceList {
        fileprivate let list: Object
        fileprivate let index: Int
        var count: Int { list.count }
    }

    /// The list at `reference`, its elements checked to be UIDs (read them with ``element(_:of:)``).
    /// `key` names the field in errors.
    func referenceList(at reference: Int, key: String) throws(ArchiveError) -> ReferenceList {
        let list = try document.object(at: reference)
        guard list.kind == .array else {
            throw ArchiveError(
                .invalidArchive, reason: "\(key) is \(Self.describe(list)), not an array of references",
                byteOffset: list.offset, objectIndex: reference, keyPath: key)
        }
        for i in 0..<list.count {
            let element = try document.reference(list, i, index: reference)
            guard try isUID(element) else {
                throw ArchiveError(
                    .invalidArchive, reason: "element \(i) of \(key) is not a reference (UID)",
                    byteOffset: document.offset(of: element), objectIndex: element, keyPath: key)
            }
        }
        return ReferenceList(list: list, index: reference)
    }

    /// The reference at position `i` of a checked list.
    @inline(__always)
    func element(_ i: Int, of list: ReferenceList) throws(ArchiveError) -> Int {
        try document.reference(list.list, i, index: list.index)
    }

    // MARK: Scalars

    /// The 64 bits of an integer object, and whether it is an unsigned value above `Int64.max`.
    @inline(__always)
    func integerBits(_ object: Object, index: Int) throws(ArchiveError) -> (bits: UInt64, aboveInt64: Bool) {
        try document.integerBits(object, index: index)
    }

    /// An integer object as a plain value (`.int` or, above `Int64.max`, `.uint`).
    func integer(_ object: Object, index: Int) throws(ArchiveError) -> PlistValue {
        try document.integer(object, index: index)
    }

    /// A real object (4 or 8 bytes) as a `Double`.
    @inline(__always)
    func double(_ object: Object) -> Double {
        if case .float(let f) = document.real(object) { return Double(f) }
        return document.double(object)
    }

    /// A 4-byte real object as the `Float` it was archived from; nil for an 8-byte real.
    func singlePrecision(_ object: Object) -> Float? {
        if case .float(let f) = document.real(object) { return f }
        return nil
    }

    /// A date object's seconds since 2001-01-01.
    func date(_ object: Object) -> Double {
        document.double(object)
    }

    @inline(__always)
    func boolean(_ object: Object) -> Bool {
        object.marker == BPlistFormat.trueMarker
    }

    func string(_ object: Object, index: Int) throws(ArchiveError) -> String {
        try document.string(object, index: index)
    }

    func data(_ object: Object) -> Data {
        Data(UnsafeRawBufferPointer(rebasing: document.bytes[object.payload..<(object.payload + object.count)]))
    }

    /// What an object is, for error messages ("expected …, found an integer").
    static func describe(_ object: Object) -> String {
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
