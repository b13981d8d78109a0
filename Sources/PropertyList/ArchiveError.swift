/// The one error type of the library: what went wrong, and where.
///
/// Every failure — a malformed byte, a value of the wrong kind, a type that cannot be coded,
/// a failed write — is an `ArchiveError`. It carries a ``Code`` to match on, the byte offset
/// in the input and the object index where they are known, the key path of the value being
/// coded where there is one, and a full sentence saying what happened (and how to fix it
/// when there is a fix).
///
/// Two errors are equal when their codes are equal, so tests and callers can match on the
/// code alone:
///
/// ```swift
/// do {
///     _ = try BPlistReader().read(bytes)
/// } catch let error as ArchiveError where error.code == .truncated {
///     print(error.byteOffset ?? -1)
/// }
/// ```
public struct ArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure. An open set: modules add their own codes in extensions.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        package init(_ name: String) { self.name = name }
        /// The code's name as it follows `ArchiveError.` in a printed error, such as `truncated`.
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// The byte offset in the input where the problem was found, if it is about input bytes.
    public let byteOffset: Int?
    /// The index of the binary property list object involved, if known.
    public let objectIndex: Int?
    /// The line (from 1) of the problem in a text input such as an XML property list, if known.
    public let line: Int?
    /// The column (from 1, in characters) of the problem on its ``line``, if known.
    public let column: Int?
    /// The path of the value being coded, such as `root.users[3].address.zip`, if known.
    public let keyPath: String?
    /// A sentence saying what went wrong, with the fix when there is one.
    public let reason: String

    /// Makes an error with a code, a reason and, where they are known, the place of the problem.
    ///
    /// The library's readers, writers and coders make every error they throw this way; code that
    /// builds on the library (a `KeyedCoding` type checking its own fields, say)
    /// may throw its own with a fitting code.
    ///
    /// - Parameters:
    ///   - code: The kind of failure, one of the ``Code`` constants.
    ///   - reason: A sentence saying what went wrong, with the fix when there is one.
    ///   - byteOffset: Where in the input the problem was found; nil (the default) when the
    ///     error is not about input bytes.
    ///   - objectIndex: The index of the binary property list object involved; nil by default.
    ///   - keyPath: The path of the value being coded, such as `root.users[3].age`; nil by default.
    public init(
        _ code: Code, reason: String, byteOffset: Int? = nil, objectIndex: Int? = nil, keyPath: String? = nil
    ) {
        self.code = code
        self.reason = reason
        self.byteOffset = byteOffset
        self.objectIndex = objectIndex
        self.keyPath = keyPath
        line = nil
        column = nil
    }

    /// Makes an error about a place in a text input: its line and column, and its byte offset.
    ///
    /// - Parameters:
    ///   - code: The kind of failure, one of the ``Code`` constants.
    ///   - reason: A sentence saying what went wrong, with the fix when there is one.
    ///   - line: The line of the problem, counted from 1.
    ///   - column: The column of the problem on that line, counted from 1 in characters.
    ///   - byteOffset: The same place as a byte offset in the input; nil by default.
    ///   - keyPath: The path of the value being read, such as `root.users[3]`; nil by default.
    public init(_ code: Code, reason: String, line: Int, column: Int, byteOffset: Int? = nil, keyPath: String? = nil) {
        self.init(code, reason: reason, byteOffset: byteOffset, objectIndex: nil, line: line, column: column, keyPath: keyPath)
    }

    private init(_ code: Code, reason: String, byteOffset: Int?, objectIndex: Int?, line: Int?, column: Int?, keyPath: String?) {
        self.code = code
        self.reason = reason
        self.byteOffset = byteOffset
        self.objectIndex = objectIndex
        self.line = line
        self.column = column
        self.keyPath = keyPath
    }

    /// `ArchiveError.<code>: [<key path>: ]<reason> (line <l>, column <c>, at byte <offset>, object #<index>)`.
    public var description: String {
        var text = "ArchiveError.\(code): "
        if let keyPath, !keyPath.isEmpty { text += "\(Self.abbreviated(keyPath: keyPath)): " }
        text += reason
        var place: [String] = []
        if let line { place.append("line \(line)") }
        if let column { place.append("column \(column)") }
        if let byteOffset { place.append("at byte \(byteOffset)") }
        if let objectIndex { place.append("object #\(objectIndex)") }
        if !place.isEmpty { text += " (" + place.joined(separator: ", ") + ")" }
        return text
    }

    /// `path` with every run of a repeated stretch written once with its count, so that the
    /// path of a value 250 replies deep reads `root(.replies[0] ×250).author` instead of 2,700
    /// characters: a stretch of one to four components (`.name` or `[index]`) repeated at least
    /// three times, and making at least eight components, is abbreviated.
    package static func abbreviated(keyPath path: String) -> String {
        var components: [Substring] = []
        var start = path.startIndex
        for index in path.indices.dropFirst() where path[index] == "." || path[index] == "[" {
            components.append(path[start..<index])
            start = index
        }
        components.append(path[start...])
        guard components.count >= 8 else { return path }
        var text = ""
        var position = 0
        while position < components.count {
            var best: (length: Int, count: Int)?
            for length in 1...4 where position + length <= components.count {
                var count = 1
                while position + (count + 1) * length <= components.count,
                    components[(position + count * length)..<(position + (count + 1) * length)]
                        .elementsEqual(components[position..<(position + length)])
                {
                    count += 1
                }
                if count >= 3, count * length >= 8, count * length > (best.map { $0.length * $0.count } ?? 0) {
                    best = (length, count)
                }
            }
            if let best {
                text += "(" + components[position..<(position + best.length)].joined() + " ×\(best.count))"
                position += best.length * best.count
            } else {
                text += components[position]
                position += 1
            }
        }
        return text
    }

    /// Errors are equal when their codes are equal, whatever their place and reason.
    public static func == (lhs: ArchiveError, rhs: ArchiveError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code alone, as ``==(_:_:)`` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The same error with `component` put in front of its key path (`users` + `[3].age` = `users[3].age`),
    /// so a path is built as the error travels out of nested values.
    ///
    /// - Parameter component: A field name or key (joined with a `.`), or a subscript such as
    ///   `[3]` (joined as it is).
    /// - Returns: The error with the longer key path; its code, reason and place are unchanged.
    /// A component longer than ``quotedLength`` characters (a key from an input) is cut to its
    /// first ones, "…" and its length.
    public func prependingKeyPath(_ component: String) -> ArchiveError {
        let component = ArchiveError.bounded(component)
        let path: String
        if let keyPath, !keyPath.isEmpty {
            path = keyPath.hasPrefix("[") ? component + keyPath : component + "." + keyPath
        } else {
            path = component
        }
        return ArchiveError(
            code, reason: reason, byteOffset: byteOffset, objectIndex: objectIndex, line: line, column: column, keyPath: path)
    }

    /// The same error with a key path (the first one set wins: the innermost path is the most precise).
    ///
    /// - Parameter path: The key path to record when the error has none yet.
    /// - Returns: The error with `path` as its key path, or the error unchanged when it already has one.
    public func at(keyPath path: String) -> ArchiveError {
        keyPath == nil
            ? ArchiveError(
                code, reason: reason, byteOffset: byteOffset, objectIndex: objectIndex, line: line, column: column, keyPath: path)
            : self
    }
}

extension ArchiveError.Code {
    /// The input ends before a structure it declares (an object, a count, the trailer).
    public static let truncated = Self("truncated")
    /// The input is not a binary property list: wrong header or too short for one.
    public static let notPropertyList = Self("notPropertyList")
    /// The 32-byte trailer is inconsistent (widths, counts, top object, table position, file length).
    public static let invalidTrailer = Self("invalidTrailer")
    /// An offset-table entry points outside the object area.
    public static let invalidOffset = Self("invalidOffset")
    /// An object reference is out of range.
    public static let invalidReference = Self("invalidReference")
    /// An object starts with a marker byte this format does not allow.
    public static let invalidMarker = Self("invalidMarker")
    /// A length or count is malformed or larger than the bytes that hold it.
    public static let invalidCount = Self("invalidCount")
    /// A string's bytes are not valid ASCII or UTF-16.
    public static let invalidString = Self("invalidString")
    /// A dictionary key is not a string, or a key appears twice.
    public static let invalidKey = Self("invalidKey")
    /// A container contains itself.
    public static let cycle = Self("cycle")
    /// Containers are nested deeper than the configured maximum.
    public static let depthLimit = Self("depthLimit")
    /// The input would expand to more values, objects or bytes than the configured maximum.
    public static let sizeLimit = Self("sizeLimit")
    /// A value cannot be written in this format.
    public static let unencodable = Self("unencodable")
    /// A file could not be read or written.
    public static let io = Self("io")
}
