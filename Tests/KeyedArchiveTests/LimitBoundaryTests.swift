import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// A model with a long string and a data field, for the length limits.
struct LimitNote: Archivable, Equatable {
    var title = ""
    var blob = Data()
}

/// Every `KeyedUnarchiver.Options` limit at its boundary: the archive decodes with the limit set
/// to exactly what it needs and fails with the documented code one below.
@Suite("Unarchiver limits at their boundaries")
struct LimitBoundaryTests {
    /// Decodes on a 64 MiB stack, so nesting up to the default depth limit never meets the stack guard.
    private func decode<T>(_ type: T.Type, _ data: Data, _ options: KeyedUnarchiver.Options) throws -> T {
        try onThread(stackSize: deepStack) { try KeyedUnarchiver(forReadingFrom: data, options: options).decode(type, forKey: "root") }
    }

    private func error<T>(_ type: T.Type, _ data: Data, _ options: KeyedUnarchiver.Options) throws -> ArchiveError {
        try #require(throws: ArchiveError.self) { try decode(type, data, options) }
    }

    @Test("One limits type: readingLimits bounds binary and XML archives alike, and the named limits are its fields")
    func readingLimitsAreTheUnarchiversPlistLimits() throws {
        let note = LimitNote(title: "a title", blob: Data([1, 2, 3]))
        let binary = try KeyedArchiver.archivedData(withRootObject: note)
        let archiver = KeyedArchiver()
        archiver.outputFormat = .xml
        try archiver.encode(note, forKey: "root")
        let xml = try archiver.encodedData

        var limits = ReadingLimits()
        limits.maximumObjectCount = 3
        var options = KeyedUnarchiver.Options()
        options.readingLimits = limits
        #expect(options.maximumObjectCount == 3)
        for data in [binary, xml] {
            let error = try #require(throws: ArchiveError.self) { try KeyedUnarchiver(forReadingFrom: data, options: options) }
            #expect(error.code == .sizeLimit)
            #expect(error.reason.contains("maximumObjectCount"), "\(error)")
        }
        options.maximumStringLength = 6
        #expect(options.readingLimits.maximumStringLength == 6)
        // The same value configures the plain readers.
        #expect(throws: ArchiveError.self) { try XMLPlistReader(options: options.readingLimits).read(xml) }
        #expect(throws: ArchiveError.self) { try BPlistReader(options: options.readingLimits).read(binary) }
    }

    /// The object count a `bplist00` trailer declares.
    private func objectCount(_ data: Data) -> Int {
        let trailer = data.count - 32
        return data[(trailer + 8)..<(trailer + 16)].reduce(0) { $0 << 8 | Int($1) }
    }

    @Test("Default options are the documented ones")
    func defaults() {
        let options = KeyedUnarchiver.Options()
        #expect(options.maximumDepth == 512)
        #expect(options.maximumDecodedObjects == 1 << 24)
        #expect(options.maximumObjectCount == 1 << 24)
        #expect(options.maximumArchiveSize == 1 << 30)
        #expect(options.maximumStringLength == 1 << 28)
        #expect(options.maximumDataLength == 1 << 30)
    }

    @Test("maximumArchiveSize: the archive's byte count passes, one byte less fails")
    func archiveSize() throws {
        let data = try ZooHostile.person()
        var options = KeyedUnarchiver.Options()
        options.maximumArchiveSize = data.count
        #expect(try decode(ZooPerson.self, data, options).name == "Ann")
        options.maximumArchiveSize = data.count - 1
        let failure = try error(ZooPerson.self, data, options)
        #expect(failure.code == .sizeLimit, "\(failure)")
        #expect(failure.reason.contains("\(data.count) bytes"), "\(failure)")
    }

    @Test("maximumObjectCount: the trailer's object count passes, one less fails at the trailer")
    func objectCountLimit() throws {
        let data = try ZooHostile.person()
        let count = objectCount(data)
        #expect(count > 5)
        var options = KeyedUnarchiver.Options()
        options.maximumObjectCount = count
        #expect(try decode(ZooPerson.self, data, options).address.zip == 8000)
        options.maximumObjectCount = count - 1
        let failure = try error(ZooPerson.self, data, options)
        #expect(failure.code == .sizeLimit, "\(failure)")
        #expect(failure.byteOffset == data.count - 32 + 8, "\(failure)")
    }

    @Test("maximumDepth: N nested arrays pass with limit N and fail with N - 1", arguments: [1, 2, 21, 512])
    func depth(levels: Int) throws {
        let data = try ZooHostile.nestedArrays(levels: levels)
        var options = KeyedUnarchiver.Options()
        options.maximumDepth = levels
        #expect(try decode([Any].self, data, options).count == (levels == 1 ? 0 : 1))
        options.maximumDepth = levels - 1
        let failure = try error([Any].self, data, options)
        #expect(failure.code == .depthLimit, "\(failure)")
        #expect(failure.byteOffset != nil, "\(failure)")
    }

    @Test("The default depth limit reads 512 nested arrays and refuses 513")
    func defaultDepth() throws {
        #expect(try decode([Any].self, try ZooHostile.nestedArrays(levels: 512), .init()).count == 1)
        #expect(try error([Any].self, try ZooHostile.nestedArrays(levels: 513), .init()).code == .depthLimit)
    }

    /// Each decoded value costs 1, and each object dictionary read costs its entry count: an
    /// array object (`$class`, `NS.objects`) costs 3 each time it is read. An element decoded as
    /// `Any` is read twice (once for its class, once as the type that class selects): 6. A DAG of
    /// L levels, each array holding the next twice, is the root plus 2^L - 2 elements: 3 + 6 × (2^L - 2).
    @Test("maximumDecodedObjects: an exponential DAG's exact cost passes, one less fails", arguments: [1, 2, 8, 12])
    func decodedObjects(levels: Int) throws {
        let data = try ZooHostile.exponentialDAG(levels: levels)
        let cost = 3 + 6 * ((1 << levels) - 2)
        var options = KeyedUnarchiver.Options()
        options.maximumDecodedObjects = cost
        #expect(try decode([Any].self, data, options).count == (levels == 1 ? 0 : 2))
        options.maximumDecodedObjects = cost - 1
        let failure = try error([Any].self, data, options)
        #expect(failure.code == .sizeLimit, "\(failure)")
        #expect(failure.byteOffset != nil, "\(failure)")
    }

    @Test("maximumStringLength: the longest string's length passes, one less fails at root.title", arguments: [
        String(repeating: "x", count: 100),
        String(repeating: "é", count: 100),  // stored as 100 UTF-16 code units
        String(repeating: "😀", count: 50),  // 50 characters, 100 UTF-16 code units
    ])
    func stringLength(title: String) throws {
        let note = LimitNote(title: title, blob: Data([1, 2, 3]))
        let data = try KeyedArchiver.archivedData(withRootObject: note)
        var options = KeyedUnarchiver.Options()
        options.maximumStringLength = 100
        #expect(try decode(LimitNote.self, data, options) == note)
        options.maximumStringLength = 99
        let failure = try error(LimitNote.self, data, options)
        #expect(failure.code == .sizeLimit, "\(failure)")
        #expect(failure.keyPath == "root.title", "\(failure)")
        #expect(failure.byteOffset != nil, "\(failure)")
        #expect(failure.reason.contains("string of 100 characters"), "\(failure)")
    }

    @Test("maximumDataLength: the data's byte count passes, one less fails at root.blob", arguments: [1, 15, 16, 4096])
    func dataLength(length: Int) throws {
        let note = LimitNote(title: "t", blob: Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
        let data = try KeyedArchiver.archivedData(withRootObject: note)
        var options = KeyedUnarchiver.Options()
        options.maximumDataLength = length
        #expect(try decode(LimitNote.self, data, options) == note)
        options.maximumDataLength = length - 1
        let failure = try error(LimitNote.self, data, options)
        #expect(failure.code == .sizeLimit, "\(failure)")
        #expect(failure.keyPath == "root.blob", "\(failure)")
        #expect(failure.reason.contains("data object of \(length) bytes"), "\(failure)")
    }

    @Test("ArchiveFile reads with the limits it is given")
    func archiveFileOptions() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(UUID().uuidString).archive")
        defer { try? FileManager.default.removeItem(at: url) }
        var file = ArchiveFile()
        try file.set(LimitNote(title: String(repeating: "a", count: 40)), forKey: "note")
        try file.write(to: url)
        var options = KeyedUnarchiver.Options()
        options.maximumStringLength = 40
        #expect(try ArchiveFile(contentsOf: url, options: options).decode(LimitNote.self, forKey: "note").title.count == 40)
        options.maximumStringLength = 39
        let opened = try ArchiveFile(contentsOf: url, options: options)
        let failure = try #require(throws: ArchiveError.self) { try opened.decode(LimitNote.self, forKey: "note") }
        #expect(failure.code == .sizeLimit, "\(failure)")
        #expect(failure.keyPath == "note.title", "\(failure)")
    }
}
