/// The text `karchive stats` prints: one `label: value` row per fact, values aligned.
struct StatsReport {
    let table: ObjectTableStats
    let keyed: KeyedArchiveStats?

    func render() -> String {
        var rows: [(label: String, value: String)] = []
        rows.append(("file size", PlainTreeDump.count(table.fileSize, "byte")))
        rows.append(("objects", String(table.objectCount)))
        for (name, count) in table.kindCounts { rows.append(("  " + name, String(count))) }
        if table.unreadableObjects > 0 { rows.append(("  unreadable", String(table.unreadableObjects))) }
        rows.append(("top object", "#\(table.topObject)"))
        rows.append(("reference width", PlainTreeDump.count(table.referenceWidth, "byte")))
        rows.append(("offset width", PlainTreeDump.count(table.offsetWidth, "byte")))
        rows.append(("max depth", String(table.maximumDepth)))
        rows.append(("shared objects", "\(table.sharedObjects) (\(PlainTreeDump.count(table.sharedContainers, "container")))"))
        rows.append(("unreachable objects", String(table.unreachableObjects)))

        if let keyed {
            let archive = keyed.archive
            rows.append(("keyed archive", "\(archive.archiver) \(archive.version)"))
            rows.append(("  top keys", archive.top.keys.map(PlainTreeDump.bareOrQuoted).joined(separator: ", ")))
            rows.append(("  $objects", PlainTreeDump.count(archive.objects.count, "entry", plural: "entries")))
            rows.append(("    instances", String(keyed.instanceCount)))
            rows.append(("    class records", String(keyed.classRecordCount)))
            rows.append(("    other values", String(keyed.otherCount)))
            if keyed.unresolvedCount > 0 { rows.append(("    unresolved $class", String(keyed.unresolvedCount))) }
            rows.append(("  instances per class", keyed.classCounts.isEmpty ? "none" : ""))
        } else {
            rows.append(("keyed archive", "no"))
        }

        let width = rows.map { $0.label.count }.max() ?? 0
        var out = ""
        for (label, value) in rows {
            out += label + ":"
            if !value.isEmpty { out += String(repeating: " ", count: width - label.count + 1) + value }
            out += "\n"
        }
        // Class names can be long or odd; they go last, after their counts, so they never widen the columns.
        if let keyed {
            let countWidth = keyed.classCounts.map { String($0.count).count }.max() ?? 0
            for (name, count) in keyed.classCounts {
                let digits = String(count)
                out += "    " + String(repeating: " ", count: countWidth - digits.count) + digits + "  "
                out += PlainTreeDump.bareOrQuoted(name) + "\n"
            }
        }
        return out
    }
}
