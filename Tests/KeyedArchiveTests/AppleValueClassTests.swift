import Foundation
import KeyedArchive
import PropertyList
import Testing
import TestSupport

// Foundation's value classes in Apple's layouts: archives Foundation writes (this process's own
// NSKeyedArchiver here, Apple's on macOS in the peer fixtures) decode into Swift's value types,
// typed and through `Any`; ours decode in Foundation's NSKeyedUnarchiver to the same values.

/// What Foundation's own NSKeyedArchiver writes for `object` under `root`.
private func foundationArchive(_ object: Any) throws -> Data {
    try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
}

/// The class names of every class description in an archive, in `$objects` order.
private func archivedClassNames(_ data: Data) throws -> [String] {
    let objects = try PlistReader().read(data).dictValue?["$objects"]?.arrayValue ?? []
    return objects.compactMap { $0.dictValue?["$classname"]?.stringValue }
}

@Suite("Apple's Foundation value classes")
struct AppleValueClassTests {
    static let indexSets: [IndexSet] = [
        IndexSet(), IndexSet(integer: 7), IndexSet(integersIn: 3..<7),
        IndexSet([1, 2, 300, 301, 302, 5000]), IndexSet(integersIn: 9_223_372_036_854_775_757..<Int.max),
    ]

    @Test("IndexSet ⇄ NSIndexSet, from and to Foundation", arguments: indexSets)
    func indexSet(_ set: IndexSet) throws {
        let fromFoundation = try foundationArchive(NSIndexSet(indexSet: set))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: IndexSet.self, from: fromFoundation) == set)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: fromFoundation) as? IndexSet == set)
        let ours = try KeyedArchiver.archivedData(withRootObject: set)
        #expect(try archivedClassNames(ours) == ["NSIndexSet"])
        #expect((FoundationReading(ours).root as? NSIndexSet).map { $0 as IndexSet } == set)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: IndexSet.self, from: ours) == set)
    }

    static let indexPaths: [IndexPath] = [IndexPath(), IndexPath(index: 7), IndexPath(indexes: [4, 8, 300, 1 << 40])]

    @Test("IndexPath ⇄ NSIndexPath, from and to Foundation", arguments: indexPaths)
    func indexPath(_ path: IndexPath) throws {
        let fromFoundation = try foundationArchive(path as NSIndexPath)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: IndexPath.self, from: fromFoundation) == path)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: fromFoundation) as? IndexPath == path)
        let ours = try KeyedArchiver.archivedData(withRootObject: path)
        #expect(try archivedClassNames(ours) == ["NSIndexPath"])
        #expect((FoundationReading(ours).root as? NSIndexPath).map { $0 as IndexPath } == path)
    }

    @Test("Locale, TimeZone and Calendar ⇄ NSLocale, NSTimeZone and NSCalendar")
    func localeTimeZoneCalendar() throws {
        let locale = Locale(identifier: "fr_CA")
        let zone = TimeZone(identifier: "Europe/Paris")!
        let fixed = TimeZone(secondsFromGMT: 3600)!
        var calendar = Calendar(identifier: .gregorian)
        calendar.locale = Locale(identifier: "ja_JP")
        calendar.timeZone = TimeZone(identifier: "Asia/Tokyo")!
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4

        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Locale.self, from: foundationArchive(locale as NSLocale)) == locale)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: TimeZone.self, from: foundationArchive(zone as NSTimeZone)) == zone)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: TimeZone.self, from: foundationArchive(fixed as NSTimeZone)).secondsFromGMT() == 3600)
        let decoded = try KeyedUnarchiver.unarchivedObject(ofType: Calendar.self, from: foundationArchive(calendar as NSCalendar))
        #expect(decoded.identifier == .gregorian && decoded.firstWeekday == 2 && decoded.minimumDaysInFirstWeek == 4)
        #expect(decoded.timeZone == calendar.timeZone && decoded.locale?.identifier == "ja_JP")
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: foundationArchive(locale as NSLocale)) as? Locale == locale)

        for identifier in [Calendar.Identifier.gregorian, .iso8601, .hebrew, .japanese, .islamicCivil, .republicOfChina] {
            var original = Calendar(identifier: identifier)
            original.timeZone = zone
            let ours = try KeyedArchiver.archivedData(withRootObject: original)
            let back = try KeyedUnarchiver.unarchivedObject(ofType: Calendar.self, from: ours)
            #expect(back.identifier == identifier && back.timeZone == zone)
            let foundation = (FoundationReading(ours).root as? NSCalendar).map { $0 as Calendar }
            #expect(foundation?.identifier == identifier && foundation?.timeZone == zone)
        }
        #expect((FoundationReading(try KeyedArchiver.archivedData(withRootObject: zone)).root as? NSTimeZone)?.name == "Europe/Paris")
        #expect((FoundationReading(try KeyedArchiver.archivedData(withRootObject: locale)).root as? NSLocale).map { $0 as Locale } == locale)
    }

    @Test("Measurement ⇄ NSMeasurement with Foundation's units, linear and reciprocal")
    func measurement() throws {
        let length = Measurement(value: 3.5, unit: UnitLength.kilometers)
        let temperature = Measurement(value: 20, unit: UnitTemperature.celsius)
        let fuel = Measurement(value: 5, unit: UnitFuelEfficiency.litersPer100Kilometers)
        let mpg = Measurement(value: 30, unit: UnitFuelEfficiency.milesPerGallon)

        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Measurement<UnitLength>.self, from: foundationArchive(length as NSMeasurement)) == length)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: foundationArchive(length as NSMeasurement)) as? Measurement<UnitLength> == length)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: foundationArchive(temperature as NSMeasurement)) as? Measurement<UnitTemperature> == temperature)
        let fuelBack = try KeyedUnarchiver.unarchivedObject(ofType: Measurement<UnitFuelEfficiency>.self, from: foundationArchive(fuel as NSMeasurement))
        #expect(fuelBack == fuel)
        #expect(fuelBack.converted(to: .milesPerGallon).value == fuel.converted(to: .milesPerGallon).value)

        for value in [length] {
            let ours = try KeyedArchiver.archivedData(withRootObject: value)
            #expect(try archivedClassNames(ours) == ["NSUnitConverterLinear", "NSUnitLength", "NSMeasurement"])
            #expect(try KeyedUnarchiver.unarchivedObject(ofType: Measurement<UnitLength>.self, from: ours) == value)
            #expect((FoundationReading(ours).root as? NSMeasurement).map { $0 as Measurement<Unit> } == Measurement<Unit>(value: 3.5, unit: UnitLength.kilometers))
        }
        let oursMPG = try KeyedArchiver.archivedData(withRootObject: mpg)
        #expect(try archivedClassNames(oursMPG) == ["NSUnitConverterReciprocal", "NSUnitFuelEfficiency", "NSMeasurement"])
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Measurement<UnitFuelEfficiency>.self, from: oursMPG) == mpg)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Measurement<UnitTemperature>.self, from: KeyedArchiver.archivedData(withRootObject: temperature)) == temperature)

        // A unit of another dimension is a type mismatch that names both classes.
        let error = try #require(throws: ArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofType: Measurement<UnitMass>.self, from: KeyedArchiver.archivedData(withRootObject: length))
        }
        #expect(error.code == .typeMismatch && error.reason.contains("NSUnitMass") && error.reason.contains("found NSUnitLength"))
        #expect(error.keyPath == "root.NS.unit")
    }

    @Test("NSRange and Range<Int> ⇄ NSValue ranges; NSValue points, sizes and rectangles through Any")
    func ranges() throws {
        let range = NSRange(location: 97345, length: 1000)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: NSRange.self, from: foundationArchive(NSValue(range: range))) == range)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Range<Int>.self, from: foundationArchive(NSValue(range: range))) == 97345..<98345)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: foundationArchive(NSValue(range: range))) as? NSRange == range)
        let ours = try KeyedArchiver.archivedData(withRootObject: 5..<9)
        #expect(try archivedClassNames(ours) == ["NSValue"])
        #expect((FoundationReading(ours).root as? NSValue)?.rangeValue == NSRange(location: 5, length: 4))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Range<Int>.self, from: ours) == 5..<9)
        // A range reaching below zero has no NSRange; it keeps the Codable layout and reads back.
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Range<Int>.self, from: KeyedArchiver.archivedData(withRootObject: -3..<2)) == -3..<2)

        let rect = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: foundationArchive(NSValue(rect: NSRect(x: 1, y: 2, width: 3.5, height: 4))))
        #expect(rect as? CGRect == CGRect(x: 1, y: 2, width: 3.5, height: 4))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: foundationArchive(NSValue(point: NSPoint(x: -1, y: 2)))) as? CGPoint == CGPoint(x: -1, y: 2))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: foundationArchive(NSValue(size: NSSize(width: 1.5, height: 2)))) as? CGSize == CGSize(width: 1.5, height: 2))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: CGRect.self, from: foundationArchive(NSValue(rect: NSRect(x: 1, y: 2, width: 3.5, height: 4)))) == CGRect(x: 1, y: 2, width: 3.5, height: 4))

        // Ours, read by Foundation and by us, typed and through Any; a NaN keeps the Codable layout.
        let shapes: [Any] = [CGPoint(x: 0.1, y: -2), CGSize(width: 1e300, height: 0), CGRect(x: 1, y: 2, width: 3, height: 4.25)]
        for shape in shapes {
            let data = try KeyedArchiver.archivedData(withRootObject: shape)
            #expect(try archivedClassNames(data) == ["NSValue"])
            let foundation = try #require(FoundationReading(data).root as? NSValue)
            switch shape {
            case let point as CGPoint:
                let ours = try KeyedUnarchiver.unarchivedObject(ofType: CGPoint.self, from: data)
                #expect(foundation.pointValue == point && ours == point)
            case let size as CGSize:
                let ours = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: data) as? CGSize
                #expect(foundation.sizeValue == size && ours == size)
            default:
                let ours = try KeyedUnarchiver.unarchivedObject(ofType: CGRect.self, from: data)
                #expect(foundation.rectValue == shape as? CGRect && ours == shape as? CGRect)
            }
        }
        let nan = try KeyedUnarchiver.unarchivedObject(ofType: CGPoint.self, from: KeyedArchiver.archivedData(withRootObject: CGPoint(x: CGFloat.nan, y: 1)))
        #expect(nan.x.isNaN && nan.y == 1)
    }

    @Test("NSCountedSet keeps its counts, through Any and as a field; as a Set its distinct elements")
    func countedSet() throws {
        let set = NSCountedSet(array: [1, 1, 2, "a", "a", "a"])
        let fromFoundation = try foundationArchive(set)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: fromFoundation) as? NSCountedSet)
        #expect(decoded.count == 3 && decoded.count(for: 1) == 2 && decoded.count(for: 2) == 1 && decoded.count(for: "a") == 3)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Set<AnyHashable>.self, from: fromFoundation) == [1, 2, "a"])

        let ours = try KeyedArchiver.archivedData(withRootObject: set)
        #expect(try archivedClassNames(ours) == ["NSCountedSet"])
        let foundation = try #require(FoundationReading(ours).root as? NSCountedSet)
        #expect(foundation.count(for: 1) == 2 && foundation.count(for: "a") == 3 && foundation.count == 3)
        #expect(try KeyedArchiver.archivedData(withRootObject: set) == ours, "counted sets archive in a stable order")
    }

    @Test("NSAttributedString keeps its string and attribute runs, both directions")
    func attributedString() throws {
        let string = NSMutableAttributedString(string: "héllo wörld")
        string.addAttribute(NSAttributedString.Key("bold"), value: true, range: NSRange(location: 1, length: 3))
        string.addAttribute(NSAttributedString.Key("size"), value: 12, range: NSRange(location: 6, length: 5))
        string.addAttribute(NSAttributedString.Key("bold"), value: true, range: NSRange(location: 8, length: 1))
        let plain = NSAttributedString(string: "plain", attributes: [NSAttributedString.Key("font"): "Times"])

        for value in [string, plain, NSAttributedString(string: "")] {
            let fromFoundation = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: foundationArchive(value))
            // Through Any it is the archive's own representation; Foundation's class only when asked for.
            let archived = try #require(fromFoundation as? ArchivedAttributedString)
            #expect(archived.makeAttributedString().isEqual(to: value) == true, "\(value)")
            #expect(archived.isMutable == (value is NSMutableAttributedString) && archived.string == value.string)
            let ours = try KeyedArchiver.archivedData(withRootObject: value)
            let foundation = FoundationReading(ours).root as? NSAttributedString
            #expect(foundation?.isEqual(to: value) == true, "Foundation read \(String(describing: foundation)) for \(value)")
            #expect(try KeyedUnarchiver.unarchivedObject(ofType: NSAttributedString.self, from: ours).isEqual(to: value))
        }
        let archived = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: KeyedArchiver.archivedData(withRootObject: string)) as? ArchivedAttributedString)
        #expect(archived.isMutable && archived.runs.map(\.range) == [NSRange(location: 0, length: 1), NSRange(location: 1, length: 3), NSRange(location: 4, length: 2), NSRange(location: 6, length: 2), NSRange(location: 8, length: 1), NSRange(location: 9, length: 2)])
        #expect(archived.runs[1].attributes["bold"] as? Bool == true && archived.runs[5].attributes["size"] as? Int == 12)
        // The value archives back in the same layout, byte for byte.
        #expect(try KeyedArchiver.archivedData(withRootObject: archived) == KeyedArchiver.archivedData(withRootObject: string))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: NSMutableAttributedString.self, from: KeyedArchiver.archivedData(withRootObject: archived)).isEqual(to: string))
    }

    @Test("Notification ⇄ NSNotification: name, object and user info")
    func notification() throws {
        let note = Notification(name: Notification.Name("didSave"), object: "store", userInfo: ["count": 3])
        let fromFoundation = try foundationArchive(NSNotification(name: note.name, object: note.object, userInfo: note.userInfo))
        let decoded = try KeyedUnarchiver.unarchivedObject(ofType: Notification.self, from: fromFoundation)
        #expect(decoded.name == note.name && decoded.object as? String == "store")
        let ours = try KeyedArchiver.archivedData(withRootObject: note)
        let back = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: ours) as? Notification)
        #expect(back.name == note.name && back.object as? String == "store" && back.userInfo?["count"] as? Int == 3)
        let foundation = FoundationReading(ours).root as? NSNotification
        #expect(foundation?.name == note.name && foundation?.object as? String == "store")
        let bare = try KeyedUnarchiver.unarchivedObject(ofType: Notification.self, from: KeyedArchiver.archivedData(withRootObject: Notification(name: .init("n"))))
        #expect(bare.name.rawValue == "n" && bare.object == nil && bare.userInfo == nil)
    }

    /// Every value class as the field of a model, typed and in an `[String: Any]`.
    final class Schedule: Archivable, @unchecked Sendable {
        var days = IndexSet([1, 3, 5])
        var path = IndexPath(indexes: [0, 2])
        var locale = Locale(identifier: "en_GB")
        var zone = TimeZone(identifier: "Australia/Sydney")!
        var calendar = Calendar(identifier: .iso8601)
        var distance = Measurement(value: 42.195, unit: UnitLength.kilometers)
        var range = NSRange(location: 2, length: 5)
        var span = 10..<20
        var extras: [String: Any] = [:]
        init() {}
    }

    @Test("Every value class round-trips as a typed field and inside [String: Any]")
    func asFields() throws {
        let schedule = Schedule()
        schedule.days = [0, 7, 8, 9]
        schedule.distance = Measurement(value: 1, unit: UnitLength.miles)
        schedule.extras = ["days": IndexSet([4]), "at": TimeZone(identifier: "UTC")!, "run": Measurement(value: 5, unit: UnitLength.kilometers), "r": NSRange(location: 1, length: 1)]
        let data = try KeyedArchiver.archivedData(withRootObject: schedule)
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Schedule.self, from: data)
        #expect(back.days == schedule.days && back.path == schedule.path && back.locale == schedule.locale && back.zone == schedule.zone)
        #expect(back.calendar.identifier == .iso8601 && back.distance == schedule.distance && back.range == schedule.range && back.span == 10..<20)
        #expect(back.extras["days"] as? IndexSet == [4] && back.extras["at"] as? TimeZone == TimeZone(identifier: "UTC"))
        #expect(back.extras["run"] as? Measurement<UnitLength> == Measurement(value: 5, unit: UnitLength.kilometers))
        #expect(back.extras["r"] as? NSRange == NSRange(location: 1, length: 1))
    }

    /// The fields of `oldgen.LegacyValues`, archived by the previous release through Codable.
    final class LegacyValues: Archivable, @unchecked Sendable {
        static var archiveClassName: String? { "oldgen.LegacyValues" }
        var indexes = IndexSet()
        var path = IndexPath()
        var locale = Locale(identifier: "")
        var zone = TimeZone(identifier: "UTC")!
        var calendar = Calendar(identifier: .gregorian)
        var distance = Measurement(value: 0, unit: UnitLength.meters)
        var range = NSRange(location: 0, length: 0)
        var span = 0..<0
        init() {}
    }

    @Test("Archives written before these layouts (the values through Codable) still read")
    func codableLayoutStillReads() throws {
        let data = try Data(contentsOf: Fixtures.own("legacy/codable-values.archive"))
        let values = try KeyedUnarchiver.unarchivedObject(ofType: LegacyValues.self, from: data)
        #expect(values.indexes == [1, 2, 3, 10] && values.path == [1, 4] && values.locale.identifier == "de_CH")
        #expect(values.zone.identifier == "America/New_York" && values.calendar.identifier == .iso8601)
        #expect(values.distance == Measurement(value: 2.5, unit: UnitLength.kilometers))
        #expect(values.range == NSRange(location: 3, length: 9) && values.span == 4..<11)
    }
}

@Suite("Apple's Foundation value classes: hostile layouts")
struct AppleValueClassHostileTests {
    /// A keyed archive whose root is an object of `className` with `fields`; `extra` objects follow it at UID 2...
    static func archive(_ className: String, _ fields: PlistDictionary, extra: [PlistValue] = []) throws -> Data {
        var root = fields
        root["$class"] = .uid(UInt64(2 + extra.count))
        return try ZooArchive.archive(objects: ["$null", .dict(root)] + extra + [ZooArchive.classDescription(className)])
    }

    static func error<T>(_ type: T.Type, _ data: Data) throws -> ArchiveError {
        try #require(throws: ArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofType: type, from: data) }
    }

    @Test("An index set whose count its data cannot hold, a cut-short or over-long number, a range past Int.max")
    func indexSets() throws {
        let huge = try Self.error(IndexSet.self, Self.archive("NSIndexSet", ["NSRangeCount": .int(1 << 60), "NSRangeData": .data([1, 2])]))
        #expect(huge.code == .invalidArchive && huge.reason == "NSRangeData holds more than the 2305843009213693952 numbers its count gives" || huge.reason.contains("numbers where"))
        let cut = try Self.error(IndexSet.self, Self.archive("NSIndexSet", ["NSRangeCount": .int(1), "NSRangeData": .data([1, 0x82])]))
        #expect(cut.reason == "NSRangeData ends inside number 1 (at byte 1)" && cut.keyPath == "root.NSRangeData")
        let long = try Self.error(IndexSet.self, Self.archive("NSIndexSet", ["NSRangeCount": .int(1), "NSRangeData": .data([UInt8](repeating: 0xFF, count: 11) + [1, 1])]))
        #expect(long.reason == "NSRangeData number 0 (at byte 0) is longer than 64 bits")
        let past = try Self.error(IndexSet.self, Self.archive("NSIndexSet", ["NSRangeCount": .int(1), "NSLocation": .int(Int64.max), "NSLength": .int(2)]))
        #expect(past.reason == "range 0 (location 9223372036854775807, length 2) reaches past Int.max" && past.byteOffset != nil)
        let negative = try Self.error(IndexSet.self, Self.archive("NSIndexSet", ["NSRangeCount": .int(-1)]))
        #expect(negative.reason == "NSRangeCount -1 is negative")
    }

    @Test("An index path, counted set and attributed string with hostile counts are refused quickly")
    func counts() throws {
        let path = try Self.error(IndexPath.self, Self.archive("NSIndexPath", ["NSIndexPathLength": .int(1 << 40), "NSIndexPathData": .data([1, 2, 3])]))
        #expect(path.reason == "NSIndexPathData holds 3 numbers where 1099511627776 were expected")
        let counted = try Self.error(Any.self, Self.archive("NSCountedSet", ["NS.count": .int(1), "NS.object0": .int(1), "NS.count0": .int(1 << 50)]))
        #expect(counted.code == .sizeLimit)
        let runs = try Self.error(NSAttributedString.self, Self.archive(
            "NSAttributedString", ["NSString": .uid(2), "NSAttributes": .uid(3), "NSAttributeInfo": .data([5, 0, 200, 1, 0])],
            extra: [.string("abc"), .dict(["NS.keys": .array([]), "NS.objects": .array([]), "$class": .uid(4)]), ZooArchive.classDescription("NSDictionary")]))
        #expect(runs.code == .invalidArchive && runs.reason.contains("NSAttributeInfo"))
    }

    @Test("An attributed string whose one run names the second of its attribute dictionaries archives back with that one")
    func oneRunNamingAnotherDictionary() throws {
        let dictionary = { (value: String) -> PlistValue in .dict(["NS.keys": .array([.uid(6)]), "NS.objects": .array([.uid(value == "a" ? 7 : 8)]), "$class": .uid(5)]) }
        let data = try Self.archive(
            "NSAttributedString", ["NSString": .uid(2), "NSAttributes": .uid(3), "NSAttributeInfo": .data([3, 1])],
            extra: [
                .string("abc"), .dict(["NS.objects": .array([.uid(4), .uid(9)]), "$class": .uid(10)]), dictionary("a"),
                ZooArchive.classDescription("NSDictionary"), .string("k"), .string("a"), .string("b"), dictionary("b"),
                ZooArchive.classDescription("NSArray"),
            ])
        let archived = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: data) as? ArchivedAttributedString)
        #expect(archived.runs.count == 1 && archived.runs[0].attributes["k"] as? String == "b")
        let again = try #require(try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: KeyedArchiver.archivedData(withRootObject: archived)) as? ArchivedAttributedString)
        #expect(again.runs.count == 1 && again.runs[0].attributes["k"] as? String == "b" && again.string == "abc")
    }

    @Test("Bad geometry strings and unmapped NSValue kinds say what they hold")
    func values() throws {
        let rect = try Self.error(Any.self, Self.archive("NSValue", ["NS.special": .int(3), "NS.rectval": .uid(2)], extra: [.string("{{1, 2}, {3}}")]))
        #expect(rect.reason == "NS.rectval \"{{1, 2}, {3}}\" is not of the form {{n,n},{n,n}}" && rect.keyPath == "root.NS.rectval")
        let insets = try Self.error(Any.self, Self.archive("NSValue", ["NS.special": .int(12)]))
        #expect(insets.code == .unknownClass && insets.reason.contains("edge insets"))
        let concrete = try Self.error(Any.self, Self.archive("NSValue", ["$0": .uid(2)], extra: [.string("[3i]")]))
        #expect(concrete.code == .unknownClass && concrete.reason.contains("Objective-C type [3i]"))
        let kind = try Self.error(NSRange.self, Self.archive("NSValue", ["NS.special": .int(3)]))
        #expect(kind.reason == "expected an NSValue range (NS.special 4), found NS.special 3")
    }
}
