// Unsafe code in this file: the entry points read a caller's buffer only until they return and keep no reference to it.

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
        guard let format = prefix.withUnsafeBytes({ Self.detect($0) }) else { return nil }
        self = format
    }

    /// The name `plutil` gives the format: `binary1` or `xml1`.
    public var description: String {
        switch self {
        case .binary: "binary1"
        case .xml: "xml1"
        }
    }

    package static func detect(_ bytes: UnsafeRawBufferPointer) -> PlistFormat? {
        // A binary header, or as much of one as a file cut short holds.
        let header: [UInt8] = Array("bplist".utf8)
        if !bytes.isEmpty, bytes.prefix(header.count).elementsEqual(header.prefix(bytes.count)) { return .binary }
        var i = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) { return .xml }
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        if i < bytes.count, bytes[i] == UInt8(ascii: "<") { return .xml }
        if bytes.count >= 2, bytes[1] == UInt8(ascii: "<"), bytes[0] == 0 { return .xml }
        return nil
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

    /// Reads a binary or XML property list held in `buffer`, and says which format it was in.
    ///
    /// - Parameter buffer: The whole file, read only until the call returns.
    /// - Returns: Its value and its format.
    /// - Throws: The errors of ``read(_:)``.
    public func readWithFormat(_ buffer: UnsafeRawBufferPointer) throws(ArchiveError) -> (value: PlistValue, format: PlistFormat) {
        switch PlistFormat.detect(buffer) {
        case .binary: (try BPlistReader(options: binaryOptions).read(buffer), .binary)
        case .xml: (try XMLPlistReader(options: xmlOptions).read(buffer), .xml)
        case nil: throw Self.neither(buffer)
        }
    }

    package static func neither(_ buffer: UnsafeRawBufferPointer) -> ArchiveError {
        buffer.isEmpty
            ? ArchiveError(.notPropertyList, reason: "the input is empty", byteOffset: 0)
            : ArchiveError(
                .notPropertyList,
                reason: "the input is neither a binary property list (it does not start with \"bplist\") nor an XML one (it does not start with \"<\")",
                byteOffset: 0)
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

/// Runs `body` with the bytes of `bytes` in one buffer: where they lie when they are held
/// contiguously (arrays, `Data`), else in a copy. The buffer is valid only inside `body`.
package func withRawBytes<R>(
    of bytes: some Sequence<UInt8>, _ body: (UnsafeRawBufferPointer) throws(ArchiveError) -> R
) throws(ArchiveError) -> R {
    if let result = bytes.withContiguousStorageIfAvailable({ buffer in
        Result { () throws(ArchiveError) in try body(UnsafeRawBufferPointer(buffer)) }
    }) {
        return try result.get()
    }
    return try Array(bytes).withUnsafeBytes { buffer in
        Result { () throws(ArchiveError) in try body(buffer) }
    }.get()
}
