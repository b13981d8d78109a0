@_spi(Reader) import PropertyList

/// Facts about a `bplist00` object table, gathered by walking its objects by index.
///
/// Counts cover every object in the table, reachable or not; depth and reachability are
/// measured from the top object. Built from a document whose top object has already been read
/// successfully (so the reachable graph is acyclic and bounded in depth); objects outside it
/// that cannot be decoded are counted as unreadable rather than failing.
struct ObjectTableStats {
    let fileSize: Int
    let objectCount: Int
    let topObject: Int
    let referenceWidth: Int
    let offsetWidth: Int
    /// Objects per kind, in a fixed order; kinds with no objects are left out.
    let kindCounts: [(name: String, count: Int)]
    /// The longest chain of nested containers from the top object (0 when the top is a scalar).
    let maximumDepth: Int
    /// Objects referenced more than once from containers (dictionary keys included).
    let sharedObjects: Int
    /// The arrays, sets and dictionaries among ``sharedObjects``.
    let sharedContainers: Int
    /// Objects that the top object does not lead to.
    let unreachableObjects: Int
    /// Objects whose marker or size is malformed (only possible outside the reachable graph).
    let unreadableObjects: Int

    /// The order and names kinds are listed in.
    private static let kindNames: [(kind: BPlistDocument.Object.Kind, name: String)] = [
        (.null, "null"), (.bool, "bool"), (.int, "int"), (.real, "real"), (.date, "date"), (.data, "data"),
        (.asciiString, "string (ASCII)"), (.utf16String, "string (UTF-16)"), (.uid, "UID"),
        (.array, "array"), (.set, "set"), (.dict, "dict"),
    ]

    init(document: BPlistDocument) {
        let count = document.objectCount
        var perKind = [BPlistDocument.Object.Kind: Int]()
        // Reference counts saturate at 2: only "more than once" matters.
        var references = [UInt8](repeating: 0, count: count)
        var isContainer = [Bool](repeating: false, count: count)
        var unreadable = 0
        for index in 0..<count {
            guard let object = try? document.object(at: index) else {
                unreadable += 1
                continue
            }
            perKind[object.kind, default: 0] += 1
            for reference in Self.references(of: object, at: index, in: document) where references[reference] < 2 {
                references[reference] += 1
            }
            switch object.kind {
            case .array, .set, .dict: isContainer[index] = true
            default: break
            }
        }

        var walk = DepthWalk(document: document)
        maximumDepth = walk.depth(of: document.topObject, level: 0)

        fileSize = document.bytes.count
        objectCount = count
        topObject = document.topObject
        referenceWidth = document.refSize
        offsetWidth = Int(document.bytes[fileSize - BPlistFormat.trailerSize + BPlistFormat.trailerOffsetSizeField])
        kindCounts = Self.kindNames.compactMap { entry in perKind[entry.kind].map { (entry.name, $0) } }
        sharedObjects = references.count(where: { $0 > 1 })
        sharedContainers = references.indices.count(where: { references[$0] > 1 && isContainer[$0] })
        unreachableObjects = count - walk.reachedCount
        unreadableObjects = unreadable
    }

    /// The indices a container refers to (dictionary keys, then values); empty for scalars or bad references.
    fileprivate static func references(
        of object: BPlistDocument.Object, at index: Int, in document: BPlistDocument
    ) -> [Int] {
        let slots: Int
        switch object.kind {
        case .array, .set: slots = object.count
        case .dict: slots = object.count * 2
        default: return []
        }
        var result = [Int]()
        result.reserveCapacity(slots)
        for slot in 0..<slots {
            if let reference = try? document.reference(object, slot, index: index) { result.append(reference) }
        }
        return result
    }
}

/// Depth-first walk from the top object: nesting depth per object (memoised) and reachability.
private struct DepthWalk {
    let document: BPlistDocument
    /// -1 not visited, -2 on the current path, otherwise the object's depth.
    var depths: [Int32]
    var reachedCount = 0
    /// Stops the walk on input that was not validated first (the reader caps depth at 512 anyway).
    static let levelLimit = 4096

    init(document: BPlistDocument) {
        self.document = document
        depths = [Int32](repeating: -1, count: document.objectCount)
    }

    mutating func depth(of index: Int, level: Int) -> Int {
        switch depths[index] {
        case -2: return 0  // a cycle: cut it
        case -1: break
        case let known: return Int(known)
        }
        reachedCount += 1
        depths[index] = -2
        var result = 0
        if level < Self.levelLimit, let object = try? document.object(at: index) {
            let children = ObjectTableStats.references(of: object, at: index, in: document)
            switch object.kind {
            case .array, .set, .dict:
                var deepest = 0
                for child in children { deepest = max(deepest, depth(of: child, level: level + 1)) }
                result = 1 + deepest
            default:
                break
            }
        }
        depths[index] = Int32(result)
        return result
    }
}
