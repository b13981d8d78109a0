import Foundation
import KeyedArchive
import PropertyList

#if canImport(Glibc)
import Glibc
#endif

/// Stops the fuzzer with a message: libFuzzer records the input as a crash.
public func fuzzFail(_ message: @autoclosure () -> String) -> Never {
    FileHandle.standardError.write(Data("FUZZ INVARIANT VIOLATED: \(message())\n".utf8))
    abort()
}

/// Any error other than `ArchiveError` escaping the library is a bug.
public func expectArchiveError(_ error: any Error, _ what: @autoclosure () -> String) {
    guard error is ArchiveError else {
        fuzzFail("\(what()) threw \(type(of: error)), not ArchiveError: \(error)")
    }
}

/// The input bytes as `Data` (empty input gives empty data).
public func fuzzData(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Data {
    guard let start, count > 0 else { return Data() }
    return Data(bytes: start, count: count)
}

// MARK: - Keyed archives

public enum Zoo {
    /// Every type the zoo decodes through a polymorphic field or `Any`.
    public static func configure(_ unarchiver: KeyedUnarchiver) {
        unarchiver.register(FuzzDog.self, FuzzAnimal.self, FuzzNode.self, FuzzAddress.self, FuzzPoint.self)
        unarchiver.register(
            FuzzItem.self, FuzzBox.self, FuzzFolder.self, FuzzVehicle.self, FuzzCar.self, FuzzAccount.self, FuzzPointV.self,
            FuzzPrefs.self)
    }

    public static func archive<T>(_ value: T, as _: T.Type = T.self) throws -> Data {
        try KeyedArchiver.archivedData(withRootObject: value)
    }

    /// Decodes `key` of `data` as `T` with the zoo registered; nil on `ArchiveError`, traps on any other error.
    public static func decode<T>(_ type: T.Type, forKey key: String = "root", from data: Data, options: KeyedUnarchiver.Options = Zoo.options) -> T? {
        do {
            let unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: options)
            configure(unarchiver)
            return try unarchiver.decode(type, forKey: key)
        } catch {
            expectArchiveError(error, "decoding \(T.self)")
            MigrationScratch.drain()
            return nil
        }
    }

    /// The round-trip invariant: a decoded value re-archives; that archive decodes; archiving
    /// that value again gives the same bytes.
    @discardableResult
    public static func checkRoundTrip<T>(_ value: T, as type: T.Type, label: String) -> Data {
        let first: Data
        do {
            first = try archive(value, as: T.self)
        } catch {
            fuzzFail("\(label): decoded a \(T.self) but re-archiving it failed: \(error)")
        }
        let again: T
        do {
            let unarchiver = try KeyedUnarchiver(forReadingFrom: first)
            configure(unarchiver)
            again = try unarchiver.decode(T.self, forKey: "root")
        } catch {
            fuzzFail("\(label): our own archive of a decoded \(T.self) does not decode: \(error)")
        }
        defer { unlink(again) }
        let second: Data
        do {
            second = try archive(again, as: T.self)
        } catch {
            fuzzFail("\(label): re-archiving the round-tripped \(T.self) failed: \(error)")
        }
        guard first == second else {
            fuzzFail("\(label): archive → decode → archive changed the bytes (\(first.count) → \(second.count) bytes)")
        }
        return first
    }

    /// Decodes with the zoo and checks the round trip; breaks reference cycles afterwards.
    public static func exercise<T>(_ type: T.Type, forKey key: String = "root", from data: Data, label: String) {
        guard let value = decode(type, forKey: key, from: data) else { return }
        defer {
            unlink(value)
            MigrationScratch.drain()
        }
        checkRoundTrip(value, as: T.self, label: label)
    }

    /// The options every fuzz decode starts from: the defaults, but at most 65,536 decoded values,
    /// so a value that decodes (logically large, though shared values are decoded once) costs
    /// the round-trip invariant's encoder no more than that; and a sixteenth of the default
    /// budgets for Foundation's costly builds, whose worst cases under AddressSanitizer take
    /// longer than an input's timeout (their cost with the defaults is measured, without
    /// sanitizers, by Scripts/measure-hostile-values.sh).
    public static var options: KeyedUnarchiver.Options {
        var options = KeyedUnarchiver.Options()
        options.maximumDecodedObjects = 1 << 16
        options.maximumCountedSetCounts = 1 << 15
        options.maximumAttributedStringAttributes = 1 << 13
        return options
    }

    /// The options of the second decode of a versioned type: newer versions read, a report
    /// collected, invalid fields kept at their defaults.
    public static var lenientOptions: KeyedUnarchiver.Options {
        var options = Zoo.options
        options.allowsNewerVersions = true
        options.collectsReport = true
        // Fields that hold `$null` or a value of another kind keep their defaults: the path that
        // takes back what a refused value decoded runs on every hostile input too.
        options.keepsDefaultForInvalidFields = true
        return options
    }

    /// Checks what a decode report says: a migration goes up, and its text is made.
    public static func checkReport(_ report: DecodeReport, label: String) {
        for migration in report.migrations where migration.fromVersion >= migration.toVersion || migration.fromVersion < 0 {
            fuzzFail("\(label): the report has a migration that does not go up: \(migration)")
        }
        let text = report.description
        if report.isEmpty != (text == "nothing to report") { fuzzFail("\(label): report.isEmpty disagrees with its description") }
    }

    /// ``exercise(_:forKey:from:label:)`` with default options, then again with `allowsNewerVersions`
    /// and `collectsReport`. What decodes with default options decodes the same way with them
    /// (their result archives to the same bytes); a decode that fails leaves the report as it was.
    public static func exerciseVersioned<T>(_ type: T.Type, forKey key: String = "root", from data: Data, label: String) {
        var plainBytes: Data?
        if let plain = decode(type, forKey: key, from: data) {
            plainBytes = checkRoundTrip(plain, as: T.self, label: label)
            unlink(plain)
        }
        MigrationScratch.drain()
        defer { MigrationScratch.drain() }
        // The unarchiver is let go of before the round trip, as `decode` does: it holds every instance
        // it decoded, so a weak field whose target only it holds would still be set while re-archiving.
        func lenientDecode() -> (value: T, report: DecodeReport)? {
            let unarchiver: KeyedUnarchiver
            do {
                unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: lenientOptions)
            } catch {
                fuzzFail("\(label): the archive opened with default options but not with allowsNewerVersions + collectsReport: \(error)")
            }
            configure(unarchiver)
            let before = unarchiver.report
            do {
                return (try unarchiver.decode(T.self, forKey: key), unarchiver.report)
            } catch {
                expectArchiveError(error, "decoding \(T.self) (allowsNewerVersions, collectsReport)")
                if plainBytes != nil { fuzzFail("\(label): decodes with default options, but not with allowsNewerVersions + collectsReport: \(error)") }
                if unarchiver.report != before { fuzzFail("\(label): a decode that failed changed the report: \(unarchiver.report)") }
                return nil
            }
        }
        guard let (value, report) = lenientDecode() else { return }
        defer { unlink(value) }
        checkReport(report, label: label)
        let bytes = checkRoundTrip(value, as: T.self, label: label + " (allowsNewerVersions, collectsReport)")
        if let plainBytes, plainBytes != bytes {
            fuzzFail("\(label): allowsNewerVersions + collectsReport decoded another value than default options (\(plainBytes.count) → \(bytes.count) bytes)")
        }
    }

    /// Breaks the strong cycles a decoded graph may hold, so nothing leaks between runs.
    public static func unlink(_ value: Any) {
        var stack: [Any] = [value]
        var seen: Set<ObjectIdentifier> = []
        var budget = 1 << 20
        while let item = stack.popLast(), budget > 0 {
            budget -= 1
            switch item {
            case let node as FuzzNode:
                guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
                stack.append(contentsOf: node.children as [Any])
                if let next = node.next { stack.append(next) }
                node.children = []
                node.next = nil
            case let root as FuzzRoot:
                if let tree = root.tree { stack.append(tree) }
                stack.append(root.extra)
            case let folder as FuzzFolder:
                guard seen.insert(ObjectIdentifier(folder)).inserted else { continue }
                stack.append(contentsOf: folder.children as [Any])
                if let link = folder.link { stack.append(link) }
                if let item = folder.item { stack.append(item) }
                folder.children = []
                folder.link = nil
                folder.item = nil
            case let item as FuzzItem:
                stack.append(item.box)
            case let box as FuzzBox:
                if let node = box.node { stack.append(node) }
            case let box as FuzzOldBox:
                if let node = box.node { stack.append(node) }
            case let note as Notification:
                if let object = note.object { stack.append(object) }
                if let info = note.userInfo { stack.append(contentsOf: Array(info.values)) }
            case let set as NSCountedSet:
                stack.append(contentsOf: set.allObjects)
            case let array as [Any]:
                stack.append(contentsOf: array)
            case let dict as [String: Any]:
                stack.append(contentsOf: Array(dict.values))
            case let dict as [AnyHashable: Any]:
                stack.append(contentsOf: Array(dict.values))
            default:
                continue
            }
        }
    }
}

// MARK: - Property lists

extension PlistValue {
    /// Whether `BPlistWriter` must refuse the value (null, sets, UIDs of 2^32 or more); nil when
    /// the tree has more than `budget` nodes.
    public func needsUnencodableCheck(budget: Int = 1 << 20) -> (unencodable: Bool, nodes: Int)? {
        var stack: [PlistValue] = [self]
        var nodes = 0
        var unencodable = false
        while let value = stack.popLast() {
            nodes += 1
            if nodes > budget { return nil }
            switch value {
            case .null, .set: unencodable = true
            case .uid(let v) where v >= 1 << 32: unencodable = true
            case .array(let elements): stack.append(contentsOf: elements)
            case .dict(let dict): stack.append(contentsOf: dict.values)
            default: break
            }
        }
        return (unencodable, nodes)
    }
}
