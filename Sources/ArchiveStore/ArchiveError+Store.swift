import Foundation
import KeyedArchive
import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ArchiveError.Code {
    /// A store name cannot be used as a directory name (empty, `.`, `..`, or containing `/` or NUL).
    public static let invalidName = Self("invalidName")
}

extension ArchiveError {
    /// A stored file that is not a keyed archive written by a store, or that holds another key.
    @inline(never)
    static func foreignFile(path: String, _ what: String) -> ArchiveError {
        ArchiveError(
            .invalidArchive,
            reason: "\(path) \(what); the file was left in place: remove(forKey:) deletes it and save replaces it")
    }

    /// `error`, raised while reading the stored file at `path`, with the path and the file's fate in its reason.
    @inline(never)
    static func unreadableFile(path: String, _ error: ArchiveError) -> ArchiveError {
        ArchiveError(
            error.code,
            reason:
                "\(path): \(error.reason) (the file was left in place: remove(forKey:) deletes it and save replaces it)",
            byteOffset: error.byteOffset, objectIndex: error.objectIndex, keyPath: error.keyPath)
    }
}
