import KeyedArchive
import PropertyList

/// Inserts, replaces and removes values in a keyed archive through its object graph (`--graph`).
///
/// The key path starts at a `$top` key and follows UIDs as `karchive extract` does: a Foundation
/// array's elements by index, a Foundation dictionary's values by key, an object's fields by name.
/// The last component names the slot that changes:
/// - a new value goes into `$objects` as the objects a keyed archiver writes for it (a string or
///   data as itself, a date as an `NSDate`, an array as an `NSArray`, a dictionary as an
///   `NSDictionary`, numbers and booleans as themselves), reusing an equal string, data or
///   number object and existing class records, and the slot gets its UID; a number or boolean
///   that replaces a field stored inline (as `encodeInteger:forKey:` writes it) stays inline;
/// - removing drops the field from the object's dictionary, the element from an `NS.objects`
///   list, the key and value from a dictionary's `NS.keys` and `NS.objects`, or the `$top` key.
/// Objects no longer referenced stay in `$objects`: readers ignore them, and UIDs elsewhere keep
/// their meaning.
struct ArchiveGraphEdit {
    private var root: PlistDictionary
    private var top: PlistDictionary
    private var objects: [PlistValue]
    private let archive: KeyedArchiveShape

    /// Fails unless `value` is a keyed archive.
    init(_ value: PlistValue) throws(Karchive.Failure) {
        guard case .keyedArchive(let archive) = KeyedArchiveShape.recognize(value), case .dict(let root) = value else {
            throw Karchive.Failure("--graph follows a keyed archive's object graph, and this is not a keyed archive; leave out --graph")
        }
        self.archive = archive
        self.root = root
        top = archive.top
        objects = archive.objects
    }

    /// The archive with the edits made so far.
    var value: PlistValue {
        var result = root
        result[ArchiveFormat.topKey] = .dict(top)
        result[ArchiveFormat.objectsKey] = .array(objects)
        return .dict(result)
    }

    /// What the slot a key path names sits in.
    private enum Container {
        case top
        case list(uid: Int, fields: PlistDictionary, elements: [PlistValue])
        case dictionary(uid: Int, fields: PlistDictionary, keys: [PlistValue], values: [PlistValue])
        case object(uid: Int, fields: PlistDictionary)
    }

    /// The container of the last component of `path`.
    private func container(of path: PlistKeyPath) throws -> Container {
        let components = path.components
        guard components.count > 1 else { return .top }
        let walk = ArchiveGraphWalk(archive: KeyedArchiveShape(archiver: archive.archiver, version: archive.version, top: top, objects: objects))
        guard var reference = top[components[0]] else {
            throw Karchive.Failure("Key path not found \(path.text)")
        }
        var walked = components[0]
        for component in components.dropFirst().dropLast() {
            reference = try walk.child(of: reference, component, walked: walked)
            walked += "." + component
        }
        guard case .uid(let raw) = reference, raw > 0, raw < UInt64(objects.count) else {
            throw Karchive.Failure("\(walked) is not an object in $objects, so nothing can be put in it (key path \(path.text))")
        }
        let uid = Int(raw)
        guard case .dict(let fields) = objects[uid], case .success(let className)? = liveShape.className(ofObjectAt: uid) else {
            throw Karchive.Failure("\(walked) (@\(uid)) is not an archived object with a class (key path \(path.text))")
        }
        if ArchiveFormat.arrayClasses.contains(className) {
            return .list(uid: uid, fields: fields, elements: fields[ArchiveFormat.objectsField]?.arrayValue ?? [])
        }
        if ArchiveFormat.dictionaryClasses.contains(className) {
            return .dictionary(
                uid: uid, fields: fields, keys: fields[ArchiveFormat.keysField]?.arrayValue ?? [],
                values: fields[ArchiveFormat.objectsField]?.arrayValue ?? [])
        }
        if ArchiveFormat.listClasses.contains(className) {
            throw Karchive.Failure("\(walked) is a \(className); only NSArray, NSDictionary and coded objects are edited")
        }
        return .object(uid: uid, fields: fields)
    }

    private var liveShape: KeyedArchiveShape {
        KeyedArchiveShape(archiver: archive.archiver, version: archive.version, top: top, objects: objects)
    }

    /// The text of a dictionary key reference (a string object, or an inline string).
    private func keyText(_ reference: PlistValue) -> String? {
        switch reference {
        case .string(let s): return s
        case .uid(let raw) where raw < UInt64(objects.count):
            if case .string(let s) = objects[Int(raw)] { return s }
            return nil
        default: return nil
        }
    }

    /// Puts `newValue` at `path`: `-insert` (`replacing` false) refuses a slot that holds a value,
    /// `-replace` overwrites it; with `appending`, the value at `path` must be an `NSArray` and
    /// gets `newValue` at its end.
    mutating func insert(_ newValue: PlistValue, at path: PlistKeyPath, replacing: Bool, appending: Bool) throws {
        guard let key = path.components.last, !path.components.contains(where: \.isEmpty) else {
            throw Karchive.Failure("Key path not found \(path.text)")
        }
        if appending {
            try appendElement(newValue, at: path)
            return
        }
        switch try container(of: path) {
        case .top:
            if top[key] != nil, !replacing { throw Karchive.Failure("Value already exists at key path \(path.text)") }
            top[key] = reference(for: newValue, inline: false)
        case .list(let uid, var fields, var elements):
            guard let index = Int(key), index >= 0 else { throw Karchive.Failure("Unable to index into array with key path \(path.text)") }
            let element = reference(for: newValue, inline: false)
            if replacing, elements.indices.contains(index) {
                elements[index] = element
            } else if index <= elements.count {
                elements.insert(element, at: index)
            } else {
                throw Karchive.Failure("Index \(index) out of bounds in array at key path \(path.text)")
            }
            fields[ArchiveFormat.objectsField] = .array(elements)
            objects[uid] = .dict(fields)
        case .dictionary(let uid, var fields, var keys, var values):
            let element = reference(for: newValue, inline: false)
            if let position = keys.firstIndex(where: { keyText($0) == key }), position < values.count {
                guard replacing else { throw Karchive.Failure("Value already exists at key path \(path.text)") }
                values[position] = element
            } else {
                keys.append(reference(for: .string(key), inline: false))
                values.append(element)
            }
            fields[ArchiveFormat.keysField] = .array(keys)
            fields[ArchiveFormat.objectsField] = .array(values)
            objects[uid] = .dict(fields)
        case .object(let uid, var fields):
            let stored = ArchiveFormat.escape(key)
            let existing = fields[stored]
            if let existing, existing != .uid(0), !replacing {
                throw Karchive.Failure("Value already exists at key path \(path.text)")
            }
            let wasInline = existing.map { if case .uid = $0 { false } else { true } } ?? true
            fields[stored] = reference(for: newValue, inline: wasInline)
            objects[uid] = .dict(fields)
        }
    }

    private mutating func appendElement(_ newValue: PlistValue, at path: PlistKeyPath) throws {
        let walk = ArchiveGraphWalk(archive: liveShape)
        guard var current = top[path.components[0]] else { throw Karchive.Failure("Key path not found \(path.text)") }
        var walked = path.components[0]
        for component in path.components.dropFirst() {
            current = try walk.child(of: current, component, walked: walked)
            walked += "." + component
        }
        guard case .uid(let raw) = current, raw > 0, raw < UInt64(objects.count), case .dict(var fields) = objects[Int(raw)],
            case .success(let className)? = liveShape.className(ofObjectAt: Int(raw)), ArchiveFormat.arrayClasses.contains(className),
            case .array(var elements)? = fields[ArchiveFormat.objectsField]
        else {
            throw Karchive.Failure("Appending to a non-array at key path \(path.text)")
        }
        elements.append(reference(for: newValue, inline: false))
        fields[ArchiveFormat.objectsField] = .array(elements)
        objects[Int(raw)] = .dict(fields)
    }

    /// Removes the slot `path` names.
    mutating func remove(at path: PlistKeyPath) throws {
        guard let key = path.components.last, !path.components.contains(where: \.isEmpty) else {
            throw Karchive.Failure("No value to remove at key path \(path.text)")
        }
        let missing = Karchive.Failure("No value to remove at key path \(path.text)")
        switch try container(of: path) {
        case .top:
            guard top[key] != nil else { throw missing }
            top[key] = nil
        case .list(let uid, var fields, var elements):
            guard let index = Int(key), elements.indices.contains(index) else { throw missing }
            elements.remove(at: index)
            fields[ArchiveFormat.objectsField] = .array(elements)
            objects[uid] = .dict(fields)
        case .dictionary(let uid, var fields, var keys, var values):
            guard let position = keys.firstIndex(where: { keyText($0) == key }), position < values.count else { throw missing }
            keys.remove(at: position)
            values.remove(at: position)
            fields[ArchiveFormat.keysField] = .array(keys)
            fields[ArchiveFormat.objectsField] = .array(values)
            objects[uid] = .dict(fields)
        case .object(let uid, var fields):
            let stored = ArchiveFormat.escape(key)
            guard fields[stored] != nil else { throw missing }
            fields[stored] = nil
            objects[uid] = .dict(fields)
        }
    }

    /// The reference a slot holds for `value`, adding the objects it needs.
    private mutating func reference(for value: PlistValue, inline: Bool) -> PlistValue {
        switch value {
        case .null:
            return .uid(0)
        case .uid:
            return value
        case .bool, .int, .uint, .real, .float:
            return inline ? value : .uid(UInt64(object(value)))
        case .string, .data:
            return .uid(UInt64(object(value)))
        case .date(let seconds):
            return .uid(UInt64(append(instanceOf: ArchiveFormat.dateClass, fields: [ArchiveFormat.timeField: .real(seconds)])))
        case .array(let elements), .set(let elements):
            let references = elements.map { reference(for: $0, inline: false) }
            return .uid(UInt64(append(instanceOf: ArchiveFormat.arrayClass, fields: [ArchiveFormat.objectsField: .array(references)])))
        case .dict(let dict):
            let keys = dict.keys.map { reference(for: .string($0), inline: false) }
            let values = dict.values.map { reference(for: $0, inline: false) }
            return .uid(
                UInt64(append(instanceOf: ArchiveFormat.dictionaryClass, fields: [ArchiveFormat.keysField: .array(keys), ArchiveFormat.objectsField: .array(values)])))
        }
    }

    /// The index of an object equal to `value` (same kind and value), appending it when there is none.
    private mutating func object(_ value: PlistValue) -> Int {
        if let index = objects.indices.dropFirst().first(where: { Self.isSame(objects[$0], value) }) { return index }
        objects.append(value)
        return objects.count - 1
    }

    private static func isSame(_ a: PlistValue, _ b: PlistValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.data(let x), .data(let y)): x == y
        case (.int(let x), .int(let y)): x == y
        case (.uint(let x), .uint(let y)): x == y
        case (.bool(let x), .bool(let y)): x == y
        case (.real(let x), .real(let y)): x.bitPattern == y.bitPattern
        case (.float(let x), .float(let y)): x.bitPattern == y.bitPattern
        default: false
        }
    }

    /// Appends an instance of a Foundation class, reusing its class record.
    private mutating func append(instanceOf className: String, fields: PlistDictionary) -> Int {
        var instance = fields
        instance[ArchiveFormat.classKey] = .uid(UInt64(classRecord(className)))
        objects.append(.dict(instance))
        return objects.count - 1
    }

    private mutating func classRecord(_ name: String) -> Int {
        if let index = objects.indices.first(where: { index in
            guard case .dict(let record) = objects[index], record[ArchiveFormat.classKey] == nil else { return false }
            return record[ArchiveFormat.classNameKey] == .string(name)
        }) {
            return index
        }
        objects.append(.dict([ArchiveFormat.classNameKey: .string(name), ArchiveFormat.classesKey: .array([.string(name), .string(ArchiveFormat.rootClass)])]))
        return objects.count - 1
    }
}
