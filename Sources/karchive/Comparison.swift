import KeyedArchive
import PropertyList

/// The comparison `karchive diff` makes of two property lists, A and B.
///
/// Plain property lists are compared value by value: dictionaries by key (the keys as sets),
/// arrays in order, sets as multisets, and scalars as ``DiffText`` says.
///
/// Keyed archives are compared as object graphs: from each `$top` key, UIDs are followed into
/// `$objects`, so how the objects are numbered and ordered does not matter. Two objects compare
/// their class (`$classname`, then the `$classversion`, then the `$classes` chain), then their
/// content: the elements of an `NSArray` or ordered set in order; those of an `NSSet` or
/// `NSCountedSet` as multisets of the values they hold; an `NSDictionary` by key; any other
/// object field by field. Foundation's value objects (`NSString`, `NSData`, `NSDate`, `NSURL`,
/// `NSUUID`, `NSNull`) compare by class and value, whether shared or not.
///
/// Every other object, and every array or dictionary reached through a UID, has identity: the
/// comparison pairs the object of A with the object of B met at the same place, one to one. A
/// pair met again is not compared again, so cycles end (a pair met inside itself counts as
/// equal), and an object of A met again beside another object of B than its partner (or the
/// reverse) is a difference of sharing: `root.b: shared with root.a in A, not in B`.
///
/// The work is bounded as ``KeyedUnarchiver/Options`` bounds decoding: nesting deeper than
/// `maximumDepth`, or more than `maximumDecodedObjects` values compared, stops the comparison.
struct Comparison {
    /// One of the two files.
    enum Side: Int {
        case a, b
    }

    /// Why the comparison could not be finished: a damaged object graph, or input past the limits.
    struct Trouble: Error {
        /// The file at fault; nil when the limit is the nesting or size of both.
        let side: Side?
        let message: String
    }

    /// The differences found so far.
    private(set) var report = DiffReport()
    /// A's and B's graphs, in ``Side`` order; empty for plain property lists.
    private var walks: [ArchiveGraphWalk]
    /// Each object of A paired so far with its object of B, and the reverse.
    private var partners: [[Int: Partner]] = [[:], [:]]
    private var compared = 0
    private let limits = KeyedUnarchiver.Options()
    private let stack = StackGuard()

    /// The object an object is paired with, and where the two were first met.
    private struct Partner {
        let uid: Int
        let path: DiffPath
    }

    private init(walks: [ArchiveGraphWalk]) {
        self.walks = walks
    }

    /// The differences between two plain property lists.
    static func plain(_ a: PlistValue, _ b: PlistValue) throws(Trouble) -> DiffReport {
        var comparison = Comparison(walks: [])
        try comparison.compare(a, b, at: .root, depth: 0)
        return comparison.report
    }

    /// The differences between two keyed archives' object graphs, from their `$top` keys.
    static func graphs(_ a: KeyedArchiveShape, _ b: KeyedArchiveShape) throws(Trouble) -> DiffReport {
        var comparison = Comparison(walks: [ArchiveGraphWalk(archive: a), ArchiveGraphWalk(archive: b)])
        if a.version != b.version {
            comparison.report.add(DiffPath.root.appending(key: ArchiveFormat.versionKey), "\(a.version) != \(b.version)")
        }
        try comparison.compareEntries(a.top, b.top, at: .root, depth: 0)
        return comparison.report
    }

    // MARK: Values

    /// What a value stands for: in a keyed archive, a UID leads to null, an object, or an entry
    /// of `$objects` (which keeps the UID, for identity).
    private enum Node {
        case null
        case value(PlistValue, uid: Int?)
        case object(Object)
    }

    /// An archived object: its class and fields, and for Foundation's value objects the value.
    private struct Object {
        let uid: Int
        let className: String
        let fields: PlistDictionary
        let value: PlistValue?
    }

    private mutating func compare(_ a: PlistValue, _ b: PlistValue, at path: DiffPath, depth: Int) throws(Trouble) {
        compared += 1
        guard compared <= limits.maximumDecodedObjects else {
            throw Trouble(side: nil, message: "more than \(limits.maximumDecodedObjects) values to compare, past what diff compares")
        }
        guard depth <= limits.maximumDepth, stack.hasRoom() else {
            throw Trouble(side: nil, message: "\(path.text): nested deeper than \(limits.maximumDepth) levels, past what diff compares")
        }
        let left = try node(a, in: .a, at: path)
        let right = try node(b, in: .b, at: path)
        switch (left, right) {
        case (.null, .null):
            return
        case (.object(let x), .object(let y)):
            try compareObjects(x, y, at: path, depth: depth)
        case (.value(let x, let xUID), .value(let y, let yUID)):
            if let xUID, let yUID, Self.isContainer(x), Self.isContainer(y), !pair(xUID, yUID, at: path) { return }
            try compareValues(x, y, at: path, depth: depth)
        default:
            report.add(path, "\(Self.describe(left)) != \(Self.describe(right))")
        }
    }

    private func node(_ value: PlistValue, in side: Side, at path: DiffPath) throws(Trouble) -> Node {
        guard !walks.isEmpty else { return value == .null ? .null : .value(value, uid: nil) }
        let walk = walks[side.rawValue]
        do {
            switch try walk.node(value) {
            case .null:
                return .null
            case .inline(let inline):
                if case .uid(let uid) = value { return .value(inline, uid: Int(uid)) }
                return inline == .null ? .null : .value(inline, uid: nil)
            case .object(let uid, let className, let fields):
                return .object(Object(uid: uid, className: className, fields: fields, value: try walk.foundationValue(className, fields)))
            }
        } catch {
            throw trouble(error, in: side, at: path)
        }
    }

    /// Two values that are not objects: containers element by element, scalars by ``DiffText``.
    private mutating func compareValues(_ a: PlistValue, _ b: PlistValue, at path: DiffPath, depth: Int) throws(Trouble) {
        switch (a, b) {
        case (.array(let x), .array(let y)):
            try compareLists(x, y, at: path, depth: depth)
        case (.dict(let x), .dict(let y)):
            try compareEntries(x, y, at: path, depth: depth)
        case (.set(let x), .set(let y)):
            compareMultisets(Self.counted(x), Self.counted(y), at: path)
        default:
            if let difference = DiffText.difference(a, b) { report.add(path, difference) }
        }
    }

    /// Elements in order; the elements past the shorter list are each only in one file.
    private mutating func compareLists(_ a: [PlistValue], _ b: [PlistValue], at path: DiffPath, depth: Int) throws(Trouble) {
        for index in 0..<min(a.count, b.count) {
            try compare(a[index], b[index], at: path.appending(index: index), depth: depth + 1)
        }
        for index in b.count..<max(a.count, b.count) { report.add(path.appending(index: index), "only in A") }
        for index in a.count..<max(a.count, b.count) { report.add(path.appending(index: index), "only in B") }
    }

    /// Entries by key, in the order of their keys' UTF-8 bytes.
    private mutating func compareEntries(_ a: PlistDictionary, _ b: PlistDictionary, at path: DiffPath, depth: Int) throws(Trouble) {
        let keys = (a.keys + b.keys.filter { a[$0] == nil }).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for key in keys {
            switch (a[key], b[key]) {
            case (let x?, let y?): try compare(x, y, at: path.appending(key: key), depth: depth + 1)
            case (_?, nil): report.add(path.appending(key: key), "only in A")
            default: report.add(path.appending(key: key), "only in B")
            }
        }
    }

    /// Each element with how many times it is there, in order of first appearance.
    private static func counted(_ elements: [PlistValue]) -> [(PlistValue, Int)] {
        counted(elements.map { ($0, 1) })
    }

    private static func counted(_ elements: [(PlistValue, Int)]) -> [(PlistValue, Int)] {
        var order: [PlistValue] = []
        var counts: [PlistValue: Int] = [:]
        for (element, count) in elements {
            if counts[element] == nil { order.append(element) }
            counts[element, default: 0] += count
        }
        return order.map { ($0, counts[$0] ?? 0) }
    }

    /// Two sets: every element whose count differs, A's first.
    private mutating func compareMultisets(_ a: [(PlistValue, Int)], _ b: [(PlistValue, Int)], at path: DiffPath) {
        let countsB = Dictionary(b, uniquingKeysWith: +)
        let countsA = Dictionary(a, uniquingKeysWith: +)
        for (element, count) in a {
            let other = countsB[element] ?? 0
            if count != other { report.add(path, Self.countDifference(element, count, other)) }
        }
        for (element, count) in b where countsA[element] == nil {
            report.add(path, Self.countDifference(element, 0, count))
        }
    }

    /// `element string "x" only in A`, or `element integer 3: 2 in A, 1 in B`.
    private static func countDifference(_ element: PlistValue, _ a: Int, _ b: Int) -> String {
        let shown = "element " + DiffText.full(element)
        switch (a, b) {
        case (1, 0): return shown + " only in A"
        case (0, 1): return shown + " only in B"
        default: return shown + ": \(a) in A, \(b) in B"
        }
    }

    // MARK: Objects

    private mutating func compareObjects(_ a: Object, _ b: Object, at path: DiffPath, depth: Int) throws(Trouble) {
        if a.value == nil, b.value == nil, !pair(a.uid, b.uid, at: path) { return }
        if let difference = classDifference(a, b) {
            report.add(path, difference)
            return
        }
        if let x = a.value, let y = b.value {
            try compareValues(x, y, at: path, depth: depth)
            return
        }
        let className = a.className
        if let x = walks[0].elements(className, a.fields), let y = walks[1].elements(className, b.fields) {
            if ArchiveFormat.arrayClasses.contains(className) || ArchiveFormat.orderedSetClasses.contains(className) {
                try compareLists(x, y, at: path, depth: depth)
            } else {
                let counted = (try setElements(x, of: a, in: .a, at: path), try setElements(y, of: b, in: .b, at: path))
                compareMultisets(counted.0, counted.1, at: path)
            }
        } else if let x = walks[0].entries(className, a.fields), let y = walks[1].entries(className, b.fields) {
            try compareEntries(try keyed(x, in: .a, at: path), try keyed(y, in: .b, at: path), at: path, depth: depth)
        } else {
            try compareEntries(Self.fields(of: a), Self.fields(of: b), at: path, depth: depth)
        }
    }

    /// Pairs A's object `a` with B's `b` when neither is paired yet; true when the pair is new,
    /// so its content is to be compared. A pair met again is false. Either object already paired
    /// with another is a difference of sharing, reported here, and false.
    private mutating func pair(_ a: Int, _ b: Int, at path: DiffPath) -> Bool {
        let forward = partners[0][a]
        let backward = partners[1][b]
        if let forward, forward.uid == b { return false }
        switch (forward, backward) {
        case (nil, nil):
            partners[0][a] = Partner(uid: b, path: path)
            partners[1][b] = Partner(uid: a, path: path)
            return true
        case (let forward?, nil):
            report.add(path, "shared with \(forward.path.text) in A, not in B")
        case (nil, let backward?):
            report.add(path, "shared with \(backward.path.text) in B, not in A")
        case (let forward?, let backward?):
            report.add(path, "shared with \(forward.path.text) in A, with \(backward.path.text) in B")
        }
        return false
    }

    /// `class Person != Employee`, `class Person v2 != Person v1`, or the `$classes` chains when
    /// only they differ; nil for the same class.
    private func classDifference(_ a: Object, _ b: Object) -> String? {
        guard a.className == b.className else { return "class \(a.className) != \(b.className)" }
        let records = (walks[0].archive.classRecord(ofObjectAt: a.uid), walks[1].archive.classRecord(ofObjectAt: b.uid))
        let versions = (records.0?[ArchiveFormat.classVersionKey] ?? .int(0), records.1?[ArchiveFormat.classVersionKey] ?? .int(0))
        if versions.0 != versions.1 {
            return "class \(a.className) v\(DiffText.value(versions.0)) != \(b.className) v\(DiffText.value(versions.1))"
        }
        let chains = (records.0?[ArchiveFormat.classesKey], records.1?[ArchiveFormat.classesKey])
        guard chains.0 != chains.1 else { return nil }
        return "class \(a.className) with $classes \(Self.chain(chains.0)) != \(Self.chain(chains.1))"
    }

    /// `Person, Model, NSObject`.
    private static func chain(_ classes: PlistValue?) -> String {
        guard case .array(let names)? = classes else { return classes.map(DiffText.full) ?? "none" }
        return names.map { name in
            if case .string(let text) = name { return text }
            return DiffText.full(name)
        }.joined(separator: ", ")
    }

    /// A set's elements as the values they hold, with their counts (an `NSCountedSet`'s
    /// `NS.count<n>`, else 1 each).
    private mutating func setElements(_ elements: [PlistValue], of object: Object, in side: Side, at path: DiffPath) throws(Trouble) -> [(PlistValue, Int)] {
        var counted: [(PlistValue, Int)] = []
        do {
            for (index, element) in elements.enumerated() {
                var count = 1
                if object.className == ArchiveFormat.countedSetClass,
                    let stored = object.fields["\(ArchiveFormat.countedCountPrefix)\(index)"]?.int64Value
                {
                    count = Int(clamping: stored)
                }
                counted.append((try walks[side.rawValue].materialize(element), count))
            }
        } catch {
            throw trouble(error, in: side, at: path)
        }
        return Self.counted(counted)
    }

    /// A Foundation dictionary's entries by the text of their keys.
    private func keyed(_ entries: [(PlistValue, PlistValue)], in side: Side, at path: DiffPath) throws(Trouble) -> PlistDictionary {
        var keyed = PlistDictionary()
        do {
            for (key, value) in entries { keyed[try walks[side.rawValue].keyText(key)] = value }
        } catch {
            throw trouble(error, in: side, at: path)
        }
        return keyed
    }

    /// An object's fields by the names they were coded under.
    private static func fields(of object: Object) -> PlistDictionary {
        var named = PlistDictionary()
        for (key, value) in object.fields where key != ArchiveFormat.classKey {
            named[ArchiveFormat.unescape(key) ?? key] = value
        }
        return named
    }

    private static func isContainer(_ value: PlistValue) -> Bool {
        switch value {
        case .array, .dict, .set: true
        default: false
        }
    }

    /// A node beside one of another kind: `string "Ann"`, `object Person`, `NSDate 2001-01-01T00:00:00Z`.
    private static func describe(_ node: Node) -> String {
        switch node {
        case .null: "null"
        case .value(let value, _): DiffText.full(value)
        case .object(let object): object.value.map { "\(object.className) \(DiffText.value($0))" } ?? "object \(object.className)"
        }
    }

    private func trouble(_ error: any Error, in side: Side, at path: DiffPath) -> Trouble {
        let message = (error as? Karchive.Failure)?.message ?? "\(error)"
        return Trouble(side: side, message: "\(path.text): \(message)")
    }
}
