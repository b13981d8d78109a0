// Unsafe code in this file: every byte read is at an index checked against the buffer's count
// first; strings are made from ranges inside the buffer or from the parser's own scratch array.

/// The elements of an XML property list.
enum XMLPlistTag: UInt8 {
    case plist, dict, key, array, string, integer, real, date, data, `true`, `false`

    var name: String {
        switch self {
        case .plist: "plist"
        case .dict: "dict"
        case .key: "key"
        case .array: "array"
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .date: "date"
        case .data: "data"
        case .true: "true"
        case .false: "false"
        }
    }
}

/// A one-pass recursive-descent reader of one XML property list held in memory.
///
/// Markup is checked as it is met; text is taken where it lies when it holds no reference or
/// CDATA section (the common case), and copied into `scratch` with its references replaced
/// when it does. Positions are byte offsets; a failure turns its offset into a line and column.
struct XMLPlistParser<Builder: XMLPlistBuilder> {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let end: Int
    private var position = 0
    private let options: XMLPlistReader.Options
    private var valueCount = 0
    private var scratch: [UInt8] = []
    private let stack = StackGuard()
    /// What the values read become.
    private(set) var builder: Builder

    init(bytes: UnsafeBufferPointer<UInt8>, options: XMLPlistReader.Options, builder: Builder) {
        self.bytes = bytes
        end = bytes.count
        self.options = options
        self.builder = builder
    }

    // MARK: The document

    /// Prolog, the `<plist>` element and its one value, and nothing after it but comments,
    /// processing instructions and white space.
    mutating func document() throws(ArchiveError) -> Builder.Value {
        if has([0xEF, 0xBB, 0xBF]) {
            position = 3
        } else if end >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE)
            || (bytes[0] == 0 && bytes[1] == UInt8(ascii: "<")) || (bytes[0] == UInt8(ascii: "<") && bytes[1] == 0)
        {
            throw failure(
                .notPropertyList, "the text is UTF-16; this reader reads XML property lists in UTF-8 (convert the file first)", at: 0)
        }
        if has("<?xml"), position + 5 < end, Self.isSpace(bytes[position + 5]) {
            try declaration()
        }
        try skipMisc()
        if has("<!DOCTYPE") {
            try doctype()
            try skipMisc()
        }
        guard has("<plist"), position + 6 < end, Self.isSpace(bytes[position + 6]) || bytes[position + 6] == UInt8(ascii: ">")
            || bytes[position + 6] == UInt8(ascii: "/")
        else {
            if position >= end { throw failure(.truncated, "the document ends before its <plist> element", at: position) }
            if bytes[position] == UInt8(ascii: "<") {
                throw failure(.invalidXML, "the document's root element is not <plist>", at: position)
            }
            throw failure(.notPropertyList, "the text is not an XML property list: no <plist> element where one is expected", at: position)
        }
        let plistStart = position
        position += 6
        if try plistAttributes() {
            throw failure(.invalidXML, "the <plist> element is empty; it must hold exactly one value", at: plistStart)
        }
        try skipMisc()
        guard position < end else { throw unclosed(.plist, at: plistStart) }
        if has("</") {
            throw failure(.invalidXML, "the <plist> element is empty; it must hold exactly one value", at: position)
        }
        guard bytes[position] == UInt8(ascii: "<") else { throw strayText(in: .plist) }
        let value = try value(depth: 0)
        try skipMisc()
        guard position < end else { throw unclosed(.plist, at: plistStart) }
        if !has("</") {
            if bytes[position] == UInt8(ascii: "<") {
                throw failure(.invalidXML, "the <plist> element holds more than one value", at: position)
            }
            throw strayText(in: .plist)
        }
        try closeTag(.plist, openedAt: plistStart)
        try skipMisc()
        guard position == end else {
            throw failure(.invalidXML, "there is more after </plist> than comments and white space", at: position)
        }
        return value
    }

    /// `<?xml version="1.0" encoding="UTF-8"?>`: only UTF-8 (or its ASCII subset) is read.
    private mutating func declaration() throws(ArchiveError) {
        let start = position
        position += 5
        guard let close = find("?>", from: position) else {
            throw failure(.truncated, "the XML declaration is not closed with ?>", at: start)
        }
        var attributes = position
        while attributes < close {
            let byte = bytes[attributes]
            guard byte < 0x80 else { throw failure(.invalidXML, "the XML declaration holds a character that is not ASCII", at: attributes) }
            attributes += 1
        }
        if let named = find("encoding", from: position), named < close {
            var i = named + 8
            while i < close, Self.isSpace(bytes[i]) || bytes[i] == UInt8(ascii: "=") { i += 1 }
            if i < close, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") {
                let quote = bytes[i]
                var stop = i + 1
                while stop < close, bytes[stop] != quote { stop += 1 }
                let name = slice(i + 1, stop).lowercased()
                guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(name) else {
                    throw failure(
                        .notPropertyList, "the XML declaration names the encoding \(quoted: name); this reader reads UTF-8 only",
                        at: start)
                }
            }
        }
        position = close + 2
    }

    /// `<!DOCTYPE plist PUBLIC "…" "…">` or `SYSTEM "…"`, never fetched; an internal subset is refused.
    private mutating func doctype() throws(ArchiveError) {
        let start = position
        position += 9
        guard position < end, Self.isSpace(bytes[position]) else {
            throw failure(.invalidXML, "the DOCTYPE declaration is malformed", at: start)
        }
        skipSpace()
        let nameStart = position
        while position < end, Self.isNameByte(bytes[position]) { position += 1 }
        guard slice(nameStart, position) == "plist" else {
            throw failure(.invalidXML, "the DOCTYPE names \(quoted(nameStart, position)), not plist", at: nameStart)
        }
        skipSpace()
        if has("PUBLIC") || has("SYSTEM") {
            let isPublic = has("PUBLIC")
            position += 6
            for _ in 0..<(isPublic ? 2 : 1) {
                skipSpace()
                guard position < end, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                    throw failure(.invalidXML, "the DOCTYPE's identifier is not quoted", at: position)
                }
                let quote = bytes[position]
                let literalStart = position
                position += 1
                while position < end, bytes[position] != quote { position += 1 }
                guard position < end else { throw failure(.truncated, "the DOCTYPE's quoted identifier is not closed", at: literalStart) }
                try checkUTF8(literalStart + 1, position)
                position += 1
            }
            skipSpace()
        }
        guard position < end else { throw failure(.truncated, "the DOCTYPE declaration is not closed with >", at: start) }
        if bytes[position] == UInt8(ascii: "[") {
            throw failure(
                .invalidXML,
                "the DOCTYPE has an internal subset, which could declare entities; property lists have none, so it is refused",
                at: position)
        }
        guard bytes[position] == UInt8(ascii: ">") else {
            throw failure(.invalidXML, "the DOCTYPE declaration is malformed", at: position)
        }
        position += 1
    }

    /// The attributes of `<plist` up to `>` or `/>`; true for `/>`. Attributes are checked for form, not meaning.
    private mutating func plistAttributes() throws(ArchiveError) -> Bool {
        while true {
            let hadSpace = skipSpace()
            guard position < end else { throw failure(.truncated, "the <plist> tag is not closed", at: position) }
            switch bytes[position] {
            case UInt8(ascii: ">"):
                position += 1
                return false
            case UInt8(ascii: "/"):
                guard has("/>") else { throw failure(.invalidXML, "the <plist> tag is malformed", at: position) }
                position += 2
                return true
            default:
                let nameStart = position
                while position < end, Self.isNameByte(bytes[position]) { position += 1 }
                guard hadSpace, position > nameStart else {
                    throw failure(.invalidXML, "the <plist> tag is malformed", at: nameStart)
                }
                skipSpace()
                guard position < end, bytes[position] == UInt8(ascii: "=") else {
                    throw failure(.invalidXML, "the attribute \(quoted(nameStart, position)) of <plist> has no value", at: nameStart)
                }
                position += 1
                skipSpace()
                guard position < end, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                    throw failure(.invalidXML, "an attribute value of <plist> is not quoted", at: position)
                }
                let quote = bytes[position]
                let valueStart = position
                position += 1
                while position < end, bytes[position] != quote, bytes[position] != UInt8(ascii: "<") { position += 1 }
                guard position < end else { throw failure(.truncated, "an attribute value of <plist> is not closed", at: valueStart) }
                guard bytes[position] == quote else {
                    throw failure(.invalidXML, "an attribute value of <plist> holds <", at: position)
                }
                try checkUTF8(valueStart + 1, position)
                position += 1
            }
        }
    }

    // MARK: Values

    /// The value whose start tag begins at `position` (a `<` that is not `</`).
    private mutating func value(depth: Int) throws(ArchiveError) -> Builder.Value {
        let start = position
        let (tag, isEmpty) = try openTag()
        valueCount += 1
        guard valueCount <= options.maximumObjectCount else {
            throw failure(
                .sizeLimit, "the document holds more than \(options.maximumObjectCount) values (raise maximumObjectCount to read it)",
                at: start)
        }
        switch tag {
        case .array, .dict:
            guard depth < options.maximumDepth else {
                throw failure(
                    .depthLimit, "containers are nested more than \(options.maximumDepth) deep (raise maximumDepth to read it)", at: start)
            }
            guard stack.hasRoom() else { throw failure(.depthLimit, StackGuard.reason(depth: depth), at: start) }
            if isEmpty { return tag == .array ? builder.end(builder.beginArray(at: start)) : builder.end(builder.beginDict(at: start)) }
            return tag == .array ? try array(depth: depth, openedAt: start) : try dictionary(depth: depth, openedAt: start)
        case .true, .false:
            if !isEmpty {
                try skipSpace(orComments: true)
                try closeTag(tag, openedAt: start)
            }
            return builder.scalar(.bool(tag == .true), at: start)
        case .string:
            let text = isEmpty ? "" : try string(of: .string, openedAt: start)
            return builder.scalar(.string(text), at: start)
        case .key:
            throw failure(.invalidXML, "a <key> stands where a value is expected (keys belong to a <dict>, before their values)", at: start)
        case .integer, .real, .date, .data:
            if isEmpty {
                guard tag == .data else { throw failure(.invalidXML, "the <\(tag.name)> element is empty", at: start) }
                return builder.scalar(.data([]), at: start)
            }
            let span = try text(of: tag, openedAt: start)
            let value = try withBytes(of: span) { (text, textStart) throws(ArchiveError) in
                switch tag {
                case .integer: try integer(text, at: textStart)
                case .real: try real(text, at: textStart)
                case .date: try date(text, at: textStart)
                default: try data(text, at: textStart)
                }
            }
            return builder.scalar(value, at: start)
        case .plist:
            throw failure(.invalidXML, "a <plist> element stands inside another", at: start)
        }
    }

    private mutating func array(depth: Int, openedAt start: Int) throws(ArchiveError) -> Builder.Value {
        var array = builder.beginArray(at: start)
        while true {
            try skipMisc()
            guard position < end else { throw unclosed(.array, at: start) }
            if has("</") {
                try closeTag(.array, openedAt: start)
                return builder.end(array)
            }
            guard bytes[position] == UInt8(ascii: "<") else { throw strayText(in: .array) }
            let element = try value(depth: depth + 1)
            builder.append(element, to: &array)
        }
    }

    private mutating func dictionary(depth: Int, openedAt start: Int) throws(ArchiveError) -> Builder.Value {
        var dict = builder.beginDict(at: start)
        while true {
            try skipMisc()
            guard position < end else { throw unclosed(.dict, at: start) }
            if has("</") {
                try closeTag(.dict, openedAt: start)
                break
            }
            guard bytes[position] == UInt8(ascii: "<") else { throw strayText(in: .dict) }
            let keyStart = position
            let (tag, isEmpty) = try openTag()
            guard tag == .key else {
                throw failure(.invalidXML, "a <\(tag.name)> stands in a <dict> where a <key> is expected", at: keyStart)
            }
            let key = isEmpty ? "" : try string(of: .key, openedAt: keyStart)
            try skipMisc()
            guard position < end else { throw unclosed(.dict, at: start) }
            guard bytes[position] == UInt8(ascii: "<"), !has("</") else {
                if has("</") {
                    throw failure(.invalidKey, "the key \(Self.quoted(key)) has no value before </dict>", at: keyStart)
                }
                throw strayText(in: .dict)
            }
            if has("<key"), position + 4 < end, !Self.isNameByte(bytes[position + 4]) {
                throw failure(.invalidKey, "the key \(Self.quoted(key)) has no value: another <key> follows it", at: keyStart)
            }
            let value = try value(depth: depth + 1)
            guard builder.append(key: key, at: keyStart, value: value, to: &dict) else {
                throw failure(.invalidKey, "the dictionary has the key \(Self.quoted(key)) twice", at: keyStart)
            }
        }
        return builder.end(dict)
    }

    // MARK: Tags

    /// Reads `<name>` or `<name/>` at `position` (a `<`); returns the element and whether it is empty.
    private mutating func openTag() throws(ArchiveError) -> (XMLPlistTag, Bool) {
        let start = position
        position += 1
        let nameStart = position
        while position < end, Self.isNameByte(bytes[position]) { position += 1 }
        guard let tag = Self.tag(bytes, nameStart, position) else {
            if position == nameStart {
                if has("<![CDATA[", at: start) {
                    throw failure(.invalidXML, "a CDATA section stands where an element is expected", at: start)
                }
                throw failure(.invalidXML, "a < is not followed by an element name", at: start)
            }
            throw failure(
                .invalidXML, "<\(input: slice(nameStart, position))> is not an element of property lists", at: start)
        }
        if tag == .plist {
            throw failure(.invalidXML, "a <plist> element stands inside another", at: start)
        }
        skipSpace()
        guard position < end else { throw failure(.truncated, "the <\(tag.name)> tag is not closed", at: start) }
        switch bytes[position] {
        case UInt8(ascii: ">"):
            position += 1
            return (tag, false)
        case UInt8(ascii: "/"):
            guard position + 1 < end else { throw failure(.truncated, "the <\(tag.name)> tag is not closed", at: start) }
            guard bytes[position + 1] == UInt8(ascii: ">") else {
                throw failure(.invalidXML, "the <\(tag.name)/> tag is malformed", at: position)
            }
            position += 2
            return (tag, true)
        default:
            if Self.isNameByte(bytes[position]) {
                throw failure(.invalidXML, "the <\(tag.name)> element has attributes; property list values have none", at: position)
            }
            throw failure(.invalidXML, "the <\(tag.name)> tag is malformed", at: position)
        }
    }

    /// Reads `</name>` at `position`, which must close `tag`.
    private mutating func closeTag(_ tag: XMLPlistTag, openedAt start: Int) throws(ArchiveError) {
        guard has("</") else {
            if position >= end { throw unclosed(tag, at: start) }
            throw failure(.invalidXML, "</\(tag.name)> is expected here, to close the <\(tag.name)> opened at \(place(start))", at: position)
        }
        let closeStart = position
        position += 2
        let nameStart = position
        while position < end, Self.isNameByte(bytes[position]) { position += 1 }
        guard Self.tag(bytes, nameStart, position) == tag else {
            if position == end { throw unclosed(tag, at: start) }
            throw failure(
                .invalidXML,
                "</\(input: slice(nameStart, position))> closes the <\(tag.name)> opened at \(place(start)); </\(tag.name)> is expected",
                at: closeStart)
        }
        skipSpace()
        guard position < end else { throw unclosed(tag, at: start) }
        guard bytes[position] == UInt8(ascii: ">") else {
            throw failure(.invalidXML, "the </\(tag.name)> tag is malformed", at: position)
        }
        position += 1
    }

    /// The element named by the bytes `from..<to`: the name's bytes, packed little-endian into a
    /// word, compared with each element's word.
    private static func tag(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> XMLPlistTag? {
        guard to - from >= 3, to - from <= 7 else { return nil }
        var word: UInt64 = 0
        for i in 0..<(to - from) { word |= UInt64(bytes[from + i]) << (8 * i) }
        return switch word {
        case 0x7473696C70: .plist  // plist
        case 0x74636964: .dict  // dict
        case 0x79656B: .key  // key
        case 0x7961727261: .array  // array
        case 0x676E69727473: .string  // string
        case 0x72656765746E69: .integer  // integer
        case 0x6C616572: .real  // real
        case 0x65746164: .date  // date
        case 0x61746164: .data  // data
        case 0x65757274: .`true`  // true
        case 0x65736C6166: .`false`  // false
        default: nil
        }
    }

    // MARK: Text

    /// The text of a `<string>` or `<key>` up to its close tag, as a string.
    private mutating func string(of tag: XMLPlistTag, openedAt start: Int) throws(ArchiveError) -> String {
        let span = try text(of: tag, openedAt: start)
        return try withBytes(of: span) { (text, textStart) throws(ArchiveError) in
            guard text.count <= options.maximumStringLength else {
                throw failure(
                    .sizeLimit,
                    "a \(tag == .key ? "key" : "string") of \(text.count) bytes is longer than the maximum of \(options.maximumStringLength) (raise maximumStringLength to read it)",
                    at: textStart)
            }
            // Validated here, then made without a second check (the generic validating initialiser
            // looks up type metadata on every call).
            guard UTF8Validation.firstInvalid(text) == nil else { throw invalidUTF8(text, textStart) }
            return String(decoding: text, as: UTF8.self)
        }
    }

    /// Where the text of an element lies: in the input, or in `scratch` (references replaced).
    private struct TextSpan {
        /// The text's bytes in the input, or nil when they are in `scratch`.
        let range: Range<Int>?
        /// Where the text starts in the input, for messages.
        let start: Int
    }

    /// Runs `body` with the bytes of `span` and the offset where it starts in the input.
    private func withBytes<R>(
        of span: TextSpan, _ body: (UnsafeBufferPointer<UInt8>, Int) throws(ArchiveError) -> R
    ) throws(ArchiveError) -> R {
        if let range = span.range { return try body(UnsafeBufferPointer(rebasing: bytes[range]), span.start) }
        return try scratch.withUnsafeBufferPointer { buffer throws(ArchiveError) in try body(buffer, span.start) }
    }

    /// Reads the text of `tag` (references replaced, CDATA unwrapped, comments and processing
    /// instructions dropped) up to and including its close tag.
    private mutating func text(of tag: XMLPlistTag, openedAt start: Int) throws(ArchiveError) -> TextSpan {
        let textStart = position
        while position < end {
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") { break }
            position += 1
        }
        guard position < end else { throw unclosed(tag, at: start) }
        if has("</") {
            let textEnd = position
            try closeTag(tag, openedAt: start)
            return TextSpan(range: textStart..<textEnd, start: textStart)
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[textStart..<position]))
        while true {
            guard position < end else { throw unclosed(tag, at: start) }
            let byte = bytes[position]
            if byte == UInt8(ascii: "&") {
                try reference()
            } else if byte == UInt8(ascii: "<") {
                if has("</") {
                    try closeTag(tag, openedAt: start)
                    break
                } else if has("<![CDATA[") {
                    let contentStart = position + 9
                    guard let close = find("]]>", from: contentStart) else {
                        throw failure(.truncated, "a CDATA section is not closed with ]]>", at: position)
                    }
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[contentStart..<close]))
                    position = close + 3
                } else if has("<!--") {
                    try comment()
                } else if has("<?") {
                    try processingInstruction()
                } else {
                    throw failure(.invalidXML, "an element stands inside <\(tag.name)>, which holds text only", at: position)
                }
            } else {
                let runStart = position
                while position < end, bytes[position] != UInt8(ascii: "<"), bytes[position] != UInt8(ascii: "&") { position += 1 }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
            }
        }
        return TextSpan(range: nil, start: textStart)
    }

    /// Replaces the reference at `position` (an `&`) in `scratch`: one of the five predefined
    /// entities, or `&#N;` / `&#xH;` naming a Unicode scalar.
    private mutating func reference() throws(ArchiveError) {
        let start = position
        position += 1
        let nameStart = position
        while position < end, position - nameStart <= 12, bytes[position] != UInt8(ascii: ";") {
            let byte = bytes[position]
            guard Self.isNameByte(byte) || byte == UInt8(ascii: "#") else { break }
            position += 1
        }
        guard position < end, bytes[position] == UInt8(ascii: ";") else {
            if position >= end { throw failure(.truncated, "the document ends inside a reference", at: start) }
            throw failure(.invalidXML, "an & does not start a reference such as &amp; or &#38;", at: start)
        }
        let name = slice(nameStart, position)
        position += 1
        switch name {
        case "lt": scratch.append(UInt8(ascii: "<"))
        case "gt": scratch.append(UInt8(ascii: ">"))
        case "amp": scratch.append(UInt8(ascii: "&"))
        case "quot": scratch.append(UInt8(ascii: "\""))
        case "apos": scratch.append(UInt8(ascii: "'"))
        default:
            guard name.hasPrefix("#") else {
                throw failure(
                    .invalidXML,
                    "the entity &\(input: name); is not one of the five XML defines (&lt; &gt; &amp; &quot; &apos;), and a property list declares none",
                    at: start)
            }
            let isHex = name.hasPrefix("#x")
            let digits = name.dropFirst(isHex ? 2 : 1)
            guard !digits.isEmpty, let number = UInt32(digits, radix: isHex ? 16 : 10) else {
                throw failure(.invalidXML, "the character reference &\(input: name); is malformed", at: start)
            }
            guard let scalar = Unicode.Scalar(number), number != 0 else {
                throw failure(
                    .invalidString, "the character reference &\(input: name); names no Unicode scalar (a lone surrogate, zero or beyond U+10FFFF)",
                    at: start)
            }
            scratch.append(contentsOf: UTF8.encode(scalar)!)
        }
    }

    // MARK: Scalars

    /// `[+-]?(digits | 0x hex digits)`, from −2^63 to 2^64 − 1, with white space around it.
    private func integer(_ text: UnsafeBufferPointer<UInt8>, at start: Int) throws(ArchiveError) -> PlistValue {
        var i = 0
        var last = text.count
        while i < last, Self.isSpace(text[i]) { i += 1 }
        while last > i, Self.isSpace(text[last - 1]) { last -= 1 }
        var negative = false
        if i < last, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
            negative = text[i] == UInt8(ascii: "-")
            i += 1
        }
        var radix: UInt64 = 10
        if last - i > 2, text[i] == UInt8(ascii: "0"), text[i + 1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            i += 2
        }
        guard i < last else { throw failure(.invalidXML, "the <integer> holds no digits", at: start) }
        var magnitude: UInt64 = 0
        while i < last {
            let byte = text[i]
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default:
                throw failure(.invalidXML, "the <integer> holds \(Self.describe(byte)), not a digit", at: start)
            }
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, carry) = shifted.addingReportingOverflow(digit)
            guard !overflow, !carry else {
                throw failure(.invalidXML, "the <integer> is outside the range −2^63 to 2^64 − 1 that property lists hold", at: start)
            }
            magnitude = sum
            i += 1
        }
        if negative {
            guard magnitude <= UInt64(1) << 63 else {
                throw failure(.invalidXML, "the <integer> is below −2^63, the least that property lists hold", at: start)
            }
            return .int(magnitude == UInt64(1) << 63 ? .min : -Int64(magnitude))
        }
        return magnitude <= UInt64(Int64.max) ? .int(Int64(magnitude)) : .uint(magnitude)
    }

    /// A decimal real (`-1.5e3`), or `nan`, `inf`, `infinity` with an optional sign, any case.
    private func real(_ text: UnsafeBufferPointer<UInt8>, at start: Int) throws(ArchiveError) -> PlistValue {
        var i = 0
        var last = text.count
        while i < last, Self.isSpace(text[i]) { i += 1 }
        while last > i, Self.isSpace(text[last - 1]) { last -= 1 }
        guard last - i <= 1024 else { throw failure(.invalidXML, "the <real> is more than 1024 characters long", at: start) }
        let word = String(decoding: UnsafeBufferPointer(rebasing: text[i..<last]), as: UTF8.self)
        switch word.lowercased() {
        case "nan", "+nan", "-nan": return .real(.nan)
        case "inf", "+inf", "infinity", "+infinity": return .real(.infinity)
        case "-inf", "-infinity": return .real(-.infinity)
        default: break
        }
        // sign? digits [. digits] [e sign? digits], with a digit in the mantissa.
        var j = i
        if j < last, text[j] == UInt8(ascii: "-") || text[j] == UInt8(ascii: "+") { j += 1 }
        var mantissaDigits = 0
        while j < last, Self.isDigit(text[j]) { j += 1; mantissaDigits += 1 }
        if j < last, text[j] == UInt8(ascii: ".") {
            j += 1
            while j < last, Self.isDigit(text[j]) { j += 1; mantissaDigits += 1 }
        }
        var valid = mantissaDigits > 0
        if valid, j < last, text[j] | 0x20 == UInt8(ascii: "e") {
            j += 1
            if j < last, text[j] == UInt8(ascii: "-") || text[j] == UInt8(ascii: "+") { j += 1 }
            let exponentStart = j
            while j < last, Self.isDigit(text[j]) { j += 1 }
            valid = j > exponentStart
        }
        guard valid, j == last, let number = Double(word) else {
            throw failure(.invalidXML, "the <real> holds \(Self.quoted(word)), which is not a number", at: start)
        }
        return .real(number)
    }

    /// `YYYY-MM-DDThh:mm:ssZ`, in UTC, as seconds since 2001-01-01T00:00:00Z.
    private func date(_ text: UnsafeBufferPointer<UInt8>, at start: Int) throws(ArchiveError) -> PlistValue {
        var i = 0
        var last = text.count
        while i < last, Self.isSpace(text[i]) { i += 1 }
        while last > i, Self.isSpace(text[last - 1]) { last -= 1 }
        func bad() -> ArchiveError {
            failure(
                .invalidXML,
                "the <date> holds \(Self.quoted(String(decoding: UnsafeBufferPointer(rebasing: text[i..<last]), as: UTF8.self))), not a date of the form 2001-01-01T00:00:00Z",
                at: start)
        }
        guard last - i == 20 else { throw bad() }
        func number(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for k in from..<(from + count) {
                guard Self.isDigit(text[i + k]) else { return nil }
                value = value * 10 + Int(text[i + k] - UInt8(ascii: "0"))
            }
            return value
        }
        let separators: [(Int, UInt8)] = [(4, 0x2D), (7, 0x2D), (10, 0x54), (13, 0x3A), (16, 0x3A), (19, 0x5A)]
        for (offset, byte) in separators where text[i + offset] != byte { throw bad() }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), year >= 1, (1...12).contains(month),
            day >= 1, day <= CivilDate.daysInMonth(year: year, month: month), hour < 24, minute < 60, second < 60
        else { throw bad() }
        let days = CivilDate.daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return .date(Double(seconds - CivilDate.referenceDateOffset))
    }

    /// Base64 with any white space in it; padding may be left out.
    private func data(_ text: UnsafeBufferPointer<UInt8>, at start: Int) throws(ArchiveError) -> PlistValue {
        var output: [UInt8] = []
        output.reserveCapacity(min(text.count / 4 * 3 + 3, options.maximumDataLength))
        var accumulator: UInt32 = 0
        var sextets = 0
        var padding = 0
        for (k, byte) in text.enumerated() {
            let sextet = Base64.decodeTable[Int(byte)]
            if sextet < 64 {
                guard padding == 0 else {
                    throw failure(.invalidXML, "the <data> has base64 after its = padding", at: start + k)
                }
                accumulator = accumulator << 6 | UInt32(sextet)
                sextets += 1
                if sextets == 4 {
                    guard output.count + 3 <= options.maximumDataLength else { throw dataLimit(start + k) }
                    output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                    output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                    output.append(UInt8(truncatingIfNeeded: accumulator))
                    accumulator = 0
                    sextets = 0
                }
            } else if sextet == Base64.space {
                continue
            } else if byte == UInt8(ascii: "=") {
                padding += 1
                guard padding <= 2, sextets + padding <= 4, sextets >= 2 else {
                    throw failure(.invalidXML, "the <data> has misplaced = padding", at: start + k)
                }
            } else {
                throw failure(.invalidXML, "the <data> holds \(Self.describe(byte)), which is not base64", at: start + k)
            }
        }
        switch sextets {
        case 0: break
        case 1: throw failure(.invalidXML, "the <data> ends with a lone base64 character", at: start)
        default:
            guard padding == 0 || sextets + padding == 4 else {
                throw failure(.invalidXML, "the <data> has misplaced = padding", at: start)
            }
            guard output.count + sextets - 1 <= options.maximumDataLength else { throw dataLimit(start + text.count) }
            accumulator <<= UInt32(6 * (4 - sextets))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
            if sextets == 3 { output.append(UInt8(truncatingIfNeeded: accumulator >> 8)) }
        }
        return .data(output)
    }

    /// The error for a `<data>` whose decoded bytes pass the limit at `offset`: decoding stops there.
    private func dataLimit(_ offset: Int) -> ArchiveError {
        failure(
            .sizeLimit,
            "the <data> decodes to more than the maximum of \(options.maximumDataLength) bytes (raise maximumDataLength to read it)",
            at: offset)
    }

    // MARK: Between elements

    /// Skips white space, comments and processing instructions.
    private mutating func skipMisc() throws(ArchiveError) {
        while position < end {
            let byte = bytes[position]
            if Self.isSpace(byte) {
                position += 1
            } else if byte == UInt8(ascii: "<"), position + 1 < end {
                let next = bytes[position + 1]
                if next == UInt8(ascii: "!"), has("<!--") {
                    try comment()
                } else if next == UInt8(ascii: "?") {
                    try processingInstruction()
                } else {
                    return
                }
            } else {
                return
            }
        }
    }

    /// White space, and comments when `orComments` (between `<true>` and `</true>`).
    private mutating func skipSpace(orComments: Bool) throws(ArchiveError) {
        while true {
            skipSpace()
            guard orComments, has("<!--") else { return }
            try comment()
        }
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = position
        while position < end, Self.isSpace(bytes[position]) { position += 1 }
        return position > start
    }

    /// `<!-- … -->`, in which `--` may not appear.
    private mutating func comment() throws(ArchiveError) {
        let start = position
        guard let close = find("--", from: position + 4) else {
            throw failure(.truncated, "a comment is not closed with -->", at: start)
        }
        guard close + 2 < end else { throw failure(.truncated, "a comment is not closed with -->", at: start) }
        guard bytes[close + 2] == UInt8(ascii: ">") else {
            throw failure(.invalidXML, "a comment holds --, which XML does not allow inside comments", at: close)
        }
        try checkUTF8(start + 4, close)
        position = close + 3
    }

    /// `<?target … ?>`; the target may not be `xml` in any case (a declaration that is not first).
    private mutating func processingInstruction() throws(ArchiveError) {
        let start = position
        let nameStart = position + 2
        var nameEnd = nameStart
        while nameEnd < end, Self.isNameByte(bytes[nameEnd]) { nameEnd += 1 }
        guard nameEnd > nameStart else { throw failure(.invalidXML, "a processing instruction has no target name", at: start) }
        guard slice(nameStart, nameEnd).lowercased() != "xml" else {
            throw failure(.invalidXML, "an XML declaration stands after the start of the document", at: start)
        }
        guard let close = find("?>", from: nameEnd) else {
            throw failure(.truncated, "a processing instruction is not closed with ?>", at: start)
        }
        try checkUTF8(nameEnd, close)
        position = close + 2
    }

    // MARK: Helpers

    @inline(__always) private func has(_ literal: StaticString, at offset: Int? = nil) -> Bool {
        let from = offset ?? position
        let count = literal.utf8CodeUnitCount
        guard from + count <= end else { return false }
        let pointer = literal.utf8Start
        for i in 0..<count where bytes[from + i] != pointer[i] { return false }
        return true
    }

    private func has(_ literal: [UInt8]) -> Bool {
        guard position + literal.count <= end else { return false }
        for i in literal.indices where bytes[position + i] != literal[i] { return false }
        return true
    }

    /// The offset of the next `literal` at or after `from`, if there is one.
    private func find(_ literal: StaticString, from: Int) -> Int? {
        let count = literal.utf8CodeUnitCount
        let first = literal.utf8Start[0]
        var i = from
        while i + count <= end {
            if bytes[i] == first, has(literal, at: i) { return i }
            i += 1
        }
        return nil
    }

    private func slice(_ from: Int, _ to: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[from..<to]), as: UTF8.self)
    }

    private func quoted(_ from: Int, _ to: Int) -> String { Self.quoted(slice(from, min(to, from + 40))) }

    private static func quoted(_ text: String) -> String {
        "\"" + (text.unicodeScalars.count > 40 ? String(text.unicodeScalars.prefix(40)) + "…" : text) + "\""
    }

    private static func describe(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? "\"\(Character(Unicode.Scalar(byte)))\"" : "the byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    @inline(__always) private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    @inline(__always) private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// Letters, digits, `_`, `:`, `.`, `-` and every byte of a non-ASCII character.
    @inline(__always) private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte >= 0x80
    }

    /// Checks that markup text (a comment, an identifier) is valid UTF-8.
    private func checkUTF8(_ from: Int, _ to: Int) throws(ArchiveError) {
        let text = UnsafeBufferPointer(rebasing: bytes[from..<to])
        if let bad = UTF8Validation.firstInvalid(text) {
            throw failure(.invalidString, "the text is not valid UTF-8 here", at: from + bad)
        }
    }

    private func invalidUTF8(_ text: UnsafeBufferPointer<UInt8>, _ textStart: Int) -> ArchiveError {
        // The text lies in the input unless references were replaced; then point at its start.
        let inInput = text.baseAddress.map { $0 >= bytes.baseAddress! && $0 < bytes.baseAddress! + end } ?? false
        let offset = inInput ? textStart + (UTF8Validation.firstInvalid(text) ?? 0) : textStart
        return failure(.invalidString, "the text is not valid UTF-8", at: offset)
    }

    private func strayText(in tag: XMLPlistTag) -> ArchiveError {
        failure(.invalidXML, "text stands inside <\(tag.name)> where only elements may be", at: position)
    }

    private func unclosed(_ tag: XMLPlistTag, at start: Int) -> ArchiveError {
        failure(.truncated, "the document ends before the <\(tag.name)> opened at \(place(start)) is closed", at: min(position, end))
    }

    /// `line L, column C`.
    private func place(_ offset: Int) -> String {
        let (line, column) = TextPosition.lineAndColumn(of: offset, in: bytes)
        return "line \(line), column \(column)"
    }

    /// An error at `offset`. Malformed XML found where the text ran out (see
    /// ``endsUnclosed(after:)``) is a file cut short: `.truncated`, whatever it would have been
    /// had more text followed.
    /// Whether the text is XML cut short at `offset`: it starts as XML does, no tag ends after
    /// `offset`, and the root element is never closed. (Called on the way to an error only.)
    private func endsUnclosed(after offset: Int) -> Bool {
        guard let first = bytes.firstIndex(where: { !Self.isSpace($0) && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }), bytes[first] == UInt8(ascii: "<"),
            !bytes[min(max(offset, 0), end)..<end].contains(UInt8(ascii: ">"))
        else { return false }
        let close = Array("</plist>".utf8)
        return !(0..<max(0, end - close.count + 1)).contains { i in (0..<close.count).allSatisfy { bytes[i + $0] == close[$0] } }
    }

    private func failure(_ code: ArchiveError.Code, _ reason: String, at offset: Int) -> ArchiveError {
        let (line, column) = TextPosition.lineAndColumn(of: offset, in: bytes)
        let cut = [.invalidXML, .notPropertyList, .invalidString, .invalidKey].contains(code) && endsUnclosed(after: offset)
        return ArchiveError(
            cut ? .truncated : code, reason: cut ? reason + " (the text ends here: it was cut short)" : reason,
            line: line, column: column, byteOffset: offset)
    }
}

/// Turns byte offsets into the line and column a text editor shows.
enum TextPosition {
    /// The line (from 1; `\n`, `\r\n` and a lone `\r` end lines) and the column (from 1, in
    /// Unicode scalars, counting a malformed byte as one) of the byte at `offset`.
    static func lineAndColumn(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        let stop = min(offset, bytes.count)
        var i = 0
        while i < stop {
            let byte = bytes[i]
            if byte == 0x0A || (byte == 0x0D && (i + 1 >= bytes.count || bytes[i + 1] != 0x0A)) {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        var column = 1
        for k in lineStart..<stop where bytes[k] & 0xC0 != 0x80 { column += 1 }
        return (line, column)
    }
}

/// Finds where bytes stop being valid UTF-8 (overlong forms, surrogates and values beyond
/// U+10FFFF are invalid).
enum UTF8Validation {
    static func firstInvalid(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        let count = text.count
        while i < count {
            let lead = text[i]
            if lead < 0x80 { i += 1; continue }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return i
            }
            guard i + length <= count else { return i }
            guard text[i + 1] >= low, text[i + 1] <= high else { return i }
            for k in 2..<max(2, length) where text[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }
}
