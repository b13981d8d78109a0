/// The flat object table a `bplist00` file is written from: objects in index order, scalars
/// uniqued by (exact type, value), containers as ranges of one shared reference pool.
///
/// Objects are added in pre-order (a container reserves its index before its children), which
/// puts the root at index 0 as CoreFoundation does. A container collects its children's
/// references on a scratch stack, so building a table allocates nothing per container.
///
/// ```swift
/// var table = BPlistTable()
/// let root = table.beginContainer()
/// table.appendReference(table.add(string: "a"))
/// table.endArray(root)
/// let bytes = try table.encode()
/// ```
package struct BPlistTable {
    package enum Object {
        case bool(Bool)
        case int(Int64)
        case uint(UInt64)
        case real(Double)
        case float(Float)
        case date(Double)
        case data([UInt8])
        case string(String)
        case uid(UInt64)
        /// References `refs[range]`.
        case array(Range<Int>)
        /// `2n` references in `refs[range]`: the `n` keys, then the `n` values.
        case dict(Range<Int>)
        /// A slot reserved by `beginContainer` and not yet ended.
        case pending
    }

    package private(set) var objects: [Object] = []
    package private(set) var refs: [Int] = []
    private var scratch: [Int] = []

    private var ints = WordIndex()
    private var uints: [UInt64: Int] = [:]
    private var reals = WordIndex()
    private var floats: [UInt32: Int] = [:]
    private var dates = WordIndex()
    private var stringIndex = StringIndex()
    private var datas: [ExactBytes: Int] = [:]
    private var uids: [UInt64: Int] = [:]
    private var bools: (Int?, Int?) = (nil, nil)

    package init() {}

    private var lastKeys: [String] = []
    private var lastKeyRefs: [Int] = []

    /// Appends references to `keys`, reusing the previous dictionary's when its keys are the same.
    package mutating func appendKeyReferences(_ keys: [String]) {
        if keys.count == lastKeys.count, zip(keys, lastKeys).allSatisfy({ ExactString($0) == ExactString($1) }) {
            scratch.append(contentsOf: lastKeyRefs)
            return
        }
        lastKeyRefs.removeAll(keepingCapacity: true)
        for key in keys { lastKeyRefs.append(add(string: key)) }
        lastKeys = keys
        scratch.append(contentsOf: lastKeyRefs)
    }

    /// One hash lookup: the existing index for `key`, or a new object appended and recorded.
    @inline(__always)
    private static func unique<K: Hashable>(_ map: inout [K: Int], _ objects: inout [Object], _ key: K, _ object: @autoclosure () -> Object) -> Int {
        let candidate = objects.count
        var found = candidate
        func visit(_ slot: inout Int) { found = slot }
        visit(&map[key, default: candidate])
        if found == candidate { objects.append(object()) }
        return found
    }

    package var count: Int { objects.count }

    @inline(__always)
    private mutating func append(_ object: Object) -> Int {
        objects.append(object)
        return objects.count - 1
    }

    package mutating func add(bool value: Bool) -> Int {
        if let index = value ? bools.1 : bools.0 { return index }
        let index = append(.bool(value))
        if value { bools.1 = index } else { bools.0 = index }
        return index
    }

    package mutating func add(int value: Int64) -> Int {
        let index = ints.index(of: UInt64(bitPattern: value), candidate: objects.count)
        if index == objects.count { objects.append(.int(value)) }
        return index
    }

    /// An unsigned integer; values up to `Int64.max` are the same object as the equal `Int64`.
    package mutating func add(uint value: UInt64) -> Int {
        if let small = Int64(exactly: value) { return add(int: small) }
        if let index = uints[value] { return index }
        let index = append(.uint(value))
        uints[value] = index
        return index
    }

    package mutating func add(real value: Double) -> Int {
        let index = reals.index(of: value.bitPattern, candidate: objects.count)
        if index == objects.count { objects.append(.real(value)) }
        return index
    }

    package mutating func add(float value: Float) -> Int {
        Self.unique(&floats, &objects, value.bitPattern, .float(value))
    }

    package mutating func add(date value: Double) -> Int {
        let index = dates.index(of: value.bitPattern, candidate: objects.count)
        if index == objects.count { objects.append(.date(value)) }
        return index
    }

    package mutating func add(string value: String) -> Int {
        var value = value
        let candidate = objects.count
        let index = Self.lookUp(&value, candidate: candidate, in: &stringIndex, objects: objects)
        if index == candidate { objects.append(.string(value)) }
        return index
    }

    /// Kept apart from `add(string:)` so the borrowed `objects` is released before it appends.
    @inline(__always)
    private static func lookUp(_ value: inout String, candidate: Int, in index: inout StringIndex, objects: [Object]) -> Int {
        value.withUTF8 { utf8 in
            index.index(of: utf8, candidate: candidate) { at in
                guard case .string(let stored) = objects[at] else { preconditionFailure("the string index points at a non-string") }
                return stored
            }
        }
    }

    package mutating func add(data value: [UInt8]) -> Int {
        Self.unique(&datas, &objects, ExactBytes(value), .data(value))
    }

    /// A UID; values of 2^32 and more are refused by Apple's readers and so by this writer.
    package mutating func add(uid value: UInt64) throws(ArchiveError) -> Int {
        guard value <= UInt64(UInt32.max) else {
            throw ArchiveError(.unencodable, reason: "UID \(value) is 2^32 or more, which Apple's readers reject")
        }
        if let index = uids[value] { return index }
        let index = append(.uid(value))
        uids[value] = index
        return index
    }

    /// A UID object for a caller that keeps its own one-per-value index (no uniquing lookup here).
    package mutating func appendUID(_ value: UInt32) -> Int {
        append(.uid(UInt64(value)))
    }

    /// A container under construction: its reserved index and where its references start on the scratch stack.
    package struct OpenContainer {
        package let index: Int
        fileprivate let scratchStart: Int
    }

    /// Reserves the next index for a container; add its children, then end it.
    package mutating func beginContainer() -> OpenContainer {
        OpenContainer(index: append(.pending), scratchStart: scratch.count)
    }

    /// Adds a reference to the innermost open container.
    @inline(__always)
    package mutating func appendReference(_ index: Int) {
        scratch.append(index)
    }

    /// Ends an array whose references were appended since `beginContainer`.
    package mutating func endArray(_ container: OpenContainer) {
        objects[container.index] = .array(moveScratch(from: container.scratchStart))
    }

    /// Ends a dictionary whose key references, then value references, were appended since `beginContainer`.
    package mutating func endDict(_ container: OpenContainer) {
        let range = moveScratch(from: container.scratchStart)
        precondition(range.count % 2 == 0, "a dictionary needs as many values as keys")
        objects[container.index] = .dict(range)
    }

    /// Replaces a pending slot with a finished container whose references are `keys` then `values`.
    package mutating func setDict(at index: Int, keys: some Collection<Int>, values: some Collection<Int>) {
        let start = refs.count
        refs.append(contentsOf: keys)
        refs.append(contentsOf: values)
        objects[index] = .dict(start..<refs.count)
    }

    /// Replaces a pending slot with a dictionary of one leading pair, then `keys` with `values`.
    package mutating func setDict(
        at index: Int, firstKey: Int, firstValue: Int, keys: ArraySlice<Int>, values: ArraySlice<Int>
    ) {
        let start = refs.count
        refs.append(firstKey)
        refs.append(contentsOf: keys)
        refs.append(firstValue)
        refs.append(contentsOf: values)
        objects[index] = .dict(start..<refs.count)
    }

    /// Replaces a pending slot with a finished array.
    package mutating func setArray(at index: Int, elements: some Collection<Int>) {
        let start = refs.count
        refs.append(contentsOf: elements)
        objects[index] = .array(start..<refs.count)
    }

    /// Replaces a pending slot with a copy of a scalar object.
    package mutating func setObject(at index: Int, to object: Object) {
        objects[index] = object
    }

    /// Drops the references of containers begun and never ended (after a failed encode).
    package mutating func abandonOpenContainers() {
        scratch.removeAll()
    }

    /// Writes every slot still pending as an empty dictionary, so the table always encodes.
    package mutating func fillPendingWithEmptyDictionaries() {
        for index in objects.indices {
            if case .pending = objects[index] { objects[index] = .dict(refs.count..<refs.count) }
        }
    }

    /// Reserves an index to be filled later with `setArray` or `setDict`.
    package mutating func reserve() -> Int { append(.pending) }

    private mutating func moveScratch(from start: Int) -> Range<Int> {
        let first = refs.count
        refs.append(contentsOf: scratch[start...])
        scratch.removeSubrange(start...)
        return first..<refs.count
    }
}

/// Bytes hashed in one call rather than one byte at a time.
struct ExactBytes: Hashable {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) }; hasher.combine(bytes.count) }
}
