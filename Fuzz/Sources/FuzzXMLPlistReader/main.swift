import FuzzSupport
import PropertyList

// Reads the input as an XML property list. Invariants: reading throws only ArchiveError (typed
// throws), and every error has a line, a column and a byte offset inside the input; reading a
// Sequence gives what reading the buffer gives; tight limits never turn a failure into a success,
// and what they read equals what the defaults read; PlistReader finds the format and reads the
// same value. A value read:
// - writes as XML (it holds nothing XML cannot: no null, no set, UIDs below 2^32, whole-second
//   dates in the years 1 to 9999), reads back equal, and writes again to the same bytes;
// - writes as bplist00, reads back equal, and the value read back writes the same XML bytes.

private let tight: XMLPlistReader.Options = {
    var options = XMLPlistReader.Options()
    options.maximumDepth = 8
    options.maximumValueCount = 512
    options.maximumStringLength = 256
    options.maximumDataLength = 256
    return options
}()

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    Seeds.writeXMLIfAsked()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMLPlistReader(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let buffer = UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: count)
    let value: PlistValue
    do {
        value = try XMLPlistReader().read(buffer)
    } catch {
        checkPlace(of: error, count: count)
        checkFailureAgrees(error, buffer)
        return 0
    }
    checkReadsAgree(value, buffer)

    // XML round trip.
    let xml: [UInt8]
    do {
        xml = try XMLPlistWriter().write(value)
    } catch {
        guard error.code == .depthLimit else { fuzzFail("a value the XML reader read could not be written as XML: \(error)") }
        return 0
    }
    let back: PlistValue
    do {
        back = try XMLPlistReader().read(xml)
    } catch {
        fuzzFail("our own XML does not read back: \(error)")
    }
    guard back == value else { fuzzFail("XML read → write → read changed the value") }
    guard back.hashValue == value.hashValue else { fuzzFail("equal values hash differently") }
    let rewritten: [UInt8]
    do {
        rewritten = try XMLPlistWriter().write(back)
    } catch {
        fuzzFail("re-writing the XML value read back failed: \(error)")
    }
    guard rewritten == xml else { fuzzFail("XML write is not deterministic: \(xml.count) vs \(rewritten.count) bytes") }

    // Through bplist00 and back to XML.
    let binary: [UInt8]
    do {
        binary = try BPlistWriter().write(value)
    } catch {
        guard error.code == .depthLimit else { fuzzFail("a value the XML reader read could not be written as bplist00: \(error)") }
        return 0
    }
    let fromBinary: PlistValue
    do {
        fromBinary = try BPlistReader().read(binary)
    } catch {
        fuzzFail("the bplist00 of a value read from XML does not read back: \(error)")
    }
    guard fromBinary == value else { fuzzFail("XML → bplist00 → read changed the value") }
    let xmlFromBinary: [UInt8]
    do {
        xmlFromBinary = try XMLPlistWriter().write(fromBinary)
    } catch {
        fuzzFail("the value read back from bplist00 could not be written as XML: \(error)")
    }
    guard xmlFromBinary == xml else {
        fuzzFail("the value read back from bplist00 writes other XML: \(xml.count) vs \(xmlFromBinary.count) bytes")
    }
    return 0
}

/// Every XML error names its line, column and byte offset, inside the input.
private func checkPlace(of error: ArchiveError, count: Int) {
    guard let line = error.line, let column = error.column, let offset = error.byteOffset else {
        fuzzFail("an XML error has no line, column or byte offset: \(error)")
    }
    guard line >= 1, column >= 1, offset >= 0, offset <= count else {
        fuzzFail("an XML error points outside the input (line \(line), column \(column), offset \(offset) of \(count)): \(error)")
    }
}

/// A failure is a failure through every entry point: the Sequence one, tight limits, and
/// PlistReader when it takes the input for XML (it reads input starting with "bplist" as binary).
private func checkFailureAgrees(_ error: ArchiveError, _ buffer: UnsafeRawBufferPointer) {
    do {
        let again = try XMLPlistReader().read(AnySequence(Array(buffer)))
        fuzzFail("reading a Sequence succeeded (\(again.kindDescription)) where the buffer failed: \(error)")
    } catch let other {
        guard other.code == error.code else { fuzzFail("reading a Sequence fails with \(other.code), the buffer with \(error.code)") }
    }
    if let limited = try? XMLPlistReader(options: tight).read(buffer) {
        fuzzFail("read fails with default limits (\(error)) but succeeds with tight ones: \(limited.kindDescription)")
    }
    guard PlistFormat(of: buffer) != .binary else { return }
    do {
        let detected = try PlistReader().read(buffer)
        fuzzFail("PlistReader read \(detected.kindDescription) where XMLPlistReader failed: \(error)")
    } catch let other {
        // Input that does not start with "<" is neither format to PlistReader; the XML reader may say more.
        if PlistFormat(of: buffer) == .xml, other.code != error.code {
            fuzzFail("PlistReader fails with \(other.code), XMLPlistReader with \(error.code)")
        }
    }
}

/// What the buffer reads as, every other entry point reads as too.
private func checkReadsAgree(_ value: PlistValue, _ buffer: UnsafeRawBufferPointer) {
    do {
        let again = try XMLPlistReader().read(AnySequence(Array(buffer)))
        guard again == value else { fuzzFail("reading a Sequence differs from reading the buffer") }
    } catch {
        fuzzFail("reading a Sequence failed where the buffer read: \(error)")
    }
    if let limited = try? XMLPlistReader(options: tight).read(buffer), limited != value {
        fuzzFail("tight limits read a different value")
    }
    guard PlistFormat(of: buffer) == .xml else { fuzzFail("PlistFormat does not take a readable XML property list for XML") }
    do {
        let (detected, format) = try PlistReader().readWithFormat(buffer)
        guard format == .xml else { fuzzFail("PlistReader read an XML property list as \(format)") }
        guard detected == value else { fuzzFail("PlistReader reads another value than XMLPlistReader") }
    } catch {
        fuzzFail("PlistReader failed where XMLPlistReader read: \(error)")
    }
}
