import Foundation
import PropertyList
import Testing

/// Writes `value`, compares the bytes with `expectedBytes` when given, reads them back and
/// expects the same value; returns the written bytes (empty if writing failed).
///
/// ```swift
/// expectRoundTrip(.int(255), expectedBytes: bytes("62 70 6C 69 73 74 30 30 10 FF ..."))
/// ```
@discardableResult
public func expectRoundTrip(
    _ value: PlistValue, expectedBytes: [UInt8]? = nil, reader: BPlistReader = BPlistReader(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> [UInt8] {
    let written: [UInt8]
    do {
        written = try BPlistWriter().write(value)
    } catch {
        Issue.record("writing \(value.plistJSON) failed: \(error)", sourceLocation: sourceLocation)
        return []
    }
    if let expectedBytes {
        expectBytes(written, equal: expectedBytes, sourceLocation: sourceLocation)
    }
    do {
        let back = try reader.read(written)
        #expect(back == value, "read back \(back.plistJSON), wrote \(value.plistJSON)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("reading back \(value.plistJSON) failed: \(error)\nbytes: \(hex(written))", sourceLocation: sourceLocation)
    }
    return written
}

/// Expects two byte strings to be equal; on failure names the first differing offset and shows both.
public func expectBytes(
    _ actual: [UInt8], equal expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
) {
    guard actual != expected else { return }
    let first = (0..<min(actual.count, expected.count)).first { actual[$0] != expected[$0] } ?? min(actual.count, expected.count)
    let window = max(0, first - 8)..<(first + 24)
    Issue.record(
        """
        bytes differ at offset \(first) (actual \(actual.count) bytes, expected \(expected.count))
          actual   [\(window.lowerBound)...]: \(hex(actual[window.clamped(to: 0..<actual.count)]))
          expected [\(window.lowerBound)...]: \(hex(expected[window.clamped(to: 0..<expected.count)]))
        """, sourceLocation: sourceLocation)
}

/// Compares `bytes` with a golden file exactly; with `RECORD_FIXTURES=1` (re)writes the file instead.
public func expectGoldenFile(
    _ bytes: [UInt8], at url: URL, sourceLocation: SourceLocation = #_sourceLocation
) {
    if Fixtures.isRecording {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url, options: .atomic)
        } catch {
            Issue.record("could not record \(url.path): \(error)", sourceLocation: sourceLocation)
        }
        return
    }
    guard let golden = try? Fixtures.bytes(at: url) else {
        Issue.record("missing golden file \(url.path); run with RECORD_FIXTURES=1 to create it", sourceLocation: sourceLocation)
        return
    }
    expectBytes(bytes, equal: golden, sourceLocation: sourceLocation)
}

/// Compares text with a golden file exactly; with `RECORD_FIXTURES=1` (re)writes it (with a final newline).
public func expectGoldenFile(
    text: String, at url: URL, sourceLocation: SourceLocation = #_sourceLocation
) {
    let content = text.hasSuffix("\n") ? text : text + "\n"
    if Fixtures.isRecording {
        expectGoldenFile(Array(content.utf8), at: url, sourceLocation: sourceLocation)
        return
    }
    guard let golden = try? Fixtures.text(at: url) else {
        Issue.record("missing golden file \(url.path); run with RECORD_FIXTURES=1 to create it", sourceLocation: sourceLocation)
        return
    }
    #expect(golden == content, "golden text differs: \(url.lastPathComponent)", sourceLocation: sourceLocation)
}

/// The error reading `bytes` throws, or `nil` (with a recorded issue) when it reads.
public func readError(
    _ bytes: [UInt8], options: BPlistReader.Options = .init(), sourceLocation: SourceLocation = #_sourceLocation
) -> ArchiveError? {
    do {
        let value = try BPlistReader(options: options).read(bytes)
        Issue.record("expected an error, read \(value.plistJSON.prefix(200))", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// The error reading `bytes` throws, read on a thread with a 64 MiB stack: for inputs nested as
/// deep as the default limit allows, whose stack use depends on the build (sanitizers make frames
/// several times larger) and which the reader's stack guard would otherwise stop early.
public func readErrorOnDeepStack(
    _ bytes: [UInt8], options: BPlistReader.Options = .init(), sourceLocation: SourceLocation = #_sourceLocation
) -> ArchiveError? {
    let outcome = try? onThread(stackSize: deepStack) { () -> Result<PlistValue, ArchiveError> in
        Result { () throws(ArchiveError) in try BPlistReader(options: options).read(bytes) }
    }
    switch outcome {
    case .failure(let error): return error
    case .success(let value):
        Issue.record("expected an error, read \(value.plistJSON.prefix(200))", sourceLocation: sourceLocation)
        return nil
    case nil:
        Issue.record("the reading thread failed", sourceLocation: sourceLocation)
        return nil
    }
}

/// Expects reading `bytes` to fail with `code` at `byteOffset`.
///
/// `objectIndex`: omit it to leave the index unchecked, pass an index to expect that index,
/// or `.some(nil)` to expect no index (trailer and header errors name no object).
public func expectReadError(
    _ bytes: [UInt8], _ code: ArchiveError.Code, at byteOffset: Int, objectIndex: Int?? = nil,
    options: BPlistReader.Options = .init(), sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error = readError(bytes, options: options, sourceLocation: sourceLocation) else { return }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.byteOffset == byteOffset, "\(error)", sourceLocation: sourceLocation)
    if let objectIndex {
        #expect(error.objectIndex == objectIndex, "\(error)", sourceLocation: sourceLocation)
    }
}
