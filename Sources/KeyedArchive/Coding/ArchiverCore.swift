import Foundation
import PropertyList

/// The state of one archive being written: the bplist object table it streams into,
/// the `$objects` list (UID → table index), instance identities, and class descriptions.
///
/// Values are encoded straight into the table: a coded object reserves its `$objects`
/// slot (its UID) before its fields, so shared instances and cycles resolve to one UID.
final class ArchiverCore {
    var table = BPlistTable()
    /// `$objects`: the table index of each UID's object.
    var objects: [Int] = []
    /// Class instances already given a UID. The instance is kept alive so its address is not reused.
    private var identities: [ObjectIdentifier: (uid: Int, object: AnyObject)] = [:]
    /// Raw plist values already in `$objects`, by their table index.
    private var rawUIDs: [Int: Int] = [:]
    /// Class description UIDs by class name.
    private var classUIDs: [String: Int] = [:]
    /// UID table indices by UID.
    private var uidIndices: [Int] = []
    var classNames: [ObjectIdentifier: String] = [:]
    var coders = CoderCache()
    /// Field key table indices per object being built (a stack shared by nested objects).
    private var fieldKeys: [Int] = []
    private var fieldValues: [Int] = []
    /// Instances currently being encoded by a strategy that cannot express cycles.
    private var inProgress: Set<ObjectIdentifier> = []
    /// Conditional references waiting for the end of the archive.
    private var conditionals: [PendingObject] = []
    /// Objects whose fields include a conditional reference, finished at the end.
    private struct PendingObject {
        let slot: Int
        var keys: [Int]
        var values: [Int]
        /// Positions in `values` holding an instance identity to resolve, or drop.
        var conditional: [(position: Int, identity: ObjectIdentifier)]
    }
    private var currentConditionals: [[(position: Int, identity: ObjectIdentifier, object: AnyObject)]] = []
    var depth = 0
    let maximumDepth = 10_000

    let nullIndex: Int

    init() {
        _ = table.reserve()  // index 0: the top dictionary
        nullIndex = table.add(string: ArchiveFormat.null)
        objects.append(nullIndex)
    }

    // MARK: UIDs and raw values

    /// The table index of a UID object.
    func uid(_ uid: Int) -> Int {
        // UIDs stay far below 2^32: `$objects` would not fit in memory otherwise.
        try! table.add(uid: UInt64(uid))
    }

    var nullReference: Int { uid(0) }

    /// The UID of a raw plist value placed in `$objects` (equal values share one UID).
    func rawReference(_ tableIndex: Int) -> Int {
        if let existing = rawUIDs[tableIndex] { return uid(existing) }
        let new = objects.count
        objects.append(tableIndex)
        rawUIDs[tableIndex] = new
        return uid(new)
    }

    func string(_ value: String) -> Int { rawReference(table.add(string: value)) }

    // MARK: Objects

    /// An object dictionary being written.
    struct ObjectFrame {
        let uid: Int
        let slot: Int
        let fieldStart: Int
    }

    /// Reserves the next UID for an object dictionary.
    func beginObject() -> ObjectFrame {
        let slot = table.reserve()
        objects.append(slot)
        currentConditionals.append([])
        return ObjectFrame(uid: objects.count - 1, slot: slot, fieldStart: fieldKeys.count)
    }

    /// The UID already given to `object`, or nil after reserving one with `beginObject` for it.
    func existingUID(of object: AnyObject) -> Int? {
        identities[ObjectIdentifier(object)]?.uid
    }

    func register(_ object: AnyObject, uid: Int) {
        identities[ObjectIdentifier(object)] = (uid, object)
    }

    /// Adds a field (its key as the user wrote it) to the innermost open object.
    func addField(_ key: String, value: Int) {
        addEscapedField(table.add(string: ArchiveFormat.escape(key)), value: value)
    }

    /// Adds a field whose key is already a table index of the escaped key; a repeated key replaces the earlier value.
    func addEscapedField(_ keyIndex: Int, value: Int) {
        let start = fieldStartOfCurrent
        if let position = fieldKeys[start...].firstIndex(of: keyIndex) {
            fieldValues[position] = value
        } else {
            fieldKeys.append(keyIndex)
            fieldValues.append(value)
        }
    }

    private var frameStarts: [Int] = []
    private var fieldStartOfCurrent: Int { frameStarts.last ?? 0 }

    /// Opens the field list of `frame`; call before adding its fields.
    func openFields(_ frame: ObjectFrame) {
        frameStarts.append(frame.fieldStart)
    }

    /// Adds a conditional reference to `object` under `key`; resolved when the archive finishes.
    func addConditionalField(_ key: String, object: AnyObject) {
        if let existing = existingUID(of: object) {
            addField(key, value: uid(existing))
            return
        }
        let keyIndex = table.add(string: ArchiveFormat.escape(key))
        addEscapedField(keyIndex, value: -1)
        let position = fieldKeys[fieldStartOfCurrent...].firstIndex(of: keyIndex)! - fieldStartOfCurrent
        currentConditionals[currentConditionals.count - 1].append((position, ObjectIdentifier(object), object))
    }

    /// Finishes the object: `$class` first, then its fields in the order added.
    func endObject(_ frame: ObjectFrame, className: String, classes: [String]) {
        let classReference = uid(classUID(className, classes: classes))
        let keys = [table.add(string: ArchiveFormat.classKey)] + fieldKeys[frame.fieldStart...]
        let values = [classReference] + fieldValues[frame.fieldStart...]
        fieldKeys.removeSubrange(frame.fieldStart...)
        fieldValues.removeSubrange(frame.fieldStart...)
        frameStarts.removeLast()
        let pending = currentConditionals.removeLast()
        if pending.isEmpty {
            table.setDict(at: frame.slot, keys: keys, values: values)
        } else {
            for entry in pending { retainedConditionals.append(entry.object) }
            conditionals.append(
                PendingObject(
                    slot: frame.slot, keys: keys, values: values,
                    conditional: pending.map { ($0.position + 1, $0.identity) }))
        }
    }
    private var retainedConditionals: [AnyObject] = []

    /// Abandons an object after an error (its slot stays pending; the archive is not finished).
    func abandonObject(_ frame: ObjectFrame) {
        fieldKeys.removeSubrange(min(frame.fieldStart, fieldKeys.count)...)
        fieldValues.removeSubrange(min(frame.fieldStart, fieldValues.count)...)
        if !frameStarts.isEmpty { frameStarts.removeLast() }
        if !currentConditionals.isEmpty { currentConditionals.removeLast() }
    }

    /// The UID of the class description `{$classname, $classes}`, added on first use.
    func classUID(_ name: String, classes: [String]) -> Int {
        if let existing = classUIDs[name] { return existing }
        let container = table.beginContainer()
        for chainName in classes { table.appendReference(table.add(string: chainName)) }
        table.endArray(container)
        let slot = table.reserve()
        table.setDict(
            at: slot,
            keys: [table.add(string: ArchiveFormat.classNameKey), table.add(string: ArchiveFormat.classesKey)],
            values: [table.add(string: name), container.index])
        objects.append(slot)
        classUIDs[name] = objects.count - 1
        return objects.count - 1
    }

    /// Writes a Foundation-style object: `$class`, then `fields` (already encoded), as a new UID.
    func foundationObject(className: String, fields: [(String, Int)]) -> Int {
        let frame = beginObject()
        openFields(frame)
        for (key, value) in fields { addField(key, value: value) }
        endObject(frame, className: className, classes: [className, ArchiveFormat.rootClass])
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
        for pending in conditionals {
            var keys: [Int] = []
            var values: [Int] = []
            for (position, key) in pending.keys.enumerated() {
                if let entry = pending.conditional.first(where: { $0.position == position }) {
                    guard let target = identities[entry.identity] else { continue }
                    keys.append(key)
                    values.append(uid(target.uid))
                } else {
                    keys.append(key)
                    values.append(pending.values[position])
                }
            }
            table.setDict(at: pending.slot, keys: keys, values: values)
        }
        conditionals.removeAll()
        let objectsArray = table.reserve()
        table.setArray(at: objectsArray, elements: objects)
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
        return try table.encode()
    }
}

extension ArchiverCore {
    /// Copies the object `uid` of another archive (its `$objects` as plain values), with
    /// everything it references, into this archive; returns its UID here.
    ///
    /// Used to keep the untouched keys of an archive file when other keys are replaced. Class
    /// descriptions and raw values come along as they are; `map` keeps shared objects shared.
    func transplant(uid old: Int, from source: [PlistValue], map: inout [Int: Int]) throws -> Int {
        if old == 0 { return 0 }
        if let mapped = map[old] { return mapped }
        guard old < source.count else {
            throw ArchiveError(.invalidReference, reason: "UID \(old) is out of range: $objects has \(source.count) entries")
        }
        let slot = table.reserve()
        objects.append(slot)
        let new = objects.count - 1
        map[old] = new
        let rewritten = try rewriteUIDs(source[old], from: source, map: &map)
        try table.fill(slot, with: rewritten)
        return new
    }

    private func rewriteUIDs(_ value: PlistValue, from source: [PlistValue], map: inout [Int: Int]) throws -> PlistValue {
        switch value {
        case .uid(let old):
            guard old < UInt64(source.count) else {
                throw ArchiveError(.invalidReference, reason: "UID \(old) is out of range: $objects has \(source.count) entries")
            }
            return .uid(UInt64(try transplant(uid: Int(old), from: source, map: &map)))
        case .array(let elements):
            return .array(try elements.map { try rewriteUIDs($0, from: source, map: &map) })
        case .dict(let dict):
            var copy = PlistDictionary()
            for (key, element) in dict { copy[key] = try rewriteUIDs(element, from: source, map: &map) }
            return .dict(copy)
        default:
            return value
        }
    }
}
