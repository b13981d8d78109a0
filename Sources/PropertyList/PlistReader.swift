/// The two encodings of a property list this library reads and writes.
///
/// ```swift
/// let format = PlistFormat(of: bytes)   // .binary, .xml, or nil for neither
/// ```
public enum PlistFormat: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `bplist00`: compact, the default everywhere in this library.
    case binary
    /// XML text, as in preference files and `Info.plist`s.
    case xml

    /// The format of `bytes`, judged by how they start: `bplist` is binary; `<` after an
    /// optional UTF-8 byte-order mark and white space is XML (as is UTF-16 text, which the XML
    /// reader then refuses by name). Nil for anything else.
    ///
    /// - Parameter bytes: The file, or at least its first bytes.
    public init?(of bytes: some Sequence<UInt8>) {
        var prefix: [UInt8] = []
        for byte in bytes {
            prefix.append(byte)
            if prefix.count == 64 { break }
        }
        guard let format = Self.detect(prefix) else { return nil }
        self = format
    }

    /// The name `plutil` gives the format: `binary1` or `xml1`.
    public var description: String {
        switch self {
        case .binary: "binary1"
        case .xml: "xml1"
        }
    }
}

/// Reads a property list in either format, found from its content.
///
/// ```swift
/// let value = try PlistReader().read(bytes)   // binary or XML
/// ```
public struct PlistReader: Sendable {
    /// The limits for binary input.
    public var binaryOptions: BPlistReader.Options
    /// The limits for XML input.
    public var xmlOptions: XMLPlistReader.Options

    /// A reader with the given limits for each format.
    ///
    /// - Parameters:
    ///   - binaryOptions: The limits for `bplist00` input; the defaults when omitted.
    ///   - xmlOptions: The limits for XML input; the defaults when omitted.
    public init(binaryOptions: BPlistReader.Options = .init(), xmlOptions: XMLPlistReader.Options = .init()) {
        self.binaryOptions = binaryOptions
        self.xmlOptions = xmlOptions
    }

    /// Reads a binary or XML property list.
    ///
    /// - Parameter bytes: The whole file: an array, `Data` or any other sequence of bytes.
    /// - Returns: Its value.
    /// - Throws: ``ArchiveError`` `.notPropertyList` for input in neither format, else the
    ///   errors of ``BPlistReader`` or ``XMLPlistReader``.
    public func read(_ bytes: some Sequence<UInt8>) throws(ArchiveError) -> PlistValue {
        try readWithFormat(bytes).value
    }

    /// Reads a binary or XML property list and says which format it was in.
    ///
    /// - Parameter bytes: The whole file: an array, `Data` or any other sequence of bytes.
    /// - Returns: Its value and its format.
    /// - Throws: The errors of ``read(_:)``.
    public func readWithFormat(_ bytes: some Sequence<UInt8>) throws(ArchiveError) -> (value: PlistValue, format: PlistFormat) {
        try withRawBytes(of: bytes) { buffer throws(ArchiveError) in try readWithFormat(buffer) }
    }
}

extension PlistValue {
    /// The value encoded in `format`, by ``BPlistWriter`` or ``XMLPlistWriter`` (Apple's layout).
    ///
    /// - Parameter format: The encoding to write.
    /// - Returns: The whole file.
    /// - Throws: ``ArchiveError`` `.unencodable` for what the format cannot hold.
    public func bytes(format: PlistFormat) throws(ArchiveError) -> [UInt8] {
        switch format {
        case .binary: try BPlistWriter().write(self)
        case .xml: try XMLPlistWriter().write(self)
        }
    }
}

extension PlistFormat {
    /// The format the first bytes of a file say it is in (see ``init(of:)``).
    package static func detect(_ bytes: some Collection<UInt8>) -> PlistFormat? {
        // A binary header, or as much of one as a file cut short holds.
        let header = Array("bplist".utf8)
        let start = Array(bytes.prefix(header.count))
        if !start.isEmpty, start.elementsEqual(header.prefix(start.count)) { return .binary }
        // UTF-16, with a byte-order mark or (big-endian) without: the XML reader refuses it by name.
        if start.count >= 2, (start[0] == 0xFE && start[1] == 0xFF) || (start[0] == 0xFF && start[1] == 0xFE) { return .xml }
        if start.count >= 2, start[0] == 0, start[1] == UInt8(ascii: "<") { return .xml }
        var text = bytes[...]
        if start.count >= 3, start[0] == 0xEF, start[1] == 0xBB, start[2] == 0xBF { text = text.dropFirst(3) }
        let first = text.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        return first == UInt8(ascii: "<") ? .xml : nil
    }
}
