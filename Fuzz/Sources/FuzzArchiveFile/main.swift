import Foundation
import FuzzSupport
import KeyedArchive
import PropertyList

#if canImport(Glibc)
import Glibc
#endif

// Opens the input as an ArchiveFile, decodes its keys, sets a key and writes the file again
// (which copies the other keys' objects out of the hostile input). Invariants: only
// ArchiveError is thrown; what decodes as `Any` re-archives; a rewritten file opens, is in the
// input's format, has every key it had plus the new one (in the order set for a binary file,
// sorted for an XML one, as ArchiveFile documents), and every kept key reads back as it read
// from the input: the same value (compared by its DecodedValueDescription) or an error of the
// same code, and as FuzzRoot the same re-archived bytes.

/// How many of the input's keys are decoded and compared (each one costs a few decodes).
private let keyLimit = 64

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    Seeds.writeIfAsked()
    return 0
}

private let scratch: URL = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    return URL(fileURLWithPath: base).appendingPathComponent("fuzz-archivefile-\(getpid()).archive")
}()

/// What decoding a key as `Any` gave.
private enum AnyOutcome: Equatable {
    case value(String)
    case error(ArchiveError.Code)
    /// Decoded, but holding more values than a description is made for.
    case tooLarge
}

private func decodeAny(_ file: ArchiveFile, _ key: String) -> AnyOutcome {
    let value: Any
    do {
        value = try file.decode(Any.self, forKey: key)
    } catch let error as ArchiveError {
        return .error(error.code)
    } catch {
        fuzzFail("ArchiveFile.decode(Any) [\(key)] threw \(type(of: error)), not ArchiveError: \(error)")
    }
    defer { Zoo.unlink(value) }
    do {
        _ = try Zoo.archive(value, as: Any.self)
    } catch {
        fuzzFail("ArchiveFile[\(key)] decoded as Any but does not re-archive: \(error)")
    }
    return DecodedValueDescription.of(value).map(AnyOutcome.value) ?? .tooLarge
}

/// The key decoded as FuzzRoot and archived again, or nil if it does not decode.
private func rootBytes(_ file: ArchiveFile, _ key: String) -> Data? {
    let root: FuzzRoot
    do {
        root = try file.decode(FuzzRoot.self, forKey: key)
    } catch {
        expectArchiveError(error, "ArchiveFile.decode(FuzzRoot) [\(key)]")
        return nil
    }
    defer { Zoo.unlink(root) }
    do {
        return try Zoo.archive(root)
    } catch {
        fuzzFail("ArchiveFile[\(key)] decoded as FuzzRoot but does not re-archive: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchiveFile(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = fuzzData(start, count)
    do {
        try data.write(to: scratch)
    } catch {
        fuzzFail("cannot write the scratch file: \(error)")
    }
    let file: ArchiveFile
    do {
        file = try ArchiveFile(contentsOf: scratch, options: Zoo.options)
    } catch {
        expectArchiveError(error, "ArchiveFile(contentsOf:)")
        return 0
    }
    let keys = Array(file.keys.prefix(keyLimit))
    // All `Any` decodes first, then the FuzzRoot ones, in the same order after the rewrite: a
    // FuzzRoot decode registers class instances that a later decode of the same file may reuse.
    let anyBefore = keys.map { decodeAny(file, $0) }
    let rootsBefore = keys.map { rootBytes(file, $0) }
    // Replace nothing, add one key: the kept keys are transplanted from the input.
    var edited = file
    do {
        try edited.set(FuzzAddress(street: "added", zip: 1), forKey: "fuzz.added")
    } catch {
        fuzzFail("setting a plain struct failed: \(error)")
    }
    let rewritten: Data
    do {
        rewritten = try edited.encoded()
    } catch {
        expectArchiveError(error, "ArchiveFile.encoded()")
        return 0
    }
    let reread: ArchiveFile
    do {
        try rewritten.write(to: scratch)
        reread = try ArchiveFile(contentsOf: scratch, options: Zoo.options)
    } catch {
        fuzzFail("a rewritten ArchiveFile does not open: \(error)")
    }
    // ArchiveFile's promises on keys and format: `keys` are those read, then a new key set; the
    // file is written in the format it was read in; read back, a binary file's keys are in that
    // order, an XML file's sorted by UTF-16 code units (Apple's writer sorts every dictionary).
    let expectedKeys = file.keys.contains("fuzz.added") ? file.keys : file.keys + ["fuzz.added"]
    guard edited.keys == expectedKeys else {
        fuzzFail("after setting a key the file has the keys \(edited.keys), expected \(expectedKeys)")
    }
    guard PlistFormat(of: rewritten) == file.format, reread.format == file.format else {
        fuzzFail("a file read as \(file.format) was written as \(PlistFormat(of: rewritten).map(String.init(describing:)) ?? "neither format")")
    }
    let expectedOrder = file.format == .xml ? expectedKeys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) } : expectedKeys
    guard reread.keys == expectedOrder else {
        fuzzFail("the rewritten \(file.format) file has the keys \(reread.keys), expected \(expectedOrder)")
    }
    do {
        let added = try reread.decode(FuzzAddress.self, forKey: "fuzz.added")
        guard added == FuzzAddress(street: "added", zip: 1) else { fuzzFail("the added key reads back different") }
    } catch {
        fuzzFail("the added key does not decode: \(error)")
    }
    let anyAfter = keys.map { $0 == "fuzz.added" ? .tooLarge : decodeAny(reread, $0) }
    for (index, key) in keys.enumerated() where key != "fuzz.added" && anyBefore[index] != .tooLarge {
        guard anyAfter[index] == anyBefore[index] else {
            fuzzFail("key \(key) decodes differently as Any after the file was rewritten: \(anyBefore[index]) → \(anyAfter[index])")
        }
    }
    for (index, key) in keys.enumerated() where key != "fuzz.added" {
        let after = rootBytes(reread, key)
        guard let before = rootsBefore[index] else { continue }
        guard after == before else {
            fuzzFail("key \(key) decodes differently as FuzzRoot after the file was rewritten")
        }
    }
    return 0
}
