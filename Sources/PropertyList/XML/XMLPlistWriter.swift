#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes a ``PlistValue`` as an XML property list laid out as Apple's writer lays it out.
///
/// The output is what CoreFoundation writes for the same value: the XML declaration, the
/// `-//Apple//DTD PLIST 1.0//EN` document type, one element per line indented with tabs,
/// `<array/>` and `<dict/>` for empty containers, dictionary keys in sorted order, `<data>` as
/// base64 lines of at most 76 columns counting a tab as 8, reals with 17 significant digits
/// (`0.10000000000000001`, `60`, `nan`, `+infinity`), and dates as `2001-01-01T00:00:00Z`.
/// The same value always gives the same bytes; Foundation's `PropertyListSerialization` and
/// Python's `plistlib` read them back.
///
/// Where Apple's writer would lose information this one does not: `-0.0` is written `-0.0`
/// (not `0.0`), and a carriage return in a string as `&#13;`, which XML readers keep (a raw
/// one is read as a line feed). What XML cannot hold is refused or changed, as by every writer
/// of the format: `.null` and `.set` are refused, a ``PlistValue/float(_:)`` is written as the
/// 8-byte real of the same value, and a date is written to the whole second (rounded down).
/// A ``PlistValue/uid(_:)`` is written as the dictionary `{"CF$UID": <integer>}`, as Apple
/// writes it in XML keyed archives.
///
/// ```swift
/// let bytes = try XMLPlistWriter().write(["name": "Ann", "tags": ["a", "b"]])
/// print(String(decoding: bytes, as: UTF8.self))
/// ```
public struct XMLPlistWriter: Sendable {
    /// Choices in the layout.
    public struct Options: Sendable, Hashable {
        /// Writes each dictionary's keys in sorted order (by UTF-16 code units, as Apple's
        /// writer sorts them) rather than in the dictionary's own order. Default true.
        public var sortsKeys = true

        /// The default layout: Apple's.
        public init() {}
    }

    /// The layout this writer writes.
    public var options: Options

    /// A writer with the given layout.
    ///
    /// - Parameter options: The layout; Apple's (``Options/init()``) when omitted.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Encodes `value`.
    ///
    /// - Parameter value: The value the `<plist>` element holds.
    /// - Returns: The whole file, in UTF-8, ending with a newline.
    /// - Throws: ``ArchiveError`` `.unencodable` for what XML property lists cannot hold: `.null`,
    ///   `.set`, UIDs of 2^32 or more, NaN or infinite dates and dates outside the years 1 to
    ///   9999; `.depthLimit` for a value nested too deep for the thread's stack.
    public func write(_ value: PlistValue) throws(ArchiveError) -> [UInt8] {
        var emitter = XMLPlistEmitter(sortsKeys: options.sortsKeys)
        emitter.output.append(contentsOf: XMLPlistEmitter.header)
        try emitter.emit(value, level: 0, path: "root")
        emitter.output.append(contentsOf: "</plist>\n".utf8)
        return emitter.output
    }
}

extension XMLPlistWriter {
    /// Writes the object `top` of a writer's table, and everything it references, as an XML
    /// property list: the XML of the value its `bplist00` file would hold, written without
    /// writing that file. A trailing UID is a `CF$UID` dictionary, an object referenced twice is
    /// written twice, as XML spells values.
    ///
    /// - Throws: As ``write(_:)`` throws.
    package func write(_ table: BPlistTable, top: Int = 0) throws(ArchiveError) -> [UInt8] {
        var emitter = XMLPlistEmitter(sortsKeys: options.sortsKeys)
        emitter.output.append(contentsOf: XMLPlistEmitter.header)
        try emitter.emit(table, reference: .object(top), level: 0, path: "root")
        emitter.output.append(contentsOf: "</plist>\n".utf8)
        return emitter.output
    }
}

extension XMLPlistEmitter {
    mutating func emit(
        _ table: BPlistTable, reference: BPlistTable.Reference, level: Int, path: @autoclosure () -> String
    ) throws(ArchiveError) {
        guard case .object(let index) = reference else {
            if case .uid(let value) = reference { try emit(.uid(value), level: level, path: path()) }
            return
        }
        guard let (isDictionary, references) = table.references(of: index) else {
            try emit(table.scalarValue(at: index), level: level, path: path())
            return
        }
        indent(level)
        if references.isEmpty {
            append(isDictionary ? "<dict/>\n" : "<array/>\n")
            return
        }
        try checkStack(path())
        guard isDictionary else {
            append("<array>\n")
            for (i, element) in references.enumerated() {
                try emit(table, reference: element, level: level + 1, path: path() + "[\(i)]")
            }
            indent(level)
            append("</array>\n")
            return
        }
        append("<dict>\n")
        let count = references.count / 2
        let keys = references[..<count].map { key -> String in
            guard case .object(let index) = key, case .string(let text) = table.scalarValue(at: index) else { return "" }
            return text
        }
        let order = sortsKeys ? KeyOrder.sorted(keys) : nil
        for k in 0..<count {
            let i = order?[k] ?? k
            indent(level + 1)
            append("<key>")
            appendEscaped(keys[i])
            append("</key>\n")
            try emit(table, reference: references[count + i], level: level + 1, path: path() + "." + keys[i])
        }
        indent(level)
        append("</dict>\n")
    }
}

/// The state of one XML write: the output so far.
struct XMLPlistEmitter {
    static let header: [UInt8] = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """.utf8)

    let sortsKeys: Bool
    var output: [UInt8] = []
    /// Where a real is formatted (by the C library) before its text is appended.
    private var realText = [CChar](repeating: 0, count: 32)
    private let stack = StackGuard()

    init(sortsKeys: Bool) {
        self.sortsKeys = sortsKeys
        output.reserveCapacity(4096)
    }

    mutating func emit(_ value: PlistValue, level: Int, path: @autoclosure () -> String) throws(ArchiveError) {
        indent(level)
        switch value {
        case .null:
            throw ArchiveError(
                .unencodable, reason: "XML property lists have no null; leave the key out instead", keyPath: path())
        case .set:
            throw ArchiveError(.unencodable, reason: "XML property lists have no sets; write an array", keyPath: path())
        case .bool(let v):
            append(v ? "<true/>\n" : "<false/>\n")
        case .int(let v):
            append("<integer>")
            appendDecimal(magnitude: v.magnitude, negative: v < 0)
            append("</integer>\n")
        case .uint(let v):
            append("<integer>")
            appendDecimal(magnitude: v, negative: false)
            append("</integer>\n")
        case .real(let v):
            append("<real>")
            appendReal(v)
            append("</real>\n")
        case .float(let v):
            append("<real>")
            appendReal(Double(v))
            append("</real>\n")
        case .date(let v):
            append("<date>")
            try appendDate(v, path: path())
            append("</date>\n")
        case .data(let bytes):
            append("<data>\n")
            let lineLength = max(16, 76 - 8 * level)
            Base64.appendLines(of: bytes, lineLength: lineLength, indent: level, to: &output)
            indent(level)
            append("</data>\n")
        case .string(let s):
            append("<string>")
            appendEscaped(s)
            append("</string>\n")
        case .uid(let v):
            guard v <= UInt64(UInt32.max) else {
                throw ArchiveError(
                    .unencodable, reason: "UID \(v) is 2^32 or more; Apple's readers hold UIDs in 32 bits", keyPath: path())
            }
            append("<dict>\n")
            indent(level + 1)
            append("<key>CF$UID</key>\n")
            indent(level + 1)
            append("<integer>")
            appendDecimal(magnitude: v, negative: false)
            append("</integer>\n")
            indent(level)
            append("</dict>\n")
        case .array(let elements):
            if elements.isEmpty {
                append("<array/>\n")
                return
            }
            try checkStack(path())
            append("<array>\n")
            for (i, element) in elements.enumerated() {
                try emit(element, level: level + 1, path: path() + "[\(i)]")
            }
            indent(level)
            append("</array>\n")
        case .dict(let dict):
            if dict.isEmpty {
                append("<dict/>\n")
                return
            }
            try checkStack(path())
            append("<dict>\n")
            let keys = dict.keys
            let values = dict.values
            let order = sortsKeys ? KeyOrder.sorted(keys) : nil
            for k in 0..<keys.count {
                let i = order?[k] ?? k
                indent(level + 1)
                append("<key>")
                appendEscaped(keys[i])
                append("</key>\n")
                try emit(values[i], level: level + 1, path: path() + "." + keys[i])
            }
            indent(level)
            append("</dict>\n")
        }
    }

    private func checkStack(_ path: @autoclosure () -> String) throws(ArchiveError) {
        guard stack.hasRoom() else {
            throw ArchiveError(.depthLimit, reason: "the value is nested too deep for this thread's stack", keyPath: path())
        }
    }

    @inline(__always) private mutating func indent(_ level: Int) {
        for _ in 0..<level { output.append(0x09) }
    }

    @inline(__always) private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { output.append(contentsOf: $0) }
    }

    /// The text with `<`, `>` and `&` as entities and a carriage return as `&#13;`.
    private mutating func appendEscaped(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for (i, byte) in bytes.enumerated() {
                let entity: StaticString
                switch byte {
                case UInt8(ascii: "<"): entity = "&lt;"
                case UInt8(ascii: ">"): entity = "&gt;"
                case UInt8(ascii: "&"): entity = "&amp;"
                case 0x0D: entity = "&#13;"
                default: continue
                }
                output.append(contentsOf: bytes.extracting(runStart..<i))
                append(entity)
                runStart = i + 1
            }
            output.append(contentsOf: bytes.extracting(runStart...))
        }
    }

    private mutating func appendDecimal(magnitude: UInt64, negative: Bool) {
        if negative { output.append(UInt8(ascii: "-")) }
        // The digits are appended last first, then put in order where they lie.
        let start = output.count
        var n = magnitude
        repeat {
            output.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: n % 10))
            n /= 10
        } while n > 0
        var low = start, high = output.count - 1
        while low < high {
            output.swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    /// `%.17g` as CoreFoundation writes reals, with `nan`, `+infinity`, `-infinity`, `0.0` and `-0.0`.
    private mutating func appendReal(_ value: Double) {
        if value.isNaN { return append("nan") }
        if value.isInfinite { return append(value > 0 ? "+infinity" : "-infinity") }
        if value == 0 { return append(value.sign == .minus ? "-0.0" : "0.0") }
        if value == value.rounded(.towardZero), value.magnitude < 9_007_199_254_740_992 {  // 2^53: exact, as %.17g prints it
            return appendDecimal(magnitude: UInt64(value.magnitude), negative: value < 0)
        }
        // %.17g is at most 24 characters ("-1.2345678901234567e-308"); the buffer is the
        // emitter's, made once per write.
        let count = withVaList([value]) { vsnprintf(&realText, realText.count, "%.17g", $0) }
        // Whatever the C locale's decimal point is, a property list's is ".".
        var wroteDot = false
        for i in 0..<min(Int(max(count, 0)), realText.count - 1) {
            let byte = UInt8(bitPattern: realText[i])
            if Self.isNumberByte(byte) {
                output.append(byte)
            } else if !wroteDot {
                output.append(UInt8(ascii: "."))
                wroteDot = true
            }
        }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "e")
    }

    /// `YYYY-MM-DDThh:mm:ssZ`, rounded down to the second.
    private mutating func appendDate(_ seconds: Double, path: @autoclosure () -> String) throws(ArchiveError) {
        // 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z in seconds since 2001.
        let earliest = -63_113_904_000.0
        let limit = 252_423_993_600.0
        guard seconds.isFinite, seconds >= earliest, seconds < limit else {
            throw ArchiveError(
                .unencodable, reason: "the date \(seconds) s after 2001 is not in the years 1 to 9999 that XML property lists hold",
                keyPath: path())
        }
        let whole = Int(seconds.rounded(.down)) + CivilDate.referenceDateOffset
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondOfDay = whole - days * 86_400
        let (year, month, day) = CivilDate.date(daysSince1970: days)
        appendDigits(year, 4)
        output.append(UInt8(ascii: "-"))
        appendDigits(month, 2)
        output.append(UInt8(ascii: "-"))
        appendDigits(day, 2)
        output.append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3600, 2)
        output.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, 2)
        output.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, 2)
        output.append(UInt8(ascii: "Z"))
    }

    private mutating func appendDigits(_ value: Int, _ width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            output.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}

/// The order Apple's writer puts dictionary keys in: by UTF-16 code units.
enum KeyOrder {
    /// The positions of `keys` in sorted order, or nil when they are sorted already.
    static func sorted(_ keys: [String]) -> [Int]? {
        var isSorted = true
        for i in keys.indices.dropFirst() where !precedes(keys[i - 1], keys[i]) {
            isSorted = false
            break
        }
        if isSorted { return nil }
        return keys.indices.sorted { precedes(keys[$0], keys[$1]) }
    }

    /// Whether `a` sorts before `b` by UTF-16 code units. UTF-8 bytes sort as code points do, which
    /// differs from UTF-16 order only where a character of U+E000–U+FFFF meets one beyond U+FFFF.
    static func precedes(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                var i = 0
                while i < common, x[i] == y[i] { i += 1 }
                if i == common { return x.count < y.count }
                let (p, q) = (x[i], y[i])
                // At a character boundary: a 4-byte lead (beyond U+FFFF, a surrogate pair in UTF-16)
                // against the lead of U+E000–U+FFFF (EE or EF) sorts the other way round.
                if p >= 0xF0, q == 0xEE || q == 0xEF { return true }
                if q >= 0xF0, p == 0xEE || p == 0xEF { return false }
                return p < q
            }
        }
    }
}
