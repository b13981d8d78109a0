// Unsafe code in this file: bytes are read where they lie only inside the call that lends them: a caller's buffer
// until the entry point returns, a sequence's contiguous storage inside `withRawBytes`, a string's own UTF-8
// storage inside `withUTF8`; nothing keeps a reference to them.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
/// Bytes read where they lie: the property-list readers' entry points that take raw memory, the
/// one way a sequence of bytes becomes raw memory for them, and strings compared by their own
/// UTF-8 storage (``ExactString``).

extension BPlistReader {
    /// Reads the value at the top of a binary property list held in `buffer`.
    ///
    /// - Parameter buffer: The whole file. The reader only reads it, and keeps no reference to it
    ///   once it returns.
    /// - Returns: The top object, with every object it references decoded.
    /// - Throws: ``ArchiveError``, with the same codes as ``read(_:)-(Sequence<UInt8>)``.
    public func read(_ buffer: UnsafeRawBufferPointer) throws(ArchiveError) -> PlistValue {
        let document = try options.document(buffer)
        var materializer = Materializer(document: document, options: options)
        return try materializer.value(at: document.topObject, depth: 0)
    }
}

extension ReadingLimits {
    /// Runs `body` with `bytes` validated as a document under these limits (valid only inside `body`).
    package func withDocument<R>(of bytes: [UInt8], _ body: (BPlistDocument) throws(ArchiveError) -> R) throws(ArchiveError) -> R {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(ArchiveError) in try body(try document(buffer)) }
        }.get()
    }

    /// Validates `buffer` as a document under these limits.
    package func document(_ buffer: UnsafeRawBufferPointer) throws(ArchiveError) -> BPlistDocument {
        guard buffer.count <= maximumArchiveSize else {
            throw ArchiveError(
                .sizeLimit,
                reason: "the input is \(buffer.count) bytes, more than the maximum of \(maximumArchiveSize) (raise maximumArchiveSize to read it)",
                byteOffset: 0)
        }
        return try BPlistDocument(
            bytes: buffer, maximumObjectCount: maximumObjectCount,
            maximumStringLength: maximumStringLength, maximumDataLength: maximumDataLength)
    }
}

extension XMLPlistReader {
    /// Reads the value of an XML property list held in `buffer`.
    ///
    /// - Parameter buffer: The whole file. The reader only reads it, and keeps no reference to it
    ///   once it returns.
    /// - Returns: The value the `<plist>` element holds.
    /// - Throws: ``ArchiveError``, with the same codes as ``read(_:)-(Sequence<UInt8>)``.
    public func read(_ buffer: UnsafeRawBufferPointer) throws(ArchiveError) -> PlistValue {
        try options.parseXML(buffer, into: XMLValueTree()).value
    }
}

extension XMLPlistDocument {
    /// Reads the XML property list held in `buffer` into a table, within `limits`.
    ///
    /// - Parameter buffer: The whole file, read only until the call returns.
    /// - Throws: ``ArchiveError``, with the codes of ``XMLPlistReader/read(_:)-(UnsafeRawBufferPointer)``.
    package convenience init(reading buffer: UnsafeRawBufferPointer, limits: ReadingLimits) throws(ArchiveError) {
        self.init(try limits.parseXML(buffer, into: Builder()).builder)
    }
}

extension ReadingLimits {
    /// Parses an XML property list within these limits, handing its values to `builder`.
    fileprivate func parseXML<Builder: XMLPlistBuilder>(
        _ buffer: UnsafeRawBufferPointer, into builder: Builder
    ) throws(ArchiveError) -> (value: Builder.Value, builder: Builder) {
        guard buffer.count <= maximumArchiveSize else {
            throw ArchiveError(
                .sizeLimit,
                reason: "the input is \(buffer.count) bytes, more than the maximum of \(maximumArchiveSize) (raise maximumArchiveSize to read it)",
                byteOffset: 0)
        }
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            throw ArchiveError(.notPropertyList, reason: "the input is empty", line: 1, column: 1, byteOffset: 0)
        }
        var parser = XMLPlistParser(
            bytes: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: buffer.count), options: self,
            builder: builder)
        let value = try parser.document()
        return (value, parser.builder)
    }

    /// The line and column (from 1) of the byte at `offset` of the text in `buffer`, as an XML
    /// reader's errors give them.
    package static func lineAndColumn(of offset: Int, inText buffer: UnsafeRawBufferPointer) -> (line: Int, column: Int) {
        guard let base = buffer.baseAddress else { return (1, 1) }
        return TextPosition.lineAndColumn(of: offset, in: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: buffer.count))
    }
}

extension PlistReader {
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

/// A string compared and hashed by its exact Unicode scalars (UTF-8 bytes), not by canonical
/// equivalence: `"é"` and `"e\u{301}"` are different keys in a property list.
package struct ExactString: Hashable, Sendable {
    package let value: String
    package init(_ value: String) { self.value = value }

    package static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        guard lhs.value.utf8.count == rhs.value.utf8.count else { return false }
        var a = lhs.value
        var b = rhs.value
        return a.withUTF8 { x in b.withUTF8 { y in x.count == 0 || x.baseAddress == y.baseAddress || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }

    package func hash(into hasher: inout Hasher) {
        var copy = value
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(value.utf8.count)
    }
}
