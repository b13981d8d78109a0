import Foundation
import PropertyList

/// `Codable` types (placeholder until the Encoder/Decoder bridge lands).
final class CodableCoder<T>: TypedCoder<T>, @unchecked Sendable {
    override func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        throw ArchiveError(.notArchivable, reason: "Codable bridge pending")
    }
    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T {
        throw ArchiveError(.notArchivable, reason: "Codable bridge pending")
    }
}
