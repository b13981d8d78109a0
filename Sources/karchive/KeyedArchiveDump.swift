import KeyedArchive
import PropertyList

/// `karchive dump` of a keyed archive: the object graph from `$top`, UIDs resolved.
///
/// Every coded object is shown once, labelled with its UID (`@7 MyApp.User`); a later reference
/// to it, shared or cyclic, prints only `@7`. Arrays, dictionaries and sets show their elements,
/// Foundation values (dates, URLs, UUIDs, null, mutable strings and data) show their value, and
/// plain values referenced by UID are shown in place.
struct KeyedArchiveDump: DumpRenderer {
    let archive: KeyedArchiveShape

    init(_ archive: KeyedArchiveShape) { self.archive = archive }

    func render(_ root: PlistValue) -> String {
        var out = "keyed archive (\(archive.archiver) \(archive.version)), \(archive.objects.count) objects\n"
        var state = State()
        for (key, value) in archive.top {
            write(value, label: PlainTreeDump.bareOrQuoted(key), depth: 0, state: &state, into: &out)
        }
        return out
    }

    private struct State {
        var shown: Set<Int> = []
        /// Lines written; the dump stops growing past a bound so hostile archives stay readable.
        var lines = 0
    }

    private static let maximumLines = 1_000_000
    private static let maximumDepth = 512

    private func write(_ value: PlistValue, label: String, depth: Int, state: inout State, into out: inout String) {
        let indent = String(repeating: "  ", count: depth)
        state.lines += 1
        guard state.lines <= Self.maximumLines else {
            if state.lines == Self.maximumLines + 1 { out += indent + "… (output cut at \(Self.maximumLines) lines)\n" }
            return
        }
        guard depth < Self.maximumDepth else {
            out += indent + label + ": … (nested too deep)\n"
            return
        }
        guard case .uid(let raw) = value else {
            out += indent + label + ": " + scalar(value) + "\n"
            return
        }
        guard raw < UInt64(archive.objects.count) else {
            out += indent + label + ": UID(\(raw)) out of range\n"
            return
        }
        let uid = Int(raw)
        if uid == 0 {
            out += indent + label + ": nil\n"
            return
        }
        let object = archive.objects[uid]
        guard case .dict(let dict) = object, dict[ArchiveFormat.classKey] != nil else {
            out += indent + label + ": " + scalar(object) + "\n"
            return
        }
        let className: String
        switch archive.className(ofObjectAt: uid) {
        case .success(let name)?: className = name
        case .failure(let problem)?: className = "<\(problem.reason)>"
        case nil: className = "?"
        }
        if let inline = foundationValue(className, dict) {
            out += indent + label + ": " + inline + "\n"
            return
        }
        guard state.shown.insert(uid).inserted else {
            out += indent + label + ": @\(uid)\n"
            return
        }
        switch className {
        case let name where ArchiveFormat.arrayClasses.contains(name) || ArchiveFormat.setClasses.contains(name):
            let elements = dict[ArchiveFormat.objectsField]?.arrayValue ?? []
            out += indent + label + ": @\(uid) \(className) (\(elements.count))\n"
            for (i, element) in elements.enumerated() {
                write(element, label: "[\(i)]", depth: depth + 1, state: &state, into: &out)
            }
        case let name where ArchiveFormat.dictionaryClasses.contains(name):
            let keys = dict[ArchiveFormat.keysField]?.arrayValue ?? []
            let values = dict[ArchiveFormat.objectsField]?.arrayValue ?? []
            out += indent + label + ": @\(uid) \(className) (\(keys.count))\n"
            for (key, element) in zip(keys, values) {
                write(element, label: keyLabel(key), depth: depth + 1, state: &state, into: &out)
            }
        default:
            // The version the type was archived at, when it is not 0.
            let version = archive.classVersion(ofObjectAt: uid).map { value in
                if case .int(let number) = value { return " v\(number)" }
                return " v<\(value.kindDescription)>"
            }
            out += indent + label + ": @\(uid) \(className)\(version ?? "")\n"
            for (key, field) in dict where key != ArchiveFormat.classKey {
                let shown = ArchiveFormat.unescape(key) ?? key
                write(field, label: PlainTreeDump.bareOrQuoted(shown), depth: depth + 1, state: &state, into: &out)
            }
        }
    }

    /// A dictionary key shown as its scalar value.
    private func keyLabel(_ key: PlistValue) -> String {
        if case .uid(let raw) = key, raw > 0, raw < UInt64(archive.objects.count) {
            let target = archive.objects[Int(raw)]
            if case .string(let s) = target { return PlainTreeDump.bareOrQuoted(s) }
            return "[" + scalar(target) + "]"
        }
        return "[" + scalar(key) + "]"
    }

    /// Foundation value objects shown on one line, or nil for anything else.
    private func foundationValue(_ className: String, _ dict: PlistDictionary) -> String? {
        func resolved(_ key: String) -> PlistValue? {
            guard let value = dict[key] else { return nil }
            if case .uid(let raw) = value, raw < UInt64(archive.objects.count) { return archive.objects[Int(raw)] }
            return value
        }
        switch className {
        case ArchiveFormat.dateClass:
            guard let time = dict[ArchiveFormat.timeField] else { return nil }
            let seconds: Double
            switch time {
            case .real(let v): seconds = v
            case .float(let v): seconds = Double(v)
            case .int(let v): seconds = Double(v)
            default: return nil
            }
            return ArchiveFormat.dateClass + " " + (ISO8601.string(secondsSinceReferenceDate: seconds) ?? "\(seconds)")
        case ArchiveFormat.urlClass:
            guard case .string(let relative)? = resolved(ArchiveFormat.relativeField) else { return nil }
            var text = ArchiveFormat.urlClass + " " + PlainTreeDump.quoted(relative)
            if case .dict(let base)? = resolved(ArchiveFormat.baseField), case .uid(let r)? = base[ArchiveFormat.relativeField], r < UInt64(archive.objects.count),
                case .string(let baseText) = archive.objects[Int(r)]
            {
                text += " relative to " + PlainTreeDump.quoted(baseText)
            }
            return text
        case ArchiveFormat.uuidClass:
            guard case .data(let bytes)? = resolved(ArchiveFormat.uuidBytesField), bytes.count == 16 else { return nil }
            let hex = bytes.map { $0 < 0x10 ? "0" + String($0, radix: 16, uppercase: true) : String($0, radix: 16, uppercase: true) }
            let groups = [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }
            return ArchiveFormat.uuidClass + " " + groups.joined(separator: "-")
        case ArchiveFormat.nullClass:
            return ArchiveFormat.nullClass
        case let name where ArchiveFormat.stringClasses.contains(name):
            guard case .string(let s)? = resolved(ArchiveFormat.stringField) else { return nil }
            return className + " " + PlainTreeDump.quoted(s)
        case let name where ArchiveFormat.dataClasses.contains(name):
            guard let data = resolved(ArchiveFormat.dataField) else { return nil }
            return className + " " + scalar(data)
        default:
            return nil
        }
    }

    private func scalar(_ value: PlistValue) -> String {
        switch value {
        case .string(let s): PlainTreeDump.quoted(s)
        case .int(let v): String(v)
        case .uint(let v): String(v)
        case .real(let v): String(v)
        case .float(let v): String(v)
        case .bool(let v): String(v)
        default: PlainTreeDump().line(for: value)
        }
    }
}
