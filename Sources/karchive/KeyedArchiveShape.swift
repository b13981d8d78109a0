import KeyedArchive
import PropertyList

/// The top level of an NSKeyedArchiver archive, recognised in a property list:
/// `{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {key: UID}, "$objects": [...]}`.
///
/// Only the shape is checked here; nothing is resolved. `validate` and `stats` use it, and a
/// keyed-archive `dump` can start from it.
struct KeyedArchiveShape {
    static let archiverKey = ArchiveFormat.archiverKey
    static let versionKey = ArchiveFormat.versionKey
    static let topKey = ArchiveFormat.topKey
    static let objectsKey = ArchiveFormat.objectsKey
    static let classKey = ArchiveFormat.classKey
    static let classNameKey = ArchiveFormat.classNameKey
    static let archiverName = ArchiveFormat.archiverName

    /// The `$archiver` value (always `NSKeyedArchiver`).
    let archiver: String
    /// The `$version` integer, as text (100000 for every known writer).
    let version: String
    /// `$top`: the top-level keys and their values (UIDs in a well-formed archive), in file order.
    let top: PlistDictionary
    /// `$objects`: the object table the UIDs index.
    let objects: [PlistValue]

    /// What a property list is, as far as keyed archives go.
    enum Recognition {
        case keyedArchive(KeyedArchiveShape)
        /// A plain property list; `reason` is set when it has keyed-archive keys but not the right shape.
        case notKeyedArchive(reason: String?)
    }

    /// Recognises the keyed-archive layout at the root of `root`.
    static func recognize(_ root: PlistValue) -> Recognition {
        guard case .dict(let dict) = root else { return .notKeyedArchive(reason: nil) }
        guard [archiverKey, versionKey, topKey, objectsKey].contains(where: { dict[$0] != nil }) else {
            return .notKeyedArchive(reason: nil)
        }
        guard let archiverValue = dict[archiverKey] else { return .notKeyedArchive(reason: "there is no \(archiverKey)") }
        guard case .string(let archiver) = archiverValue, archiver == archiverName else {
            return .notKeyedArchive(reason: "\(archiverKey) is \(describe(archiverValue)), not \"\(archiverName)\"")
        }
        guard let versionValue = dict[versionKey] else { return .notKeyedArchive(reason: "there is no \(versionKey)") }
        let version: String
        switch versionValue {
        case .int(let v): version = String(v)
        case .uint(let v): version = String(v)
        default: return .notKeyedArchive(reason: "\(versionKey) is \(versionValue.kindDescription), not an integer")
        }
        guard let topValue = dict[topKey] else { return .notKeyedArchive(reason: "there is no \(topKey)") }
        guard case .dict(let top) = topValue else {
            return .notKeyedArchive(reason: "\(topKey) is \(topValue.kindDescription), not a dictionary")
        }
        guard let objectsValue = dict[objectsKey] else { return .notKeyedArchive(reason: "there is no \(objectsKey)") }
        guard case .array(let objects) = objectsValue else {
            return .notKeyedArchive(reason: "\(objectsKey) is \(objectsValue.kindDescription), not an array")
        }
        return .keyedArchive(KeyedArchiveShape(archiver: archiver, version: version, top: top, objects: objects))
    }

    /// The `$classname` of the class record that `$objects[index]`'s `$class` UID points at,
    /// or `nil` if that entry is not a dictionary with a `$class` key.
    ///
    /// - Returns: `.success(name)`, or `.failure` with a short text when `$class` does not lead
    ///   to a class record with a string `$classname`.
    func className(ofObjectAt index: Int) -> Result<String, UnresolvedClass>? {
        guard case .dict(let entry) = objects[index], let classRef = entry[Self.classKey] else { return nil }
        guard case .uid(let uid) = classRef else { return .failure(UnresolvedClass("$class is \(classRef.kindDescription), not a UID")) }
        guard uid < UInt64(objects.count) else {
            return .failure(UnresolvedClass("$class is UID(\(uid)), past the \(objects.count) objects"))
        }
        guard case .dict(let record) = objects[Int(uid)], case .string(let name)? = record[Self.classNameKey] else {
            return .failure(UnresolvedClass("$class UID(\(uid)) is not a class record with a $classname"))
        }
        return .success(name)
    }

    /// The `$classversion` of the class of the object at `index` (written for a type whose
    /// `archiveVersion` is not 0), when it has one.
    func classVersion(ofObjectAt index: Int) -> PlistValue? {
        classRecord(ofObjectAt: index)?[ArchiveFormat.classVersionKey]
    }

    /// The class record (`$classname`, `$classes`, and `$classversion` when written) that the
    /// `$class` UID of the object at `index` points at, when it points at a dictionary.
    func classRecord(ofObjectAt index: Int) -> PlistDictionary? {
        guard case .dict(let entry) = objects[index], case .uid(let uid)? = entry[Self.classKey], uid < UInt64(objects.count),
            case .dict(let record) = objects[Int(uid)]
        else { return nil }
        return record
    }

    /// Whether `$objects[index]` is a class record (`{"$classname": …, "$classes": […]}`).
    func isClassRecord(_ index: Int) -> Bool {
        guard case .dict(let entry) = objects[index] else { return false }
        return entry[Self.classKey] == nil && entry[Self.classNameKey] != nil
    }

    /// Why an object's `$class` does not resolve.
    struct UnresolvedClass: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private static func describe(_ value: PlistValue) -> String {
        if case .string(let s) = value { return "the string " + PlainTreeDump.quoted(s) }
        return value.kindDescription
    }
}
