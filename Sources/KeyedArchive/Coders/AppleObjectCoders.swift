import Foundation
@_spi(Reader) import PropertyList

// Measurements, counted sets, attributed strings and notifications in the layouts Apple's
// NSKeyedArchiver writes them in (see AppleValueCoders.swift for the simpler value classes).

package extension ArchiveFormat {
    static let measurementClass = "NSMeasurement"
    static let unitClass = "NSUnit"
    static let dimensionClass = "NSDimension"
    static let linearConverterClass = "NSUnitConverterLinear"
    static let reciprocalConverterClass = "NSUnitConverterReciprocal"
    static let converterClass = "NSUnitConverter"
    static let attributedStringClass = "NSAttributedString"
    static let mutableAttributedStringClass = "NSMutableAttributedString"
    static let attributedStringClasses: Set<String> = [attributedStringClass, mutableAttributedStringClass]
    static let notificationClass = "NSNotification"

    static let measurementValueField = "NS.value"
    static let measurementUnitField = "NS.unit"
    static let unitSymbolField = "NS.symbol"
    static let unitConverterField = "NS.converter"
    static let coefficientField = "NS.coefficient"
    static let constantField = "NS.constant"
    static let reciprocalField = "NS.reciprocal"
    static let countField = "NS.count"
    static let countedObjectPrefix = "NS.object"
    static let countedCountPrefix = "NS.count"
    static let attributedStringField = "NSString"
    static let attributesField = "NSAttributes"
    static let attributeRunsField = "NSAttributeInfo"
    static let notificationObjectField = "NS.object"
    static let notificationUserInfoField = "NS.userinfo"

    /// The Foundation classes decoded as values through `Any` by ``UnarchiverCore/decodeAppleValue(named:_:)``.
    static let appleValueClasses: Set<String> = indexSetClasses.union(attributedStringClasses).union([
        indexPathClass, localeClass, timeZoneClass, calendarClass, valueClass, measurementClass, countedSetClass, notificationClass,
    ])
}

extension UnarchiverCore {
    /// Decodes an object of one of ``ArchiveFormat/appleValueClasses`` as the Swift value it stands
    /// for; nil if `name` is none of them.
    func decodeAppleValue(named name: String, _ reference: Int) throws -> Any? {
        switch name {
        case _ where ArchiveFormat.indexSetClasses.contains(name): try IndexSetCoder().decode(reference, self)
        case ArchiveFormat.indexPathClass: try IndexPathCoder().decode(reference, self)
        case ArchiveFormat.localeClass: try LocaleCoder().decode(reference, self)
        case ArchiveFormat.timeZoneClass: try TimeZoneCoder().decode(reference, self)
        case ArchiveFormat.calendarClass: try CalendarCoder().decode(reference, self)
        case ArchiveFormat.valueClass: try decodeSpecialValue(reference)
        case ArchiveFormat.measurementClass: try decodeMeasurement(reference)
        case ArchiveFormat.countedSetClass: try CountedSetCoder<NSCountedSet>().decode(reference, self)
        case ArchiveFormat.notificationClass: try NotificationCoder().decode(reference, self)
        case _ where ArchiveFormat.attributedStringClasses.contains(name): try archivedAttributedString(reference).0
        default: nil
        }
    }
}

// MARK: Measurement

/// Foundation's unit classes by their archived names (`NSUnitLength`, …).
enum FoundationUnits {
    static let dimensions: [(name: String, type: Dimension.Type)] = [
        ("NSUnitAcceleration", UnitAcceleration.self), ("NSUnitAngle", UnitAngle.self), ("NSUnitArea", UnitArea.self),
        ("NSUnitConcentrationMass", UnitConcentrationMass.self), ("NSUnitDispersion", UnitDispersion.self),
        ("NSUnitDuration", UnitDuration.self), ("NSUnitElectricCharge", UnitElectricCharge.self),
        ("NSUnitElectricCurrent", UnitElectricCurrent.self),
        ("NSUnitElectricPotentialDifference", UnitElectricPotentialDifference.self),
        ("NSUnitElectricResistance", UnitElectricResistance.self), ("NSUnitEnergy", UnitEnergy.self),
        ("NSUnitFrequency", UnitFrequency.self), ("NSUnitFuelEfficiency", UnitFuelEfficiency.self),
        ("NSUnitIlluminance", UnitIlluminance.self), ("NSUnitInformationStorage", UnitInformationStorage.self),
        ("NSUnitLength", UnitLength.self), ("NSUnitMass", UnitMass.self), ("NSUnitPower", UnitPower.self),
        ("NSUnitPressure", UnitPressure.self), ("NSUnitSpeed", UnitSpeed.self), ("NSUnitTemperature", UnitTemperature.self),
        ("NSUnitVolume", UnitVolume.self),
    ]
    private static let byName = Dictionary(uniqueKeysWithValues: dimensions.map { ($0.name, $0.type) })
    private static let byType = Dictionary(uniqueKeysWithValues: dimensions.map { (ObjectIdentifier($0.type), $0.name) })

    static func type(named name: String) -> Dimension.Type? { byName[name] }

    /// The name a unit of `type` is archived under: Foundation's for its own classes, the Swift
    /// name for a unit class of the app's.
    static func name(of type: Unit.Type) -> String {
        if type == Unit.self { return ArchiveFormat.unitClass }
        if type == Dimension.self { return ArchiveFormat.dimensionClass }
        return byType[ObjectIdentifier(type)] ?? defaultClassName(of: type)
    }

    /// Fuel-efficiency units convert by a reciprocal; they are found again by symbol, so a
    /// decoded unit is Foundation's own (which compares equal to it).
    static let reciprocalUnits: [UnitFuelEfficiency] = [.litersPer100Kilometers, .milesPerGallon, .milesPerImperialGallon]
}

/// A converter `value = reciprocal / base`, for reciprocal units of archives that are not Foundation's own.
// @unchecked: its one property is a `let` Double; `UnitConverter`, an `NSObject` subclass, is not marked `Sendable`.
final class ReciprocalUnitConverter: UnitConverter, @unchecked Sendable {
    let reciprocal: Double

    init(reciprocal: Double) {
        self.reciprocal = reciprocal
        super.init()
    }

    override func baseUnitValue(fromValue value: Double) -> Double { reciprocal / value }
    override func value(fromBaseUnitValue baseUnitValue: Double) -> Double { reciprocal / baseUnitValue }
}

extension Dimension {
    /// A measurement whose unit is of the receiving class (`Measurement<UnitLength>` for `UnitLength`).
    fileprivate class func archivedMeasurement(_ value: Double, symbol: String, converter: UnitConverter) -> Any {
        Measurement<Self>(value: value, unit: Self(symbol: symbol, converter: converter))
    }
}

/// `Measurement<U>` as `NSMeasurement`: `NS.value` and `NS.unit`, a unit object (`NSUnitLength`
/// and so on, with `NS.symbol` and, for dimensions, `NS.converter`: linear, with `NS.coefficient`
/// and `NS.constant`, or reciprocal, with `NS.reciprocal`).
extension Measurement: ArchiveContainer {
    static func makeCoder() -> any TypeCoder { MeasurementCoder<UnitType>() }
}

final class MeasurementCoder<U: Unit>: TypeCoder {
    func encode(_ value: Measurement<U>, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let unit = try archiver.unitObject(value.unit)
        let frame = archiver.beginObject()
        archiver.addField(ArchiveFormat.measurementValueField, value: archiver.real(value.value, inline: true))
        archiver.addField(ArchiveFormat.measurementUnitField, value: unit)
        archiver.endObject(frame, className: ArchiveFormat.measurementClass, classes: [ArchiveFormat.measurementClass, ArchiveFormat.rootClass])
        return archiver.uid(frame.uid)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Measurement<U> {
        try unarchiver.decodeAppleLayout(reference, classes: [ArchiveFormat.measurementClass]) { dict in
            let value = try unarchiver.field(dict, ArchiveFormat.measurementValueField, DoubleCoder())
            let unit = try withKeyPath(ArchiveFormat.measurementUnitField) {
                try unarchiver.unit(try unarchiver.requiredField(dict, ArchiveFormat.measurementUnitField), as: U.self)
            }
            return Measurement(value: value, unit: unit)
        }
    }
}

extension ArchiverCore {
    fileprivate func unitObject(_ unit: Unit) throws -> Int {
        let name = FoundationUnits.name(of: type(of: unit))
        guard let dimension = unit as? Dimension else {
            let frame = beginObject()
            addField(ArchiveFormat.unitSymbolField, value: string(unit.symbol))
            endObject(frame, className: name, classes: name == ArchiveFormat.unitClass ? [name, ArchiveFormat.rootClass] : [name, ArchiveFormat.unitClass, ArchiveFormat.rootClass])
            return uid(frame.uid)
        }
        let converter = try converterObject(dimension.converter, of: dimension)
        let frame = beginObject()
        addField(ArchiveFormat.unitSymbolField, value: string(unit.symbol))
        addField(ArchiveFormat.unitConverterField, value: converter)
        let chain = name == ArchiveFormat.dimensionClass ? [name] : [name, ArchiveFormat.dimensionClass]
        endObject(frame, className: name, classes: chain + [ArchiveFormat.unitClass, ArchiveFormat.rootClass])
        return uid(frame.uid)
    }

    /// A linear converter by its coefficient and constant; a reciprocal one (fuel efficiency) by
    /// its reciprocal. Foundation's own converter classes are private, so other converters are
    /// read through what they compute, and refused if that is neither.
    private func converterObject(_ converter: UnitConverter, of unit: Dimension) throws -> Int {
        var fields: [(String, Int)]
        let className: String
        if let linear = converter as? UnitConverterLinear {
            className = ArchiveFormat.linearConverterClass
            fields = [(ArchiveFormat.coefficientField, real(linear.coefficient, inline: true)), (ArchiveFormat.constantField, real(linear.constant, inline: true))]
        } else if let reciprocal = converter as? ReciprocalUnitConverter {
            className = ArchiveFormat.reciprocalConverterClass
            fields = [(ArchiveFormat.reciprocalField, real(reciprocal.reciprocal, inline: true))]
        } else {
            let one = converter.baseUnitValue(fromValue: 1)
            let two = converter.baseUnitValue(fromValue: 2)
            let zero = converter.baseUnitValue(fromValue: 0)
            if one.isFinite, one != 0, two == one / 2, converter.baseUnitValue(fromValue: 4) == one / 4 {
                className = ArchiveFormat.reciprocalConverterClass
                fields = [(ArchiveFormat.reciprocalField, real(one, inline: true))]
            } else if zero.isFinite, one.isFinite, abs(converter.baseUnitValue(fromValue: 3) - (3 * (one - zero) + zero)) <= 1e-9 * max(1, abs(one)) {
                className = ArchiveFormat.linearConverterClass
                fields = [(ArchiveFormat.coefficientField, real(one - zero, inline: true)), (ArchiveFormat.constantField, real(zero, inline: true))]
            } else {
                throw ArchiveError(
                    .notArchivable,
                    reason: "the converter of the unit \(quoted: unit.symbol) (\(String(reflecting: type(of: converter)))) is neither linear nor reciprocal, so it has no archived layout")
            }
        }
        return foundationObject(className: className, classes: [className, ArchiveFormat.converterClass, ArchiveFormat.rootClass], fields: fields)
    }
}

extension UnarchiverCore {
    /// A unit object's class name, chain, symbol and converter (nil for a unit that is not a dimension).
    private func unitParts(_ reference: Int) throws -> (description: ClassDescription, symbol: String, converter: UnitConverter?) {
        let dict = try foundationObject(reference, classes: [ArchiveFormat.unitClass], expected: "a unit")
        let description = try classDescription(of: dict)
        return try decodingValue(dict) {
            let symbol = try field(dict, ArchiveFormat.unitSymbolField, StringCoder())
            guard let converterRef = try value(in: dict, escapedKey: ArchiveFormat.unitConverterField) else { return (description, symbol, nil) }
            let converter = try withKeyPath(ArchiveFormat.unitConverterField) { try self.converter(converterRef, unitSymbol: symbol) }
            return (description, symbol, converter)
        }
    }

    private func converter(_ reference: Int, unitSymbol: String) throws -> UnitConverter {
        let classes: Set<String> = [ArchiveFormat.linearConverterClass, ArchiveFormat.reciprocalConverterClass]
        let dict = try foundationObject(reference, classes: classes, expected: "a linear or reciprocal unit converter")
        try enter(dict.index)
        defer { leave() }
        if let reciprocal = try optionalField(dict, ArchiveFormat.reciprocalField, DoubleCoder()) {
            let own = FoundationUnits.reciprocalUnits.first { $0.symbol == unitSymbol && $0.converter.baseUnitValue(fromValue: 1) == reciprocal }
            return own?.converter ?? ReciprocalUnitConverter(reciprocal: reciprocal)
        }
        let coefficient = try field(dict, ArchiveFormat.coefficientField, DoubleCoder())
        let constant = try optionalField(dict, ArchiveFormat.constantField, DoubleCoder()) ?? 0
        return UnitConverterLinear(coefficient: coefficient, constant: constant)
    }

    /// The unit `reference` holds, as a `U`.
    func unit<U: Unit>(_ reference: Int, as type: U.Type) throws -> U {
        let (description, symbol, converter) = try unitParts(reference)
        let expected = FoundationUnits.name(of: U.self)
        guard U.self == Unit.self || description.name == expected || description.classes.contains(expected) else {
            throw ArchiveError(
                .typeMismatch, reason: "expected a unit of class \(expected) (\(String(reflecting: U.self))), found \(input: description.name)",
                byteOffset: graph.offset(of: reference), objectIndex: reference)
        }
        if let dimensionType = U.self as? Dimension.Type {
            guard let converter else {
                throw ArchiveError(
                    .keyNotFound, reason: "the unit \(quoted: symbol) of class \(input: description.name) has no NS.converter",
                    byteOffset: graph.offset(of: reference), objectIndex: reference)
            }
            return dimensionType.init(symbol: symbol, converter: converter) as! U
        }
        // A field of type Unit holds whatever unit the archive has, a dimension if it has a converter.
        if U.self == Unit.self, let converter {
            let dimensionType = FoundationUnits.type(named: description.name) ?? Dimension.self
            return dimensionType.init(symbol: symbol, converter: converter) as! U
        }
        return U(symbol: symbol)
    }

    /// An `NSMeasurement` where any value is expected: `Measurement<UnitLength>` for a length, and so
    /// on for Foundation's units; `Measurement<Unit>` for a unit of a class not known here.
    fileprivate func decodeMeasurement(_ reference: Int) throws -> Any {
        let dict = try foundationObject(reference, classes: [ArchiveFormat.measurementClass], expected: "a measurement")
        return try decodingValue(dict) {
            let value = try field(dict, ArchiveFormat.measurementValueField, DoubleCoder())
            let unitRef = try requiredField(dict, ArchiveFormat.measurementUnitField)
            let (description, symbol, converter) = try withKeyPath(ArchiveFormat.measurementUnitField) { try unitParts(unitRef) }
            if let converter, let type = FoundationUnits.type(named: description.name) {
                return type.archivedMeasurement(value, symbol: symbol, converter: converter)
            }
            return Measurement<Unit>(value: value, unit: try withKeyPath(ArchiveFormat.measurementUnitField) { try unit(unitRef, as: Unit.self) })
        }
    }
}

// MARK: NSCountedSet

/// `NSCountedSet`: `NS.count` elements as `NS.object<i>` (objects, never inline, as Foundation
/// reads them), each with its count as `NS.count<i>`.
final class CountedSetCoder<T>: TypeCoder {
    func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let set = value as! NSCountedSet
        return try archiver.foundationInstance(set, typeName: ArchiveFormat.countedSetClass) {
            // Elements of any kind: a decoded set holds Swift values (an NSRange, a string) as well as objects.
            let elements = try archiver.canonicalOrder(set.allObjects)
            var fields: [(String, Int)] = [(ArchiveFormat.countField, archiver.integer(Int64(elements.count), inline: true))]
            for (i, element) in elements.enumerated() {
                fields.append(("\(ArchiveFormat.countedObjectPrefix)\(i)", try archiver.encodeDynamic(element, inline: false)))
                fields.append(("\(ArchiveFormat.countedCountPrefix)\(i)", archiver.integer(Int64(set.count(for: element)), inline: true)))
            }
            return (ArchiveFormat.countedSetClass, [ArchiveFormat.countedSetClass, "NSMutableSet", ArchiveFormat.setClass, ArchiveFormat.rootClass], fields)
        }
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T {
        let dict = try unarchiver.foundationObject(reference, classes: [ArchiveFormat.countedSetClass], expected: "a counted set")
        // One set per archived object, however often it is referenced, as Foundation's unarchiver gives.
        let set = try unarchiver.reusingValue(of: dict, as: NSCountedSet.self, keepsFirst: true) { try unarchiver.decodingValue(dict) { try unarchiver.countedSet(dict) } }
        guard let typed = set as? T else { throw unarchiver.mismatch(String(reflecting: T.self), reference) }
        return typed
    }
}

extension UnarchiverCore {
    fileprivate func countedSet(_ dict: ObjectDict) throws -> NSCountedSet {
        let count = try field(dict, ArchiveFormat.countField, IntegerCoder<Int>())
        let objects = try graph.numberedFields(of: dict, prefix: ArchiveFormat.countedObjectPrefix)
        let counts = try graph.numberedFields(of: dict, prefix: ArchiveFormat.countedCountPrefix)
        guard count >= 0, objects.count == count, counts.count == count else {
            throw invalid(dict, "NS.count is \(count) but there are \(objects.count) NS.object<i> and \(counts.count) NS.count<i> entries")
        }
        // Every count is read and charged before the first element is decoded or added.
        var times: [Int] = []
        times.reserveCapacity(count)
        for i in 0..<count {
            let n = try withKeyPath("\(ArchiveFormat.countedCountPrefix)\(i)") { try IntegerCoder<Int>().decode(counts[i], self) }
            guard n >= 1 else { throw invalid(dict, "NS.count\(i) \(n) is not a positive count") }
            try charge(
                n, to: &countedSetCounts, limit: options.maximumCountedSetCounts, option: "maximumCountedSetCounts",
                what: "the counts of the archive's counted sets", for: dict)
            times.append(n)
        }
        let set = NSCountedSet()
        for i in 0..<count {
            let element = try withKeyPath("\(ArchiveFormat.countedObjectPrefix)\(i)") { try decodeAny(objects[i]) } as AnyObject
            for _ in 0..<times[i] { set.add(element) }
        }
        return set
    }
}

// MARK: NSAttributedString

/// `NSAttributedString` and ``ArchivedAttributedString``: `NSString`, `NSAttributes` (one
/// attribute dictionary, or an array of them) and `NSAttributeInfo`, packed pairs of a run's
/// length (in UTF-16 code units) and the index of its attributes. A string with one run (or
/// none) has no `NSAttributeInfo`.
///
/// Decoding reads and checks everything into an ``ArchivedAttributedString`` first; Foundation's
/// class is built from it only for a field of that class (Foundation on Linux leaks every one it
/// builds), with the work charged to the decoding budget before it is done.
final class AttributedStringCoder<T>: TypeCoder {
    func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        if let archived = value as? ArchivedAttributedString {
            let (name, classes, fields) = try archiver.attributedStringFields(archived)
            return archiver.foundationObject(className: name, classes: classes, fields: fields)
        }
        let object = value as! NSAttributedString
        return try archiver.foundationInstance(object, typeName: ArchiveFormat.attributedStringClass) {
            try archiver.attributedStringFields(ArchivedAttributedString(object))
        }
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T {
        let (archived, dict) = try unarchiver.archivedAttributedString(reference)
        if let value = archived as? T { return value }
        // One object per archived object, however often it is referenced, as Foundation's unarchiver gives.
        let object = try unarchiver.reusingValue(of: dict, as: T.self, keepsFirst: true) {
            // Setting a run's attributes costs as much as they have entries: all are counted first.
            for run in archived.runTable {
                try unarchiver.charge(
                    archived.attributeSets[run.attributes].count + 1, to: &unarchiver.attributedStringAttributes,
                    limit: unarchiver.options.maximumAttributedStringAttributes, option: "maximumAttributedStringAttributes",
                    what: "the attributes the attributed strings' runs set", for: dict)
            }
            var made = archived
            // The archived class, as Foundation's unarchiver makes it (a mutable string is an NSAttributedString too).
            made.isMutable = made.isMutable || T.self is NSMutableAttributedString.Type
            guard let typed = made.makeAttributedString() as? T else { throw unarchiver.mismatch(String(reflecting: T.self), reference) }
            return typed
        }
        return object
    }
}

extension ArchiverCore {
    /// The class name, class chain and fields of an attributed string's object.
    fileprivate func attributedStringFields(_ value: ArchivedAttributedString) throws -> (String, [String], [(String, Int)]) {
        // Anything that saves must load: the runs cover the string, in order.
        let length = value.string.utf16.count
        var end = 0
        for (i, run) in value.runTable.enumerated() {
            guard run.range.location == end, run.range.length >= 0, run.range.length <= length - end else {
                throw ArchiveError(
                    .notArchivable,
                    reason: "run \(i) of the attributed string, at \(run.range.location) of length \(run.range.length), does not start where the run before it ends (\(end)) inside the string's \(length) UTF-16 units")
            }
            end += run.range.length
        }
        guard value.runTable.isEmpty || end == length else {
            throw ArchiveError(.notArchivable, reason: "the runs of the attributed string cover \(end) of its \(length) UTF-16 units")
        }
        // Each distinct attribute dictionary is written once.
        let dictionaries = value.attributeSets
        let runs = value.runTable.map { (length: $0.range.length, index: $0.attributes) }
        let text = string(value.string)
        let attributes: Int
        var info: Int?
        if runs.count <= 1 {
            // One run (or none) is written as its dictionary alone.
            attributes = try DictionaryCoder<String, Any>().encode(runs.first.map { dictionaries[$0.index] } ?? [:], inline: false, self)
        } else {
            attributes = try ArrayCoder<[String: Any]>().encode(dictionaries, inline: false, self)
            var bytes: [UInt8] = []
            for run in runs {
                PackedIntegers.append(UInt64(run.length), to: &bytes)
                PackedIntegers.append(UInt64(run.index), to: &bytes)
            }
            info = data(bytes, inline: false)
        }
        var fields = [(ArchiveFormat.attributedStringField, text), (ArchiveFormat.attributesField, attributes)]
        if let info { fields.append((ArchiveFormat.attributeRunsField, info)) }
        let name = value.isMutable ? ArchiveFormat.mutableAttributedStringClass : ArchiveFormat.attributedStringClass
        return (name, value.isMutable ? [name, ArchiveFormat.attributedStringClass, ArchiveFormat.rootClass] : [name, ArchiveFormat.rootClass], fields)
    }
}

extension UnarchiverCore {
    /// The attributed string `reference` points at, checked whole, and its object dictionary.
    func archivedAttributedString(_ reference: Int) throws -> (ArchivedAttributedString, ObjectDict) {
        let dict = try foundationObject(reference, classes: ArchiveFormat.attributedStringClasses, expected: "an attributed string")
        let value = try reusingValue(of: dict, as: ArchivedAttributedString.self) {
            try decodingValue(dict) { try attributedString(in: dict) }
        }
        return (value, dict)
    }

    private func attributedString(in dict: ObjectDict) throws -> ArchivedAttributedString {
        let isMutable = try classDescription(of: dict).name == ArchiveFormat.mutableAttributedStringClass
        let text = try field(dict, ArchiveFormat.attributedStringField, StringCoder())
        let length = text.utf16.count
        var dictionaries: [[String: Any]] = []
        if let attributesRef = try value(in: dict, escapedKey: ArchiveFormat.attributesField) {
            dictionaries = try withKeyPath(ArchiveFormat.attributesField) {
                try object(attributesRef, ofClassIn: ArchiveFormat.dictionaryClasses) != nil
                    ? [try DictionaryCoder<String, Any>().decode(attributesRef, self)]
                    : try ArrayCoder<[String: Any]>().decode(attributesRef, self)
            }
        }
        guard try value(in: dict, escapedKey: ArchiveFormat.attributeRunsField) != nil else {
            // One run (or none): the attributes, if any, cover the whole string.
            guard let first = dictionaries.first, length > 0 else { return ArchivedAttributedString(string: text, isMutable: isMutable) }
            return ArchivedAttributedString(
                string: text, attributeSets: [first], runTable: [(NSRange(location: 0, length: length), 0)], isMutable: isMutable)
        }
        let data = try field(dict, ArchiveFormat.attributeRunsField, DataCoder())
        // Two numbers a run, a byte at least each, and no run is empty: bounded by both.
        let numbers: [UInt64]
        switch PackedIntegers.read(data, limit: 2 * length) {
        case .failure(let error): throw invalid(dict, error.describe(ArchiveFormat.attributeRunsField))
        case .success(let read): numbers = read
        }
        guard numbers.count % 2 == 0 else { throw invalid(dict, "NSAttributeInfo holds an odd count of numbers, \(numbers.count)") }
        try charge(numbers.count / 2, for: dict)
        var runs: [(range: NSRange, attributes: Int)] = []
        runs.reserveCapacity(numbers.count / 2)
        var location = 0
        for run in 0..<(numbers.count / 2) {
            let (runLength, index) = (numbers[2 * run], numbers[2 * run + 1])
            guard runLength <= UInt64(length - location) else {
                throw invalid(dict, "run \(run) of NSAttributeInfo, of length \(runLength), reaches past the string's \(length) UTF-16 units")
            }
            guard index < UInt64(dictionaries.count) else {
                throw invalid(dict, "run \(run) of NSAttributeInfo names attributes \(index) of \(dictionaries.count)")
            }
            runs.append((NSRange(location: location, length: Int(runLength)), Int(index)))
            location += Int(runLength)
        }
        guard location == length else {
            throw invalid(dict, "the runs of NSAttributeInfo cover \(location) of the string's \(length) UTF-16 units")
        }
        return ArchivedAttributedString(string: text, attributeSets: dictionaries, runTable: runs, isMutable: isMutable)
    }
}

// MARK: Notification

/// `Notification` as `NSNotification`: `NS.name`, `NS.object` and `NS.userinfo`.
final class NotificationCoder: TypeCoder {
    func encode(_ value: Notification, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        var fields = [(ArchiveFormat.nameField, archiver.string(value.name.rawValue))]
        if let object = value.object {
            fields.append((ArchiveFormat.notificationObjectField, try withKeyPath(ArchiveFormat.notificationObjectField) { try archiver.encodeDynamic(object, inline: false) }))
        }
        if let userInfo = value.userInfo {
            fields.append((ArchiveFormat.notificationUserInfoField, try withKeyPath(ArchiveFormat.notificationUserInfoField) {
                try DictionaryCoder<AnyHashable, Any>().encode(userInfo, inline: false, archiver)
            }))
        }
        return archiver.foundationObject(className: ArchiveFormat.notificationClass, fields: fields)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Notification {
        let dict = try unarchiver.foundationObject(reference, classes: [ArchiveFormat.notificationClass], expected: "a notification")
        return try unarchiver.decodingValue(dict) {
            let name = try unarchiver.field(dict, ArchiveFormat.nameField, StringCoder())
            let object = try unarchiver.optionalField(dict, ArchiveFormat.notificationObjectField, AnyCoder<Any>())
            let userInfo = try unarchiver.optionalField(dict, ArchiveFormat.notificationUserInfoField, OptionalCoder<[AnyHashable: Any]>()) ?? nil
            return Notification(name: Notification.Name(name), object: object.flatMap(Self.nonNull), userInfo: userInfo)
        }
    }

    private static func nonNull(_ value: Any) -> Any? { value is NSNull ? nil : value }
}
