import FuzzSupport
import PropertyList

// Reads the input as `bplist00`. Invariants: reading throws only ArchiveError (typed throws);
// a value read with tight limits equals the value read with the defaults; a value read
// re-encodes (unless it holds what bplist00 cannot write: null, sets, UIDs ≥ 2^32), reads
// back equal, and writing it again gives the same bytes.

private let tight: BPlistReader.Options = {
    var options = BPlistReader.Options()
    options.maximumDepth = 8
    options.maximumExpandedSize = 256
    options.maximumObjectCount = 512
    return options
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlistReader(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let buffer = UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: count)
    let value: PlistValue
    do {
        value = try BPlistReader().read(buffer)
    } catch {
        // Tight limits must not turn a failure into a success.
        if let limited = try? BPlistReader(options: tight).read(buffer) {
            fuzzFail("read fails with default limits (\(error)) but succeeds with tight ones: \(limited.kindDescription)")
        }
        return 0
    }
    // Shared sub-trees make a value's tree up to maximumExpandedSize (2^24) nodes; comparing or
    // writing walks all of them. Keep the checks proportionate: skip trees over 2^16 nodes.
    guard let (unencodable, _) = value.needsUnencodableCheck(budget: 1 << 16) else { return 0 }
    if let limited = try? BPlistReader(options: tight).read(buffer), limited != value {
        fuzzFail("tight limits read a different value")
    }
    // Also the Sequence entry point (a non-contiguous copy).
    do {
        let again = try BPlistReader().read(AnySequence(Array(buffer)))
        guard again == value else { fuzzFail("reading a Sequence differs from reading the buffer") }
    } catch {
        fuzzFail("reading a Sequence failed where the buffer read: \(error)")
    }
    let bytes: [UInt8]
    do {
        bytes = try BPlistWriter().write(value)
    } catch {
        guard unencodable, error.code == .unencodable else {
            fuzzFail("a value read could not be written: \(error)")
        }
        return 0
    }
    if unencodable { fuzzFail("the writer wrote a null, set or large UID without complaint") }
    let back: PlistValue
    do {
        back = try BPlistReader().read(bytes)
    } catch {
        fuzzFail("our own output does not read back: \(error)")
    }
    guard back == value else { fuzzFail("read → write → read changed the value") }
    guard back.hashValue == value.hashValue else { fuzzFail("equal values hash differently") }
    let rewritten: [UInt8]
    do {
        rewritten = try BPlistWriter().write(back)
    } catch {
        fuzzFail("re-writing the value read back failed: \(error)")
    }
    guard rewritten == bytes else { fuzzFail("write is not deterministic: \(bytes.count) vs \(rewritten.count) bytes") }
    return 0
}
