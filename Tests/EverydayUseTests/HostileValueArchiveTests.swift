import Foundation
import KeyedArchive
import Testing

// Hostile keyed archives of Apple's Foundation value classes, in Apple's own layout
// (Fixtures/hostile-values, made by Scripts/make-hostile-value-archives.py): huge counted-set
// counts, runs and ranges that do not fit, cycles, nesting past the depth limit, 60,000-character
// strings, and thousands of references to one large shared value. Each entry of the folder's
// manifest.json names a file, the type to decode it as, and what must happen: it decodes, or it
// throws an ArchiveError of the given code whose message stays short.

/// One entry of `Fixtures/hostile-values/manifest.json`.
struct HostileValueCase: Decodable, Sendable, CustomTestStringConvertible {
    /// The archive's file name in the folder.
    let file: String
    /// The type to decode the root as, spelled as in Swift (`Any`, `[IndexSet]`, `Measurement<UnitLength>`).
    let decodeAs: String
    /// `ok`, or the name of the `ArchiveError.Code` the decode must throw.
    let expect: String
    /// What the archive holds and why that is the outcome.
    let why: String

    var testDescription: String { "\(file) as \(decodeAs) → \(expect)" }
}

@Suite("Hostile archives of Apple's value classes (Fixtures/hostile-values)")
struct HostileValueArchiveTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // EverydayUseTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package
        .appending(path: "Fixtures", directoryHint: .isDirectory)
        .appending(path: "hostile-values", directoryHint: .isDirectory)

    /// The longest an error's reason, or anything its description mentions, may be: errors quote
    /// only a bounded prefix of the strings they found.
    static let longestMessage = 400

    static func manifest() throws -> [HostileValueCase] {
        try JSONDecoder().decode([HostileValueCase].self, from: Data(contentsOf: folder.appending(path: "manifest.json")))
    }

    /// The manifest's entries; none if it cannot be read (`manifestCoversTheFolder` then fails).
    static let cases: [HostileValueCase] = (try? manifest()) ?? []

    /// The error codes a manifest entry may expect, by name.
    static let codes: [String: ArchiveError.Code] = [
        "sizeLimit": .sizeLimit, "invalidArchive": .invalidArchive, "typeMismatch": .typeMismatch,
        "unknownClass": .unknownClass, "keyNotFound": .keyNotFound, "cycle": .cycle, "depthLimit": .depthLimit,
    ]

    /// Decoding a whole archive as the type a manifest entry names; nil for a name not known here.
    static func decoder(for type: String) -> ((Data) throws -> Void)? {
        switch type {
        case "Any": { _ = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: $0) }
        case "[Any]": { _ = try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: $0) }
        case "NSCountedSet": { _ = try KeyedUnarchiver.unarchivedObject(ofType: NSCountedSet.self, from: $0) }
        case "Set<String>": { _ = try KeyedUnarchiver.unarchivedObject(ofType: Set<String>.self, from: $0) }
        case "IndexSet": { _ = try KeyedUnarchiver.unarchivedObject(ofType: IndexSet.self, from: $0) }
        case "[IndexSet]": { _ = try KeyedUnarchiver.unarchivedObject(ofType: [IndexSet].self, from: $0) }
        case "IndexPath": { _ = try KeyedUnarchiver.unarchivedObject(ofType: IndexPath.self, from: $0) }
        case "NSRange": { _ = try KeyedUnarchiver.unarchivedObject(ofType: NSRange.self, from: $0) }
        case "Range<Int>": { _ = try KeyedUnarchiver.unarchivedObject(ofType: Range<Int>.self, from: $0) }
        case "TimeZone": { _ = try KeyedUnarchiver.unarchivedObject(ofType: TimeZone.self, from: $0) }
        case "Locale": { _ = try KeyedUnarchiver.unarchivedObject(ofType: Locale.self, from: $0) }
        case "Calendar": { _ = try KeyedUnarchiver.unarchivedObject(ofType: Calendar.self, from: $0) }
        case "CGRect": { _ = try KeyedUnarchiver.unarchivedObject(ofType: CGRect.self, from: $0) }
        case "Measurement<UnitLength>": { _ = try KeyedUnarchiver.unarchivedObject(ofType: Measurement<UnitLength>.self, from: $0) }
        case "NSAttributedString": { _ = try KeyedUnarchiver.unarchivedObject(ofType: NSAttributedString.self, from: $0) }
        case "ArchivedAttributedString": { _ = try KeyedUnarchiver.unarchivedObject(ofType: ArchivedAttributedString.self, from: $0) }
        case "Notification": { _ = try KeyedUnarchiver.unarchivedObject(ofType: Notification.self, from: $0) }
        default: nil
        }
    }

    /// The longest stretch of `text` without a space or punctuation: a quoted input string shows
    /// up as one, while a long key path (`root.NS.object.NS.object…`) is many short names.
    static func longestWord(in text: String) -> Int {
        let separators = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\"'.,:;()[]{}<>"))
        return text.unicodeScalars.split { separators.contains($0) }.map(\.count).max() ?? 0
    }

    @Test("Each entry decodes, or throws its ArchiveError code with a short message", arguments: cases)
    func entry(_ entry: HostileValueCase) throws {
        let data = try Data(contentsOf: Self.folder.appending(path: entry.file))
        let decode = try #require(Self.decoder(for: entry.decodeAs), "the manifest's type \(entry.decodeAs) has no decode call here")
        if entry.expect == "ok" {
            #expect(throws: Never.self, "\(entry.why)") { try decode(data) }
            return
        }
        let expected = try #require(Self.codes[entry.expect], "the manifest expects an unknown code \(entry.expect)")
        do {
            try decode(data)
            Issue.record("decoded, where ArchiveError.\(entry.expect) was expected: \(entry.why)")
        } catch let error as ArchiveError {
            #expect(error.code == expected, "expected ArchiveError.\(entry.expect) (\(entry.why)), got \(String(error.description.prefix(1_000)))")
            #expect(error.reason.count <= Self.longestMessage, "a reason of \(error.reason.count) characters: \(String(error.reason.prefix(200)))…")
            #expect(
                Self.longestWord(in: error.description) <= Self.longestMessage,
                "the description mentions something of \(Self.longestWord(in: error.description)) characters: \(String(error.description.prefix(200)))…")
        } catch {
            Issue.record("threw \(type(of: error)), not an ArchiveError: \(error)")
        }
    }

    @Test("The manifest lists every archive of the folder, in types and codes the test knows, each file under 64 KiB")
    func manifestCoversTheFolder() throws {
        let manifest = try Self.manifest()
        #expect(!manifest.isEmpty)
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".archive") }.sorted()
        #expect(!files.isEmpty)
        #expect(Set(manifest.map(\.file)).sorted() == files)
        for entry in manifest {
            #expect(Self.decoder(for: entry.decodeAs) != nil, "\(entry.file): unknown decodeAs \(entry.decodeAs)")
            #expect(entry.expect == "ok" || Self.codes[entry.expect] != nil, "\(entry.file): unknown expect \(entry.expect)")
            #expect(!entry.why.isEmpty, "\(entry.file) as \(entry.decodeAs) says no why")
        }
        for file in files {
            let size = try Data(contentsOf: Self.folder.appending(path: file)).count
            #expect(size < 64 * 1024, "\(file) is \(size) bytes")
        }
    }

    @Test("A counted set referenced 1,000 times is one set, built once, as Foundation's unarchiver gives it")
    func sharedCountedSetIsOneInstance() throws {
        let data = try Data(contentsOf: Self.folder.appending(path: "counted-set-shared-1000.archive"))
        let typed = try KeyedUnarchiver.unarchivedObject(ofType: [NSCountedSet].self, from: data)
        #expect(typed.count == 1_000 && typed.allSatisfy { $0 === typed[0] })
        #expect(typed[0].count == 1 && typed[0].allObjects.map { typed[0].count(for: $0) } == [1_000])
        let any = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: data) as? [Any])
        let first = any[0] as AnyObject
        #expect(any.count == 1_000 && any.allSatisfy { ($0 as AnyObject) === first })
    }

    @Test("A shared value is reused, and each reference is charged what decoding it again would cost")
    func sharedValuesAreChargedAtEachReference() throws {
        let data = try Data(contentsOf: Self.folder.appending(path: "measurement-shared-4000.archive"))
        let values = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: data) as? [Any])
        #expect(values.count == 4_000 && values.allSatisfy { ($0 as? Measurement<UnitLength>) == values[0] as? Measurement<UnitLength> })
        // Find the smallest budget that decodes it: every reference costs what decoding it again would.
        var options = KeyedUnarchiver.Options()
        var low = 1, high = 1 << 24
        while low < high {
            let middle = (low + high) / 2
            options.maximumDecodedObjects = middle
            if (try? KeyedUnarchiver(forReadingFrom: data, options: options).decode(Any.self, forKey: "root")) != nil { high = middle } else { low = middle + 1 }
        }
        // 4,000 references to a measurement, its unit and converter cost several values each, not one.
        #expect(low > 4 * 4_000, "the archive decodes within \(low) decoded values")
    }

    @Test("A Foundation object referenced twice is archived once, so what decodes archives back within the same budget")
    func foundationInstancesArchiveOnce() throws {
        let set = NSCountedSet(array: ["a", "a", "b"])
        let text = NSAttributedString(string: "hi", attributes: [NSAttributedString.Key("k"): 1])
        let data = try KeyedArchiver.archivedData(withRootObject: [set, set, text, text] as [Any])
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: [Any].self, from: data) as [Any]?)
        #expect((decoded[0] as AnyObject) === (decoded[1] as AnyObject) && (decoded[0] as? NSCountedSet)?.count(for: "a") == 2)
        // The counts of a set archived once are charged once: a budget of 3 reads it.
        var options = KeyedUnarchiver.Options()
        options.maximumCountedSetCounts = 3
        #expect(throws: Never.self) { _ = try KeyedUnarchiver(forReadingFrom: data, options: options).decode([Any].self, forKey: "root") }
        let typed = try KeyedUnarchiver.unarchivedObject(ofType: [NSAttributedString].self, from: KeyedArchiver.archivedData(withRootObject: [text, text]))
        #expect(typed.count == 2 && typed[0] === typed[1] && typed[0].isEqual(to: text))
        let mutable = NSMutableAttributedString(string: "hi")
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: NSAttributedString.self, from: KeyedArchiver.archivedData(withRootObject: mutable)) is NSMutableAttributedString)
    }
}
