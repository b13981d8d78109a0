import Foundation
import FuzzSupport
import KeyedArchive
import PropertyList

// Opens the input as a keyed archive and decodes every top-level key as `Any`, `[String: Any]`,
// the model zoo (FuzzRoot, [FuzzAnimal], FuzzNode, FuzzShape..., and the versioned models, with
// default options and with allowsNewerVersions + collectsReport) and Foundation's value types
// (IndexSet, IndexPath, NSRange, Range<Int>, CGRect, TimeZone, Calendar, Locale,
// Measurement<UnitLength>, Notification, NSCountedSet). Invariants: only
// ArchiveError is thrown; whatever decodes re-archives, decodes again, and re-archives to
// the same bytes.

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    Seeds.writeIfAsked()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyedUnarchiver(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = fuzzData(start, count)
    let keys: [String]
    do {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: Zoo.options)
        keys = unarchiver.allKeys
        for key in keys where !unarchiver.containsValue(forKey: key) { fuzzFail("allKeys lists \(key) but containsValue is false") }
    } catch {
        expectArchiveError(error, "KeyedUnarchiver.init")
        return 0
    }
    for key in keys.prefix(4) {
        Zoo.exercise(Any.self, forKey: key, from: data, label: "Any[\(key)]")
        Zoo.exercise([String: Any].self, forKey: key, from: data, label: "[String: Any][\(key)]")
        Zoo.exercise(FuzzRoot.self, forKey: key, from: data, label: "FuzzRoot[\(key)]")
        Zoo.exercise([FuzzAnimal].self, forKey: key, from: data, label: "[FuzzAnimal][\(key)]")
        Zoo.exercise(FuzzAnimal.self, forKey: key, from: data, label: "FuzzAnimal[\(key)]")
        Zoo.exercise(FuzzNode.self, forKey: key, from: data, label: "FuzzNode[\(key)]")
        Zoo.exercise([FuzzShape].self, forKey: key, from: data, label: "[FuzzShape][\(key)]")
        Zoo.exercise(FuzzShape?.self, forKey: key, from: data, label: "FuzzShape?[\(key)]")
        Zoo.exercise(FuzzAddress.self, forKey: key, from: data, label: "FuzzAddress[\(key)]")
        Zoo.exercise(Set<String>.self, forKey: key, from: data, label: "Set<String>[\(key)]")
        Zoo.exercise([Int: [String?]].self, forKey: key, from: data, label: "[Int: [String?]][\(key)]")
        // Foundation's value classes as typed fields (through `Any` they decode above). Not
        // NSAttributedString or NSMutableAttributedString: Foundation on Linux leaks every
        // NSAttributedString it builds, so LeakSanitizer would report Foundation's own leak.
        Zoo.exercise(IndexSet.self, forKey: key, from: data, label: "IndexSet[\(key)]")
        Zoo.exercise(IndexPath.self, forKey: key, from: data, label: "IndexPath[\(key)]")
        Zoo.exercise(NSRange.self, forKey: key, from: data, label: "NSRange[\(key)]")
        Zoo.exercise(Range<Int>.self, forKey: key, from: data, label: "Range<Int>[\(key)]")
        Zoo.exercise(CGRect.self, forKey: key, from: data, label: "CGRect[\(key)]")
        Zoo.exercise(TimeZone.self, forKey: key, from: data, label: "TimeZone[\(key)]")
        Zoo.exercise(Calendar.self, forKey: key, from: data, label: "Calendar[\(key)]")
        Zoo.exercise(Locale.self, forKey: key, from: data, label: "Locale[\(key)]")
        Zoo.exercise(Measurement<UnitLength>.self, forKey: key, from: data, label: "Measurement<UnitLength>[\(key)]")
        Zoo.exercise(Notification.self, forKey: key, from: data, label: "Notification[\(key)]")
        Zoo.exercise(NSCountedSet.self, forKey: key, from: data, label: "NSCountedSet[\(key)]")
        // Versioned models: with default options, then with allowsNewerVersions + collectsReport.
        Zoo.exerciseVersioned(FuzzItem.self, forKey: key, from: data, label: "FuzzItem[\(key)]")
        Zoo.exerciseVersioned([FuzzItem].self, forKey: key, from: data, label: "[FuzzItem][\(key)]")
        Zoo.exerciseVersioned(FuzzFolder.self, forKey: key, from: data, label: "FuzzFolder[\(key)]")
        Zoo.exerciseVersioned([FuzzVehicle].self, forKey: key, from: data, label: "[FuzzVehicle][\(key)]")
        Zoo.exerciseVersioned(FuzzAccount.self, forKey: key, from: data, label: "FuzzAccount[\(key)]")
        Zoo.exerciseVersioned([FuzzPointV].self, forKey: key, from: data, label: "[FuzzPointV][\(key)]")
        Zoo.exerciseVersioned(FuzzPrefs.self, forKey: key, from: data, label: "FuzzPrefs[\(key)]")
        Zoo.exerciseVersioned(Any.self, forKey: key, from: data, label: "Any (versioned)[\(key)]")
    }
    // One unarchiver, several keys in turn: instances shared between keys, and a failed key
    // must not leave half-decoded instances behind for the next.
    do {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: Zoo.options)
        Zoo.configure(unarchiver)
        var decoded: [Any] = []
        for key in keys.prefix(4) {
            do {
                decoded.append(try unarchiver.decode(FuzzRoot.self, forKey: key))
            } catch {
                expectArchiveError(error, "decode FuzzRoot (shared unarchiver)")
            }
            do {
                decoded.append(try unarchiver.decode(Any.self, forKey: key))
            } catch {
                expectArchiveError(error, "decode Any (shared unarchiver)")
            }
        }
        for value in decoded { Zoo.unlink(value) }
        MigrationScratch.drain()
    } catch {
        fuzzFail("the archive opened once but not twice: \(error)")
    }
    // The same with a report: a key that fails to decode takes back what it added to the report.
    do {
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: Zoo.lenientOptions)
        Zoo.configure(unarchiver)
        var decoded: [Any] = []
        func attempt<T>(_ type: T.Type, _ key: String) {
            let before = unarchiver.report
            do {
                decoded.append(try unarchiver.decode(T.self, forKey: key))
                Zoo.checkReport(unarchiver.report, label: "\(T.self)[\(key)] (shared unarchiver)")
            } catch {
                expectArchiveError(error, "decode \(T.self) (shared unarchiver with report)")
                if unarchiver.report != before { fuzzFail("\(T.self)[\(key)]: a decode that failed changed the report") }
            }
        }
        for key in keys.prefix(4) {
            attempt(FuzzFolder.self, key)
            attempt(FuzzItem.self, key)
            attempt(FuzzPrefs.self, key)
            attempt(Any.self, key)
        }
        for value in decoded { Zoo.unlink(value) }
        MigrationScratch.drain()
    } catch {
        fuzzFail("the archive opened with default options but not with allowsNewerVersions + collectsReport: \(error)")
    }
    return 0
}
