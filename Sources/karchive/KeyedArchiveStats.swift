/// Counts of a keyed archive's `$objects` entries: instances per `$classname`, class records, other values.
struct KeyedArchiveStats {
    let archive: KeyedArchiveShape
    /// Dictionaries whose `$class` resolves to a class record.
    let instanceCount: Int
    /// Class records (`$classname` + `$classes` dictionaries).
    let classRecordCount: Int
    /// Everything else: `$null`, strings, numbers, data, dictionaries without `$class`.
    let otherCount: Int
    /// Dictionaries whose `$class` does not resolve to a class record.
    let unresolvedCount: Int
    /// Instances per class name, most frequent first, then by name.
    let classCounts: [(name: String, count: Int)]

    init(archive: KeyedArchiveShape) {
        self.archive = archive
        var perClass = [String: Int]()
        var instances = 0
        var records = 0
        var unresolved = 0
        for index in archive.objects.indices {
            switch archive.className(ofObjectAt: index) {
            case .success(let name)?:
                instances += 1
                perClass[name, default: 0] += 1
            case .failure?:
                unresolved += 1
            case nil:
                if archive.isClassRecord(index) { records += 1 }
            }
        }
        instanceCount = instances
        classRecordCount = records
        unresolvedCount = unresolved
        otherCount = archive.objects.count - instances - records - unresolved
        classCounts = perClass.map { (name: $0.key, count: $0.value) }.sorted {
            $0.count != $1.count ? $0.count > $1.count : $0.name.utf8.lexicographicallyPrecedes($1.name.utf8)
        }
    }
}
