import Foundation
import KeyedArchive
import PropertyList
import Testing

/// Types whose layouts the tests skew: used nowhere else, so their layouts are first built here.
private final class SkewedRecord: Archivable {
    var first = 0x1111
    var second = 0x2222_3333
    var label = "sample"
    static var archiveClassName: String? { "LayoutCheck.Record" }
    init() {}
}

/// The same archive name, laid out by the runtime as it is: writes the archive the skewed type reads.
private final class RecordTwin: Archivable {
    var first = 1
    var second = 2
    var label = "twin"
    static var archiveClassName: String? { "LayoutCheck.Record" }
    init() {}
}

private struct SkewedPoint: Archivable {
    var x = 3.5
    var y = 7
    init() {}
}

private struct SkewedBeforeStart: Archivable {
    var name = "n"
    init() {}
}

/// Reflection checks each type's layout against `Mirror` the first time it is built. A test hook
/// shifts the offsets the runtime gives (as a wrong ABI constant would) to see that a disagreement
/// makes the type throw `.notArchivable` on every use, and that nothing is read or written through
/// the layout (run with `--sanitize=address`: an out-of-bounds read would be reported).
@Suite(.serialized) struct LayoutCheckTests {
    private func expectNotArchivable(_ body: () throws -> Void, naming detail: String) {
        let error = #expect(throws: ArchiveError.self) { try body() }
        #expect(error?.code == .notArchivable)
        #expect(error?.reason.contains("disagrees with Mirror") == true, "\(String(describing: error))")
        #expect(error?.reason.contains(detail) == true, "\(String(describing: error))")
        #if os(Linux)
        #expect(error?.reason.contains("(Linux, ") == true, "the error names the platform")
        #endif
    }

    @Test func aClassWhoseOffsetsDisagreeWithMirrorIsNotArchivable() throws {
        LayoutCheck.skewedOffsets.withLock { $0[ObjectIdentifier(SkewedRecord.self)] = 8 }
        expectNotArchivable({ _ = try KeyedArchiver.archivedData(withRootObject: SkewedRecord()) }, naming: "first reads 4369")

        // Decoding never fills an instance through the layout either, and the failure stays.
        let archive = try KeyedArchiver.archivedData(withRootObject: RecordTwin())
        expectNotArchivable({ _ = try KeyedUnarchiver.unarchivedObject(ofType: SkewedRecord.self, from: archive) }, naming: "first")
        expectNotArchivable({ _ = try KeyedArchiver.archivedData(withRootObject: [SkewedRecord()]) }, naming: "first")
    }

    @Test func aStructWhoseOffsetsDisagreeWithMirrorIsNotArchivable() throws {
        LayoutCheck.skewedOffsets.withLock { $0[ObjectIdentifier(SkewedPoint.self)] = 8 }
        // x moves onto y's bytes; y moves past the end of the value.
        expectNotArchivable({ _ = try KeyedArchiver.archivedData(withRootObject: SkewedPoint()) }, naming: "x reads 3.5")
    }

    @Test func aFieldOutsideTheValueIsFoundBeforeAnyByteIsRead() throws {
        LayoutCheck.skewedOffsets.withLock { $0[ObjectIdentifier(SkewedBeforeStart.self)] = -8 }
        expectNotArchivable(
            { _ = try KeyedArchiver.archivedData(withRootObject: SkewedBeforeStart()) }, naming: "outside the value's 0..<16")
    }

    @Test func typesWhoseLayoutAgreesAreCheckedOnceAndArchiveAsBefore() throws {
        let twin = RecordTwin()
        twin.first = 42
        let back = try KeyedUnarchiver.unarchivedObject(
            ofType: RecordTwin.self, from: try KeyedArchiver.archivedData(withRootObject: twin))
        #expect(back.first == 42)
        #expect(back.label == "twin")
    }
}
