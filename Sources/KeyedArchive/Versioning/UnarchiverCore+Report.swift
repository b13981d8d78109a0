@_spi(Reader) import PropertyList

/// The report of an unarchiver whose options collect one, and what it needs to name key paths:
/// the top-level key being decoded, and the coded objects being decoded now, outermost first.
///
/// Decoding keeps no key path while it succeeds (errors build theirs on the way out), so a
/// report entry's path is found in the graph: from the top-level value to the first object on the
/// stack, and from each object to the next, through the fields, list elements and dictionary
/// values between them.
final class ReportCollector {
    var report = DecodeReport()
    var topKey = ""
    var topReference = 0
    var stack: [UnarchiverCore.ObjectDict] = []
    /// List UID → the position of each object among its elements (by UID), made the first time
    /// a path goes through the list, so the paths of all its elements cost one pass over it.
    var listPositions: [Int: [Int: Int]] = [:]
    /// Object UID → the path found for it (an object met again keeps its first path).
    var paths: [Int: String] = [:]
}

/// The keys a hand-written or `Codable` type asked its object for, to report what it left.
final class AskedKeys {
    /// In the order first asked.
    private(set) var keys: [String] = []
    private var seen: Set<String> = []

    func insert(_ key: String) {
        if seen.insert(key).inserted { keys.append(key) }
    }
}

extension UnarchiverCore {
    /// The key path of the coded object `uid`, the innermost on the reporter's stack.
    func reportPath(of uid: Int) -> String {
        guard let reporter else { return "" }
        if let known = reporter.paths[uid] { return known }
        // Finding a path is not decoding: it uses none of the decode's budget.
        let counted = decodedCount
        defer { decodedCount = counted }
        var path = reporter.topKey
        var budget = 4096
        var parent: ObjectDict?
        // Each object on the stack gets its path once: the ones around it are found again.
        for next in reporter.stack {
            if let known = reporter.paths[next.uid] {
                path = known
            } else {
                let segment =
                    if let parent { fieldSegment(of: parent, to: next.uid, depth: 8, budget: &budget) } else {
                        segment(from: reporter.topReference, to: next.uid, depth: 8, budget: &budget)
                    }
                path += segment ?? "[?]"
                reporter.paths[next.uid] = path
            }
            if next.uid == uid { break }
            parent = next
        }
        return path
    }

    /// The path from `reference` to the object `uid`, through collections and `Codable`
    /// containers only (another coded object is a different step of the stack).
    private func segment(from reference: Int, to uid: Int, depth: Int, budget: inout Int) -> String? {
        budget -= 1
        guard budget > 0, case .object(let u, let object, let index)? = try? target(reference) else { return nil }
        if u == uid { return "" }
        guard depth > 0, let (dict, description) = try? objectDict(uid: u, object: object, index: index) else { return nil }
        if let listClass = description.listClass {
            if let i = reporter?.listPositions[u]?[uid] { return "[\(i)]" }
            guard let elements = try? elementReferences(dict, className: listClass) else { return nil }
            if let reporter, reporter.listPositions[u] == nil {
                var positions: [Int: Int] = [:]
                for (i, element) in elements.enumerated() {
                    if case .object(let elementUID, _, _)? = try? target(element), positions[elementUID] == nil {
                        positions[elementUID] = i
                    }
                }
                reporter.listPositions[u] = positions
                if let i = positions[uid] { return "[\(i)]" }
            }
            for (i, element) in elements.enumerated() {
                if let rest = segment(from: element, to: uid, depth: depth - 1, budget: &budget) { return "[\(i)]" + rest }
            }
            return nil
        }
        if description.dictionaryClass != nil {
            guard let keys = try? references(dict, ArchiveFormat.keysField), let values = try? references(dict, ArchiveFormat.objectsField)
            else { return nil }
            for (key, value) in zip(keys, values) {
                if let rest = segment(from: value, to: uid, depth: depth - 1, budget: &budget) {
                    return "." + ((try? decodeAny(key)).map { "\($0)" } ?? "?") + rest
                }
            }
            return nil
        }
        guard description.name == ArchiveFormat.codableContainerClass else { return nil }
        return fieldSegment(of: dict, to: uid, depth: depth - 1, budget: &budget)
    }

    /// ``segment(from:to:depth:budget:)`` through the fields of an object.
    private func fieldSegment(of dict: ObjectDict, to uid: Int, depth: Int, budget: inout Int) -> String? {
        guard let fields = try? fields(of: dict) else { return nil }
        for (key, value) in fields {
            if let rest = segment(from: value, to: uid, depth: depth, budget: &budget) { return "." + key + rest }
        }
        return nil
    }

    /// Reports the fields of the coded object `uid` that did not map: `archived` keys that are
    /// not in `taken`, and `taken` keys the archive lacked.
    func reportFields(of uid: Int, archived: [String], taken: some Sequence<String>) {
        guard let reporter else { return }
        // The path is found only for an object with something to report.
        var found: String?
        func path() -> String {
            if let found { return found }
            let made = reportPath(of: uid)
            found = made
            return made
        }
        let archivedSet = Set(archived)
        var takenSet = Set<String>()
        for key in taken {
            takenSet.insert(key)
            if !archivedSet.contains(key) { reporter.report.missingFields.append(path() + "." + key) }
        }
        for key in archived where !takenSet.contains(key) { reporter.report.unusedKeys.append(path() + "." + key) }
    }

    /// Reports a migration of the coded object `uid`.
    func reportMigration(of uid: Int, className: String, from: Int, to: Int) {
        guard let reporter else { return }
        reporter.report.migrations.append(.init(keyPath: reportPath(of: uid), className: className, fromVersion: from, toVersion: to))
    }
}
