import Foundation
import PropertyList

/// The text formats of `plutil`'s spellings: `-p`, JSON, `raw`, `-type`, and Swift and
/// Objective-C literals, each laid out as swift-corelibs-foundation's `plutil` lays it out.
///
/// Where karchive deliberately prints something else (UIDs, data in `-p`, JSON key order), the
/// difference is listed in `Docs/karchive-plutil.md` and in ``Plutil``.
enum PlutilText {
    /// Why a value cannot be written in a format; the message `plutil` prints, or for UIDs and
    /// nulls karchive's own.
    struct Refusal: Error {
        let message: String
    }

    // MARK: - Key order

    /// `plutil`'s key order (`-p`, `-r` JSON, `raw` keys, literals): case-insensitive, digit
    /// runs by their numeric value, punctuation before digits before letters in the order of the
    /// Unicode root collation; ties broken by accents (unaccented first), then case (lower case
    /// first), then the code points.
    static func sortedKeys(_ keys: [String]) -> [String] {
        guard keys.count > 1 else { return keys }
        return keys.map { (key: $0, collation: CollationKey($0)) }.sorted { $0.collation < $1.collation }.map(\.key)
    }

    private struct CollationKey: Comparable {
        /// One unit of the primary comparison: a digit run by value, or one character's weight.
        enum Unit: Comparable {
            case character(UInt32)
            case number(digits: String)

            static func < (a: Unit, b: Unit) -> Bool {
                switch (a, b) {
                case (.character(let x), .character(let y)): return x < y
                case (.number(let x), .number(let y)): return x.count != y.count ? x.count < y.count : x < y
                // Digits sort after punctuation and before letters.
                case (.character(let x), .number): return x < CollationKey.digitWeight
                case (.number, .character(let y)): return CollationKey.digitWeight < y
                }
            }
        }

        static let punctuation = Array("\t\n\u{0B}\u{0C}\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$".unicodeScalars)
        static let digitWeight: UInt32 = 1_000
        let primary: [Unit]
        let accents: [UInt32]
        let caseOrder: [UInt32]
        let scalars: [UInt32]

        init(_ key: String) {
            // ASCII folds by lower-casing; anything else also loses its accents.
            let folded =
                key.utf8.allSatisfy { $0 < 0x80 } ? key.lowercased() : key.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
            var units: [Unit] = []
            var digits = ""
            for scalar in folded.unicodeScalars {
                if ("0"..."9").contains(scalar) {
                    digits.unicodeScalars.append(scalar)
                    continue
                }
                if !digits.isEmpty {
                    units.append(.number(digits: Self.trimmingZeros(digits)))
                    digits = ""
                }
                if let position = Self.punctuation.firstIndex(of: scalar) {
                    units.append(.character(UInt32(position)))
                } else {
                    units.append(.character(Self.digitWeight + 1 + scalar.value))
                }
            }
            if !digits.isEmpty { units.append(.number(digits: Self.trimmingZeros(digits))) }
            primary = units
            accents = key.lowercased().unicodeScalars.map(\.value)
            // Lower case first: swap the case so that the lower-case letter has the smaller code.
            caseOrder = key.unicodeScalars.map { scalar in
                let text = String(scalar)
                return (text.lowercased() == text ? text.uppercased() : text.lowercased()).unicodeScalars.first?.value ?? scalar.value
            }
            scalars = key.unicodeScalars.map(\.value)
        }

        private static func trimmingZeros(_ digits: String) -> String {
            let trimmed = digits.drop { $0 == "0" }
            return trimmed.isEmpty ? "0" : String(trimmed)
        }

        static func < (a: CollationKey, b: CollationKey) -> Bool {
            if a.primary != b.primary { return a.primary.lexicographicallyPrecedes(b.primary) }
            if a.accents != b.accents { return a.accents.lexicographicallyPrecedes(b.accents) }
            if a.caseOrder != b.caseOrder { return a.caseOrder.lexicographicallyPrecedes(b.caseOrder) }
            return a.scalars.lexicographicallyPrecedes(b.scalars)
        }
    }

    // MARK: - -type and -expect

    /// The type name `-type` prints and `-expect` takes: `bool`, `integer`, `float`, `string`,
    /// `date`, `data`, `dictionary`, `array`; `uid` for a UID (`plutil` refuses UIDs).
    static func typeName(of value: PlistValue) -> String {
        switch value {
        case .bool: "bool"
        case .int, .uint: "integer"
        case .real, .float: "float"
        case .string: "string"
        case .date: "date"
        case .data: "data"
        case .dict: "dictionary"
        case .array, .set: "array"
        case .uid: "uid"
        case .null: "(any)"
        }
    }

    /// The type names `-expect` accepts.
    static let expectTypes: Set<String> = ["bool", "integer", "float", "string", "date", "data", "dictionary", "array"]

    /// Refuses a null anywhere in `value`: no output format holds one (it comes from a JSON `null`).
    static func refuseNull(in value: PlistValue) throws(Refusal) {
        switch value {
        case .null: throw Refusal(message: "A null (from JSON null) has no place in a property list")
        case .array(let elements), .set(let elements): for element in elements { try refuseNull(in: element) }
        case .dict(let dict): for element in dict.values { try refuseNull(in: element) }
        default: break
        }
    }

    // MARK: - -p

    /// The `-p` tree: `"key" => value`, `index => value`, two spaces a level, keys in ``sortedKeys(_:)`` order.
    static func printed(_ value: PlistValue) -> String {
        var out = ""
        appendPrinted(value, indent: 2, into: &out)
        return out
    }

    private static func appendPrinted(_ value: PlistValue, indent: Int, into out: inout String) {
        let inner = String(repeating: " ", count: indent)
        let outer = String(repeating: " ", count: indent - 2)
        switch value {
        case .dict(let dict):
            out += "{\n"
            for key in sortedKeys(dict.keys) {
                out += inner + "\"\(key)\" => "
                appendPrinted(dict[key] ?? .null, indent: indent + 2, into: &out)
            }
            out += outer + "}\n"
        case .array(let elements), .set(let elements):
            out += "[\n"
            for (index, element) in elements.enumerated() {
                out += inner + "\(index) => "
                appendPrinted(element, indent: indent + 2, into: &out)
            }
            out += outer + "]\n"
        case .string(let s): out += "\"\(s)\"\n"
        case .data(let bytes): out += dataDescription(bytes) + "\n"
        case .date(let seconds): out += dateDescription(seconds) + "\n"
        case .bool(let b): out += "\(b)\n"
        case .int(let v): out += "\(v)\n"
        case .uint(let v): out += "\(v)\n"
        case .real(let v): out += "\(v)\n"
        case .float(let v): out += "\(v)\n"
        case .uid(let v): out += "<UID \(v)>\n"
        case .null: out += "<null>\n"
        }
    }

    /// `{length = 3, bytes = 0x3ff00a}`: two hex digits a byte; above 24 bytes the first eight,
    /// `...` and the last eight.
    static func dataDescription(_ bytes: [UInt8]) -> String {
        func hex(_ slice: ArraySlice<UInt8>) -> String {
            slice.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        let shown = bytes.count > 24 ? hex(bytes.prefix(8)) + "... " + hex(bytes.suffix(8)) : hex(bytes[...])
        return "{length = \(bytes.count), bytes = 0x\(shown)}"
    }

    /// `2023-03-08 20:26:40 +0000`, whole seconds (as `Date.description`).
    static func dateDescription(_ seconds: Double) -> String {
        guard let iso = ISO8601.string(secondsSinceReferenceDate: seconds.rounded(.down)) else { return "\(seconds)" }
        return iso.dropLast().replacingOccurrences(of: "T", with: " ") + " +0000"
    }

    /// `2020-01-02T03:04:05Z`, whole seconds (as `Date.ISO8601FormatStyle`).
    static func isoDate(_ seconds: Double) -> String {
        ISO8601.string(secondsSinceReferenceDate: seconds.rounded(.down)) ?? "\(seconds)"
    }

    // MARK: - raw

    /// `-extract … raw`: a scalar's text, an array's count, a dictionary's keys one a line.
    static func raw(_ value: PlistValue) throws(Refusal) -> String {
        switch value {
        case .bool(let b): return b ? "true" : "false"
        case .int(let v): return String(v)
        case .uint(let v): return String(v)
        case .real(let v): return String(format: "%f", v)
        case .float(let v): return String(format: "%f", Double(v))
        case .string(let s): return s
        case .date(let seconds): return isoDate(seconds)
        case .data(let bytes): return Base64.encode(bytes)
        case .array(let elements), .set(let elements): return String(elements.count)
        case .dict(let dict): return sortedKeys(dict.keys).joined(separator: "\n")
        case .uid(let v): return String(v)
        case .null: throw Refusal(message: "A null (from JSON null) has no place in a property list")
        }
    }

    // MARK: - JSON

    /// JSON as `JSONSerialization` writes it: compact, or with `readable` two spaces a level and
    /// `" : "`; `/` escaped; no newline at the end. Keys always in ``sortedKeys(_:)`` order.
    ///
    /// - Throws: ``Refusal`` for data, dates, UIDs, NaN and infinities, or a scalar at the top.
    static func json(_ value: PlistValue, readable: Bool) throws(Refusal) -> String {
        switch value {
        case .array, .set, .dict: break
        default: throw Refusal(message: "Invalid object in plist for JSON format")
        }
        var out = ""
        try appendJSON(value, level: 0, readable: readable, into: &out)
        return out
    }

    private static func appendJSON(_ value: PlistValue, level: Int, readable: Bool, into out: inout String) throws(Refusal) {
        let inner = readable ? "\n" + String(repeating: "  ", count: level + 1) : ""
        let outer = readable ? "\n" + String(repeating: "  ", count: level) : ""
        switch value {
        case .dict(let dict):
            guard !dict.isEmpty else {
                out += readable ? "{\n" + outer + "}" : "{}"
                return
            }
            out += "{"
            for (position, key) in sortedKeys(dict.keys).enumerated() {
                out += (position == 0 ? "" : ",") + inner
                appendJSONString(key, into: &out)
                out += readable ? " : " : ":"
                try appendJSON(dict[key] ?? .null, level: level + 1, readable: readable, into: &out)
            }
            out += outer + "}"
        case .array(let elements), .set(let elements):
            guard !elements.isEmpty else {
                out += readable ? "[\n" + outer + "]" : "[]"
                return
            }
            out += "["
            for (position, element) in elements.enumerated() {
                out += (position == 0 ? "" : ",") + inner
                try appendJSON(element, level: level + 1, readable: readable, into: &out)
            }
            out += outer + "]"
        case .string(let s): appendJSONString(s, into: &out)
        case .bool(let b): out += b ? "true" : "false"
        case .int(let v): out += String(v)
        case .uint(let v): out += String(v)
        case .real(let v): out += try jsonNumber(v)
        case .float(let v): out += try jsonNumber(Double(v))
        case .date, .data, .uid, .null: throw Refusal(message: "Invalid object in plist for JSON format")
        }
    }

    /// The shortest digits that read back as `v`, without a trailing `.0` (`100`, `1e+16`, `-0`).
    private static func jsonNumber(_ v: Double) throws(Refusal) -> String {
        guard v.isFinite else { throw Refusal(message: "Invalid object in plist for JSON format") }
        let text = v.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    private static func appendJSONString(_ string: String, into out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/": out += "\\/"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    // MARK: - Swift and Objective-C literals

    /// The variable a literal is assigned to: the file's name without its extension, `-` and
    /// spaces made `_`, symbols and control characters dropped.
    static func variableName(forFile path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var stem = name
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { stem = String(name[..<dot]) }
        stem = stem.replacingOccurrences(of: "-", with: "_").replacingOccurrences(of: " ", with: "_")
        let dropped = CharacterSet.symbols.union(.controlCharacters)
        return String(String.UnicodeScalarView(stem.unicodeScalars.filter { !dropped.contains($0) }))
    }

    /// `plutil`'s escaping in literals: a backslash before `"` and before the regex-looking pairs
    /// `\b \s \w \. \| \* \) \(`; other backslashes stay as they are.
    private static func escapedForLiteral(_ string: String) -> String {
        var result = string
        for escape in ["\\b", "\\s", "\"", "\\w", "\\.", "\\|", "\\*", "\\)", "\\("] {
            result = result.replacingOccurrences(of: escape, with: "\\" + escape)
        }
        return result
    }

    private static func literalNumber(_ value: PlistValue, objC: Bool) -> String? {
        let text: String
        switch value {
        case .bool(let b): text = objC ? (b ? "YES" : "NO") : (b ? "true" : "false")
        case .int(let v): text = String(v)
        case .uint(let v): text = String(v)
        case .real(let v): text = String(format: "%f", v)
        case .float(let v): text = String(format: "%f", Double(v))
        default: return nil
        }
        return objC ? "@" + text : text
    }

    /// `-convert swift`: `/// Generated from NAME` then `let NAME = [ … ]` (or a single value), with
    /// `: [String : Any]` (or `: [Any]`) when the values of the collection are of different types.
    static func swiftLiteral(_ value: PlistValue, sourcePath: String) throws(Refusal) -> String {
        let elements: [PlistValue]
        let annotation: String
        switch value {
        case .dict(let dict): (elements, annotation) = (dict.values, " : [String : Any]")
        case .array(let list), .set(let list): (elements, annotation) = (list, " : [Any]")
        default: (elements, annotation) = ([], "")
        }
        try refuseUnsupported(value, objC: false)
        let mixed = Set(elements.map(typeName(of:))).count > 1
        var out = "/// Generated from \(fileName(sourcePath))\nlet \(variableName(forFile: sourcePath))\(mixed ? annotation : "") = "
        appendLiteral(value, objC: false, depth: 0, indent: true, into: &out)
        return out + "\n"
    }

    /// Appends `value` as a Swift (`objC` false) or Objective-C literal, one element or entry
    /// a line, indented four spaces a level, keys in ``sortedKeys(_:)``'s order.
    private static func appendLiteral(_ value: PlistValue, objC: Bool, depth: Int, indent: Bool, into out: inout String) {
        if indent { out += String(repeating: "    ", count: depth) }
        let closing = String(repeating: "    ", count: depth)
        let quote = objC ? "@\"" : "\""
        switch value {
        case .string(let s):
            let escaped = escapedForLiteral(s)
            out += quote + (objC ? escaped : escaped.replacingOccurrences(of: "\n", with: "\\n")) + "\""
        case .array(let elements), .set(let elements):
            out += objC ? "@[\n" : "[\n"
            for element in elements {
                appendLiteral(element, objC: objC, depth: depth + 1, indent: true, into: &out)
                out += ",\n"
            }
            out += closing + "]"
        case .dict(let dict):
            out += objC ? "@{\n" : "[\n"
            for key in sortedKeys(dict.keys) {
                out += String(repeating: "    ", count: depth + 1) + quote + "\(key)\" : "
                appendLiteral(dict[key] ?? .null, objC: objC, depth: depth + 1, indent: false, into: &out)
                out += ",\n"
            }
            out += closing + (objC ? "}" : "]")
        case .data(let bytes) where !objC: out += "Data(bytes: [" + bytes.map { String(format: "0x%02X,", $0) }.joined() + "])"
        case .date(let seconds) where !objC: out += "Date(timeIntervalSinceReferenceDate: \(seconds))"
        default: out += literalNumber(value, objC: objC) ?? ""
        }
    }

    /// `-convert objc`: `/// Generated from NAME`, the hidden-visibility attribute, then
    /// `NSDictionary * const NAME = @{ … };`, preceded by `#import "OUT.h"` when written to a file.
    static func objCLiteral(_ value: PlistValue, sourcePath: String, outputPath: String) throws(Refusal) -> String {
        try refuseUnsupported(value, objC: true)
        var out = objCDeclaration(value, header: false, sourcePath: sourcePath, outputPath: outputPath) + " = "
        appendLiteral(value, objC: true, depth: 0, indent: true, into: &out)
        return out + ";\n"
    }

    /// The `-header` file of `-convert objc`: the declaration, `extern`.
    static func objCHeader(_ value: PlistValue, sourcePath: String, outputPath: String) -> String {
        objCDeclaration(value, header: true, sourcePath: sourcePath, outputPath: outputPath) + ";\n"
    }

    private static func objCDeclaration(_ value: PlistValue, header: Bool, sourcePath: String, outputPath: String) -> String {
        let className: String
        switch value {
        case .string: className = "NSString"
        case .array, .set: className = "NSArray"
        case .dict: className = "NSDictionary"
        default: className = "NSNumber"
        }
        var out = ""
        if header {
            out += "#import <Foundation/Foundation.h>\n\n"
        } else if outputPath != "-" {
            out += "#import \"\(variableStem(outputPath)).h\"\n\n"
        }
        out += "/// Generated from \(fileName(sourcePath))\n__attribute__((visibility(\"hidden\")))\n"
        if header { out += "extern " }
        return out + "\(className) * const \(variableName(forFile: sourcePath))"
    }

    /// Refuses what a literal cannot hold: UIDs and nulls, and in Objective-C also data and dates.
    private static func refuseUnsupported(_ value: PlistValue, objC: Bool) throws(Refusal) {
        let language = objC ? "Obj-C" : "Swift"
        switch value {
        case .uid, .null: throw Refusal(message: "Input contains an object that cannot be represented in \(language) literal syntax")
        case .data where objC, .date where objC: throw Refusal(message: "Input contains an object that cannot be represented in \(language) literal syntax")
        case .real(let v) where !v.isFinite: return
        case .array(let elements), .set(let elements): for element in elements { try refuseUnsupported(element, objC: objC) }
        case .dict(let dict): for element in dict.values { try refuseUnsupported(element, objC: objC) }
        default: return
        }
    }

    /// The last path component (`-` for standard input).
    static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    private static func variableStem(_ path: String) -> String {
        let name = fileName(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}
