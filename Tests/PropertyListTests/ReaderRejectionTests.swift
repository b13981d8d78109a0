import Foundation
import PropertyList
import TestSupport
import Testing

/// Malformed files are rejected with an `ArchiveError` that says what and where; hostile or
/// damaged input never crashes the reader.
@Suite("BPlistReader rejections")
struct ReaderRejectionTests {
    /// One malformed file and the error it must produce.
    struct Rejection: Sendable, CustomTestStringConvertible {
        let path: String
        let code: ArchiveError.Code
        let byteOffset: Int
        let objectIndex: Int?
        var testDescription: String { "\(path) → \(code) at \(byteOffset)" }

        init(_ path: String, _ code: ArchiveError.Code, _ byteOffset: Int, object objectIndex: Int? = nil) {
            self.path = path
            self.code = code
            self.byteOffset = byteOffset
            self.objectIndex = objectIndex
        }
    }

    /// Expected errors, derived by reading each file with xxd (see the comment on each row).
    static let rejections: [Rejection] = [
        // 0xAF 0x13 + 8-byte count 2^40 at byte 8; the 2^40 refs cannot fit before the table at 18.
        .init("bplist/invalid/array-count-huge.bplist", .truncated, 8, object: 0),
        // "a\u{FF}b" as 0x53: the 0xFF is the second payload byte, at 10.
        .init("bplist/invalid/ascii-high-byte.bplist", .invalidString, 10, object: 0),
        // 0x5F followed by 0x05, not an int marker: the count marker is at 9.
        .init("bplist/invalid/bad-count-marker.bplist", .invalidCount, 9, object: 0),
        // Trailer at 15; its object count (byte 15+8) is 2^62 in a 47-byte file.
        .init("bplist/invalid/count-huge.bplist", .invalidTrailer, 23),
        // Object 0 at 8 is [1], object 1 is {"k": 0}: reaching object 0 again is the cycle.
        .init("bplist/invalid/cycle-2.bplist", .cycle, 8, object: 0),
        // Object i (at 8 + 3i) is [i+1, i+1]; object 17 expands to 2^24 - 1 values, so object 16
        // (at 56) passes 2^24 on its second reference.
        .init("bplist/invalid/dag-exponential.bplist", .sizeLimit, 56, object: 16),
        // 0x4F 0x10 0xC8: 200 bytes of data at 8, 3 bytes before the table.
        .init("bplist/invalid/data-past-end.bplist", .truncated, 8, object: 0),
        // Object i at 8 + 5i is [i+1] with 4-byte refs; object 512 is the 513th level.
        .init("bplist/invalid/deep-nesting.bplist", .depthLimit, 2568, object: 512),
        // Top object 2 is {0: 1}; key object 0 is the int 1 at 8.
        .init("bplist/invalid/dict-int-key.bplist", .invalidKey, 8, object: 0),
        // No bytes at all.
        .init("bplist/invalid/empty.bplist", .notPropertyList, 0),
        // 0x15: an int of 32 bytes.
        .init("bplist/invalid/int-32-bytes.bplist", .invalidMarker, 8, object: 0),
        // 0x14 with high half 0x0000_0010_0000_0000: above UInt64.max.
        .init("bplist/invalid/int16-too-big.bplist", .invalidMarker, 8, object: 0),
        // "bplist99": first differing header byte is 6.
        .init("bplist/invalid/magic.bplist", .notPropertyList, 6),
        .init("bplist/invalid/marker-0e.bplist", .invalidMarker, 8, object: 0),
        .init("bplist/invalid/marker-70.bplist", .invalidMarker, 8, object: 0),
        .init("bplist/invalid/marker-90.bplist", .invalidMarker, 8, object: 0),
        .init("bplist/invalid/marker-b0.bplist", .invalidMarker, 8, object: 0),
        .init("bplist/invalid/marker-e0.bplist", .invalidMarker, 8, object: 0),
        .init("bplist/invalid/marker-f0.bplist", .invalidMarker, 8, object: 0),
        // "<?xml": differs from the header at byte 0.
        .init("bplist/invalid/not-plist.bplist", .notPropertyList, 0),
        // Table at 14 = [0x0F, 0x0C]: object 0 starts at 15, inside the table; the entry is at 14.
        .init("bplist/invalid/offset-into-table.bplist", .invalidOffset, 14, object: 0),
        // Table at 14 = [0xFF, 0x0C]: object 0 starts past the end; the entry is at 14.
        .init("bplist/invalid/offset-past-end.bplist", .invalidOffset, 14, object: 0),
        // Trailer at 15; offset size (15+6) is 0 / 9.
        .init("bplist/invalid/offset-size-0.bplist", .invalidTrailer, 21),
        .init("bplist/invalid/offset-size-9.bplist", .invalidTrailer, 21),
        // 0x24: a real of 16 bytes.
        .init("bplist/invalid/real-16-bytes.bplist", .invalidMarker, 8, object: 0),
        // Object 1 at 10 is 0xA2 [0, 9]; the second ref (at 12) names object 9 of 2.
        .init("bplist/invalid/ref-out-of-range.bplist", .invalidReference, 12, object: 1),
        // Trailer at 15; ref size (15+7) is 0.
        .init("bplist/invalid/ref-size-0.bplist", .invalidTrailer, 22),
        // 0xA1 0x00 at 8: an array containing itself.
        .init("bplist/invalid/self-cycle.bplist", .cycle, 8, object: 0),
        // 0x5F 0x13 + count 2^62 at 8.
        .init("bplist/invalid/string-count-huge.bplist", .truncated, 8, object: 0),
        // Trailer at 15; table offset (15+24) is 2, inside the header.
        .init("bplist/invalid/table-in-header.bplist", .invalidTrailer, 39),
        // Trailer at 15: offset size 8 and count 2^61; the count alone exceeds the file, caught at 15+8.
        .init("bplist/invalid/table-overflow.bplist", .invalidTrailer, 23),
        // Trailer at 15; table offset (15+24) is 1,000,000.
        .init("bplist/invalid/table-past-end.bplist", .invalidTrailer, 39),
        // Trailer at 15; top object (15+16) is 5 of 2.
        .init("bplist/invalid/top-out-of-range.bplist", .invalidTrailer, 31),
        // Header and trailer, no object: 40 bytes, fewer than the 41 of the smallest plist.
        .init("bplist/invalid/trailer-only.bplist", .truncated, 40),
        // Cut at 23 and 37 bytes: too short for a trailer; the offset is the end of the input.
        .init("bplist/invalid/truncated-half.bplist", .truncated, 23),
        .init("bplist/invalid/truncated-trailer.bplist", .truncated, 37),
        // 0x61 0xD8 0x00: one code unit, a lead surrogate, at 9.
        .init("bplist/invalid/utf16-lone-surrogate.bplist", .invalidString, 9, object: 0),
        // A 60-byte file whose 5 two-byte offsets (24..<34) run 6 bytes into the last 32 bytes: the
        // writer left out the trailer's 6 unused bytes. The trailer fields still parse (sizes 2/1,
        // 5 objects, top 1, table at 24), but the table does not end where the trailer starts, so a
        // strict reader rejects it at the table-offset field (28 + 24) before ever meeting the cycle.
        // `recursionWithRepairedTrailerFailsOnTheCycle` checks the cycle itself.
        .init("peers/libplist/recursion.bplist", .invalidTrailer, 52),
        // Top dict's first key is object 7 = {obj2: obj1}, and object 2 (at 18) is an array.
        .init("peers/libplist/malformed_dict.bplist", .invalidKey, 18, object: 2),
    ]

    @Test("The rejection table covers every file in bplist/invalid", .needsPeerFixtures("bplist/invalid"))
    func rejectionTableCoversEveryInvalidFile() {
        let files = Set(Fixtures.fileNames(in: Fixtures.shared("bplist/invalid"), suffix: ".bplist").map { "bplist/invalid/" + $0 })
        let listed = Set(Self.rejections.map(\.path).filter { $0.hasPrefix("bplist/invalid/") })
        #expect(files.count >= 37)
        #expect(files == listed, "missing from the table: \(files.subtracting(listed).sorted()); stale: \(listed.subtracting(files).sorted())")
    }

    @Test(
        "Each malformed file fails with the expected code, byte offset and object index",
        .needsPeerFixtures("bplist/invalid and peers/libplist"), arguments: rejections)
    func malformedFileFailsWithCodeAndOffset(_ rejection: Rejection) throws {
        let bytes = try Fixtures.bytes(at: Fixtures.shared(rejection.path))
        let error = try #require(readErrorOnDeepStack(bytes))
        #expect(error.byteOffset != nil)
        #expect(error.code == rejection.code, "\(error)")
        #expect(error.byteOffset == rejection.byteOffset, "\(error)")
        #expect(error.objectIndex == rejection.objectIndex, "\(error)")
        #expect(!error.reason.isEmpty)
    }

    @Test(
        "recursion.bplist with its trailer repaired fails on its repeated key, then on its cycle",
        .needsPeerFixtures("peers/libplist/recursion.bplist"))
    func recursionWithRepairedTrailerFailsOnTheCycle() throws {
        let original = try Fixtures.bytes(at: Fixtures.shared("peers/libplist/recursion.bplist"))
        try #require(original.count == 60)
        // Put back the trailer's 6 unused bytes after the offset table (which ends at 34).
        let repaired = Array(original[0..<34]) + [UInt8](repeating: 0, count: 6) + Array(original[34...])
        // Top object 1 at 11 is {"B": 0, "B": 0, "B": 0}; object 0 at 8 is {"A": 1}: back to object 1.
        // A dictionary's keys are all checked before its values, so the repeated key is found first
        // (the second key reference, at byte 13).
        expectReadError(repaired, .invalidKey, at: 13, objectIndex: 1)
        // With the dictionary's count cut to one entry (keys at 12, value at 13), the cycle remains.
        var single = repaired
        single[11] = 0xD1
        single[13] = 0x00
        expectReadError(single, .cycle, at: 11, objectIndex: 1)
    }

    static let fuzzFiles = Fixtures.peerFileNames(in: "peers/libplist-fuzz")

    @Test("libplist's fuzz crashers either read or throw ArchiveError", .needsPeerFixtures("peers/libplist-fuzz"), arguments: fuzzFiles)
    func fuzzCrasherReadsOrThrows(name: String) throws {
        let bytes = try Fixtures.bytes(at: Fixtures.shared("peers/libplist-fuzz/" + name))
        expectReadsOrThrowsCleanly(bytes)
    }

    @Test("The fuzz folder holds its 24 files", .needsPeerFixtures("peers/libplist-fuzz"))
    func fuzzFolderIsComplete() {
        #expect(Self.fuzzFiles.count == 24)
    }

    /// Files of ours (always), then peer files (when they are used), as paths for ``Fixtures/file(_:)``.
    static let truncationFiles = [
        "Fixtures/bplist/user-profile.bplist", "Fixtures/bplist/utf16-strings.bplist", "Fixtures/foundation/k-person.archive",
        "Fixtures/plistlib/nested.bplist", "Fixtures/plistlib/dates.bplist", "Fixtures/plistlib/strings.bplist",
        "Fixtures/plistlib/dag.bplist", "Fixtures/plistlib/uids.bplist",
    ] + (!Fixtures.peerFixturesAvailable ? [] : [
        "bplist/valid/nested.bplist", "bplist/valid/json-like.bplist", "bplist/valid/dates.bplist",
        "bplist/valid/string-surrogates.bplist", "bplist/valid/dag.bplist", "bplist/valid/width3.bplist",
        "bplist/valid/uids.bplist", "peers/libplist/off8bytes.bplist",
    ])

    @Test("Every proper prefix of a valid file throws, never crashes", arguments: truncationFiles)
    func everyTruncationThrows(path: String) throws {
        let bytes = try Fixtures.bytes(at: Fixtures.file(path))
        _ = try BPlistReader().read(bytes)
        for length in 0..<bytes.count {
            do {
                let value = try BPlistReader().read(bytes[0..<length])
                Issue.record("prefix of \(length) bytes read as \(value.plistJSON.prefix(100))")
            } catch {
                #expect(error.byteOffset != nil, "prefix \(length): \(error)")
                #expect((0...length).contains(error.byteOffset ?? -1), "prefix \(length): \(error)")
            }
        }
    }

    /// Files of ours (always), then peer files (when they are used), as paths for ``Fixtures/file(_:)``.
    static let corruptionFiles = [
        "Fixtures/bplist/mixed-scalars.bplist", "Fixtures/bplist/utf16-strings.bplist", "Fixtures/foundation/k-array-mixed.archive",
        "Fixtures/plistlib/nested.bplist", "Fixtures/plistlib/integers.bplist", "Fixtures/plistlib/dates.bplist",
        "Fixtures/plistlib/dag.bplist", "Fixtures/plistlib/uids.bplist",
    ] + (!Fixtures.peerFixturesAvailable ? [] : [
        "bplist/valid/nested.bplist", "bplist/valid/ints.bplist", "bplist/valid/dates.bplist",
        "bplist/valid/string-utf16.bplist", "bplist/valid/string-surrogates.bplist", "bplist/valid/dag.bplist",
        "bplist/valid/uids.bplist", "bplist/valid/width3.bplist", "bplist/valid/width8.bplist",
        "bplist/valid/set.bplist", "bplist/valid/null.bplist", "bplist/valid/int-uint64-max.bplist",
    ])

    @Test("Every single-byte corruption of a small file reads or throws ArchiveError", arguments: corruptionFiles)
    func everySingleByteCorruptionReadsOrThrows(path: String) throws {
        let original = try Fixtures.bytes(at: Fixtures.file(path))
        var rejected = 0
        for position in original.indices {
            for replacement in Set([0x00, 0xFF, original[position] &+ 1]) where replacement != original[position] {
                var bytes = original
                bytes[position] = replacement
                if !expectReadsOrThrowsCleanly(bytes, context: "byte \(position) := \(replacement)") { rejected += 1 }
            }
        }
        #expect(rejected > 0, "some corruption must be detected")
    }

    /// Reads `bytes`; a failure must carry a byte offset inside the input, and a success must
    /// survive the decode ⇒ re-encode ⇒ decode-equal invariant. Returns whether it read.
    @discardableResult
    func expectReadsOrThrowsCleanly(_ bytes: [UInt8], context: String = "", sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let value: PlistValue
        do {
            value = try BPlistReader().read(bytes)
        } catch {
            #expect(error.byteOffset != nil, "\(context): \(error)", sourceLocation: sourceLocation)
            #expect((0...bytes.count).contains(error.byteOffset ?? -1), "\(context): \(error)", sourceLocation: sourceLocation)
            return false
        }
        do {
            let rewritten = try BPlistWriter().write(value)
            #expect(try BPlistReader().read(rewritten) == value, "\(context)", sourceLocation: sourceLocation)
        } catch {
            // Readable but not writable: null, sets, UIDs of 2^32 and more.
            #expect(error.code == .unencodable, "\(context): \(error)", sourceLocation: sourceLocation)
        }
        return true
    }
}
