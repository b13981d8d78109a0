import Foundation
@_spi(Reader) import PropertyList

/// The state of one archive being read: the validated bplist document, `$objects`, decoded
/// class instances by UID, class descriptions, and the limits that bound hostile input.
///
/// Decoding is driven by the requested static type; the archive's class names only select
/// among the requested type, registered types and `setClass` mappings.
///
/// A core is used by one thread and never re-enters an update of the same property, so its
/// state opts out of the runtime's dynamic exclusivity checks (`@exclusivity(unchecked)`; what
/// they would cost is measured in `ArchiverCore`'s notes).
final class UnarchiverCore {
    /// The archive as a graph of objects (the only reader of its bytes, and their owner).
    let graph: ArchiveGraph
    @exclusivity(unchecked) var coders: CoderCache = CoderCache()
    /// Class instances by UID, registered before their fields are decoded.
    @exclusivity(unchecked) var instances: InstanceColumn
    /// UIDs being decoded now, to catch cycles through values.
    @exclusivity(unchecked) var inProgress: UIDSet
    /// UIDs registered in `instances`, in order, so a failed top-level decode can take back what it registered.
    @exclusivity(unchecked) var registrations: [Int] = []
    /// The cores that read values migrations set (``SetValue``) during this core's decodes: a
    /// failed top-level decode lets go of their instances too.
    @exclusivity(unchecked) var valueCores: [UnarchiverCore] = []
    /// Whether this core reads a value a migration set: it keeps its own `valueCores` for the
    /// core that owns it to let go of.
    @exclusivity(unchecked) var isValueCore = false
    @exclusivity(unchecked) var classMap: [String: Any.Type] = [:]
    @exclusivity(unchecked) var registered: [Any.Type] = [] {
        didSet {
            registeredByName = nil
            registeredByMovedName = nil
        }
    }
    @exclusivity(unchecked) private var registeredByName: [String: Any.Type]?
    /// Registered types by their default class name without modules (see ``ClassNames``); a name
    /// two registered types share is left out.
    @exclusivity(unchecked) private var registeredByMovedName: [String: Any.Type]?
    /// Archived class names and type names with their modules dropped (nil: a name without a module).
    @exclusivity(unchecked) private var namesWithoutModules: [String: String?] = [:]
    /// Types by their default class names without modules (see ``isModuleMove(_:of:)``).
    @exclusivity(unchecked) private var movableNames: [ObjectIdentifier: String?] = [:]
    /// Class-description UID → the position of its description in `classDescriptions`.
    @exclusivity(unchecked) private var classSlots: IndexMap
    @exclusivity(unchecked) private var classDescriptions: [ClassDescription] = []
    @exclusivity(unchecked) var depth: Int = 0
    @exclusivity(unchecked) var decodedCount: Int = 0
    /// The counts of `NSCountedSet` objects built so far (each one is added one at a time).
    @exclusivity(unchecked) var countedSetCounts: Int = 0
    /// The attributes of the `NSAttributedString` objects built so far (each run's entries, and one).
    @exclusivity(unchecked) var attributedStringAttributes: Int = 0
    /// Values decoded from objects that are not class instances (Foundation's collections and
    /// value classes), by UID and the type they were decoded as, kept once an object is met a
    /// second time (see ``reusingValue(of:as:keepsFirst:_:)``).
    @exclusivity(unchecked) var decodedValues: [DecodedValueKey: DecodedValue] = [:]
    /// UIDs decoded once as values: only a value met a second time is kept for reuse, so an
    /// archive without shared values pays one bit per value.
    @exclusivity(unchecked) var decodedOnce: UIDSet
    /// Stops the recursion before the current thread's stack runs out; set per top-level decode.
    @exclusivity(unchecked) var stack = StackGuard()
    let options: KeyedUnarchiver.Options
    /// The format the archive is in. An XML archive's errors carry the line and column (and byte
    /// offset) in its text of the element where the problem was found.
    let sourceFormat: PlistFormat
    /// The decode report, when the options collect one.
    let reporter: ReportCollector?

    /// A class, so handing one out costs one reference count rather than one per name it holds.
    final class ClassDescription {
        let name: String
        let classes: [String]
        /// The first of `name` and `classes` that is a Foundation list class (array, set,
        /// ordered set) or dictionary class, found once per class description.
        let listClass: String?
        let dictionaryClass: String?
        /// Whether the class is `NSDate` or derives from it.
        let isDate: Bool
        /// `$classversion`: the version of the type the objects were archived at (0 when absent).
        let version: Int

        init(name: String, classes: [String], version: Int) {
            self.name = name
            self.classes = classes
            self.version = version
            let chain = [name] + classes
            listClass = chain.first(where: ArchiveFormat.listClasses.contains)
            dictionaryClass = chain.first(where: ArchiveFormat.dictionaryClasses.contains)
            isDate = chain.contains(ArchiveFormat.dateClass)
        }
    }

    /// The kinds of Foundation collection a decoder may ask for.
    enum CollectionFamily {
        case list, dictionary
    }

    /// Opens a copy of `bytes`: the core can outlive them.
    convenience init(bytes: some Collection<UInt8>, options: KeyedUnarchiver.Options) throws(ArchiveError) {
        self.init(graph: try ArchiveGraph(copying: bytes, options: options), options: options)
    }

    /// Runs `body` with a core that reads `data` where it lies. A core still referenced when
    /// `body` returns (by a decoder the decoded type kept) takes a copy of the bytes and lets go
    /// of the decoded instances, so it neither outlives the buffer nor keeps them alive.
    static func reading<T>(_ data: Data, options: KeyedUnarchiver.Options, _ body: (UnarchiverCore) throws -> T) throws -> T {
        try ArchiveGraph.borrowing(data, options: options) { graph throws -> T in
            var core = UnarchiverCore(graph: graph, options: options)
            defer {
                if !isKnownUniquelyReferenced(&core) {
                    core.graph.keepBytes()
                    core.forgetInstances()
                }
            }
            return try body(core)
        }
    }

    private init(graph: ArchiveGraph, options: KeyedUnarchiver.Options) {
        self.options = options
        reporter = options.collectsReport ? ReportCollector() : nil
        sourceFormat = graph.format
        self.graph = graph
        instances = InstanceColumn(count: graph.uidCount)
        inProgress = UIDSet(count: graph.uidCount)
        decodedOnce = UIDSet(count: graph.uidCount)
        classSlots = IndexMap()
    }

    deinit {
        instances.release(registered: registrations)
    }

    /// Lets go of the class instances decoded so far. A one-shot decode whose decoder was kept
    /// does this as it returns: an instance that keeps its decoder would otherwise keep itself
    /// alive through the core's instance table.
    func forgetInstances() {
        decodedValues.removeAll()
        for uid in registrations { instances[uid] = nil }
        registrations.removeAll()
    }

    /// `$top` key → value reference (normally a UID).
    var top: [(key: String, reference: Int)] { graph.top }

    // MARK: Reading the graph

    // Forwarded to ``ArchiveGraph`` under the names the coders use.

    typealias Target = ArchiveGraph.Target
    typealias ObjectDict = ArchiveGraph.ObjectDict

    @inline(__always)
    func target(_ reference: Int) throws(ArchiveError) -> Target { try graph.target(reference) }

    /// The value reference of `key` (already escaped) in `dict`, or nil when absent.
    func value(in dict: ObjectDict, escapedKey key: String) throws(ArchiveError) -> Int? {
        try graph.value(in: dict, escapedKey: key)
    }

    /// The value reference of the key numbered `keyID`, searching from `hint` (see
    /// ``ArchiveGraph/value(in:keyID:hint:)``).
    @inline(__always)
    func value(in dict: ObjectDict, keyID: Int32, hint: inout Int) throws(ArchiveError) -> Int? {
        try graph.value(in: dict, keyID: keyID, hint: &hint)
    }

    /// Every key of an object dictionary except `$class`, unescaped, in file order.
    func keys(of dict: ObjectDict) throws(ArchiveError) -> [String] { try graph.keys(of: dict) }

    /// Every field of an object dictionary except `$class` (unescaped key, value reference), in file order.
    func fields(of dict: ObjectDict) throws(ArchiveError) -> [(key: String, reference: Int)] { try graph.fields(of: dict) }

    func string(_ object: ArchiveGraph.Object, index: Int) throws(ArchiveError) -> String {
        try graph.string(object, index: index)
    }

    /// The object dictionary an `$objects` entry holds, with its class description, or nil if the entry is not one.
    func objectDict(uid: Int, object: ArchiveGraph.Object, index: Int) throws(ArchiveError) -> (ObjectDict, ClassDescription)? {
        guard object.kind == .dict else { return nil }
        // Reading an object costs in proportion to its size, however often it is referenced:
        // count that against the decoding budget so shared wide objects cannot make decoding quadratic.
        try charge(object.count, byteOffset: object.offset, objectIndex: index)
        let dict = ObjectDict(object: object, index: index, uid: uid)
        var hint = 0
        guard let classRef = try value(in: dict, keyID: ArchiveKeyIDs.classKey, hint: &hint) else { return nil }
        return (dict, try classDescription(classRef, of: uid))
    }

    /// The class description of an object dictionary that ``objectDict(uid:object:index:)`` returned.
    func classDescription(of dict: ObjectDict) throws(ArchiveError) -> ClassDescription {
        var hint = 0
        guard let classRef = try value(in: dict, keyID: ArchiveKeyIDs.classKey, hint: &hint) else {
            throw ArchiveError(.invalidArchive, reason: "object UID \(dict.uid) has no $class", byteOffset: dict.object.offset, objectIndex: dict.index)
        }
        return try classDescription(classRef, of: dict.uid)
    }

    /// The class description `classRef`, the `$class` reference of the object `objectUID`, names.
    private func classDescription(_ classRef: Int, of objectUID: Int) throws(ArchiveError) -> ClassDescription {
        let uid: Int, object: ArchiveGraph.Object, index: Int
        switch try target(classRef) {
        case .object(let u, let o, let i): (uid, object, index) = (u, o, i)
        case .inline(let value, _):
            throw ArchiveError(
                .invalidArchive, reason: "$class of object UID \(objectUID) is not a UID", byteOffset: value.offset, objectIndex: classRef)
        case .null:
            throw ArchiveError(.invalidArchive, reason: "$class points at $null", byteOffset: graph.offset(of: classRef), objectIndex: classRef)
        }
        if let slot = classSlots.value(for: uid) { return classDescriptions[Int(slot)] }
        let (name, classes, version) = try graph.classDescription(uid: uid, object, index: index)
        let description = ClassDescription(name: name, classes: classes, version: version)
        classSlots.set(Int32(classDescriptions.count), for: uid)
        classDescriptions.append(description)
        return description
    }

    // MARK: Class resolution

    /// The type an archived class name selects: a `setClass` mapping, else a registered type with
    /// that name, else a registered type whose default name it is but for its modules.
    func mappedType(forClassName name: String) -> Any.Type? {
        exactlyMappedType(forClassName: name) ?? movedRegisteredType(forClassName: name)
    }

    /// The type a `setClass` mapping or a registered type's own or earlier name gives `name`.
    func exactlyMappedType(forClassName name: String) -> Any.Type? {
        if let mapped = classMap[name] { return mapped }
        if registeredByName == nil {
            var index: [String: Any.Type] = [:]
            for type in registered {
                for legacy in coders.coder(for: type).legacyClassNames where index[legacy] == nil { index[legacy] = type }
                index[archiveClassName(of: type)] = type
            }
            registeredByName = index
        }
        return registeredByName?[name]
    }

    /// The registered type whose default class name is `name` but for its modules; nil when none
    /// is, or two are.
    private func movedRegisteredType(forClassName name: String) -> Any.Type? {
        guard !registered.isEmpty, let moved = withoutModules(name) else { return nil }
        if registeredByMovedName == nil {
            var index: [String: Any.Type?] = [:]
            for type in registered {
                guard let key = movableName(of: type) else { continue }
                index[key] = index[key] == nil ? type : .some(nil)
            }
            registeredByMovedName = index.compactMapValues { $0 }
        }
        return registeredByMovedName?[moved]
    }

    /// True when `archivedName` is `type`'s default class name but for its modules: the type
    /// moved to another module since the archive was written (see ``ClassNames``).
    func isModuleMove(_ archivedName: String, of type: Any.Type) -> Bool {
        guard let archived = withoutModules(archivedName), let own = movableName(of: type) else { return false }
        return own == archived
    }

    /// `type`'s default class name without its modules; nil for a type that declares its class
    /// name (it is read under that name and its legacy names only) or whose name has no module.
    private func movableName(of type: Any.Type) -> String? {
        let id = ObjectIdentifier(type)
        if let known = movableNames[id] { return known }
        let name = defaultClassName(of: type)
        let movable = archiveClassName(of: type) == name ? withoutModules(name) : nil
        movableNames[id] = movable
        return movable
    }

    private func withoutModules(_ name: String) -> String? {
        if let known = namesWithoutModules[name] { return known }
        let computed = ClassNames.withoutModules(name)
        namesWithoutModules[name] = computed
        return computed
    }

    func archiveClassName(of type: Any.Type) -> String {
        coders.coder(for: type).className ?? defaultClassName(of: type)
    }

    func register(_ instance: AnyObject, uid: Int) {
        instances[uid] = instance
        registrations.append(uid)
    }

    /// Runs a top-level decode; if it fails, instances it registered are let go of (see
    /// ``abandonInstances(from:)``), so a later decode never returns an instance whose fields
    /// were only partly decoded, and none outlives the error.
    func topLevel<R>(_ body: () throws -> R) throws -> R {
        let mark = registrations.count
        let valueCoreMark = valueCores.count
        let reportMark = reporter?.report.mark
        depth = 0
        decodedCount = 0
        countedSetCounts = 0
        attributedStringAttributes = 0
        inProgress.removeAll()
        stack = StackGuard()
        reporter?.stack.removeAll()
        do {
            let value = try body()
            if !isValueCore { valueCores.removeAll() }
            return value
        } catch {
            // A reused value may hold instances the failed decode registered.
            decodedValues.removeAll()
            abandonInstances(from: mark)
            abandonValueCores(from: valueCoreMark)
            if let reportMark { reporter?.report.truncate(to: reportMark) }
            if let error = error as? ArchiveError { throw graph.placed(error) }
            throw error
        }
    }

    /// Lets go of what the value cores from `mark` on decoded, as ``abandonInstances(from:)`` does
    /// for this core's own: values a migration set, read into a field of another type, are
    /// decoded by cores of their own, and their instances can hold each other in cycles too.
    func abandonValueCores(from mark: Int) {
        for core in valueCores[mark...] {
            core.abandonInstances(from: 0)
            core.abandonValueCores(from: 0)
        }
        valueCores.removeSubrange(mark...)
    }

    // MARK: Limits

    func enter(_ reference: Int) throws(ArchiveError) {
        depth += 1
        if depth > options.maximumDepth {
            throw ArchiveError(
                .depthLimit, reason: "objects are nested more than \(options.maximumDepth) deep (raise maximumDepth to read it)",
                byteOffset: graph.offset(of: reference), objectIndex: reference)
        }
        if decodedCount < options.maximumDecodedObjects {
            decodedCount += 1
        } else {
            try charge(1, forObjectAt: reference)
        }
        if !stack.hasRoom() {
            throw ArchiveError(
                .depthLimit, reason: StackGuard.reason(depth: depth), byteOffset: graph.offset(of: reference), objectIndex: reference)
        }
    }

    func leave() { depth -= 1 }

    /// Charges `units` of work to the decoding budget (`maximumDecodedObjects`) before it is
    /// done; a sum past the budget (or a negative count) is `.sizeLimit`. The room left is
    /// compared, never the sum, so no count can overflow it.
    @inline(__always)
    func charge(_ units: Int, byteOffset: Int?, objectIndex: Int?) throws(ArchiveError) {
        // `decodedCount` never exceeds the budget, so the room left cannot overflow.
        guard units >= 0, units <= options.maximumDecodedObjects &- decodedCount else {
            throw overBudget(byteOffset: byteOffset, objectIndex: objectIndex)
        }
        decodedCount &+= units
    }

    /// ``charge(_:byteOffset:objectIndex:)`` for work the object at `reference` implies; its
    /// place is looked up only for the error.
    func charge(_ units: Int, forObjectAt reference: Int) throws(ArchiveError) {
        guard units >= 0, units <= options.maximumDecodedObjects &- decodedCount else {
            throw overBudget(byteOffset: graph.offset(of: reference), objectIndex: reference)
        }
        decodedCount &+= units
    }

    @inline(never)
    private func overBudget(byteOffset: Int?, objectIndex: Int?) -> ArchiveError {
        ArchiveError(
            .sizeLimit,
            reason: "the archive expands to more than \(options.maximumDecodedObjects) decoded values through shared references (raise maximumDecodedObjects to read it)",
            byteOffset: byteOffset, objectIndex: objectIndex)
    }

    /// Adds `units` to `counter`, a budget of its own bounded by the option `option` (`limit`),
    /// before the work they stand for; a sum past the limit, or past `Int.max`, is `.sizeLimit`
    /// saying what was counted (`what`: "the counts of the archive's counted sets").
    func charge(_ units: Int, to counter: inout Int, limit: Int, option: String, what: String, for dict: ObjectDict) throws(ArchiveError) {
        let (sum, overflow) = counter.addingReportingOverflow(units)
        guard units >= 0, !overflow, sum <= limit else {
            throw ArchiveError(
                .sizeLimit, reason: "\(what) add up to more than \(limit) (raise \(option) to read it)",
                byteOffset: dict.object.offset, objectIndex: dict.index)
        }
        counter = sum
    }

    /// ``charge(_:byteOffset:objectIndex:)`` for work an object dictionary implies.
    func charge(_ units: Int, for dict: ObjectDict) throws(ArchiveError) {
        try charge(units, byteOffset: dict.object.offset, objectIndex: dict.index)
    }

    /// The value `dict` decodes to as `T`, decoded by `body` and reused for later references to
    /// the object, so however often an object is referenced, it costs at most twice the work and
    /// memory of its value.
    ///
    /// A reused value is still charged what decoding it again would cost (the values it holds),
    /// so the budget bounds the size of the decoded value as a caller walks or archives it
    /// again; `keepsFirst` is for Foundation objects that every reference gets the same instance
    /// of, as class instances are, which cost one decoded value when reused. A value met once is
    /// not kept (its UID is only marked), so an archive without shared values pays one bit per
    /// value.
    func reusingValue<T>(of dict: ObjectDict, as type: T.Type, keepsFirst: Bool = false, _ body: () throws -> T) throws -> T {
        if !keepsFirst, !decodedOnce.contains(dict.uid) {
            // Marked once decoded, so a decode of the same object inside `body` (as another
            // type: `Any` through its collection type) takes this path too.
            let value = try body()
            _ = decodedOnce.insert(dict.uid)
            return value
        }
        let key = DecodedValueKey(uid: dict.uid, type: ObjectIdentifier(T.self))
        if let known = decodedValues[key], let value = known.value as? T {
            try charge(keepsFirst ? 1 : known.cost, for: dict)
            return value
        }
        let before = decodedCount
        let value = try body()
        decodedValues[key] = DecodedValue(value: value, cost: decodedCount - before)
        return value
    }

    // MARK: Errors

    /// A `.typeMismatch` saying what `reference` holds instead of `expected`.
    func mismatch(_ expected: String, _ reference: Int) -> ArchiveError {
        guard let object = try? graph.object(at: reference) else {
            return ArchiveError(.typeMismatch, reason: "expected \(expected)", objectIndex: reference)
        }
        if object.kind == .uid, case .object(_, let target, let targetIndex)? = try? self.target(reference) {
            return ArchiveError(
                .typeMismatch, reason: "expected \(expected), found \(ArchiveGraph.describe(target))",
                byteOffset: target.offset, objectIndex: targetIndex)
        }
        return ArchiveError(
            .typeMismatch, reason: "expected \(expected), found \(ArchiveGraph.describe(object))", byteOffset: object.offset,
            objectIndex: reference)
    }
}

extension UnarchiverCore {
    /// Lets go of the class instances registered from `registrations[mark]` on, whose top-level
    /// decode failed: none of them is handed out, and none outlives the error.
    ///
    /// Taking them out of `instances` is not enough. A reflection-coded class registers its
    /// instance before decoding its fields (so that cycles resolve), and the instances can hold
    /// each other in strong cycles that nothing else references once the error is thrown. Every
    /// such cycle runs through a field that reflection filled: an instance of a `KeyedCoding` or
    /// `Codable` class exists only once its initialiser has returned, so it can only hold
    /// instances that existed before it, and only a reflection-coded instance can be referenced
    /// while it is still being decoded. Those fields are reset to the values `init()` gives them
    /// (one extra `init()` per class, on this path only), which breaks every cycle; the instances
    /// are then released with the table. Instances decoded by earlier top-level decodes are
    /// never touched.
    func abandonInstances(from mark: Int) {
        // Grouped by class, in registration order, so that each coder makes one fresh instance.
        var groups: [(type: AnyObject.Type, instances: [AnyObject])] = []
        var groupIndex: [ObjectIdentifier: Int] = [:]
        for uid in registrations[mark...] {
            guard let instance = instances[uid] else { continue }
            let type: AnyObject.Type = Swift.type(of: instance)
            if let index = groupIndex[ObjectIdentifier(type)] {
                groups[index].instances.append(instance)
            } else {
                groupIndex[ObjectIdentifier(type)] = groups.count
                groups.append((type, [instance]))
            }
        }
        for group in groups { coders.coder(for: group.type).resetDecodedFields(of: group.instances) }
        groups.removeAll()
        for uid in registrations[mark...] { instances[uid] = nil }
        registrations.removeSubrange(mark...)
    }
}

/// A value decoded from one object as one type (see ``UnarchiverCore/reusingValue(of:as:keepsFirst:_:)``).
struct DecodedValueKey: Hashable {
    let uid: Int
    let type: ObjectIdentifier
}

/// A value kept for reuse, and what decoding it cost (charged again at each reuse).
struct DecodedValue {
    let value: Any
    let cost: Int
}
