// Unsafe code in this file: the document reads its caller's buffer in place: `init` checks the trailer and every
// offset-table entry against the buffer, and each object's extent is checked before it is read.

/// A validated view of a `bplist00` byte buffer: trailer checked, every offset-table entry
/// checked once, objects addressed by index.
///
/// The document does not own its bytes; it is used inside the `withUnsafeBytes` scope of
/// the buffer that holds them. After `init` succeeds, `offset(of: i)` is a valid marker position
/// for every object `i`, and reading any object only has to check its own payload extent.
///
/// Offsets and references are read where they lie, never copied into tables: a reader of a
/// large archive then touches the file alone, not the file plus a table per object. Each is
/// read with one 8-byte load, shifted down to its width; eight bytes are always there, because
/// everything such a load can start at (the object area and the offset table) is followed by
/// the 32-byte trailer.
///
/// Not API: the document is public only as the SPI `Reader`, for the library's other modules,
/// which read a reference or a UID millions of times per file. Those accessors are `@inlinable`,
/// which `package` declarations cannot usefully be: their bodies are never inlined into other
/// modules, and a call per reference cost a reader of the document a seventh of its time.
@_spi(Reader) public struct BPlistDocument {
    public private(set) var bytes: UnsafeRawBufferPointer
    public let objectCount: Int
    public let topObject: Int
    public let refSize: Int
    public let offsetTableOffset: Int
    /// The width of an offset-table entry.
    @usableFromInline let offsetSize: Int
    /// `64 - 8 * refSize` and `64 - 8 * offsetSize`: what a big-endian 8-byte load is shifted right by.
    @usableFromInline let refShift: Int
    @usableFromInline let offsetShift: Int
    /// Strings longer than this many characters (ASCII bytes or UTF-16 code units) fail with `.sizeLimit`.
    package let maximumStringLength: Int
    /// Data objects longer than this many bytes fail with `.sizeLimit`.
    package let maximumDataLength: Int

    /// A document of no objects over no bytes: a stand-in where a holder reads a table of
    /// another format. Reading any object of it stops the program (no index is in range).
    package init() {
        bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        objectCount = 0
        topObject = 0
        refSize = 1
        offsetTableOffset = 0
        offsetSize = 1
        refShift = 56
        offsetShift = 56
        maximumStringLength = 0
        maximumDataLength = 0
    }

    /// Validates the header, trailer and offset table.
    ///
    /// - Throws: `ArchiveError` with `.notPropertyList` (empty, or not starting as `bplist00`
    ///   does), `.truncated` (1 to 40 bytes that start as `bplist00` does, or last 32 bytes that
    ///   are not a trailer), `.invalidTrailer` (a trailer with a bad field),
    ///   `.invalidOffset` or `.sizeLimit` (more objects than `maximumObjectCount`).
    package init(
        bytes: UnsafeRawBufferPointer, maximumObjectCount: Int,
        maximumStringLength: Int = .max, maximumDataLength: Int = .max
    ) throws(ArchiveError) {
        self.bytes = bytes
        self.maximumStringLength = maximumStringLength
        self.maximumDataLength = maximumDataLength
        let length = bytes.count
        let header = BPlistFormat.header
        let headerLength = min(length, header.count)
        for i in 0..<headerLength where bytes[i] != header[i] {
            throw ArchiveError(
                .notPropertyList, reason: "the data does not start with the header \"bplist00\"", byteOffset: i)
        }
        // Input that starts as the header does, however little of it, is a file cut short.
        guard length >= BPlistFormat.headerSize + 1 + BPlistFormat.trailerSize else {
            throw ArchiveError(
                length > 0 ? .truncated : .notPropertyList,
                reason: length > 0
                    ? "the file is truncated: \(length) bytes are too few for a binary property list (at least 41: header, one object, trailer)"
                    : "the input is empty",
                byteOffset: length)
        }
        let trailer = length - BPlistFormat.trailerSize
        let offsetSize = Int(bytes[trailer + BPlistFormat.trailerOffsetSizeField])
        let refSize = Int(bytes[trailer + BPlistFormat.trailerRefSizeField])
        let rawCount = Self.bigEndian(bytes, at: trailer + BPlistFormat.trailerObjectCountField, width: 8)
        let rawTop = Self.bigEndian(bytes, at: trailer + BPlistFormat.trailerTopObjectField, width: 8)
        let rawTable = Self.bigEndian(bytes, at: trailer + BPlistFormat.trailerTableOffsetField, width: 8)

        // A file cut short ends in object or offset-table bytes, not in a trailer. A trailer as
        // writers leave it has six zero bytes before the widths, widths of 1 to 8, an object
        // count of 1 to the file's length, a top object below that count and an offset table
        // between the header and the trailer. Bytes that break two or more of these are not a trailer, and
        // the file is most likely truncated: each check below then fails with `.truncated`.
        // Bytes that break one are a trailer with a bad field (damaged in place, or crafted):
        // `.invalidTrailer` at that field. Cutting real archives at every length breaks three or
        // more (`ReaderTruncationTests`); the deliberately broken trailers among the fixtures break one.
        let unusedBytesSet = (0..<BPlistFormat.trailerOffsetSizeField).contains { bytes[trailer + $0] != 0 }
        let brokenProperties = [
            unusedBytesSet,
            !(1...8).contains(offsetSize),
            !(1...8).contains(refSize),
            rawCount < 1 || rawCount > UInt64(length),
            rawTop >= max(rawCount, 1),
            rawTable < UInt64(BPlistFormat.headerSize + 1) || rawTable > UInt64(trailer),
        ].count(where: { $0 })
        let isCut = brokenProperties >= 2

        func bad(_ field: Int, _ reason: String) -> ArchiveError {
            isCut
                ? ArchiveError(
                    .truncated, reason: "the file is truncated or its trailer is damaged: " + reason, byteOffset: trailer + field)
                : ArchiveError(.invalidTrailer, reason: reason, byteOffset: trailer + field)
        }
        guard (1...8).contains(offsetSize) else {
            throw bad(BPlistFormat.trailerOffsetSizeField, "the offset-table entry width is \(offsetSize); it must be 1 to 8 bytes")
        }
        guard (1...8).contains(refSize) else {
            throw bad(BPlistFormat.trailerRefSizeField, "the object-reference width is \(refSize); it must be 1 to 8 bytes")
        }
        guard rawCount >= 1 else {
            throw bad(BPlistFormat.trailerObjectCountField, "the trailer declares no objects")
        }
        guard rawCount <= UInt64(length) else {
            throw bad(BPlistFormat.trailerObjectCountField, "the trailer declares \(rawCount) objects in a file of \(length) bytes")
        }
        let count = Int(rawCount)
        guard rawTop < rawCount else {
            throw bad(BPlistFormat.trailerTopObjectField, "the top object index \(rawTop) is not below the object count \(count)")
        }
        guard rawTable >= UInt64(BPlistFormat.headerSize + 1), rawTable < UInt64(trailer) else {
            throw bad(
                BPlistFormat.trailerTableOffsetField,
                "the offset table position \(rawTable) is outside the object area [9, \(trailer))")
        }
        let tableOffset = Int(rawTable)
        let (tableSize, overflow) = count.multipliedReportingOverflow(by: offsetSize)
        guard !overflow, tableOffset + tableSize == trailer else {
            throw bad(
                BPlistFormat.trailerTableOffsetField,
                "an offset table of \(count) entries of \(offsetSize) bytes at byte \(tableOffset) does not end where the trailer starts (byte \(trailer))")
        }
        if refSize < 8, UInt64(count) > (UInt64(1) << UInt64(8 * refSize)) - 1 {
            throw bad(BPlistFormat.trailerRefSizeField, "references of \(refSize) bytes cannot address \(count) objects")
        }
        if offsetSize < 8, UInt64(tableOffset) > (UInt64(1) << UInt64(8 * offsetSize)) - 1 {
            throw bad(BPlistFormat.trailerOffsetSizeField, "offsets of \(offsetSize) bytes cannot address the offset table at byte \(tableOffset)")
        }

        // After the trailer checks, so that a truncated file is reported as truncated.
        guard count <= maximumObjectCount else {
            throw ArchiveError(
                .sizeLimit,
                reason: "the file declares \(count) objects, more than the maximum of \(maximumObjectCount) (raise maximumObjectCount to read it)",
                byteOffset: trailer + BPlistFormat.trailerObjectCountField)
        }

        // One pass over the table for its lowest and highest entry; the entry at fault is
        // looked for only when there is one.
        let offsetShift = 64 - 8 * offsetSize
        var lowest = UInt64.max
        var highest: UInt64 = 0
        var entry = tableOffset
        for _ in 0..<count {
            let offset = Self.word(bytes, at: entry, shift: offsetShift)
            lowest = min(lowest, offset)
            highest = max(highest, offset)
            entry &+= offsetSize
        }
        if lowest < UInt64(BPlistFormat.headerSize) || highest >= UInt64(tableOffset) {
            for i in 0..<count {
                let entry = tableOffset + i * offsetSize
                let offset = Self.word(bytes, at: entry, shift: offsetShift)
                guard offset >= UInt64(BPlistFormat.headerSize), offset < UInt64(tableOffset) else {
                    throw ArchiveError(
                        .invalidOffset,
                        reason: "object #\(i) is said to start at byte \(offset), outside the object area [8, \(tableOffset))",
                        byteOffset: entry, objectIndex: i)
                }
            }
        }
        self.objectCount = count
        self.topObject = Int(rawTop)
        self.refSize = refSize
        self.offsetTableOffset = tableOffset
        self.offsetSize = offsetSize
        self.refShift = 64 - 8 * refSize
        self.offsetShift = offsetShift
    }

    /// A big-endian unsigned integer of `width` (1...8) bytes; the caller has checked the bounds.
    @inline(__always)
    package static func bigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int, width: Int) -> UInt64 {
        switch width {
        case 1: return UInt64(bytes[offset])
        case 2: return UInt64(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default:
            var value: UInt64 = 0
            for i in offset..<(offset + width) { value = value << 8 | UInt64(bytes[i]) }
            return value
        }
    }

    /// The unsigned big-endian integer of `64 - shift` bits at `offset`, read with one 8-byte
    /// load: the caller has checked that `offset + 8` lies within `bytes`.
    @inlinable @inline(__always)
    static func word(_ bytes: UnsafeRawBufferPointer, at offset: Int, shift: Int) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &>> UInt64(truncatingIfNeeded: shift)
    }

    /// The big-endian integer of `width` (1...8) bytes at `offset` in the object area or the offset table.
    @inlinable @inline(__always)
    func word(at offset: Int, width: Int) -> UInt64 {
        Self.word(bytes, at: offset, shift: 64 &- 8 &* width)
    }

    /// The marker position of object `index` (below `objectCount`), checked in `init`.
    @inlinable @inline(__always)
    public func offset(of index: Int) -> Int {
        precondition(UInt(bitPattern: index) < UInt(bitPattern: objectCount), "object index out of range")
        return Int(truncatingIfNeeded: Self.word(bytes, at: offsetTableOffset &+ index &* offsetSize, shift: offsetShift))
    }

    // MARK: Objects

    /// What an object is, and where its payload lies.
    public struct Object: Sendable {
        public enum Kind: Sendable { case null, bool, int, real, date, data, asciiString, utf16String, uid, array, set, dict }
        public let kind: Kind
        public let marker: UInt8
        /// Offset of the marker byte.
        public let offset: Int
        /// Offset of the first payload byte (after any escaped count).
        public let payload: Int
        /// Elements for containers, bytes for data and ASCII, code units for UTF-16,
        /// the payload width for ints, reals, dates and UIDs.
        public let count: Int

        /// An object of another table of this shape (``XMLPlistDocument``), whose `payload`
        /// and `count` that table defines.
        package init(kind: Kind, marker: UInt8, offset: Int, payload: Int, count: Int) {
            self.kind = kind
            self.marker = marker
            self.offset = offset
            self.payload = payload
            self.count = count
        }
    }

    /// The object at `index` with its payload extent checked against the offset table.
    ///
    /// - Throws: `.invalidMarker`, `.invalidCount` or `.truncated`.
    package func object(at index: Int) throws(ArchiveError) -> Object {
        let offset = offset(of: index)
        let marker = bytes[offset]
        let nibble = Int(marker & 0x0F)
        let kind: Object.Kind
        var payload = offset + 1
        var count: Int
        var unit = 1
        var lengthLimit = Int.max
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case BPlistFormat.null: kind = .null
            case BPlistFormat.falseMarker, BPlistFormat.trueMarker: kind = .bool
            default: throw invalidMarker(marker, offset, index)
            }
            count = 0
        case 0x1:
            guard nibble <= 4 else { throw invalidMarker(marker, offset, index, "an integer of \(1 << min(nibble, 30)) bytes") }
            kind = .int
            count = 1 << nibble
        case 0x2:
            guard marker == BPlistFormat.float32Marker || marker == BPlistFormat.float64Marker else {
                throw invalidMarker(marker, offset, index, "a real of \(1 << nibble) bytes")
            }
            kind = .real
            count = 1 << nibble
        case 0x3:
            guard marker == BPlistFormat.dateMarker else { throw invalidMarker(marker, offset, index) }
            kind = .date
            count = 8
        case 0x4, 0x5, 0x6, 0xA, 0xC, 0xD:
            switch marker >> 4 {
            case 0x4: kind = .data; lengthLimit = maximumDataLength
            case 0x5: kind = .asciiString; lengthLimit = maximumStringLength
            case 0x6: kind = .utf16String; unit = 2; lengthLimit = maximumStringLength
            case 0xA: kind = .array; unit = refSize
            case 0xC: kind = .set; unit = refSize
            default: kind = .dict; unit = refSize * 2
            }
            if marker & 0x0F == BPlistFormat.countFollows {
                (count, payload) = try escapedCount(after: offset, index: index)
            } else {
                count = nibble
            }
        case 0x8:
            guard nibble <= 7 else { throw invalidMarker(marker, offset, index, "a UID of \(nibble + 1) bytes") }
            kind = .uid
            count = nibble + 1
        default:
            throw invalidMarker(marker, offset, index)
        }
        let (width, productOverflow) = count.multipliedReportingOverflow(by: unit)
        let (end, sumOverflow) = payload.addingReportingOverflow(width)
        guard !productOverflow, !sumOverflow, end <= offsetTableOffset else {
            throw ArchiveError(
                .truncated,
                reason: "\(Self.describe(kind, count: count)) runs past the end of the object area (byte \(offsetTableOffset))",
                byteOffset: offset, objectIndex: index)
        }
        if count > lengthLimit { throw lengthError(kind, count, offset, index) }
        return Object(kind: kind, marker: marker, offset: offset, payload: payload, count: count)
    }

    private func lengthError(_ kind: Object.Kind, _ count: Int, _ offset: Int, _ index: Int) -> ArchiveError {
        let reason =
            kind == .data
            ? "a data object of \(count) bytes is longer than the maximum of \(maximumDataLength) (raise maximumDataLength to read it)"
            : "a string of \(count) characters is longer than the maximum of \(maximumStringLength) (raise maximumStringLength to read it)"
        return ArchiveError(.sizeLimit, reason: reason, byteOffset: offset, objectIndex: index)
    }

    /// Reads an escaped count: an integer object right after the marker.
    private func escapedCount(after offset: Int, index: Int) throws(ArchiveError) -> (count: Int, payload: Int) {
        let at = offset + 1
        guard at < offsetTableOffset else {
            throw ArchiveError(.truncated, reason: "the count after the marker runs past the object area", byteOffset: at, objectIndex: index)
        }
        let intMarker = bytes[at]
        guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
            throw ArchiveError(
                .invalidCount,
                reason: "the count after the marker must be an integer of 1, 2, 4 or 8 bytes, found marker 0x\(Self.hex(intMarker))",
                byteOffset: at, objectIndex: index)
        }
        let width = 1 << Int(intMarker & 0x0F)
        guard at + 1 + width <= offsetTableOffset else {
            throw ArchiveError(.truncated, reason: "the count after the marker runs past the object area", byteOffset: at, objectIndex: index)
        }
        let raw = Self.bigEndian(bytes, at: at + 1, width: width)
        guard raw <= UInt64(Int.max) else {
            throw ArchiveError(.invalidCount, reason: "the count \(raw) is out of range", byteOffset: at, objectIndex: index)
        }
        return (Int(raw), at + 1 + width)
    }

    /// The same document over a copy of its bytes (of the same length) at `bytes`.
    package func moved(to bytes: UnsafeRawBufferPointer) -> BPlistDocument {
        precondition(bytes.count == self.bytes.count, "a document moves only to a copy of its bytes")
        var moved = self
        moved.bytes = bytes
        return moved
    }

    /// Checks every reference of the container `object` (at `index`) against the object count at
    /// once, so they can be read later with ``checkedReference(_:_:)``.
    ///
    /// - Throws: `.invalidReference` for the first reference out of range.
    package func checkReferences(of object: Object, index: Int) throws(ArchiveError) {
        let width = object.kind == .dict ? 2 * object.count : object.count
        var highest: UInt64 = 0
        var at = object.payload
        for _ in 0..<width {
            highest = max(highest, Self.word(bytes, at: at, shift: refShift))
            at &+= refSize
        }
        guard highest >= UInt64(objectCount) else { return }
        for i in 0..<width { _ = try reference(object, i, index: index) }
    }

    /// The reference at position `i` of a container whose references ``checkReferences(of:index:)`` checked.
    @inlinable @inline(__always)
    public func checkedReference(_ object: Object, _ i: Int) -> Int {
        Int(truncatingIfNeeded: Self.word(bytes, at: object.payload &+ i &* refSize, shift: refShift))
    }

    /// The reference at position `i` of a container's reference list, checked against the object count.
    @inlinable @inline(__always)
    public func reference(_ object: Object, _ i: Int, index: Int) throws(ArchiveError) -> Int {
        let at = object.payload + i * refSize
        let ref = Self.word(bytes, at: at, shift: refShift)
        guard ref < UInt64(objectCount) else {
            throw ArchiveError(
                .invalidReference,
                reason: "reference \(ref) is out of range: the file has \(objectCount) objects",
                byteOffset: at, objectIndex: index)
        }
        return Int(ref)
    }

    // MARK: Scalars

    package func integer(_ object: Object, index: Int) throws(ArchiveError) -> PlistValue {
        let (bits, aboveInt64) = try integerBits(object, index: index)
        return aboveInt64 ? .uint(bits) : .int(Int64(bitPattern: bits))
    }

    /// An integer object's value: the bit pattern of an `Int64`, or (`aboveInt64`) a `UInt64` above `Int64.max`.
    @inline(__always)
    package func integerBits(_ object: Object, index: Int) throws(ArchiveError) -> (bits: UInt64, aboveInt64: Bool) {
        if object.count <= 8 {
            // 1, 2 and 4 bytes are unsigned, 8 signed: either way the bit pattern of the Int64.
            return (word(at: object.payload, width: object.count), false)
        }
        return try wideInteger(object, index: index)
    }

    private func wideInteger(_ object: Object, index: Int) throws(ArchiveError) -> (bits: UInt64, aboveInt64: Bool) {
        let high = word(at: object.payload, width: 8)
        let low = word(at: object.payload + 8, width: 8)
        if high == 0 { return (low, low > UInt64(Int64.max)) }
        if high == .max, low > UInt64(Int64.max) { return (low, false) }
        throw ArchiveError(
            .invalidMarker, reason: "a 16-byte integer whose value fits neither Int64 nor UInt64",
            byteOffset: object.offset, objectIndex: index)
    }

    package func real(_ object: Object) -> PlistValue {
        let bits = word(at: object.payload, width: object.count)
        return object.count == 4 ? .float(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : .real(Double(bitPattern: bits))
    }

    package func double(_ object: Object) -> Double {
        Double(bitPattern: word(at: object.payload, width: 8))
    }

    /// The value of the object at `index` if it is a well-formed UID; nil for anything else
    /// (read it with ``object(at:)`` then, which also reports what is wrong with it).
    @inlinable @inline(__always)
    public func uidValue(at index: Int) -> UInt64? {
        let offset = offset(of: index)
        let marker = bytes[offset]
        let width = Int(marker & 0x0F) + 1
        guard marker >> 4 == 0x8, width <= 8, offset + 1 + width <= offsetTableOffset else { return nil }
        return word(at: offset + 1, width: width)
    }

    package func uid(_ object: Object) -> UInt64 {
        word(at: object.payload, width: object.count)
    }

    package func data(_ object: Object) -> [UInt8] {
        Array(UnsafeRawBufferPointer(rebasing: bytes[object.payload..<(object.payload + object.count)]))
    }

    /// The string object's text, validated: ASCII bytes ≤ 0x7F, UTF-16 without lone surrogates.
    package func string(_ object: Object, index: Int) throws(ArchiveError) -> String {
        let start = object.payload
        if object.kind == .asciiString {
            let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + object.count)])
            // Eight bytes at a time; the byte at fault is looked for only when there is one.
            if !BPlistOutput.isASCII(slice), let bad = slice.firstIndex(where: { $0 > 0x7F }) {
                throw ArchiveError(
                    .invalidString, reason: "an ASCII string holds the byte 0x\(Self.hex(slice[bad])), above 0x7F",
                    byteOffset: start + bad, objectIndex: index)
            }
            return String(decoding: slice, as: UTF8.self)
        }
        // Transcode big-endian UTF-16 straight to UTF-8, validating surrogates on the way.
        let count = object.count
        var failure: ArchiveError?
        let text = String(unsafeUninitializedCapacity: count * 3) { out -> Int in
            var o = 0
            var i = 0
            while i < count {
                let at = start + 2 * i
                let unit = UInt32(bytes[at]) << 8 | UInt32(bytes[at + 1])
                if unit < 0x80 {
                    out[o] = UInt8(unit); o += 1
                } else if unit < 0x800 {
                    out[o] = UInt8(0xC0 | unit >> 6); out[o + 1] = UInt8(0x80 | unit & 0x3F); o += 2
                } else if unit & 0xF800 != 0xD800 {
                    out[o] = UInt8(0xE0 | unit >> 12); out[o + 1] = UInt8(0x80 | (unit >> 6) & 0x3F)
                    out[o + 2] = UInt8(0x80 | unit & 0x3F); o += 3
                } else {
                    guard unit < 0xDC00 else {
                        failure = ArchiveError(
                            .invalidString, reason: "a UTF-16 string holds a trail surrogate 0x\(Self.hex(unit)) without its lead",
                            byteOffset: at, objectIndex: index)
                        return 0
                    }
                    guard i + 1 < count else {
                        failure = ArchiveError(
                            .invalidString, reason: "a UTF-16 string holds a lead surrogate 0x\(Self.hex(unit)) without its trail",
                            byteOffset: at, objectIndex: index)
                        return 0
                    }
                    let next = UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
                    guard next & 0xFC00 == 0xDC00 else {
                        failure = ArchiveError(
                            .invalidString, reason: "a UTF-16 string holds a lead surrogate 0x\(Self.hex(unit)) without its trail",
                            byteOffset: at, objectIndex: index)
                        return 0
                    }
                    let scalar = 0x10000 + ((unit - 0xD800) << 10 | (next - 0xDC00))
                    out[o] = UInt8(0xF0 | scalar >> 18); out[o + 1] = UInt8(0x80 | (scalar >> 12) & 0x3F)
                    out[o + 2] = UInt8(0x80 | (scalar >> 6) & 0x3F); out[o + 3] = UInt8(0x80 | scalar & 0x3F); o += 4
                    i += 1
                }
                i += 1
            }
            return o
        }
        if let failure { throw failure }
        return text
    }

    // MARK: Messages

    @inline(never)
    private func invalidMarker(_ marker: UInt8, _ offset: Int, _ index: Int, _ what: String? = nil) -> ArchiveError {
        let detail = what.map { " (\($0))" } ?? ""
        return ArchiveError(
            .invalidMarker, reason: "marker byte 0x\(Self.hex(marker))\(detail) is not a bplist00 object type",
            byteOffset: offset, objectIndex: index)
    }

    package static func hex<T: BinaryInteger>(_ value: T) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count % 2 == 1 ? "0" + digits : digits
    }

    package static func describe(_ kind: Object.Kind, count: Int) -> String {
        switch kind {
        case .null, .bool: "a singleton"
        case .int: "an integer of \(count) bytes"
        case .real: "a real of \(count) bytes"
        case .date: "a date"
        case .data: "data of \(count) bytes"
        case .asciiString: "an ASCII string of \(count) bytes"
        case .utf16String: "a UTF-16 string of \(count) code units"
        case .uid: "a UID of \(count) bytes"
        case .array: "an array of \(count) references"
        case .set: "a set of \(count) references"
        case .dict: "a dictionary of \(count) entries"
        }
    }
}
