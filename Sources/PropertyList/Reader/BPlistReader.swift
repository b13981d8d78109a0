/// Reads `bplist00` bytes into a ``PlistValue``, strictly and within bounds.
///
/// The reader checks the whole trailer and every offset-table entry before it reads an
/// object, bounds every count by the bytes that hold it, rejects cycles, caps nesting depth
/// and the expanded size of shared sub-trees, and decodes each object once however often
/// it is referenced. Any failure is an ``ArchiveError`` with the byte offset (and object
/// index) of the problem.
///
/// ```swift
/// let value = try BPlistReader().read(bytes)
/// if case .dict(let dict) = value { print(dict.keys) }
/// ```
public struct BPlistReader: Sendable {
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

    /// Reads the value at the top of a binary property list.
    ///
    /// - Parameter bytes: The whole file: an array, `ArraySlice`, `Data` or any other sequence of
    ///   bytes (one held contiguously is read where it lies, any other is copied first).
    /// - Returns: The top object, with every object it references decoded.
    /// - Throws: ``ArchiveError`` with codes `.notPropertyList`, `.truncated`, `.invalidTrailer`,
    ///   `.invalidOffset`, `.invalidMarker`, `.invalidCount`, `.invalidReference`, `.invalidString`,
    ///   `.invalidKey`, `.cycle`, `.depthLimit` or `.sizeLimit`.
    public func read(_ bytes: some Sequence<UInt8>) throws(ArchiveError) -> PlistValue {
        try withRawBytes(of: bytes) { buffer throws(ArchiveError) in try read(buffer) }
    }
}

/// Builds `PlistValue`s from a validated document, once per object index.
struct Materializer {
    let document: BPlistDocument
    let options: BPlistReader.Options
    /// 0 = not yet read, 1 = being read (on the current path), 2 = done.
    var state: [UInt8]
    var values: [PlistValue]
    /// How many values each finished object expands to.
    var expandedSizes: [Int]
    /// How many containers deep each finished object is (0 for scalars), so a shared container
    /// reused deeper down cannot carry the value past the depth limit.
    var heights: [Int]
    /// Per object index: the number given to a string used as a key (-1 = none yet), so duplicate
    /// keys are found with one hash per distinct key object rather than one per dictionary entry.
    var keyIDs: [Int]
    var interned: [ExactString: Int] = [:]
    /// Per key number: the serial of the last dictionary that used it.
    var stamps: [Int] = []
    var dictSerial = 0
    let stack = StackGuard()

    init(document: BPlistDocument, options: BPlistReader.Options) {
        self.document = document
        self.options = options
        state = [UInt8](repeating: 0, count: document.objectCount)
        values = [PlistValue](repeating: .null, count: document.objectCount)
        expandedSizes = [Int](repeating: 1, count: document.objectCount)
        heights = [Int](repeating: 0, count: document.objectCount)
        keyIDs = [Int](repeating: -1, count: document.objectCount)
    }

    mutating func value(at index: Int, depth: Int) throws(ArchiveError) -> PlistValue {
        switch state[index] {
        case 2:
            guard depth + heights[index] <= options.maximumDepth else {
                throw ArchiveError(
                    .depthLimit,
                    reason: "a shared container used here would nest containers more than \(options.maximumDepth) deep (raise maximumDepth to read it)",
                    byteOffset: document.offset(of: index), objectIndex: index)
            }
            return values[index]
        case 1:
            throw ArchiveError(
                .cycle, reason: "a container contains itself", byteOffset: document.offset(of: index), objectIndex: index)
        default: break
        }
        let object = try document.object(at: index)
        let value: PlistValue
        switch object.kind {
        case .null: value = .null
        case .bool: value = .bool(object.marker == BPlistFormat.trueMarker)
        case .int: value = try document.integer(object, index: index)
        case .real: value = document.real(object)
        case .date: value = .date(document.double(object))
        case .data: value = .data(document.data(object))
        case .asciiString, .utf16String: value = .string(try document.string(object, index: index))
        case .uid: value = .uid(document.uid(object))
        case .array, .set, .dict:
            guard depth < options.maximumDepth else {
                throw ArchiveError(
                    .depthLimit, reason: "containers are nested more than \(options.maximumDepth) deep (raise maximumDepth to read it)",
                    byteOffset: object.offset, objectIndex: index)
            }
            guard stack.hasRoom() else {
                throw ArchiveError(.depthLimit, reason: StackGuard.reason(depth: depth), byteOffset: object.offset, objectIndex: index)
            }
            state[index] = 1
            value = try container(object, index: index, depth: depth + 1)
        }
        state[index] = 2
        values[index] = value
        return value
    }

    private mutating func container(_ object: BPlistDocument.Object, index: Int, depth: Int) throws(ArchiveError) -> PlistValue {
        var size = 1
        var height = 1
        func add(_ child: Int) throws(ArchiveError) {
            size += expandedSizes[child]
            height = max(height, heights[child] + 1)
            guard size <= options.maximumExpandedSize else {
                throw ArchiveError(
                    .sizeLimit,
                    reason: "the document expands to more than \(options.maximumExpandedSize) values through shared references (raise maximumExpandedSize to read it)",
                    byteOffset: object.offset, objectIndex: index)
            }
        }
        let result: PlistValue
        if object.kind == .dict {
            dictSerial += 1
            var keys: [String] = []
            keys.reserveCapacity(object.count)
            for i in 0..<object.count {
                let keyRef = try document.reference(object, i, index: index)
                guard case .string(let key) = try value(at: keyRef, depth: depth) else {
                    throw ArchiveError(
                        .invalidKey, reason: "dictionary key #\(i) is \(values[keyRef].kindDescription), not a string",
                        byteOffset: document.offset(of: keyRef), objectIndex: keyRef)
                }
                var id = keyIDs[keyRef]
                if id < 0 {
                    let next = stamps.count
                    id = interned[ExactString(key), default: next]
                    if id == next { interned[ExactString(key)] = id; stamps.append(0) }
                    keyIDs[keyRef] = id
                }
                guard stamps[id] != dictSerial else {
                    throw ArchiveError(
                        .invalidKey, reason: "the dictionary has the key \(quoted: key) twice",
                        byteOffset: object.payload + i * document.refSize, objectIndex: index)
                }
                stamps[id] = dictSerial
                try add(keyRef)
                keys.append(key)
            }
            var elements: [PlistValue] = []
            elements.reserveCapacity(object.count)
            for i in 0..<object.count {
                let valueRef = try document.reference(object, object.count + i, index: index)
                elements.append(try value(at: valueRef, depth: depth))
                try add(valueRef)
            }
            let dict = PlistDictionary(distinctKeys: keys, values: elements)
            result = .dict(dict)
        } else {
            var elements = [PlistValue]()
            elements.reserveCapacity(object.count)
            for i in 0..<object.count {
                let ref = try document.reference(object, i, index: index)
                elements.append(try value(at: ref, depth: depth))
                try add(ref)
            }
            result = object.kind == .set ? .set(elements) : .array(elements)
        }
        expandedSizes[index] = size
        heights[index] = height
        return result
    }
}
