/// Reads an XML property list into a ``PlistValue``, strictly and within bounds.
///
/// The reader takes what Apple's writers and Python's `plistlib` write: an optional XML
/// declaration, the `<!DOCTYPE plist …>` line, and a `<plist>` element holding one value of
/// the elements `dict`, `key`, `array`, `string`, `integer`, `real`, `true`, `false`, `date`
/// and `data`, with comments, processing instructions, CDATA sections, the five predefined
/// entities and numeric character references. It is not a general XML parser: a document type
/// with an internal subset (the only place an entity could be declared) is refused, so no
/// entity can expand, and no external file is ever read.
///
/// A one-entry dictionary `{"CF$UID": <integer>}` whose integer is below 2^32 reads as a
/// ``PlistValue/uid(_:)``, as CoreFoundation reads it: that is how keyed archives spell
/// their references in XML.
///
/// Any failure is an ``ArchiveError`` with the line and column (and byte offset) of the problem.
///
/// ```swift
/// let text = #"<plist version="1.0"><dict><key>name</key><string>Ann</string></dict></plist>"#
/// let value = try XMLPlistReader().read(Array(text.utf8))
/// print(value.dictValue?["name"]?.stringValue ?? "")   // Ann
/// ```
public struct XMLPlistReader: Sendable {
    /// Limits that bound what a hostile file can make the reader do (the one limits type every
    /// reader of this package shares).
    public typealias Options = ReadingLimits

    /// The limits this reader applies to every input it reads.
    public var options: Options

    /// A reader with the given limits.
    ///
    /// - Parameter options: The limits to read within; the defaults (``ReadingLimits/init()``) when omitted.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Reads the value of an XML property list.
    ///
    /// - Parameter bytes: The whole file, in UTF-8 (a byte-order mark is allowed): an array,
    ///   `ArraySlice`, `Data` or any other sequence of bytes (one held contiguously is read where
    ///   it lies, any other is copied first).
    /// - Returns: The value the `<plist>` element holds.
    /// - Throws: ``ArchiveError`` with codes `.notPropertyList` (not an XML property list at all),
    ///   `.invalidXML` (malformed markup, an unknown element, text that is not the kind its
    ///   element names), `.truncated`, `.invalidString` (invalid UTF-8, a character reference to no
    ///   Unicode scalar), `.invalidKey` (a repeated key, a key without its value), `.depthLimit`
    ///   or `.sizeLimit`; each with the line, column and byte offset.
    public func read(_ bytes: some Sequence<UInt8>) throws(ArchiveError) -> PlistValue {
        try withRawBytes(of: bytes) { buffer throws(ArchiveError) in try read(buffer) }
    }
}

extension ArchiveError.Code {
    /// XML text is not a well-formed property list: malformed markup, an element a property
    /// list does not have, or element text that is not the kind the element names.
    public static let invalidXML = Self("invalidXML")
}
