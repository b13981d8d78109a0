// Unsafe code in this file: the graph reads its own copy of the archive, or a buffer borrowed for one call (a graph
// still referenced when the call returns copies the bytes first, `keepBytes()`); bytes are read only within the
// payload ranges the document validated, and an XML archive's text only to place an error, within its count.

import Foundation
@_spi(Reader) import PropertyList

/// The archive graph as decoding reads it: the reading side of the seam between the byte
/// format and the keyed-archive layout.
///
/// Everything the unarchiver and the coders learn from an archive goes through this view:
/// the `$top` entries, what a reference stands for (``Target``: nil, an `$objects` entry by
/// UID, or a value stored inline), an object's fields by key, its class description, list
/// elements, and scalars. It reads either of the two tables of objects (``PlistObjectTable``) a
/// property list can be read into: a validated `bplist00` document (``BPlistDocument``, read in
/// place) or an XML property list read into a table of the same shape (``XMLPlistDocument``), so
/// an XML archive is decoded as it is, not converted. No other file of this module reads either.
/// A reference is an object index of the table; objects are its ``BPlistDocument/Object``
/// handles, of which coders use `kind`, `count` and `offset` (for error messages) only. In an
/// XML archive an object's offset is where its element starts in the text: ``placed(_:)`` turns
/// it into the line and column errors carry.
///
/// Reading is bounded as the document is: every index is checked before it is followed. A class,
/// so that the core and the coders reach it through one reference (a large non-copyable value
/// held by the core was moved in and out of a temporary on every call).
final class ArchiveGraph {
    typealias Object = BPlistDocument.Object

    /// A binary archive, read in place (a stand-in of no objects for an XML archive).
    @exclusivity(unchecked) private var document: BPlistDocument
    /// An XML archive's table; nil for a binary archive. Every read of an object goes to this
    /// table when there is one, else to `document`.
    private let xml: XMLPlistDocument?
    /// An XML archive's text (empty for a binary archive), to place its errors.
    private var text: UnsafeRawBufferPointer
    /// `$objects`: an array whose references, read in place, give the object index of each UID.
    private let objectList: Object
    /// The number of `$objects` entries: UIDs run from 0 to `uidCount - 1`.
    var uidCount: Int { objectList.count }
    /// `$top` key → value reference (normally a UID).
    let top: [(key: String, reference: Int)]
    /// Object index of a key string → its ``ArchiveKeyIDs`` number (≥ 0), or `-2 - n` when it
    /// had none while `n` numbers existed. Keys not looked up yet are absent.
    @exclusivity(unchecked) private var keyIDs: IndexMap

    /// The archive's bytes when the graph holds its own copy; empty while it reads its caller's
    /// buffer (see ``borrowing(_:options:_:)`` and ``keepBytes()``).
    @exclusivity(unchecked) private var storage: RawBuffer<UInt8>
    /// The format of the archive: binary, or XML.
    let format: PlistFormat

    /// Opens a copy of `bytes`: the graph can outlive them.
    convenience init(copying bytes: some Collection<UInt8>, options: KeyedUnarchiver.Options) throws(ArchiveError) {
        try Self.checkSize(bytes.count, options)
        var storage = RawBuffer<UInt8>()
        storage.reserve(bytes.count)
        if bytes.withContiguousStorageIfAvailable({ storage.append(contentsOf: $0) }) == nil {
            for byte in bytes { storage.append(byte) }
        }
        let copy = UnsafeRawBufferPointer(storage.elements())
        try self.init(bytes: copy, storage: storage, options: options)
    }

    /// Runs `body` with a graph that reads `data` where it lies. A graph still referenced when
    /// `body` returns must have been given its own copy by then (``keepBytes()``).
    static func borrowing<T>(_ data: Data, options: KeyedUnarchiver.Options, _ body: (ArchiveGraph) throws -> T) throws -> T {
        try checkSize(data.count, options)
        return try data.withUnsafeBytes { buffer throws -> T in
            try body(try ArchiveGraph(bytes: buffer, storage: RawBuffer(), options: options))
        }
    }

    private static func checkSize(_ count: Int, _ options: KeyedUnarchiver.Options) throws(ArchiveError) {
        guard count <= options.maximumArchiveSize else {
            throw ArchiveError(
                .sizeLimit,
                reason: "the archive is \(count) bytes, more than the maximum of \(options.maximumArchiveSize) (raise maximumArchiveSize to read it)")
        }
    }

    /// Opens the keyed archive in `bytes`: XML if it starts as XML does, else binary.
    private init(bytes: UnsafeRawBufferPointer, storage: consuming RawBuffer<UInt8>, options: KeyedUnarchiver.Options) throws(ArchiveError) {
        format = PlistFormat.detect(bytes) == .xml ? .xml : .binary
        self.storage = storage
        if format == .xml {
            let xml = try XMLPlistDocument(reading: bytes, limits: options.readingLimits)
            do {
                (objectList, top) = try Self.readTop(xml)
            } catch {
                throw Self.placed(error, inText: bytes)
            }
            self.xml = xml
            text = bytes
            document = BPlistDocument()
        } else {
            let document = try BPlistDocument(
                bytes: bytes, maximumObjectCount: options.maximumObjectCount,
                maximumStringLength: options.maximumStringLength, maximumDataLength: options.maximumDataLength)
            (objectList, top) = try Self.readTop(document)
            self.document = document
            xml = nil
            text = UnsafeRawBufferPointer(start: nil, count: 0)
        }
        keyIDs = IndexMap()
    }

    /// The bytes the graph reads: the binary file, or the XML text.
    private var bytes: UnsafeRawBufferPointer { xml == nil ? document.bytes : text }

    /// Copies a borrowed buffer into storage of the graph's own, for a graph that is still
    /// referenced when its caller's buffer goes away (a decoder kept by the type it decoded).
    func keepBytes() {
        guard storage.base == nil else { return }
        storage.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
        moved(to: UnsafeRawBufferPointer(storage.elements()))
    }

    /// Reads from `bytes` from now on: a copy of the bytes it read until now.
    private func moved(to bytes: UnsafeRawBufferPointer) {
        if xml == nil {
            document = document.moved(to: bytes)
        } else {
            precondition(bytes.count == text.count, "a graph moves only to a copy of its bytes")
            text = bytes
        }
    }

    /// `error` with its place in the archive as a reader of the archive sees it: for an XML
    /// archive, the line and column of the byte offset in the text (the object index, a number
    /// of the table, is left out); a binary archive's errors are already placed.
    func placed(_ error: ArchiveError) -> ArchiveError {
        xml == nil ? error : Self.placed(error, inText: text)
    }

    private static func placed(_ error: ArchiveError, inText text: UnsafeRawBufferPointer) -> ArchiveError {
        guard error.line == nil, let offset = error.byteOffset else {
            return error.objectIndex == nil ? error : ArchiveError(error.code, reason: error.reason, keyPath: error.keyPath)
        }
        let (line, column) = ReadingLimits.lineAndColumn(of: offset, inText: text)
        return ArchiveError(error.code, reason: error.reason, line: line, column: column, byteOffset: offset, keyPath: error.keyPath)
    }

    // MARK: The table

    // Every read of an object goes through these, which pick the table the archive was read into.

    @inline(__always)
    private func tableObject(_ index: Int) throws(ArchiveError) -> Object {
        if let xml { return try xml.object(at: index) }
        return try document.object(at: index)
    }

    @inline(__always)
    private func tableReference(_ container: Object, _ i: Int, index: Int) throws(ArchiveError) -> Int {
        if let xml { return try xml.reference(container, i, index: index) }
        return try document.reference(container, i, index: index)
    }

    @inline(__always)
    private func tableCheckedReference(_ container: Object, _ i: Int) -> Int {
        if let xml { return xml.checkedReference(container, i) }
        return document.checkedReference(container, i)
    }

    @inline(__always)
    private func tableUIDValue(at index: Int) -> UInt64? {
        if let xml { return xml.uidValue(at: index) }
        return document.uidValue(at: index)
    }

    @inline(__always)
    private func tableString(_ object: Object, index: Int) throws(ArchiveError) -> String {
        if let xml { return try xml.string(object, index: index) }
        return try document.string(object, index: index)
    }

    @inline(__always)
    private func tableOffset(of index: Int) -> Int {
        if let xml { return xml.offset(of: index) }
        return document.offset(of: index)
    }

    @inline(__always)
    private func tableIntegerBits(_ object: Object, index: Int) throws(ArchiveError) -> (bits: UInt64, aboveInt64: Bool) {
        if let xml { return try xml.integerBits(object, index: index) }
        return try document.integerBits(object, index: index)
    }

    @inline(__always)
    private func tableReal(_ object: Object) -> PlistValue {
        if let xml { return xml.real(object) }
        return document.real(object)
    }

    @inline(__always)
    private func tableDouble(_ object: Object) -> Double {
        if let xml { return xml.double(object) }
        return document.double(object)
    }

    private static func readTop(_ document: some PlistObjectTable) throws(ArchiveError) -> (Object, [(String, Int)]) {
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
        if let xml { return try target(reference, in: xml) }
        return try target(reference, in: document)
    }

    // The hot reads are written for each table's concrete type, so a binary archive's reads are
    // compiled as direct calls into its document; `some PlistObjectTable` would go through the
    // protocol's witness table across the module boundary.

    @inline(__always)
    private func target(_ reference: Int, in table: BPlistDocument) throws(ArchiveError) -> Target {
        let value: UInt64
        if let uid = table.uidValue(at: reference) {
            value = uid
        } else {
            let object = try table.object(at: reference)
            guard object.kind == .uid else { return .inline(object, index: reference) }
            value = table.uid(object)
        }
        guard value < UInt64(uidCount) else { throw uidOutOfRange(value, reference: reference) }
        let uid = Int(value)
        if uid == 0 { return .null }
        let index = table.checkedReference(objectList, uid)
        return .object(uid: uid, try table.object(at: index), index: index)
    }

    private func target(_ reference: Int, in table: XMLPlistDocument) throws(ArchiveError) -> Target {
        let object = try table.object(at: reference)
        guard object.kind == .uid else { return .inline(object, index: reference) }
        let value = table.uid(object)
        guard value < UInt64(uidCount) else { throw uidOutOfRange(value, reference: reference) }
        let uid = Int(value)
        if uid == 0 { return .null }
        let index = table.checkedReference(objectList, uid)
        return .object(uid: uid, try table.object(at: index), index: index)
    }

    private func uidOutOfRange(_ value: UInt64, reference: Int) -> ArchiveError {
        ArchiveError(
            .invalidReference, reason: "UID \(value) is out of range: $objects has \(uidCount) entries",
            byteOffset: tableOffset(of: reference), objectIndex: reference)
    }

    /// What the `$objects` entry `uid` is (nil for 0): for walks over every object.
    func target(uid: Int) throws(ArchiveError) -> Target {
        guard uid > 0, uid < uidCount else { return .null }
        let index = tableCheckedReference(objectList, uid)
        return .object(uid: uid, try tableObject(index), index: index)
    }

    /// The object a reference names itself (a UID object for a reference to `$objects`).
    func object(at reference: Int) throws(ArchiveError) -> Object {
        try tableObject(reference)
    }

    /// The byte offset of the object a reference names, for error messages.
    func offset(of reference: Int) -> Int? {
        tableOffset(of: reference)
    }

    /// Whether the reference names a UID (an `$objects` entry or nil) rather than an inline value.
    func isUID(_ reference: Int) throws(ArchiveError) -> Bool {
        // A well-formed UID is recognised from its marker; anything else is decoded to say what it is.
        if tableUIDValue(at: reference) != nil { return true }
        return try tableObject(reference).kind == .uid
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
            let keyRef = try tableReference(dict, i, index: index)
            if try keyMatches(keyRef, utf8Key) { return try tableReference(dict, dict.count + i, index: index) }
        }
        return nil
    }

    /// The value reference of the key numbered `keyID` (see ``ArchiveKeyIDs``), searching from
    /// `hint` (the position after the previous match), so fields read in archive order cost one
    /// integer comparison each.
    @inline(__always)
    func value(in dict: ObjectDict, keyID: Int32, hint: inout Int) throws(ArchiveError) -> Int? {
        if let xml {
            return try value(in: dict, keyID: keyID, hint: &hint) { i throws(ArchiveError) in try xml.reference(dict.object, i, index: dict.index) }
        }
        return try value(in: dict, keyID: keyID, hint: &hint) { i throws(ArchiveError) in
            try document.reference(dict.object, i, index: dict.index)
        }
    }

    @inline(__always)
    private func value(
        in dict: ObjectDict, keyID: Int32, hint: inout Int, reference: (Int) throws(ArchiveError) -> Int
    ) throws(ArchiveError) -> Int? {
        let count = dict.object.count
        var i = hint < count ? hint : 0
        for _ in 0..<count {
            if try self.keyID(ofObject: try reference(i)) == keyID {
                hint = i + 1
                return try reference(count + i)
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
        let key = try tableObject(index)
        let count = ArchiveKeyIDs.count
        guard key.kind == .asciiString || key.kind == .utf16String else {
            keyIDs.set(-2 - count, for: index)
            return -1
        }
        let id = ArchiveKeyIDs.existingID(for: try tableString(key, index: index))
        keyIDs.set(id >= 0 ? id : -2 - count, for: index)
        return id
    }

    private func keyMatches(_ keyRef: Int, _ utf8Key: UnsafeBufferPointer<UInt8>) throws(ArchiveError) -> Bool {
        let key = try tableObject(keyRef)
        switch key.kind {
        case .asciiString:
            // Only a binary document has ASCII string objects: an XML table's strings are Swift strings.
            guard key.count == utf8Key.count else { return false }
            for i in 0..<key.count where document.bytes[key.payload + i] != utf8Key[i] { return false }
            return true
        case .utf16String:
            return try tableString(key, index: keyRef).utf8.elementsEqual(utf8Key)
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
            let keyRef = try tableReference(dict.object, i, index: dict.index)
            let key = try tableObject(keyRef)
            guard key.kind == .asciiString || key.kind == .utf16String else { continue }
            if let user = ArchiveFormat.unescape(try tableString(key, index: keyRef)) {
                fields.append((user, try tableReference(dict.object, dict.object.count + i, index: dict.index)))
            }
        }
        return fields
    }

    /// The values of the fields `<prefix><n>` (an ordered set's `NS.object.<n>`), for n = 0, 1, …
    /// up to the first one missing, in one pass over the keys.
    func numberedFields(of dict: ObjectDict, prefix: String) throws(ArchiveError) -> [Int] {
        var slots = [Int](repeating: -1, count: dict.object.count)
        let prefixBytes = Array(prefix.utf8)
        for i in 0..<dict.object.count {
            let keyRef = try tableReference(dict.object, i, index: dict.index)
            let key = try tableObject(keyRef)
            let number: Int?
            switch key.kind {
            case .asciiString:
                // A binary document's ASCII key, read where it lies.
                guard key.count > prefixBytes.count, key.count <= prefixBytes.count + 18 else { continue }
                let bytes = UnsafeRawBufferPointer(rebasing: document.bytes[key.payload..<(key.payload + key.count)])
                guard bytes.prefix(prefixBytes.count).elementsEqual(prefixBytes) else { continue }
                number = Int(String(decoding: bytes.dropFirst(prefixBytes.count), as: UTF8.self))
            case .utf16String:
                let text = try tableString(key, index: keyRef)
                guard text.utf8.count <= prefixBytes.count + 18, text.hasPrefix(prefix) else { continue }
                number = Int(text.dropFirst(prefix.count))
            default:
                continue
            }
            guard let n = number, n >= 0, n < slots.count, slots[n] < 0 else { continue }
            slots[n] = try tableReference(dict.object, dict.object.count + i, index: dict.index)
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
        let nameObject = try tableObject(nameRef)
        guard nameObject.kind == .asciiString || nameObject.kind == .utf16String else {
            throw bad("$classname of class description UID \(uid) is not a string")
        }
        var classes: [String] = []
        for listKey in [ArchiveFormat.classesKey, ArchiveFormat.classHintsKey] {
            guard let listRef = try value(in: dict, escapedKey: listKey) else { continue }
            let list = try tableObject(listRef)
            guard list.kind == .array else { continue }
            for i in 0..<min(list.count, 64) {
                let ref = try tableReference(list, i, index: listRef)
                let element = try tableObject(ref)
                if element.kind == .asciiString || element.kind == .utf16String {
                    classes.append(try tableString(element, index: ref))
                }
            }
        }
        var version = 0
        if let versionRef = try value(in: dict, escapedKey: ArchiveFormat.classVersionKey) {
            let versionObject = try tableObject(versionRef)
            let bits = versionObject.kind == .int ? try tableIntegerBits(versionObject, index: versionRef) : nil
            guard let bits, !bits.aboveInt64, Int64(bitPattern: bits.bits) >= 0, Int64(bitPattern: bits.bits) <= Int64(Int32.max) else {
                let found = bits.map { $0.aboveInt64 ? "\($0.bits)" : "\(Int64(bitPattern: $0.bits))" } ?? Self.describe(versionObject)
                throw ArchiveError(
                    .invalidArchive,
                    reason: "$classversion of class description UID \(uid) is \(found), not a version (an integer from 0 to \(Int32.max))",
                    byteOffset: versionObject.offset, objectIndex: versionRef)
            }
            version = Int(bits.bits)
        }
        return (try tableString(nameObject, index: nameRef), classes, version)
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
        let list = try tableObject(reference)
        guard list.kind == .array else {
            throw ArchiveError(
                .invalidArchive, reason: "\(key) is \(Self.describe(list)), not an array of references",
                byteOffset: list.offset, objectIndex: reference, keyPath: key)
        }
        for i in 0..<list.count {
            let element = try tableReference(list, i, index: reference)
            guard try isUID(element) else {
                throw ArchiveError(
                    .invalidArchive, reason: "element \(i) of \(key) is not a reference (UID)",
                    byteOffset: tableOffset(of: element), objectIndex: element, keyPath: key)
            }
        }
        return ReferenceList(list: list, index: reference)
    }

    /// The reference at position `i` of a checked list.
    @inline(__always)
    func element(_ i: Int, of list: ReferenceList) throws(ArchiveError) -> Int {
        try tableReference(list.list, i, index: list.index)
    }

    // MARK: Scalars

    /// The 64 bits of an integer object, and whether it is an unsigned value above `Int64.max`.
    @inline(__always)
    func integerBits(_ object: Object, index: Int) throws(ArchiveError) -> (bits: UInt64, aboveInt64: Bool) {
        try tableIntegerBits(object, index: index)
    }

    /// An integer object as a plain value (`.int` or, above `Int64.max`, `.uint`).
    func integer(_ object: Object, index: Int) throws(ArchiveError) -> PlistValue {
        let (bits, aboveInt64) = try tableIntegerBits(object, index: index)
        return aboveInt64 ? .uint(bits) : .int(Int64(bitPattern: bits))
    }

    /// A real object (4 or 8 bytes) as a `Double`.
    @inline(__always)
    func double(_ object: Object) -> Double {
        if let xml { return xml.double(object) }
        if case .float(let f) = document.real(object) { return Double(f) }
        return document.double(object)
    }

    /// A 4-byte real object as the `Float` it was archived from; nil for an 8-byte real.
    func singlePrecision(_ object: Object) -> Float? {
        if case .float(let f) = tableReal(object) { return f }
        return nil
    }

    /// A date object's seconds since 2001-01-01.
    func date(_ object: Object) -> Double {
        tableDouble(object)
    }

    @inline(__always)
    func boolean(_ object: Object) -> Bool {
        object.marker == BPlistFormat.trueMarker
    }

    func string(_ object: Object, index: Int) throws(ArchiveError) -> String {
        try tableString(object, index: index)
    }

    func data(_ object: Object) -> Data {
        if let xml { return Data(xml.data(object)) }
        return Data(UnsafeRawBufferPointer(rebasing: document.bytes[object.payload..<(object.payload + object.count)]))
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
