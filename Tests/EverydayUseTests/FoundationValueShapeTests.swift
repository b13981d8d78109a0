import Foundation
import KeyedArchive
import PropertyList
import Testing

// Finding 7: Foundation values and shapes. A `Float` inside `Any` came back as a `Double`;
// `Decimal` could not be archived at all; a tuple field's error told the user to conform the
// tuple to Archivable, which Swift does not allow.

/// The root object's dictionary and its class dictionary, read from the raw archive.
private func rootObject(of data: Data) throws -> (object: PlistDictionary, classInfo: PlistDictionary, objects: [PlistValue]) {
    guard case .dict(let top) = try BPlistReader().read(data),
        case .array(let objects)? = top["$objects"],
        case .dict(let roots)? = top["$top"],
        case .uid(let rootUID)? = roots["root"],
        Int(rootUID) < objects.count,
        case .dict(let object) = objects[Int(rootUID)],
        case .uid(let classUID)? = object["$class"],
        Int(classUID) < objects.count,
        case .dict(let classInfo) = objects[Int(classUID)]
    else {
        throw ArchiveError(.invalidArchive, reason: "not a keyed archive with a root object and its class")
    }
    return (object, classInfo, objects)
}

/// `value`, or the object it points at if it is a UID (Foundation's unarchiver on Linux reads
/// NS.mantissa with `decodeObject(forKey:)`, which needs a UID to a data object).
private func resolved(_ value: PlistValue?, in objects: [PlistValue]) -> PlistValue? {
    guard case .uid(let uid)? = value else { return value }
    return Int(uid) < objects.count ? objects[Int(uid)] : nil
}

@Suite("Float through Any")
struct FloatThroughAnyTests {
    @Test("a Float archived as Any comes back as a Float, not a Double")
    func floatThroughAnyStaysFloat() throws {
        let value: Any = Float(1.1)
        let back = try KeyedUnarchiver.unarchivedObject(
            ofType: Any.self, from: try KeyedArchiver.archivedData(withRootObject: value))
        #expect(type(of: back) == Float.self)
        #expect(back as? Float == Float(1.1))
    }

    @Test("Floats inside [Any] and [String: Any] come back as Floats beside Doubles")
    func floatsInsideCollectionsStayFloat() throws {
        let list: [Any] = [Float(0.1), 0.1, Float(-3)]
        let backList = try KeyedUnarchiver.unarchivedObject(
            ofType: [Any].self, from: try KeyedArchiver.archivedData(withRootObject: list))
        #expect(backList.map { String(reflecting: type(of: $0)) } == ["Swift.Float", "Swift.Double", "Swift.Float"])
        #expect(backList[0] as? Float == Float(0.1))
        #expect(backList[1] as? Double == 0.1)
        #expect(backList[2] as? Float == -3)

        let dict: [String: Any] = ["f": Float(2.5), "d": 2.5]
        let backDict = try KeyedUnarchiver.unarchivedObject(
            ofType: [String: Any].self, from: try KeyedArchiver.archivedData(withRootObject: dict))
        #expect(type(of: backDict["f"]!) == Float.self)
        #expect(backDict["f"] as? Float == 2.5)
        #expect(type(of: backDict["d"]!) == Double.self)
        #expect(backDict["d"] as? Double == 2.5)
    }
}

/// A Decimal to round-trip, named for the test report.
struct DecimalCase: CustomTestStringConvertible, Sendable {
    let label: String
    let value: Decimal
    var testDescription: String { label }
}

private let decimalCases: [DecimalCase] = [
    DecimalCase(label: "0", value: 0),
    DecimalCase(label: "1", value: 1),
    DecimalCase(label: "-1", value: -1),
    DecimalCase(label: "12.345", value: Decimal(string: "12.345")!),
    DecimalCase(label: "-0.001", value: Decimal(string: "-0.001")!),
    DecimalCase(label: "greatestFiniteMagnitude", value: .greatestFiniteMagnitude),
    DecimalCase(label: "-greatestFiniteMagnitude", value: -Decimal.greatestFiniteMagnitude),
    DecimalCase(label: "leastNonzeroMagnitude", value: .leastNonzeroMagnitude),
    DecimalCase(label: "10^30", value: pow(Decimal(10), 30)),
    DecimalCase(label: "2^128 - 1", value: Decimal(string: "340282366920938463463374607431768211455")!),
    DecimalCase(label: "NaN", value: .nan),
]

/// Whether two decimals are the same value: equal, or both NaN, with the same sign.
private func same(_ a: Decimal, _ b: Decimal) -> Bool {
    if a.isNaN || b.isNaN { return a.isNaN && b.isNaN }
    return a == b && a.sign == b.sign && a.description == b.description
}

private struct Invoice: Archivable {
    var total: Decimal = 0
    var lines: [Decimal] = []
}

@Suite("Decimal archives in NSDecimalNumber's layout")
struct DecimalArchiveTests {
    @Test("a Decimal is an NSDecimalNumber object with exponent, length, sign, compact flag and a 16-byte mantissa")
    func decimalIsWrittenInNSDecimalNumberLayout() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Decimal(string: "-12.345")!)
        let (object, classInfo, objects) = try rootObject(of: data)
        #expect(classInfo["$classname"] == .string("NSDecimalNumber"))
        #expect(classInfo["$classes"] == .array(["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"]))
        #expect(
            Set(object.keys) == ["$class", "NS.exponent", "NS.length", "NS.negative", "NS.compact", "NS.mantissa.bo", "NS.mantissa"])
        #expect(object["NS.exponent"] == .int(-3))
        #expect(object["NS.length"] == .int(1))
        #expect(object["NS.negative"] == .bool(true))
        #expect(object["NS.compact"] == .bool(true))
        #expect(object["NS.mantissa.bo"] == .int(1))
        // 12345 = 0x3039, least significant byte first, padded to 16 bytes.
        #expect(resolved(object["NS.mantissa"], in: objects) == .data([0x39, 0x30] + [UInt8](repeating: 0, count: 14)))
    }

    @Test("a 128-bit mantissa fills all eight words of NS.mantissa")
    func fullMantissaUsesEightWords() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Decimal.greatestFiniteMagnitude)
        let (object, _, objects) = try rootObject(of: data)
        #expect(object["NS.exponent"] == .int(127))
        #expect(object["NS.length"] == .int(8))
        #expect(object["NS.negative"] == .bool(false))
        #expect(resolved(object["NS.mantissa"], in: objects) == .data([UInt8](repeating: 0xFF, count: 16)))
    }

    @Test("a Decimal round-trips exactly as a Decimal, archived as an NSDecimalNumber", arguments: decimalCases)
    func decimalRoundTripsTyped(_ test: DecimalCase) throws {
        let data = try KeyedArchiver.archivedData(withRootObject: test.value)
        #expect(try rootObject(of: data).classInfo["$classname"] == .string("NSDecimalNumber"))
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Decimal.self, from: data)
        #expect(same(back, test.value), "\(back) != \(test.value)")
        #expect(back.isNaN == test.value.isNaN)
    }

    @Test("a Decimal round-trips exactly through Any", arguments: decimalCases)
    func decimalRoundTripsThroughAny(_ test: DecimalCase) throws {
        let value: Any = test.value
        let back = try KeyedUnarchiver.unarchivedObject(
            ofType: Any.self, from: try KeyedArchiver.archivedData(withRootObject: value))
        let decimal = try #require(back as? Decimal, "came back as \(type(of: back))")
        #expect(type(of: back) == Decimal.self)
        #expect(same(decimal, test.value), "\(decimal) != \(test.value)")
    }

    @Test("Decimals round-trip exactly inside [String: Any] and as fields")
    func decimalsRoundTripInDictionaryAndFields() throws {
        let dict = Dictionary(uniqueKeysWithValues: decimalCases.map { ($0.label, $0.value as Any) })
        let back = try KeyedUnarchiver.unarchivedObject(
            ofType: [String: Any].self, from: try KeyedArchiver.archivedData(withRootObject: dict))
        #expect(back.count == decimalCases.count)
        for test in decimalCases {
            let decimal = back[test.label] as? Decimal
            #expect(decimal.map { same($0, test.value) } == true, "\(test.label): \(String(describing: back[test.label]))")
        }

        let invoice = Invoice(total: Decimal(string: "1234.56")!, lines: decimalCases.map(\.value))
        let decoded = try KeyedUnarchiver.unarchivedObject(
            ofType: Invoice.self, from: try KeyedArchiver.archivedData(withRootObject: invoice))
        #expect(decoded.total == Decimal(string: "1234.56")!)
        #expect(decoded.lines.count == invoice.lines.count)
        #expect(zip(decoded.lines, invoice.lines).allSatisfy(same))
    }

    @Test("Foundation's NSKeyedUnarchiver reads our Decimal archive as an NSDecimalNumber with equal value")
    func foundationReadsDecimalAsDecimalNumber() throws {
        for test in decimalCases where !test.value.isNaN {
            let data = try KeyedArchiver.archivedData(withRootObject: test.value)
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
            unarchiver.requiresSecureCoding = false
            unarchiver.decodingFailurePolicy = .setErrorAndReturn
            let read = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
            #expect(unarchiver.error == nil, "\(test.label): \(String(describing: unarchiver.error))")
            let number = try #require(read as? NSDecimalNumber, "\(test.label): read \(String(describing: read))")
            // The exponent and sign come from NS.exponent and NS.negative, which Foundation reads as written.
            #expect(number.decimalValue.exponent == test.value.exponent, "\(test.label)")
            #expect(number.decimalValue.isSignMinus == test.value.isSignMinus, "\(test.label)")
            #if os(Linux)
            // swift-corelibs-foundation's `NSDecimalNumber.init?(coder:)` builds each mantissa
            // word as `UInt16(data[2i]) << 8 & UInt16(data[2i + 1])`: an `&` where an `|` belongs
            // (and the bytes taken big-endian, ignoring NS.mantissa.bo), so every mantissa word
            // it reads is 0 and a nonzero Decimal comes back as 0 × 10^exponent. Only the
            // value 0 survives.
            withKnownIssue("Foundation on Linux reads every NSDecimalNumber mantissa as 0", isIntermittent: test.value.isZero) {
                #expect(same(number.decimalValue, test.value), "\(test.label): Foundation read \(number.decimalValue)")
            }
            #else
            #expect(same(number.decimalValue, test.value), "\(test.label): Foundation read \(number.decimalValue)")
            #endif
        }
    }
}

@Suite("A tuple field's error names a fix that works")
struct TupleFieldMessageTests {
    struct Marker: Archivable {
        var name = ""
        var point: (Int, Int) = (0, 0)
    }

    @Test("archiving a tuple field says to use a struct or transientFields, not to conform it to Archivable")
    func tupleFieldErrorNamesWorkingFix() {
        let error = #expect(throws: ArchiveError.self) {
            _ = try KeyedArchiver.archivedData(withRootObject: Marker(name: "pin", point: (3, 4)))
        }
        guard let error else { return }
        #expect(error.code == .notArchivable)
        #expect(error.keyPath == "root.point")
        #expect(!error.reason.contains("conform it to Archivable"), "\(error.reason)")
        #expect(error.reason.contains("struct"), "\(error.reason)")
        #expect(error.reason.contains("transientFields"), "\(error.reason)")
        #expect(error.reason.contains("(Swift.Int, Swift.Int)"), "the reason names the tuple type: \(error.reason)")
    }
}
