import Foundation
@_spi(Reader) import PropertyList
import Synchronization

/// The state of one archive being written: the bplist object table it streams into,
/// `$objects` (``ArchiveObjects``: UID → table index), instance identities, and class descriptions.
///
/// Values are encoded straight into the table: a coded object reserves its `$objects`
/// slot (its UID) before its fields, so shared instances and cycles resolve to one UID.
///
/// A core is used by one thread and never re-enters an update of the same property, so its
/// state opts out of the runtime's dynamic exclusivity checks (`@exclusivity(unchecked)`, here,
/// in `UnarchiverCore`, `ArchiveGraph` and `BPlistTable`). Measured with the checks on
/// (`valgrind --tool=callgrind --toggle-collect='*runMarked*' KeyedArchiveBenchmarks keyed-1k
/// --only ours-encode`, and `ours-decode`): 3.1× the instructions to encode 1,000 users (51.4 M
/// against 16.7 M) and 1.20× to decode them (28.9 M against 24.0 M).
final class ArchiverCore {
    /// The object table the graph is written into; only this file writes it (see ``integer(_:inline:)`` and the rest of the graph vocabulary).
    private let table = BPlistTable()
    /// `$objects`: the table index of each UID.
    @exclusivity(unchecked) private var objects: ArchiveObjects
    /// Class instances already given a UID. The instance is kept alive so its address is not reused.
    @exclusivity(unchecked) private var identities: IdentityTable
    /// Class description UIDs by class name.
    /// Class descriptions by name and version: two types archived under one name at different
    /// versions each get their own, so every object records its own type's version.
    @exclusivity(unchecked) private var classUIDs: [ClassKey: Int] = [:]
    /// Table indices of `$class` and of each layout's field keys, made once per archive.
    let classKeyIndex: Int
    /// Per reflection layout (by ``FieldLayout/number``): where its field keys' table indices
    /// start in `layoutKeys`, and its class description UID (-1 until made), once per archive.
    @exclusivity(unchecked) private var layoutStates: [(keyStart: Int, classUID: Int)] = []
    @exclusivity(unchecked) private var layoutKeys = RawBuffer<Int>()
    /// Table indices of Foundation's field keys and UIDs of its class descriptions, made on first use (-1 before).
    @exclusivity(unchecked) var wellKnown = WellKnown()
    struct WellKnown {
        var objectsKey = -1
        var keysKey = -1
        var timeKey = -1
        var arrayClass = -1
        var dictionaryClass = -1
        var setClass = -1
        var dateClass = -1
    }
    /// Class names chosen for types (``KeyedArchiver/setClassName(_:for:)``).
    @exclusivity(unchecked) private(set) var classNames: [ObjectIdentifier: String] = [:]
    @exclusivity(unchecked) var coders: CoderCache = CoderCache()
    /// Field key and value references per object being built (a stack shared by nested objects).
    @exclusivity(unchecked) private var fields = FieldStack()
    /// Instances currently being encoded by a strategy that cannot express cycles.
    @exclusivity(unchecked) private var inProgress: Set<ObjectIdentifier> = []
    /// Conditional references waiting for the end of the archive.
    @exclusivity(unchecked) private var conditionals: [PendingObject] = []
    /// Objects whose fields include a conditional reference, finished at the end.
    private struct PendingObject {
        let slot: Int
        var keys: [Int]
        var values: [Int]
        /// Positions in `values` holding an instance identity to resolve, or drop.
        var conditional: [(position: Int, identity: ObjectIdentifier)]
    }
    /// Conditional fields of the objects still open, innermost object's last; `frame` is the UID
    /// of the object and `position` the field's place among that object's fields.
    @exclusivity(unchecked) private var openConditionals: [(frame: Int, position: Int, identity: ObjectIdentifier, object: AnyObject)] = []
    /// The innermost open object: where its fields start and its UID (-1 outside any object).
    @exclusivity(unchecked) private var currentFieldStart = 0
    @exclusivity(unchecked) private var currentFrameUID = -1
    @exclusivity(unchecked) var depth: Int = 0
    /// Stops the recursion before the current thread's stack runs out; set per top-level encode.
    @exclusivity(unchecked) var stack = StackGuard()
    /// Coded objects nested deeper than this fail with `.depthLimit` (the unarchiver's default too).
    @exclusivity(unchecked) var maximumDepth = 512

    let nullIndex: Int
    private let sizedLikeLastArchive: Bool

    /// The table sizes and the instance count of the last archive a sized core finished in this process.
    private static let lastSizes = Locked((table: BPlistTable.Sizes(), objects: 0, instances: 0))

    /// A core for a whole archive starts with room for as much as the last archive finished in
    /// this process held (apps archive the same kinds of graphs again and again), so its tables
    /// rarely grow and copy, and its uniquing and identity indexes are not rebuilt as they fill.
    /// Table room that is not used is never touched; the indexes are cleared when made. Scratch
    /// cores start small.
    init(sizedLikeLastArchive: Bool = false) {
        self.sizedLikeLastArchive = sizedLikeLastArchive
        let last = sizedLikeLastArchive ? Self.lastSizes.withLock { $0 } : (table: BPlistTable.Sizes(), objects: 0, instances: 0)
        table.reserveCapacity(last.table)
        objects = ArchiveObjects(expecting: min(last.objects, 1 << 24))
        identities = IdentityTable(expecting: last.instances)
        _ = table.reserve()  // index 0: the top dictionary
        nullIndex = table.add(string: ArchiveFormat.null)
        classKeyIndex = table.add(string: ArchiveFormat.classKey)
        _ = newUID(for: nullIndex)
    }

    deinit {
        identities.releaseInstances()
    }

    /// Archives `type` under `name`; class descriptions already made keep the name they had.
    func setClassName(_ name: String, for type: Any.Type) {
        classNames[ObjectIdentifier(type)] = name
        for i in layoutStates.indices { layoutStates[i].classUID = -1 }
    }

    /// Takes the class names chosen for `other`'s types.
    func copyClassNames(from other: ArchiverCore) {
        classNames = other.classNames
    }

    // MARK: UIDs and raw values

    /// The table reference of a UID object: one of the table's trailing UIDs, laid out after its
    /// objects when the file is written.
    @inline(__always)
    func uid(_ uid: Int) -> Int {
        table.trailingUID(uid)
    }

    var nullReference: Int { uid(0) }

    /// The UID of a raw plist value placed in `$objects` (equal values share one UID).
    @inline(__always)
    private func rawReference(_ tableIndex: Int) -> Int {
        uid(objects.uid(ofRawValue: tableIndex))
    }

    /// Adds the object at `tableIndex` to `$objects`; returns its UID.
    @inline(__always)
    func newUID(for tableIndex: Int) -> Int {
        objects.newUID(for: tableIndex)
    }

    /// Where the table indices of `layout`'s escaped field keys start in ``layoutKey(_:)``;
    /// the keys are added to the table on first use in an archive.
    @inline(__always)
    func fieldKeyStart(of layout: FieldLayout) -> Int {
        let number = layout.number
        if number < layoutStates.count, layoutStates[number].keyStart >= 0 { return layoutStates[number].keyStart }
        return addFieldKeys(of: layout)
    }

    private func addFieldKeys(of layout: FieldLayout) -> Int {
        growLayoutStates(to: layout.number)
        let start = layoutKeys.count
        for field in layout.fields { layoutKeys.append(table.add(string: field.escapedKey)) }
        layoutStates[layout.number].keyStart = start
        return start
    }

    private func growLayoutStates(to number: Int) {
        while layoutStates.count <= number { layoutStates.append((-1, -1)) }
    }

    /// The table index of a layout's field key (see ``fieldKeyStart(of:)``).
    @inline(__always)
    func layoutKey(_ position: Int) -> Int {
        layoutKeys[unchecked: position]
    }

    /// The UID of `layout`'s class description, under the name chosen for `type` if one was.
    func classUID(of layout: FieldLayout, type: Any.Type, version: Int) -> Int {
        let number = layout.number
        if number < layoutStates.count, layoutStates[number].classUID >= 0 { return layoutStates[number].classUID }
        var chain = layout.classes
        if !classNames.isEmpty {
            // Every class of the chain goes by the name chosen for it in this archive, if one was.
            for (position, named) in ([type] + layout.superclasses).enumerated() {
                if let renamed = classNames[ObjectIdentifier(named)] { chain[position] = renamed }
            }
        }
        let made = classUID(chain[0], classes: chain, version: version)
        growLayoutStates(to: number)
        layoutStates[number].classUID = made
        return made
    }

    /// The table index of the string `key`, cached in `slot` for the rest of the archive.
    @inline(__always)
    func wellKnownKey(_ slot: inout Int, _ key: String) -> Int {
        if slot < 0 { slot = table.add(string: key) }
        return slot
    }

    /// The UID of the class description of Foundation's `name`, cached in `slot`.
    @inline(__always)
    func wellKnownClass(_ slot: inout Int, _ name: String) -> Int {
        if slot < 0 { slot = classUID(name, classes: [name, ArchiveFormat.rootClass]) }
        return slot
    }

    /// Adds a field known not to repeat a key of the current object.
    @inline(__always)
    func appendField(_ keyIndex: Int, value: Int) {
        fields.append(key: keyIndex, value: value)
    }

    // MARK: The graph vocabulary

    // Coders write values with these methods and never see the table. Each returns the reference
    // a field or a list holds: numbers and booleans stand in a field by value (`inline`, as
    // Foundation writes them) or, in a list, as an `$objects` entry; strings and data are always
    // `$objects` entries, equal ones shared. Objects are written with ``beginObject()``,
    // ``addField(_:value:)`` and ``endObject(_:classUID:)``, lists with ``beginList()``.

    @inline(__always)
    func integer(_ value: Int64, inline: Bool) -> Int { placed(table.add(int: value), inline: inline) }

    @inline(__always)
    func unsignedInteger(_ value: UInt64, inline: Bool) -> Int { placed(table.add(uint: value), inline: inline) }

    @inline(__always)
    func real(_ value: Double, inline: Bool) -> Int { placed(table.add(real: value), inline: inline) }

    /// A 4-byte real (what a `Float` is archived as).
    @inline(__always)
    func float(_ value: Float, inline: Bool) -> Int { placed(table.add(float: value), inline: inline) }

    @inline(__always)
    func boolean(_ value: Bool, inline: Bool) -> Int { placed(table.add(bool: value), inline: inline) }

    /// Bytes: inline only where Foundation's own objects hold them so (`NS.uuidbytes`).
    func data(_ bytes: [UInt8], inline: Bool) -> Int { placed(table.add(data: bytes), inline: inline) }

    /// A scalar's reference: the scalar itself in a field, or its `$objects` entry.
    @inline(__always)
    private func placed(_ index: Int, inline: Bool) -> Int { inline ? index : rawReference(index) }

    func string(_ value: String) -> Int { rawReference(table.add(string: value)) }

    /// ``string(_:)`` for a string read where it lies (a field or an element), without copying it.
    func string(at field: FieldAddress) -> Int { rawReference(table.add(stringAt: field)) }

    /// The key of a field, as the user wrote it (escaped here), for ``addEscapedField(_:value:)``.
    @inline(__always)
    func fieldKey(_ key: String) -> Int { table.add(string: ArchiveFormat.escape(key)) }

    /// A list value (`NS.objects`, `NS.keys`) being written: references are appended between
    /// ``beginList()`` and ``endList(_:)``; lists nest.
    struct OpenList {
        fileprivate let container: BPlistTable.OpenContainer
    }

    @inline(__always)
    func beginList() -> OpenList { OpenList(container: table.beginContainer()) }

    @inline(__always)
    func append(_ reference: Int, to list: OpenList) { table.appendReference(reference) }

    /// Ends the list; returns the reference a field holds it by.
    @inline(__always)
    func endList(_ list: OpenList) -> Int {
        table.endArray(list.container)
        return list.container.index
    }

    /// An object whose fields are collected elsewhere and written at once (a `Codable`
    /// container's): its UID is reserved now, so objects inside it come after it.
    struct ReservedObject {
        fileprivate let slot: Int
        let uid: Int
    }

    func reserveObject() -> ReservedObject {
        let slot = table.reserve()
        return ReservedObject(slot: slot, uid: newUID(for: slot))
    }

    /// Writes a reserved object: `keys` are from ``fieldKey(_:)`` or ``classKeyIndex``, in order.
    func write(_ object: ReservedObject, keys: [Int], values: [Int]) {
        table.setDict(at: object.slot, keys: keys, values: values)
    }

    /// Writes a reserved list object: `{$class, NS.objects: [elements…]}`.
    func writeList(_ object: ReservedObject, classReference: Int, elements: ArraySlice<Int>) {
        let list = table.reserve()
        table.setArray(at: list, elements: elements)
        table.setDict(
            at: object.slot, keys: [classKeyIndex, wellKnownKey(&wellKnown.objectsKey, ArchiveFormat.objectsField)],
            values: [classReference, list])
    }

    // MARK: Objects

    /// An object dictionary being written.
    struct ObjectFrame {
        let uid: Int
        let slot: Int
        let fieldStart: Int
        /// The object open around this one, restored when this one ends.
        let outerFieldStart: Int
        let outerUID: Int
    }

    /// Reserves the next UID for an object dictionary and makes it the object fields go to.
    @inline(__always)
    func beginObject() -> ObjectFrame {
        let slot = table.reserve()
        let frame = ObjectFrame(
            uid: newUID(for: slot), slot: slot, fieldStart: fields.count, outerFieldStart: currentFieldStart,
            outerUID: currentFrameUID)
        currentFieldStart = frame.fieldStart
        currentFrameUID = frame.uid
        return frame
    }

    /// The UID already given to `object`, or nil after reserving one with `beginObject` for it.
    func existingUID(of object: AnyObject) -> Int? {
        identities.uid(of: object)
    }

    /// Forgets everything a failed top-level encode left half done: the instances it registered
    /// (so a later encode writes them afresh), open objects and containers. Slots it reserved stay
    /// unreferenced and are written as empty objects when the archive finishes.
    func rollBack(toRegistration mark: Int) {
        identities.truncate(to: mark)
        fields.truncate(to: 0)
        currentFieldStart = 0
        currentFrameUID = -1
        openConditionals.removeAll()
        inProgress.removeAll()
        depth = 0
        table.abandonOpenContainers()
    }

    var registrationCount: Int { identities.count }

    func register(_ object: AnyObject, uid: Int) {
        identities.insert(object, uid: uid)
    }

    /// Adds a field (its key as the user wrote it) to the innermost open object.
    func addField(_ key: String, value: Int) {
        addEscapedField(fieldKey(key), value: value)
    }

    /// Adds a field whose key is already a table index of the escaped key; a repeated key replaces the earlier value.
    func addEscapedField(_ keyIndex: Int, value: Int) {
        if let position = fields.position(ofKey: keyIndex, from: currentFieldStart) {
            fields.setValue(value, at: position)
        } else {
            fields.append(key: keyIndex, value: value)
        }
    }

    /// Adds a conditional reference to `object` under `key`; resolved when the archive finishes.
    func addConditionalField(_ key: String, object: AnyObject) {
        if let existing = existingUID(of: object) {
            addField(key, value: uid(existing))
            return
        }
        let keyIndex = fieldKey(key)
        addEscapedField(keyIndex, value: -1)
        let position = fields.position(ofKey: keyIndex, from: currentFieldStart)! - currentFieldStart
        openConditionals.append((currentFrameUID, position, ObjectIdentifier(object), object))
    }

    /// Finishes the object: `$class` first, then its fields in the order added.
    func endObject(_ frame: ObjectFrame, className: String, classes: @autoclosure () -> [String]) {
        endObject(frame, classUID: classUID(className, classes: classes()))
    }

    /// Finishes the object with the class description `classUID`.
    func endObject(_ frame: ObjectFrame, classUID: Int) {
        let classReference = uid(classUID)
        currentFieldStart = frame.outerFieldStart
        currentFrameUID = frame.outerUID
        if openConditionals.isEmpty || openConditionals[openConditionals.count - 1].frame != frame.uid {
            fields.popDictionary(
                into: table, at: frame.slot, firstKey: classKeyIndex, firstValue: classReference, from: frame.fieldStart)
        } else {
            let keys = [classKeyIndex] + fields.keys(from: frame.fieldStart)
            let values = [classReference] + fields.values(from: frame.fieldStart)
            fields.truncate(to: frame.fieldStart)
            let pending = takeConditionals(of: frame)
            for entry in pending { retainedConditionals.append(entry.object) }
            conditionals.append(
                PendingObject(
                    slot: frame.slot, keys: keys, values: values,
                    conditional: pending.map { ($0.position + 1, $0.identity) }))
        }
    }
    @exclusivity(unchecked) private var retainedConditionals: [AnyObject] = []

    /// Abandons an object after an error (its slot stays pending; the archive is not finished).
    func abandonObject(_ frame: ObjectFrame) {
        fields.truncate(to: frame.fieldStart)
        currentFieldStart = frame.outerFieldStart
        currentFrameUID = frame.outerUID
        _ = takeConditionals(of: frame)
    }

    /// Removes and returns the conditional fields of `frame` (the last entries, in the order added).
    private func takeConditionals(of frame: ObjectFrame) -> ArraySlice<(frame: Int, position: Int, identity: ObjectIdentifier, object: AnyObject)> {
        var start = openConditionals.count
        while start > 0, openConditionals[start - 1].frame == frame.uid { start -= 1 }
        let taken = openConditionals[start...]
        openConditionals.removeSubrange(start...)
        return taken
    }

    /// The UID of the class description `{$classname, $classes}` (and `$classversion` when
    /// `version` is not 0), added on first use.
    func classUID(_ name: String, classes: @autoclosure () -> [String], version: Int = 0) -> Int {
        // An archive has few classes: a short list compared by `==` (which is immediate for the
        // same string storage, as class names from one layout are) beats hashing the name.
        if classUIDs.isEmpty {
            for entry in recentClassUIDs where entry.name == name && entry.version == version { return entry.uid }
        } else if let existing = classUIDs[ClassKey(name: name, version: version)] {
            return existing
        }
        let container = table.beginContainer()
        for chainName in classes() { table.appendReference(table.add(string: chainName)) }
        table.endArray(container)
        let slot = table.reserve()
        var keys = [table.add(string: ArchiveFormat.classNameKey), table.add(string: ArchiveFormat.classesKey)]
        var values = [table.add(string: name), container.index]
        if version != 0 {
            keys.append(table.add(string: ArchiveFormat.classVersionKey))
            values.append(table.add(int: Int64(version)))
        }
        table.setDict(at: slot, keys: keys, values: values)
        let uid = newUID(for: slot)
        if classUIDs.isEmpty, recentClassUIDs.count < 16 {
            recentClassUIDs.append((name, version, uid))
        } else {
            if classUIDs.isEmpty {
                for entry in recentClassUIDs { classUIDs[ClassKey(name: entry.name, version: entry.version)] = entry.uid }
            }
            classUIDs[ClassKey(name: name, version: version)] = uid
        }
        return uid
    }
    /// The first 16 class descriptions; after that, `classUIDs` holds them all.
    @exclusivity(unchecked) private var recentClassUIDs: [(name: String, version: Int, uid: Int)] = []

    struct ClassKey: Hashable {
        let name: String
        let version: Int
    }

    /// Writes a Foundation object that is a class instance (an `NSCountedSet`, an
    /// `NSAttributedString`) once per instance, as Foundation's archiver does: a later reference
    /// to it is its UID. `make` encodes its fields and gives its class name and chain; an
    /// instance that contains itself is refused, as the reader would refuse it.
    func foundationInstance(
        _ object: AnyObject, typeName: String, _ make: () throws -> (className: String, classes: [String], fields: [(String, Int)])
    ) throws -> Int {
        // Registered once written whole, so a UID found is never of an object still being written.
        if let existing = existingUID(of: object) { return uid(existing) }
        try enterAcyclic(object, typeName: typeName)
        defer { leaveAcyclic(object) }
        let (className, classes, fields) = try make()
        let frame = beginObject()
        for (key, value) in fields { addField(key, value: value) }
        endObject(frame, className: className, classes: classes)
        register(object, uid: frame.uid)
        return uid(frame.uid)
    }

    /// Writes a Foundation-style object: `$class`, then `fields` (already encoded), as a new UID.
    /// `classes` is its `$classes` chain, `[className, "NSObject"]` unless given.
    func foundationObject(className: String, classes: [String]? = nil, fields: [(String, Int)]) -> Int {
        let frame = beginObject()
        for (key, value) in fields { addField(key, value: value) }
        endObject(frame, className: className, classes: classes ?? [className, ArchiveFormat.rootClass])
        return uid(frame.uid)
    }

    // MARK: Cycles for strategies that cannot express them

    func enterAcyclic(_ object: AnyObject, typeName: String) throws(ArchiveError) {
        guard inProgress.insert(ObjectIdentifier(object)).inserted else {
            throw ArchiveError(
                .cycle,
                reason: "an instance of \(typeName) contains itself; only Archivable classes can be archived in cycles")
        }
    }

    /// Throws if `object` is being encoded now by a strategy that cannot express cycles.
    func checkAcyclic(_ object: AnyObject, typeName: String) throws(ArchiveError) {
        if inProgress.contains(ObjectIdentifier(object)) {
            throw ArchiveError(
                .cycle,
                reason: "an instance of \(typeName) contains itself; only Archivable classes can be archived in cycles")
        }
    }

    func leaveAcyclic(_ object: AnyObject) {
        inProgress.remove(ObjectIdentifier(object))
    }

    // MARK: Finishing

    /// The finished archive: `$archiver`, `$version`, `$top`, `$objects`, root dictionary first.
    func finish(top: [(String, Int)]) throws(ArchiveError) -> [UInt8] {
        try close(top: top)
        return try table.encode()
    }

    /// The finished archive as `Data` that owns the encoder's buffer (no copy of the bytes).
    func finishData(top: [(String, Int)]) throws(ArchiveError) -> Data {
        try close(top: top)
        let sizes = sizedLikeLastArchive ? table.sizes : nil
        let (bytes, count) = try table.encodeAllocated()
        if var sizes {
            sizes.recordFile(of: count)
            rememberSizes(sizes)
        }
        return Data(bytesNoCopy: bytes, count: count, deallocator: .free)
    }

    /// The finished archive in XML, written from the table as its binary file would read.
    func finishXML(top: [(String, Int)]) throws(ArchiveError) -> Data {
        try close(top: top)
        if sizedLikeLastArchive { rememberSizes(table.sizes) }
        return Data(try XMLPlistWriter().write(table))
    }

    /// Keeps this archive's sizes for the next archiver to reserve.
    private func rememberSizes(_ sizes: BPlistTable.Sizes) {
        let (objectCount, instances) = (objects.count, identities.count)
        Self.lastSizes.withLock { $0 = (sizes, objectCount, instances) }
    }

    /// Resolves conditional references and writes `$objects`, `$top` and the top dictionary.
    private func close(top: [(String, Int)]) throws(ArchiveError) {
        table.fillPendingWithEmptyDictionaries()
        for pending in conditionals {
            var keys: [Int] = []
            var values: [Int] = []
            for (position, key) in pending.keys.enumerated() {
                if let entry = pending.conditional.first(where: { $0.position == position }) {
                    guard let target = identities.uid(of: entry.identity) else { continue }
                    keys.append(key)
                    values.append(uid(target))
                } else {
                    keys.append(key)
                    values.append(pending.values[position])
                }
            }
            table.setDict(at: pending.slot, keys: keys, values: values)
        }
        conditionals.removeAll()
        let objectsArray = table.reserve()
        objects.write(to: table, at: objectsArray)
        let topDict = table.reserve()
        table.setDict(
            at: topDict, keys: top.map { table.add(string: $0.0) }, values: top.map { $0.1 })
        table.setDict(
            at: 0,
            keys: [
                table.add(string: ArchiveFormat.archiverKey), table.add(string: ArchiveFormat.versionKey),
                table.add(string: ArchiveFormat.topKey), table.add(string: ArchiveFormat.objectsKey),
            ],
            values: [
                table.add(string: ArchiveFormat.archiverName), table.add(int: ArchiveFormat.version), topDict, objectsArray,
            ])
    }
}

extension ArchiverCore {
    /// Copies the object `uid` of another archive (its `$objects` as plain values), with
    /// everything it references, into this archive; returns its UID here.
    ///
    /// Used to keep the untouched keys of an archive file when other keys are replaced. Class
    /// descriptions and raw values come along as they are; `map` keeps shared objects shared.
    /// A chain of references deeper than the unarchiver's default `maximumDepth` fails with
    /// `.depthLimit` (the copy recurses once per link).
    func transplant(uid old: Int, from source: [PlistValue], map: inout [Int: Int], depth: Int = 0) throws -> Int {
        if old == 0 { return 0 }
        if let mapped = map[old] { return mapped }
        guard old < source.count else {
            throw ArchiveError(.invalidReference, reason: "UID \(old) is out of range: $objects has \(source.count) entries")
        }
        let limit = KeyedUnarchiver.Options().maximumDepth
        guard depth < limit else {
            throw ArchiveError(.depthLimit, reason: "objects reference each other more than \(limit) deep; the key cannot be carried over")
        }
        guard stack.hasRoom() else {
            throw ArchiveError(.depthLimit, reason: StackGuard.reason(depth: depth))
        }
        let slot = table.reserve()
        let new = newUID(for: slot)
        map[old] = new
        let rewritten = try rewriteUIDs(source[old], from: source, map: &map, depth: depth + 1)
        try table.fill(slot, with: rewritten)
        return new
    }

    private func rewriteUIDs(_ value: PlistValue, from source: [PlistValue], map: inout [Int: Int], depth: Int) throws -> PlistValue {
        switch value {
        case .uid(let old):
            guard old < UInt64(source.count) else {
                throw ArchiveError(.invalidReference, reason: "UID \(old) is out of range: $objects has \(source.count) entries")
            }
            return .uid(UInt64(try transplant(uid: Int(old), from: source, map: &map, depth: depth)))
        case .array(let elements):
            return .array(try elements.map { try rewriteUIDs($0, from: source, map: &map, depth: depth) })
        case .dict(let dict):
            var copy = PlistDictionary()
            for (key, element) in dict { copy[key] = try rewriteUIDs(element, from: source, map: &map, depth: depth) }
            return .dict(copy)
        default:
            return value
        }
    }
}
