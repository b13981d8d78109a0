import Foundation
import KeyedArchive

/// `KeyedArchiveBenchmarks decode FILE [TYPE]`: decodes one archive as `Any` (or TYPE) with the
/// default options and prints the time it took, the peak memory of the process and the outcome,
/// so what one hostile archive costs can be measured in a process of its own
/// (`Scripts/measure-hostile-values.sh` runs it over `Fixtures/hostile-values`).
enum DecodeCommand {
    static func run(_ arguments: [String]) -> Int32 {
        guard let path = arguments.first, let data = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("usage: KeyedArchiveBenchmarks decode FILE [Any|[Any]|NSAttributedString|IndexSet|[IndexSet]|NSCountedSet]\n".utf8))
            return 2
        }
        let type = arguments.dropFirst().first ?? "Any"
        let start = ContinuousClock.now
        let outcome: String
        do {
            switch type {
            case "[Any]": _ = try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: data)
            case "NSAttributedString": _ = try KeyedUnarchiver.unarchivedObject(ofType: NSAttributedString.self, from: data)
            case "IndexSet": _ = try KeyedUnarchiver.unarchivedObject(ofType: IndexSet.self, from: data)
            case "[IndexSet]": _ = try KeyedUnarchiver.unarchivedObject(ofType: [IndexSet].self, from: data)
            case "NSCountedSet": _ = try KeyedUnarchiver.unarchivedObject(ofType: NSCountedSet.self, from: data)
            default: _ = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: data)
            }
            outcome = "ok"
        } catch let error as ArchiveError {
            outcome = "\(error.code)"
        } catch {
            outcome = "\(error)"
        }
        let elapsed = ContinuousClock.now - start
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(String(format: "%@\t%@\t%d bytes\t%.3f s\t%.1f MB peak\t%@", (path as NSString).lastPathComponent, type, data.count, seconds, Double(usage.ru_maxrss) / 1024, outcome))
        return 0
    }
}
