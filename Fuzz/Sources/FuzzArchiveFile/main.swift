import Foundation
import FuzzSupport
import KeyedArchive
import PropertyList

#if canImport(Glibc)
import Glibc
#endif

// Opens the input as an ArchiveFile, decodes its keys, sets a key and writes the file again
// (which copies the other keys' objects out of the hostile input). Invariants: only
// ArchiveError is thrown; a rewritten file opens, has the new key, and every kept key that
// decoded as `Any` from the input decodes from the rewrite to the same re-archived bytes.

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    Seeds.writeIfAsked()
    return 0
}

private let scratch: URL = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    return URL(fileURLWithPath: base).appendingPathComponent("fuzz-archivefile-\(getpid()).archive")
}()

private func anyBytes(_ file: ArchiveFile, _ key: String) -> Data? {
    do {
        let value = try file.decode(Any.self, forKey: key)
        defer { Zoo.unlink(value) }
        do {
            return try Zoo.archive(value, as: Any.self)
        } catch {
            fuzzFail("ArchiveFile[\(key)] decoded as Any but does not re-archive: \(error)")
        }
    } catch {
        expectArchiveError(error, "ArchiveFile.decode(Any) [\(key)]")
        return nil
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
        file = try ArchiveFile(contentsOf: scratch)
    } catch {
        expectArchiveError(error, "ArchiveFile(contentsOf:)")
        return 0
    }
    let keys = Array(file.keys.prefix(4))
    var before: [String: Data] = [:]
    for key in keys {
        before[key] = anyBytes(file, key)
        do {
            let root = try file.decode(FuzzRoot.self, forKey: key)
            Zoo.unlink(root)
        } catch {
            expectArchiveError(error, "ArchiveFile.decode(FuzzRoot) [\(key)]")
        }
    }
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
        reread = try ArchiveFile(contentsOf: scratch)
    } catch {
        fuzzFail("a rewritten ArchiveFile does not open: \(error)")
    }
    guard reread.keys.contains("fuzz.added") else { fuzzFail("the rewritten file lost the key it was given") }
    do {
        let added = try reread.decode(FuzzAddress.self, forKey: "fuzz.added")
        guard added == FuzzAddress(street: "added", zip: 1) else { fuzzFail("the added key reads back different") }
    } catch {
        fuzzFail("the added key does not decode: \(error)")
    }
    for key in keys where key != "fuzz.added" {
        guard let original = before[key] else { continue }
        guard let copied = anyBytes(reread, key) else {
            fuzzFail("key \(key) decoded as Any from the input but not from the rewritten file")
        }
        guard copied == original else { fuzzFail("key \(key) decodes differently after the file was rewritten") }
    }
    return 0
}
