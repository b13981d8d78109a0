import Foundation
import KeyedArchive
import Testing

/// An element type with an archive name, so a collection of it has names to report.
private struct Tagged: Archivable, Hashable {
    var label = ""
    static var archiveClassName: String? { "Specialised.Tagged" }
}

/// `[String]`, `[Int]`, `[Double]`, `[String: String]`, `[String: Int]` and `[String: Double]` have
/// coders compiled for their types; everything but the compiled code comes from the generic
/// collection coders, so they describe themselves as any array or dictionary does and write the
/// same bytes.
@Suite struct SpecialisedCoderTests {
    @Test func specialisedCollectionsReportTheirKindAsTheGenericOnesDo() {
        #expect(KeyedArchiver.archivedNames(of: [Tagged].self).collection == .list)
        for type in [[String].self, [Int].self, [Double].self] as [Any.Type] {
            #expect(KeyedArchiver.archivedNames(of: type).collection == .list, "\(type)")
            #expect(KeyedArchiver.archivedNames(of: type).names.isEmpty, "\(type)")
        }
        #expect(KeyedArchiver.archivedNames(of: [String: Tagged].self).collection == .dictionary)
        for type in [[String: String].self, [String: Int].self, [String: Double].self] as [Any.Type] {
            #expect(KeyedArchiver.archivedNames(of: type).collection == .dictionary, "\(type)")
        }
    }

    @Test func specialisedAndGenericCollectionsWriteTheSameBytes() throws {
        // A generic element type with the same archived form: an Optional of a never-nil value.
        #expect(
            try KeyedArchiver.archivedData(withRootObject: ["a", "b"])
                == KeyedArchiver.archivedData(withRootObject: ["a", "b"] as [String?]))
        #expect(
            try KeyedArchiver.archivedData(withRootObject: [1, 2])
                == KeyedArchiver.archivedData(withRootObject: [1, 2] as [Int?]))
        #expect(
            try KeyedArchiver.archivedData(withRootObject: ["k": 1.5])
                == KeyedArchiver.archivedData(withRootObject: ["k": 1.5] as [String: Double?]))
    }
}
