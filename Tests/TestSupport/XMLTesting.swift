import Foundation
import PropertyList

extension PlistValue {
    /// The value as an XML property list holds it: 4-byte reals widened to 8 bytes, every NaN
    /// the one `nan` spells, dates rounded down to the second (those outside the years 1 to 9999,
    /// NaN and infinities made 0).
    public var xmlRepresentable: PlistValue {
        mapScalars { scalar in
            switch scalar {
            case .float(let f): return PlistValue.real(Double(f)).xmlRepresentable
            case .real(let v) where v.isNaN: return .real(.nan)
            case .date(let d):
                guard d.isFinite, d >= -63_113_904_000, d < 252_423_993_600 else { return .date(0) }
                return .date(d.rounded(.down) + 0)  // + 0 makes -0.0 the 0.0 that 2001-01-01T00:00:00Z reads as
            default: return scalar
            }
        }
    }

    /// UIDs as the one-entry dictionaries `{"CF$UID": n}` that spell them in XML: how Python's
    /// `plistlib` and other readers that do not know UIDs see them.
    public var uidsAsDictionaries: PlistValue {
        mapScalars { if case .uid(let n) = $0 { .dict(["CF$UID": .int(Int64(n))]) } else { $0 } }
    }

    /// Strings and keys with the characters XML 1.0 cannot hold (C0 controls other than tab and
    /// line feed, U+FFFE, U+FFFF) and carriage returns (which XML readers turn into line feeds)
    /// replaced by `?`: what any XML reader gives back exactly.
    public var xml10Text: PlistValue {
        func clean(_ text: String) -> String {
            var scalars = String.UnicodeScalarView()
            for scalar in text.unicodeScalars {
                let v = scalar.value
                let allowed = v == 0x09 || v == 0x0A || (v >= 0x20 && v != 0xFFFE && v != 0xFFFF)
                scalars.append(allowed ? scalar : "?")
            }
            return String(scalars)
        }
        switch self {
        case .string(let s): return .string(clean(s))
        case .array(let elements): return .array(elements.map(\.xml10Text))
        case .set(let elements): return .set(elements.map(\.xml10Text))
        case .dict(let dict):
            var cleaned = PlistDictionary()
            for (key, value) in dict where cleaned[clean(key)] == nil { cleaned[clean(key)] = value.xml10Text }
            return .dict(cleaned)
        default: return self
        }
    }

    /// Whether some dictionary holds two keys that Swift's `String` sees as equal ("é" and
    /// "e\u{301}"), which Foundation's dictionaries merge into one.
    public var hasCanonicallyEqualKeys: Bool {
        switch self {
        case .array(let elements), .set(let elements): return elements.contains { $0.hasCanonicallyEqualKeys }
        case .dict(let dict): return Set(dict.keys).count != dict.count || dict.values.contains { $0.hasCanonicallyEqualKeys }
        default: return false
        }
    }

    /// The value as Foundation's property-list classes hold it (UIDs as `{"CF$UID": n}`).
    public var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let v): v
        case .int(let v): NSNumber(value: v)
        case .uint(let v): NSNumber(value: v)
        case .real(let v): NSNumber(value: v)
        case .float(let v): NSNumber(value: v)
        case .date(let v): Date(timeIntervalSinceReferenceDate: v)
        case .data(let v): Data(v)
        case .string(let v): v
        case .uid(let v): ["CF$UID": NSNumber(value: v)] as [String: Any]
        case .array(let elements), .set(let elements): elements.map(\.foundationObject)
        case .dict(let dict):
            // NSString keys: a Swift dictionary would merge "é" and "e\u{301}".
            NSDictionary(objects: dict.values.map(\.foundationObject), forKeys: dict.keys.map { NSString(string: $0) })
        }
    }

    /// Where a Foundation property list (from `PropertyListSerialization`) differs from this value,
    /// as `path: what`, or nil when it holds exactly this value. Numbers, dates and data compare
    /// exactly, strings by their scalars; a UID must be a `CF$UID` dictionary or a UID object.
    public func foundationMismatch(_ object: Any, path: String = "root") -> String? {
        func differ(_ what: String) -> String { "\(path): \(what), Foundation has \(String(describing: object).prefix(80))" }
        switch self {
        case .bool(let v):
            return (object as? Bool) == v ? nil : differ("\(v)")
        case .int(let v): return (object as? NSNumber)?.int64Value == v ? nil : differ("integer \(v)")
        case .uint(let v): return (object as? NSNumber)?.uint64Value == v ? nil : differ("integer \(v)")
        case .real(let v):
            guard let n = (object as? NSNumber)?.doubleValue else { return differ("real \(v)") }
            return n.bitPattern == v.bitPattern || (n.isNaN && v.isNaN) ? nil : differ("real \(v)")
        case .float(let v): return PlistValue.real(Double(v)).foundationMismatch(object, path: path)
        case .date(let v): return (object as? Date)?.timeIntervalSinceReferenceDate == v ? nil : differ("date \(v)")
        case .data(let v): return (object as? Data).map { [UInt8]($0) } == v ? nil : differ("\(v.count) bytes of data")
        case .string(let v): return (object as? String).map { $0.unicodeScalars.elementsEqual(v.unicodeScalars) } == true ? nil : differ("\"\(v.prefix(40))\"")
        case .uid(let v):
            if let dict = object as? [String: Any], dict.count == 1, (dict["CF$UID"] as? NSNumber)?.uint64Value == v { return nil }
            // Foundation's own UID class shows no number: ask its binary writer what it holds.
            guard String(describing: type(of: object)).contains("UID"),
                let data = try? PropertyListSerialization.data(fromPropertyList: [object], format: .binary, options: 0),
                let read = try? BPlistReader().read(data)
            else { return differ("UID \(v)") }
            return read == .array([.uid(v)]) ? nil : differ("UID \(v)")
        case .array(let elements), .set(let elements):
            guard let array = object as? [Any] else { return differ("an array") }
            guard array.count == elements.count else { return differ("\(elements.count) elements") }
            for (i, (element, other)) in zip(elements, array).enumerated() {
                if let mismatch = element.foundationMismatch(other, path: "\(path)[\(i)]") { return mismatch }
            }
            return nil
        case .dict(let dict):
            // Keys by their exact scalars: a Swift dictionary would merge "é" and "e\u{301}".
            guard let foundation = object as? NSDictionary else { return differ("a dictionary") }
            var byScalars: [[UInt32]: Any] = [:]
            for (key, value) in foundation {
                guard let key = key as? String else { return differ("string keys") }
                byScalars[key.unicodeScalars.map(\.value)] = value
            }
            guard byScalars.count == dict.count else { return differ("\(dict.count) keys") }
            for (key, value) in dict {
                guard let other = byScalars[key.unicodeScalars.map(\.value)] else { return differ("the key \"\(key)\"") }
                if let mismatch = value.foundationMismatch(other, path: "\(path).\(key)") { return mismatch }
            }
            return nil
        case .null: return object is NSNull ? nil : differ("null")
        }
    }
}
