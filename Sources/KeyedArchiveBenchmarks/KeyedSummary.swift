import Foundation

// Figures of issue 5 that span several comparisons: linearity (10k against 1k), archive size
// against NSKeyedArchiver, and peak memory while encoding against the archive's size.

extension KeyedWorkloads {
    static let linearityLimit = 11.0
    static let sizeLimit = 0.55
    static let memoryLimit = 3.0

    /// The summary lines for the keyed workloads present in `report`.
    static func summarize(_ report: RunReport) -> [SummaryLine] {
        func comparison(_ workload: String, _ operation: String) -> ComparisonResult? {
            report.comparisons.first { $0.workload == workload && $0.operation == operation }
        }
        func ours(_ workload: String, _ operation: String) -> ContenderResult? {
            comparison(workload, operation)?.contenders.first { $0.id == "ours" }
        }
        var lines: [SummaryLine] = []
        for variant in ["keyed", "keyed-teams"] {
            for operation in ["encode", "decode"] {
                guard let small = ours("\(variant)-1k", operation), let large = ours("\(variant)-10k", operation) else { continue }
                let ratio = large.medianMilliseconds / small.medianMilliseconds
                let minimumRatio = large.minimumMilliseconds / small.minimumMilliseconds
                lines.append(
                    SummaryLine(
                        name: "\(variant) \(operation) linearity (10k / 1k, ours)", value: ratio,
                        text: "\(format(ratio, 2))× (\(format(large.medianMilliseconds, 2)) ms / \(format(small.medianMilliseconds, 2)) ms; minimums \(format(minimumRatio, 2))×)",
                        target: "≤ \(format(linearityLimit, 0))×", met: ratio <= linearityLimit))
            }
        }
        for result in report.comparisons where result.workload.hasPrefix("keyed") && result.operation == "encode" {
            guard let our = result.contenders.first(where: { $0.id == "ours" }), let ourBytes = our.outputBytes else { continue }
            let name = result.workload
            if let foundation = result.contenders.first(where: { $0.id == "nskeyed" }), let theirs = foundation.outputBytes {
                let ratio = Double(ourBytes) / Double(theirs)
                lines.append(
                    SummaryLine(
                        name: "\(name) size ours / NSKeyedArchiver", value: ratio,
                        text: "\(format(ratio, 3))× (\(ourBytes) / \(theirs) bytes)", target: "≤ \(format(sizeLimit, 2))×",
                        met: ratio <= sizeLimit))
            } else {
                let best = result.contenders.first { $0.id == "nskeyed-best" }
                let proxy = best.flatMap(\.outputBytes).map {
                    "; NSKeyedArchiver's chunked best case totals \($0) bytes (\(format(Double(ourBytes) / Double($0), 3))×, not the same archive)"
                } ?? ""
                lines.append(
                    SummaryLine(
                        name: "\(name) size ours / NSKeyedArchiver", value: nil,
                        text: "not measured: NSKeyedArchiver was not run on the whole graph\(proxy)", target: "≤ \(format(sizeLimit, 2))×",
                        met: nil))
            }
            lines.append(
                SummaryLine(
                    name: "\(name) deterministic (ours)", value: nil,
                    text: "yes: two archivings byte-identical (checked before timing); NSKeyedArchiver: \(report.notes[name]?["deterministic: NSKeyedArchiver"] ?? "not checked")",
                    target: "same bytes", met: true))
            let memoryRatio = Double(our.addedResidentBytes) / Double(ourBytes)
            lines.append(
                SummaryLine(
                    name: "\(name) peak memory while encoding (ours)", value: memoryRatio,
                    text: "\(format(memoryRatio, 2))× the archive (+\(format(Double(our.addedResidentBytes) / 1_048_576, 2)) MB above the starting footprint, archive \(format(Double(ourBytes) / 1_048_576, 2)) MB)",
                    target: "≤ \(format(memoryLimit, 0))×", met: memoryRatio <= memoryLimit))
        }
        return lines
    }
}
