import Foundation
import PropertyList
import TestSupport
import Testing

private typealias A = BPlistAssembler

/// A valid file cut short says it is truncated, at whatever byte it was cut; a trailer with one
/// bad field is still a damaged trailer (`ReaderErrorModelTests`, `ReaderRejectionTests`).
@Suite("BPlistReader truncation")
struct ReaderTruncationTests {
    /// Real archives and property lists: the keyed fixtures, plistlib and Foundation files.
    /// Ours always; the peer copies too when ../shared/fixtures is used.
    static let files: [String] =
        Fixtures.fileNames(in: Fixtures.own("foundation"), suffix: ".archive").map { "Fixtures/foundation/" + $0 }
        + Fixtures.fileNames(in: Fixtures.own("plistlib"), suffix: ".bplist").map { "Fixtures/plistlib/" + $0 }
        + Fixtures.fileNames(in: Fixtures.own("keyed"), suffix: ".archive").map { "Fixtures/keyed/" + $0 }
        + Fixtures.peerFileNames(in: "keyed", suffix: ".archive").map { "keyed/" + $0 }
        + Fixtures.peerFileNames(in: "bplist/valid", suffix: ".bplist").map { "bplist/valid/" + $0 }
        + Fixtures.peerFileNames(in: "peers/cpython-darwin", suffix: ".bplist").map { "peers/cpython-darwin/" + $0 }

    /// The lengths a file of `count` bytes is cut at: every one for files up to 64 KiB; for larger
    /// ones the first 4 KiB, every 97th length, and the last 4 KiB (the cuts into the offset table).
    static func cutLengths(of count: Int) -> [Int] {
        guard count > 1 << 16 else { return Array(0..<count) }
        return Array(0..<4096) + Array(stride(from: 4096, to: count - 4096, by: 97)) + Array((count - 4096)..<count)
    }

    /// The error reading the first `length` bytes of `bytes` throws, or nil if they read.
    static func error(readingPrefix length: Int, of bytes: [UInt8]) -> ArchiveError? {
        bytes.withUnsafeBytes { buffer -> ArchiveError? in
            do throws(ArchiveError) {
                _ = try BPlistReader().read(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
                return nil
            } catch {
                return error
            }
        }
    }

    /// Checks `bytes` cut at each length: any cut, inside the 8-byte header too, fails with
    /// `.truncated` and a reason that says so (nothing at all is `.notPropertyList`). Returns how
    /// many cuts were checked.
    static func expectEveryCutTruncated(_ bytes: [UInt8], lengths: [Int], name: String) -> Int {
        for length in lengths {
            guard let error = error(readingPrefix: length, of: bytes) else {
                Issue.record("\(name) cut at \(length) bytes reads")
                continue
            }
            if length == 0 {
                #expect(error.code == .notPropertyList, "\(name) cut at \(length): \(error)")
                continue
            }
            #expect(error.code == .truncated, "\(name) cut at \(length): \(error)")
            #expect(error.reason.contains("truncated"), "\(name) cut at \(length): \(error)")
            #expect(error.byteOffset.map { $0 <= length } == true, "\(name) cut at \(length): \(error)")
        }
        return lengths.count
    }

    @Test("Every fixture cut at every length says it is truncated")
    func fixturesCutAtEveryLengthAreTruncated() throws {
        #expect(Self.files.count >= (Fixtures.peerFixturesAvailable ? 60 : 30), "\(Self.files.count) files")
        var cuts = 0
        for file in Self.files {
            let bytes = try Fixtures.bytes(at: Fixtures.file(file))
            _ = try BPlistReader().read(bytes)  // the whole file reads
            cuts += Self.expectEveryCutTruncated(bytes, lengths: Self.cutLengths(of: bytes.count), name: file)
        }
        #expect(cuts > 20_000)
    }

    @Test("Seeded random property lists cut at every length say they are truncated")
    func randomPropertyListsCutAtEveryLengthAreTruncated() throws {
        for i in 0..<200 {
            let seed = 0x7A0C_A7ED_0000_0000 &+ UInt64(i)
            var rng = SplitMix64(seed: seed)
            let bytes = try BPlistWriter().write(RandomPlist.value(using: &rng))
            _ = Self.expectEveryCutTruncated(bytes, lengths: Self.cutLengths(of: bytes.count), name: "seed \(seed)")
        }
    }

    @Test("A keyed archive cut inside its objects names the trailer field it read and the file size")
    func cutArchiveMessage() throws {
        let bytes = try Fixtures.bytes(at: Fixtures.own("foundation/k-person.archive"))
        try #require(bytes.count > 150)
        let error = try #require(Self.error(readingPrefix: 150, of: bytes))
        #expect(error.code == .truncated)
        #expect(error.reason.hasPrefix("the file is truncated or its trailer is damaged: "), "\(error)")
        #expect(error.byteOffset.map { (118..<150).contains($0) } == true, "\(error)")
        #expect(error.objectIndex == nil)
    }

    @Test("Fewer than 41 bytes after a whole header are truncated, and the reason says so")
    func shortInputReasonSaysTruncated() throws {
        let error = try #require(Self.error(readingPrefix: 23, of: Array("bplist00".utf8) + [UInt8](repeating: 0, count: 15)))
        #expect(error.code == .truncated)
        #expect(
            error.description
                == "ArchiveError.truncated: the file is truncated: 23 bytes are too few for a binary property list (at least 41: header, one object, trailer) (at byte 23)")
    }

    @Test("A trailer with one bad field is damaged, with two it is not a trailer: the file is truncated")
    func oneBadFieldIsInvalidTrailerTwoAreTruncated() throws {
        let objects = [A.ascii("ok"), A.array([0])]
        // A top index past the count alone: a damaged trailer, at the top field (trailer at 15, field 16).
        let one = A.assemble(objects, top: 5)
        expectReadError(one, .invalidTrailer, at: 31, objectIndex: .some(nil))
        // The same with a byte set among the six unused ones: not a trailer.
        var two = one
        two[15 + 2] = 0x41
        expectReadError(two, .truncated, at: 31, objectIndex: .some(nil))
        // Only a byte set among the unused ones: still read (the reader never required them zero).
        var unused = A.assemble(objects, top: 1)
        unused[15 + 2] = 0x41
        #expect(try BPlistReader().read(unused) == ["ok"])
    }

    @Test("Bytes that are not a trailer are reported as truncated before the object limit is applied")
    func truncationIsFoundBeforeTheObjectLimit() throws {
        // 300 one-byte objects with two-byte offsets and references; the limit is 10 objects.
        var options = BPlistReader.Options()
        options.maximumObjectCount = 10
        let whole = A.assemble(Array(repeating: [0x08], count: 300), offsetSize: 2, refSize: 2)
        expectReadError(whole, .sizeLimit, at: whole.count - 32 + 8, options: options)
        // A top index past the count and a byte set among the unused ones: not a trailer.
        var cut = A.assemble(Array(repeating: [0x08], count: 300), offsetSize: 2, refSize: 2, top: 400)
        cut[cut.count - 32] = 0x41
        expectReadError(cut, .truncated, at: cut.count - 32 + 16, options: options)
    }
}
