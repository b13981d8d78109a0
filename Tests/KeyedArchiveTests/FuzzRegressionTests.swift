import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

// Replays every input the fuzzers (Fuzz/, issue 6) turned up, kept in Fixtures/fuzz-regressions/
// (binary `.archive` files and XML `.plist` ones alike): through the binary and XML property-list
// readers and `PlistReader`, the keyed unarchiver (as `Any`, `[String: Any]` and the fuzz
// model zoo) and `ArchiveFile` (open, decode, set a key, write). Each must decode or throw an
// `ArchiveError`; a crash, a hang or another error type fails the suite.
//
// The models below are twins of Fuzz/Sources/FuzzSupport/Models.swift: the same fields and the
// same archived class names (`Fuzz.*`), so an input found by the fuzzer takes the same paths here.
// The Codable enum is archived under its module-qualified name, mapped with `setClass`.

// MARK: - Fuzz model zoo

final class FuzzReplayNode: Archivable {
    var name = ""
    var value = 0
    var children: [FuzzReplayNode] = []
    var next: FuzzReplayNode? = nil
    weak var parent: FuzzReplayNode?
    var tags: Set<String> = []
    required init() { LeakTracker.track(self) }
    static var archiveClassName: String? { "Fuzz.Node" }
}

class FuzzReplayAnimal: Archivable {
    var name = ""
    var legs = 4
    required init() {}
    class var archiveClassName: String? { "Fuzz.Animal" }
}

final class FuzzReplayDog: FuzzReplayAnimal {
    var breed = ""
    var good = true
    var toys: [String] = []
    override class var archiveClassName: String? { "Fuzz.Dog" }
}

struct FuzzReplayAddress: Archivable, Equatable {
    var street = ""
    var zip = 0
    var unit: Int? = nil
    static var archiveClassName: String? { "Fuzz.Address" }
}

enum FuzzReplayColor: String, Hashable {
    case red, green, blue = "BLUE"
}

enum FuzzReplayShape: Codable, Equatable {
    case empty
    case circle(radius: Double)
    case rect(width: Int, height: Int)
    case named(String, tags: [String])
    indirect case group([FuzzReplayShape])
}

struct FuzzReplayPoint: KeyedCoding, Equatable {
    var x = 0.0
    var y = 0.0
    init() {}
    func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(x, forKey: "x")
        try coder.encode(y, forKey: "y")
    }
    init(from coder: KeyedDecodingCoder) throws {
        x = try coder.decode(Double.self, forKey: "x")
        y = try coder.decodeIfPresent(Double.self, forKey: "y") ?? 0
    }
    static var archiveClassName: String? { "Fuzz.Point" }
}

struct FuzzReplayRoot: Archivable {
    var title = ""
    var count = 0
    var small: Int8 = 0
    var big: UInt64 = 0
    var ratio = 0.0
    var single: Float = 0
    var flag = false
    var maybe: Int? = nil
    var maybeName: String? = nil
    var data = Data()
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var url: URL? = nil
    var uuid: UUID? = nil
    var address = FuzzReplayAddress()
    var addresses: [FuzzReplayAddress] = []
    var lookup: [String: Int] = [:]
    var byNumber: [Int: String] = [:]
    var numbers: Set<Int> = []
    var nested: [[String]] = []
    var optionals: [Int?] = []
    var color = FuzzReplayColor.red
    var colors: [FuzzReplayColor] = []
    var shape = FuzzReplayShape.empty
    var shapes: [FuzzReplayShape] = []
    var point = FuzzReplayPoint()
    var pet = FuzzReplayAnimal()
    var pets: [FuzzReplayAnimal] = []
    var maybePet: FuzzReplayAnimal? = nil
    var tree: FuzzReplayNode? = nil
    var extra: [String: Any] = [:]
}

// MARK: - Replay

@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let directory = Fixtures.own("fuzz-regressions")

    /// Every input file (the README describes them).
    static let inputs: [String] = Fixtures.fileNames(in: directory).filter { !$0.hasSuffix(".md") }

    @Test func theCorpusIsThere() {
        #expect(!Self.inputs.isEmpty, "no files in \(Self.directory.path)")
    }

    @Test(arguments: inputs)
    func replay(_ name: String) throws {
        let url = Self.directory.appending(path: name)
        let data = try Data(contentsOf: url)
        Self.replayPropertyList(data)
        Self.replayXMLPropertyList(data)
        Self.replayKeyed(data)
        Self.replayArchiveFile(url)
    }

    // MARK: Specific findings

    /// A decoded counted set holds Swift values (here an NSRange, boxed by Foundation), which the
    /// encoder cast to NSObject and trapped on (found by FuzzArchiveFile).
    @Test func aCountedSetOfSwiftValuesArchivesBack() throws {
        let set = NSCountedSet()
        set.add(NSRange(location: 1, length: 2) as Any)
        set.add(NSRange(location: 1, length: 2) as Any)
        set.add("a")
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: KeyedArchiver.archivedData(withRootObject: set)) as? NSCountedSet)
        #expect(decoded.count(for: NSRange(location: 1, length: 2)) == 2 && decoded.count(for: "a") == 1)
        let file = try ArchiveFile(contentsOf: Self.directory.appending(path: "archivefile-counted-set-of-nsrange.archive"))
        for key in file.keys {
            guard let value = try? file.decode(Any.self, forKey: key) else { continue }
            #expect(throws: Never.self) { _ = try KeyedArchiver.archivedData(withRootObject: value) }
        }
    }

    /// A counted set turns the values added to it into Foundation's objects (a Notification into an
    /// NSNotification), which had no archived layout (found by FuzzArchiveFile): each archives as
    /// the value it bridges to, and reads back.
    @Test func aCountedSetOfFoundationObjectsArchivesBack() throws {
        let values: [Any] = [
            Notification(name: Notification.Name("n"), object: nil, userInfo: ["k": 1]), IndexSet([1, 2, 5]), IndexPath(indexes: [1, 2]),
            Locale(identifier: "de_CH"), TimeZone(identifier: "Europe/Paris")!, Calendar(identifier: .iso8601),
            Measurement(value: 2, unit: UnitLength.meters),
        ]
        let set = NSCountedSet()
        for value in values { set.add(value as AnyObject) }
        let data = try KeyedArchiver.archivedData(withRootObject: set)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: data) as? NSCountedSet)
        #expect(decoded.count == values.count)
        #expect(try KeyedArchiver.archivedData(withRootObject: decoded) == data)
        // (Foundation's own equality decides membership: an NSNotification equals only itself.)
        #expect(decoded.count(for: IndexSet([1, 2, 5]) as AnyObject) == 1 && decoded.count(for: Locale(identifier: "de_CH") as AnyObject) == 1)
        let file = try ArchiveFile(contentsOf: Self.directory.appending(path: "archivefile-counted-set-of-notification.archive"))
        for key in file.keys {
            guard let value = try? file.decode(Any.self, forKey: key) else { continue }
            #expect(throws: Never.self) { _ = try KeyedArchiver.archivedData(withRootObject: value) }
        }
    }

    /// `ArchiveFile.encoded()` dropped a key whose `$top` value was not a UID (found by FuzzArchiveFile).
    @Test func keepingANonUIDTopEntryIsAnError() throws {
        let file = try ArchiveFile(contentsOf: Self.directory.appending(path: "archivefile-top-entry-not-uid.archive"))
        #expect(file.keys == ["root"])
        var edited = file
        try edited.set(1, forKey: "other")
        #expect(throws: ArchiveError(.invalidArchive, reason: "")) { try edited.encoded() }
    }

    /// A `$top` UID above `Int.max` trapped in `Int(_:)` when the file was written again (found by FuzzArchiveFile).
    @Test func keepingATopUIDBeyondIntMaxIsAnError() throws {
        let file = try ArchiveFile(contentsOf: Self.directory.appending(path: "archivefile-top-uid-beyond-int-max.archive"))
        var edited = file
        try edited.set(1, forKey: "other")
        #expect(throws: ArchiveError(.invalidReference, reason: "")) { try edited.encoded() }
    }

    /// Copying a long chain of references overflowed the stack (found from FuzzArchiveFile's target).
    @Test func keepingADeepReferenceChainHitsTheDepthLimit() throws {
        let file = try ArchiveFile(contentsOf: Self.directory.appending(path: "archivefile-transplant-deep-uid-chain.archive"))
        var edited = file
        try edited.set(1, forKey: "other")
        #expect(throws: ArchiveError(.depthLimit, reason: "")) { try edited.encoded() }
    }

    /// Two `$null` keys in one dictionary were one key or two by the process's hash seed: each
    /// null decoded to a new `NSNull`, which Foundation on Linux hashes by identity.
    @Test func twoNullKeysAreTheSameKey() throws {
        let url = Self.directory.appending(path: "null-key-hash-seed.archive")
        let error = try #require(ZooArchive.decodeError(Any.self, from: try Data(contentsOf: url)))
        #expect(error.code == .invalidArchive)
        #expect(error.reason == "the dictionary has the key <null> twice")
        #expect(error.keyPath == "root.data.banners[4]")
        #expect(error.objectIndex == 136 && error.byteOffset == 826, "\(error)")
        // Rewritten by ArchiveFile, the copied dictionary is refused the same way.
        var file = try ArchiveFile(contentsOf: url)
        try file.set(1, forKey: "added")
        let rewritten = try #require(ZooArchive.decodeError(Any.self, from: try file.encoded()))
        #expect(rewritten.code == .invalidArchive && rewritten.reason == error.reason && rewritten.keyPath == error.keyPath)
    }

    /// A dictionary key that is not equal to itself (a NaN) trapped when the dictionary was
    /// archived again: each value was looked up by its key (found by FuzzArchiveFile).
    @Test func aNaNKeyKeepsItsValue() throws {
        var dictionary: [Double: String] = [.nan: "first"]
        dictionary[.nan] = "second"  // a second entry: NaN never finds the first
        #expect(dictionary.count == 2)
        let back = try KeyedUnarchiver.unarchivedObject(
            ofType: [Double: String].self, from: try KeyedArchiver.archivedData(withRootObject: dictionary))
        #expect(back.count == 2 && back.keys.allSatisfy(\.isNaN))
        #expect(Set(back.values) == ["first", "second"])
        // The file that found it: what decodes as `Any` (a dictionary with a NaN key among it)
        // archives again; the file itself is not a property list one can copy (it has a cycle).
        let file = try ArchiveFile(contentsOf: Self.directory.appending(path: "nan-key-dictionary.archive"))
        var rearchived = 0
        for key in file.keys {
            guard let value = try? file.decode(Any.self, forKey: key) else { continue }
            _ = try KeyedArchiver.archivedData(withRootObject: value)
            rearchived += 1
        }
        #expect(rearchived > 0)
        var edited = file
        try edited.set(1, forKey: "added")
        #expect(throws: ArchiveError(.cycle, reason: "")) { try edited.encoded() }
    }

    /// Text after `<true>` or `<false>`: the close tag was read without checking that `</` stood
    /// there, so two bytes were skipped unseen. `<true>xxtrue>` read as `true`, and `<true>x` at the
    /// end of the input sliced the buffer past its end (a trap in debug builds). Found reviewing the
    /// paths FuzzXMLPlistReader reaches; the release fuzz build does not check slice bounds.
    @Test func aBooleanElementHoldsOnlyItsCloseTag() throws {
        // The first ends inside the element: a file cut short, however it goes on.
        for (name, code) in [("xml-true-close-tag-past-end.plist", ArchiveError.Code.truncated), ("xml-true-skipped-close-tag.plist", .invalidXML)] {
            let data = try Data(contentsOf: Self.directory.appending(path: name))
            let error = try #require(Self.xmlError(data))
            #expect(error.code == code, "\(name): \(error)")
            #expect(error.line == 1 && error.column == 14 && error.byteOffset == 13, "\(name): \(error)")
        }
        #expect(Self.xmlError(Array("<plist><true>".utf8))?.code == .truncated)
        #expect(Self.xmlError(Array("<plist><false>\n".utf8))?.code == .truncated)
        #expect(try XMLPlistReader().read(Array("<plist><true> <!-- c --> </true></plist>".utf8)) == .bool(true))
    }

    static func xmlError(_ bytes: some Sequence<UInt8>) -> ArchiveError? {
        do {
            _ = try XMLPlistReader().read(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// A cycle of nodes closed before the decode failed outlived the error (the reason leak detection was off).
    @Test func aCycleClosedBeforeAFailureIsReleased() throws {
        let data = try Data(contentsOf: Self.directory.appending(path: "keyed-cycle-then-type-mismatch.archive"))
        let tracker = LeakTracker()
        LeakTracker.$current.withValue(tracker) {
            Self.decode(FuzzReplayNode.self, "root", data)
            Self.decode(Any.self, "root", data)
        }
        // Each decode made both nodes before it failed at `tags`.
        #expect(tracker.createdCount >= 4)
        #expect(tracker.alive == [])
        let error = ZooArchive.decodeError(FuzzReplayNode.self, from: data)
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == "root.tags")
    }

    // MARK: Steps

    /// Reads the bytes as a property list; what reads must write and read back equal.
    static func replayPropertyList(_ data: Data) {
        guard let value = try? BPlistReader().read(data) else { return }  // typed throws: only ArchiveError
        do {
            let bytes = try BPlistWriter().write(value)
            #expect(try BPlistReader().read(bytes) == value)
        } catch {
            // Only what bplist00 cannot hold (null, sets, large UIDs) may fail to write.
            #expect(error.code == .unencodable, "\(error)")
        }
    }

    /// Reads the bytes with `XMLPlistReader` and `PlistReader` (typed throws: each reads or throws an
    /// `ArchiveError`). `PlistReader` reads what it takes for XML as `XMLPlistReader` does; what reads
    /// as XML writes as XML and reads back equal.
    static func replayXMLPropertyList(_ data: Data) {
        let xml = Result { () throws(ArchiveError) in try XMLPlistReader().read(data) }
        let detected = Result { () throws(ArchiveError) in try PlistReader().readWithFormat(data) }
        if PlistFormat(of: data) == .xml {
            switch (xml, detected) {
            case (.success(let value), .success(let (other, format))):
                #expect(format == .xml && other == value)
            case (.failure(let error), .failure(let other)):
                #expect(other.code == error.code, "PlistReader: \(other); XMLPlistReader: \(error)")
            default:
                Issue.record("PlistReader and XMLPlistReader disagree: \(detected) vs \(xml)")
            }
        }
        guard case .success(let value) = xml else { return }
        do {
            let bytes = try XMLPlistWriter().write(value)
            #expect(try XMLPlistReader().read(bytes) == value)
        } catch {
            Issue.record("a value read from XML could not be written as XML and read back: \(error)")
        }
    }

    static func configure(_ unarchiver: KeyedUnarchiver) {
        unarchiver.register(FuzzReplayDog.self, FuzzReplayAnimal.self, FuzzReplayNode.self, FuzzReplayAddress.self, FuzzReplayPoint.self)
        unarchiver.setClass(FuzzReplayShape.self, forClassName: "FuzzSupport.FuzzShape")
    }

    /// Decodes every top-level key as `Any`, `[String: Any]` and each zoo model.
    static func replayKeyed(_ data: Data) {
        let keys: [String]
        do {
            keys = try KeyedUnarchiver(forReadingFrom: data).allKeys
        } catch {
            expectArchiveError(error, "KeyedUnarchiver.init threw \(type(of: error)): \(error)")
            return
        }
        for key in keys.prefix(8) {
            decode(Any.self, key, data)
            decode([String: Any].self, key, data)
            decode(FuzzReplayRoot.self, key, data)
            decode([FuzzReplayAnimal].self, key, data)
            decode(FuzzReplayAnimal.self, key, data)
            decode(FuzzReplayNode.self, key, data)
            decode([FuzzReplayShape].self, key, data)
            decode(FuzzReplayShape?.self, key, data)
            decode(FuzzReplayAddress.self, key, data)
            decode(Set<String>.self, key, data)
            decode([Int: [String?]].self, key, data)
        }
    }

    static func decode<T>(_: T.Type, _ key: String, _ data: Data, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
            configure(unarchiver)
            let value = try unarchiver.decode(T.self, forKey: key)
            // What decodes re-archives.
            do {
                _ = try KeyedArchiver.archivedData(withRootObject: value)
            } catch {
                Issue.record("decoded \(T.self) for \(key) but re-archiving failed: \(error)", sourceLocation: sourceLocation)
            }
            breakCycles(value)
        } catch {
            expectArchiveError(error, "decoding \(T.self) for \(key) threw \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Opens the file, decodes its keys, sets one and writes the whole file again.
    static func replayArchiveFile(_ url: URL) {
        do {
            let file = try ArchiveFile(contentsOf: url)
            for key in file.keys.prefix(8) {
                do {
                    breakCycles(try file.decode(Any.self, forKey: key))
                } catch {
                    expectArchiveError(error, "ArchiveFile.decode threw \(type(of: error)): \(error)")
                }
            }
            var edited = file
            try edited.set(FuzzReplayAddress(street: "added", zip: 1), forKey: "fuzz.added")
            let bytes = try edited.encoded()
            #expect(try KeyedUnarchiver(forReadingFrom: bytes).decode(FuzzReplayAddress.self, forKey: "fuzz.added").street == "added")
        } catch {
            expectArchiveError(error, "ArchiveFile threw \(type(of: error)): \(error)")
        }
    }

    /// Records an issue unless `error` is an `ArchiveError`.
    static func expectArchiveError(_ error: any Error, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if !(error is ArchiveError) { Issue.record("\(what)", sourceLocation: sourceLocation) }
    }

    /// Breaks the strong cycles a decoded zoo graph may hold.
    static func breakCycles(_ value: Any) {
        var stack: [Any] = [value]
        var seen = Set<ObjectIdentifier>()
        while let item = stack.popLast() {
            switch item {
            case let node as FuzzReplayNode:
                guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
                stack += node.children as [Any]
                if let next = node.next { stack.append(next) }
                node.children = []
                node.next = nil
            case let root as FuzzReplayRoot:
                if let tree = root.tree { stack.append(tree) }
                stack.append(root.extra)
            case let list as [Any]: stack += list
            case let dict as [String: Any]: stack += Array(dict.values)
            case let dict as [AnyHashable: Any]: stack += Array(dict.values)
            default: continue
            }
        }
    }
}
