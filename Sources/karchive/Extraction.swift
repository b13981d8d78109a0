import KeyedArchive
import PropertyList

/// `karchive extract KEYPATH FILE`: one value, found by a dotted key path.
///
/// In a plain property list each component is a dictionary key, or an index into an array or a
/// set. In a keyed archive the first component is a `$top` key and the path follows the object
/// graph from there: an object's fields by name, a Foundation array's (or set's, or ordered
/// set's) elements by index, a Foundation dictionary's values by key, so `root.users.3.name` is
/// what a reader of the archive would call it. A `.` inside a key is written `\.`.
///
/// In a keyed archive the value found is written out as a plain property list: Foundation
/// collections become arrays and dictionaries, strings, data, dates, URLs and UUIDs their value,
/// `NSNull` and nil `null` (which plist-json holds and XML and binary refuse), and any other
/// object a dictionary of its fields with `$class` set to its class name, nil fields left out. An object met again inside itself (a cycle) is written `@N`, its UID.
enum Extraction {
    /// Objects in the value written out, at most: a shared object is written wherever it appears.
    static let maximumValues = 1 << 22

    static func value(at keyPath: String, in root: PlistValue) throws -> PlistValue {
        let components = split(keyPath)
        guard !components.isEmpty, !components.contains(where: \.isEmpty) else {
            throw Karchive.Failure("the key path \"\(keyPath)\" is empty or has an empty component")
        }
        if case .keyedArchive(let archive) = KeyedArchiveShape.recognize(root) {
            var graph = ArchiveGraphWalk(archive: archive)
            return try graph.value(at: components)
        }
        var value = root
        var walked = "the root"
        for component in components {
            value = try child(of: value, component, walked: walked)
            walked = walked == "the root" ? component : walked + "." + component
        }
        return value
    }

    /// `a.b\.c.3` → `["a", "b.c", "3"]`.
    static func split(_ path: String) -> [String] {
        var components: [String] = []
        var current = ""
        var escaped = false
        for character in path {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "." {
                components.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaped { current.append("\\") }
        components.append(current)
        return components
    }

    private static func child(of value: PlistValue, _ component: String, walked: String) throws -> PlistValue {
        switch value {
        case .dict(let dict):
            guard let child = dict[component] else {
                throw Karchive.Failure("\(walked) has no key \"\(component)\" (it has \(dict.keys.prefix(20).map { "\"\($0)\"" }.joined(separator: ", ")))")
            }
            return child
        case .array(let elements), .set(let elements):
            return elements[try index(component, count: elements.count, walked: walked)]
        default:
            throw Karchive.Failure("\(walked) is \(value.kindDescription), which has no \"\(component)\"")
        }
    }

    static func index(_ component: String, count: Int, walked: String) throws -> Int {
        guard let index = Int(component), index >= 0 else {
            throw Karchive.Failure("\(walked) is a list; \"\(component)\" is not an index (0 to \(count - 1))")
        }
        guard index < count else {
            throw Karchive.Failure("\(walked) has \(count) elements; there is no element \(index)")
        }
        return index
    }
}

/// Follows and writes out the object graph of a keyed archive.
struct ArchiveGraphWalk {
    let archive: KeyedArchiveShape
    var written = 0
    var path: Set<Int> = []

    init(archive: KeyedArchiveShape) { self.archive = archive }

    /// What a reference (a UID, or an inline value) stands for.
    enum Node {
        case null
        case inline(PlistValue)
        case object(uid: Int, className: String, fields: PlistDictionary)
    }

    func node(_ reference: PlistValue) throws -> Node {
        guard case .uid(let raw) = reference else { return .inline(reference) }
        guard raw < UInt64(archive.objects.count) else {
            throw Karchive.Failure("UID(\(raw)) is past the \(archive.objects.count) objects of $objects")
        }
        let uid = Int(raw)
        if uid == 0 { return .null }
        let object = archive.objects[uid]
        guard case .dict(let fields) = object, fields[ArchiveFormat.classKey] != nil else { return .inline(object) }
        switch archive.className(ofObjectAt: uid) {
        case .success(let name)?: return .object(uid: uid, className: name, fields: fields)
        case .failure(let problem)?: throw Karchive.Failure("object @\(uid): \(problem.reason)")
        case nil: return .inline(object)
        }
    }

    /// The elements of a Foundation list object, or nil when the class is not one.
    func elements(_ className: String, _ fields: PlistDictionary) -> [PlistValue]? {
        guard ArchiveFormat.arrayClasses.contains(className) || ArchiveFormat.setClasses.contains(className)
            || ArchiveFormat.listClasses.contains(className)
        else { return nil }
        if let list = fields[ArchiveFormat.objectsField]?.arrayValue { return list }
        // NSOrderedSet and friends: NS.object.0, NS.object.1, ...
        var list: [PlistValue] = []
        // NSCountedSet: NS.object0, NS.object1, ... (their counts are NS.count0, ...)
        let prefix = className == ArchiveFormat.countedSetClass ? ArchiveFormat.countedObjectPrefix : ArchiveFormat.orderedSetPrefix
        while let element = fields["\(prefix)\(list.count)"] { list.append(element) }
        return list
    }

    /// The (key, value) references of a Foundation dictionary object, or nil when the class is not one.
    func entries(_ className: String, _ fields: PlistDictionary) -> [(PlistValue, PlistValue)]? {
        guard ArchiveFormat.dictionaryClasses.contains(className) else { return nil }
        let keys = fields[ArchiveFormat.keysField]?.arrayValue ?? []
        let values = fields[ArchiveFormat.objectsField]?.arrayValue ?? []
        return Array(zip(keys, values))
    }

    /// A key of a Foundation dictionary as text.
    func keyText(_ reference: PlistValue) throws -> String {
        switch try node(reference) {
        case .inline(.string(let s)): return s
        case .object(_, let className, let fields) where ArchiveFormat.stringClasses.contains(className):
            if case .string(let s)? = try resolvedInline(fields[ArchiveFormat.stringField]) { return s }
            return "?"
        case .inline(let other): return (try? Conversion.raw(other)) ?? other.kindDescription
        case .null: return "<null>"
        case .object(let uid, let className, _): return "@\(uid) \(className)"
        }
    }

    private func resolvedInline(_ reference: PlistValue?) throws -> PlistValue? {
        guard let reference else { return nil }
        if case .inline(let value) = try node(reference) { return value }
        return nil
    }

    mutating func value(at components: [String]) throws -> PlistValue {
        guard let reference = archive.top[components[0]] else {
            throw Karchive.Failure("the archive has no top-level key \"\(components[0])\" (it has \(archive.top.keys.map { "\"\($0)\"" }.joined(separator: ", ")))")
        }
        var current = reference
        var walked = components[0]
        for component in components.dropFirst() {
            current = try child(of: current, component, walked: walked)
            walked += "." + component
        }
        return try materialize(current)
    }

    func child(of reference: PlistValue, _ component: String, walked: String) throws -> PlistValue {
        switch try node(reference) {
        case .null: throw Karchive.Failure("\(walked) is nil, which has no \"\(component)\"")
        case .inline(let value):
            switch value {
            case .array(let elements): return elements[try Extraction.index(component, count: elements.count, walked: walked)]
            case .dict(let dict):
                guard let child = dict[component] else { throw Karchive.Failure("\(walked) has no key \"\(component)\"") }
                return child
            default: throw Karchive.Failure("\(walked) is \(value.kindDescription), which has no \"\(component)\"")
            }
        case .object(_, let className, let fields):
            if let list = elements(className, fields) {
                return list[try Extraction.index(component, count: list.count, walked: walked)]
            }
            if let entries = entries(className, fields) {
                for (key, value) in entries where try keyText(key) == component { return value }
                throw Karchive.Failure("\(walked) (\(className)) has no key \"\(component)\"")
            }
            let stored = component.hasPrefix("$") ? "$" + component : component
            guard let field = fields[stored] else {
                let names = fields.keys.filter { $0 != ArchiveFormat.classKey }.map { ArchiveFormat.unescape($0) ?? $0 }
                throw Karchive.Failure("\(walked) (\(className)) has no field \"\(component)\" (it has \(names.map { "\"\($0)\"" }.joined(separator: ", ")))")
            }
            return field
        }
    }

    /// The value behind `reference` as a plain property list.
    mutating func materialize(_ reference: PlistValue) throws -> PlistValue {
        written += 1
        guard written <= Extraction.maximumValues else {
            throw Karchive.Failure("the value expands to more than \(Extraction.maximumValues) values; extract a part of it")
        }
        switch try node(reference) {
        case .null: return .null
        case .inline(let value):
            switch value {
            case .array(let elements): return .array(try elements.map { try materialize($0) })
            case .dict(let dict):
                var out = PlistDictionary()
                for (key, element) in dict { out[key] = try materialize(element) }
                return .dict(out)
            default: return value
            }
        case .object(let uid, let className, let fields):
            if let value = try foundationValue(className, fields) { return value }
            guard path.insert(uid).inserted else { return .string("@\(uid)") }
            defer { path.remove(uid) }
            if let list = elements(className, fields) {
                return .array(try list.map { try materialize($0) })
            }
            if let entries = entries(className, fields) {
                var out = PlistDictionary()
                for (key, element) in entries { out[try keyText(key)] = try materialize(element) }
                return .dict(out)
            }
            var out = PlistDictionary()
            out["$class"] = .string(className)
            for (key, field) in fields where key != ArchiveFormat.classKey {
                // A nil field is left out, as a property list has no nil.
                if case .uid(0) = field { continue }
                out[ArchiveFormat.unescape(key) ?? key] = try materialize(field)
            }
            return .dict(out)
        }
    }

    /// Foundation value objects as their value, or nil for anything else.
    func foundationValue(_ className: String, _ fields: PlistDictionary) throws -> PlistValue? {
        func inline(_ key: String) throws -> PlistValue? { try resolvedInline(fields[key]) }
        switch className {
        case ArchiveFormat.dateClass:
            switch fields[ArchiveFormat.timeField] {
            case .real(let v)?: return .date(v)
            case .float(let v)?: return .date(Double(v))
            case .int(let v)?: return .date(Double(v))
            default: return nil
            }
        case ArchiveFormat.nullClass:
            return .null
        case ArchiveFormat.urlClass:
            guard case .string(let relative)? = try inline(ArchiveFormat.relativeField) else { return nil }
            if let base = fields[ArchiveFormat.baseField], case .object(_, _, let baseFields) = try node(base),
                case .string(let baseText)? = try resolvedInline(baseFields[ArchiveFormat.relativeField])
            {
                return .string(baseText.hasSuffix("/") || relative.hasPrefix("/") ? baseText + relative : baseText + "/" + relative)
            }
            return .string(relative)
        case ArchiveFormat.uuidClass:
            guard case .data(let bytes)? = try inline(ArchiveFormat.uuidBytesField), bytes.count == 16 else { return nil }
            let hex = bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16, uppercase: true) }
            return .string([hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-"))
        case let name where ArchiveFormat.stringClasses.contains(name):
            return try inline(ArchiveFormat.stringField)
        case let name where ArchiveFormat.dataClasses.contains(name):
            return try inline(ArchiveFormat.dataField)
        default:
            return nil
        }
    }
}
