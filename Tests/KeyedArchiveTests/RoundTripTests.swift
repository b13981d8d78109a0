import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// A large object shared by many Set members.
final class ZooPayload: Archivable {
    var values: [Int] = []
    required init() {}
}

/// A Hashable class (by id) that references a shared payload.
final class ZooMember: Archivable, Hashable {
    var id = 0
    var payload = ZooPayload()
    required init() {}
    static func == (a: ZooMember, b: ZooMember) -> Bool { a.id == b.id }
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// Values and object graphs come back as they went in: every scalar at its extremes, Foundation
/// values, optionals, collections, wrappers, lazy fields, renamed and `$` keys, class hierarchies,
/// shared instances, cycles, polymorphism, schema evolution, deterministic bytes.
@Suite("Round trips")
struct RoundTripTests {
    // MARK: Scalars

    @Test("Every fixed-width integer survives at its minimum and maximum", arguments: [ZooIntegers.minimum, .maximum])
    func integersAtTheirLimits(_ value: ZooIntegers) throws {
        let data = try ZooArchive.encode(value)
        #expect(try ZooArchive.decode(ZooIntegers.self, from: data) == value)
        // Integers of a coded object are inline; UInt64.max is a 16-byte int, Int8.min a negative int.
        let root = try ZooArchive.topObject(data)
        #expect(root["uint64"]?.uint64Value == value.uint64)
        #expect(root["int8"]?.int64Value == Int64(value.int8))
        #expect(root["int64"]?.int64Value == value.int64)
    }

    @Test("Integer extremes survive as collection elements and top-level values")
    func integerExtremesOutsideFields() throws {
        #expect(try ZooArchive.roundTrip([Int64.min, -1, 0, Int64.max]) == [Int64.min, -1, 0, Int64.max])
        #expect(try ZooArchive.roundTrip([UInt64.max, 0, UInt64(Int64.max) + 1]) == [UInt64.max, 0, UInt64(Int64.max) + 1])
        #expect(try ZooArchive.roundTrip(Int8.min) == Int8.min)
        #expect(try ZooArchive.roundTrip(UInt64.max) == UInt64.max)
        #expect(try ZooArchive.roundTrip([UInt8.max: Int16.min]) == [UInt8.max: Int16.min])
    }

    @Test("Reals keep their bit patterns: -0.0, infinities, NaN payloads, subnormals")
    func realsKeepBitPatterns() throws {
        let value = ZooReals.sample
        let data = try ZooArchive.encode(value)
        let back = try ZooArchive.decode(ZooReals.self, from: data)
        #expect(back.bits == value.bits)
        #expect(back.negativeZero.sign == .minus)
        #expect(back.nan.isNaN && back.floatNaN.isNaN)
        // Float is a 4-byte real, Double an 8-byte real, both inline.
        let root = try ZooArchive.topObject(data)
        #expect(root["float"] == .float(1.5))
        #expect(root["double"] == .real(3.141_592_653_589_793))
        #expect(root["negativeZero"] == .real(-0.0))
        #expect(root["negativeZero"] != .real(0.0))
        #expect(root["yes"] == .bool(true))
    }

    @Test("Top-level reals and booleans keep their bits")
    func topLevelReals() throws {
        #expect(try ZooArchive.roundTrip(-0.0).bitPattern == (-0.0).bitPattern)
        #expect(try ZooArchive.roundTrip(Float(-0.0)).bitPattern == Float(-0.0).bitPattern)
        let nan = Double(bitPattern: 0x7FF8_0000_0000_1234)
        #expect(try ZooArchive.roundTrip(nan).bitPattern == nan.bitPattern)
        #expect(try ZooArchive.roundTrip(true) == true)
        #expect(try ZooArchive.roundTrip([false, true]) == [false, true])
    }

    // MARK: Strings

    @Test("Strings: empty, ASCII, non-ASCII, emoji, and composed/decomposed é stay distinct")
    func strings() throws {
        let value = ZooStrings.sample
        let back = try ZooArchive.roundTrip(value)
        #expect(back == value)
        // String == is canonical equivalence, so compare scalars to see that nothing was normalised.
        #expect(back.precomposed.unicodeScalars.map(\.value) == [0xE9])
        #expect(back.decomposed.unicodeScalars.map(\.value) == [0x65, 0x301])
        #expect(back.list[2].unicodeScalars.map(\.value) == [0xE9])
        #expect(back.list[3].unicodeScalars.map(\.value) == [0x65, 0x301])
        #expect(Array(back.emoji.utf8) == Array(value.emoji.utf8))
        #expect(Array(back.nonASCII.utf8) == Array(value.nonASCII.utf8))
    }

    /// Documented behaviour: `"$null"` is an ordinary string. The archiver gives it its own UID
    /// (never UID 0, which means nil), so it decodes as the string `"$null"`, also in an Optional
    /// field and as an array element. (Foundation's archiver would merge it with `$objects[0]`
    /// and read it back as nil; this library keeps the value.)
    @Test("The string \"$null\" is a value, not nil, as a field, an Optional and an array element")
    func dollarNullString() throws {
        let data = try ZooArchive.encode(ZooStrings.sample)
        let back = try ZooArchive.decode(ZooStrings.self, from: data)
        #expect(back.dollarNull == "$null")
        #expect(back.optionalDollarNull == "$null")
        #expect(back.list.first == "$null")
        let objects = try ZooArchive.objects(data)
        let root = try ZooArchive.topObject(data)
        guard case .uid(let uid)? = root["dollarNull"] else {
            Issue.record("dollarNull is not a UID: \(String(describing: root["dollarNull"]))")
            return
        }
        #expect(uid != 0)
        #expect(objects[Int(uid)] == .string("$null"))
        #expect(root["optionalDollarNull"] == .uid(uid))
        #expect(try ZooArchive.roundTrip(["$null", "x"]) == ["$null", "x"])
        #expect(try ZooArchive.roundTrip(Optional("$null")) == "$null")
    }

    // MARK: Foundation values

    @Test("Data (empty, 300 kB), Date, URL (absolute, file, relative with base) and UUID")
    func foundationValues() throws {
        let value = ZooFoundation.sample
        let back = try ZooArchive.roundTrip(value)
        #expect(back.emptyData.isEmpty)
        #expect(back.data == value.data)
        #expect(back.largeData == value.largeData)
        #expect(back.date == value.date)
        #expect(back.distantPast == value.distantPast)
        #expect(back.absoluteURL.absoluteString == value.absoluteURL.absoluteString)
        #expect(back.fileURL.path == "/tmp/some dir/file.txt")
        #expect(back.fileURL.isFileURL)
        #expect(back.relativeURL.relativeString == "sub/page.html?x=1")
        #expect(back.relativeURL.baseURL?.absoluteString == "https://example.com/dir/index.html")
        #expect(back.relativeURL.absoluteString == "https://example.com/dir/sub/page.html?x=1")
        #expect(back.uuid == value.uuid)
        #expect(back == value)
    }

    // MARK: Optionals and collections

    @Test("Optionals of every kind: all nil, and all set")
    func optionals() throws {
        let none = ZooOptionals()
        #expect(try ZooArchive.roundTrip(none) == none)
        let some = ZooOptionals.allSet
        let back = try ZooArchive.roundTrip(some)
        #expect(back == some)
        #expect(back.engine?.horsepower == 300)
        // nil is written as a UID to $null (index 0), as Foundation does.
        let root = try ZooArchive.topObject(try ZooArchive.encode(none))
        #expect(root["int8"] == .uid(0))
        #expect(root["engine"] == .uid(0))
    }

    @Test("An Optional field decodes as nil when its key is absent")
    func absentOptional() throws {
        let data = try ZooArchive.encode(ZooOptionals.allSet)
        let patched = try ZooArchive.patch(data) { objects in
            guard var root = objects[1].dictValue else { return }
            root["string"] = nil
            root["engine"] = nil
            objects[1] = .dict(root)
        }
        let back = try ZooArchive.decode(ZooOptionals.self, from: patched)
        #expect(back.string == nil)
        #expect(back.engine == nil)
        #expect(back.int8 == -8)
    }

    @Test("Empty, flat and nested collections; String, Int, UInt8 and enum keys; Sets")
    func collections() throws {
        let value = ZooCollections.sample
        let back = try ZooArchive.roundTrip(value)
        #expect(back == value)
        #expect(back.emptyArray.isEmpty && back.emptyDictionary.isEmpty && back.emptySet.isEmpty)
        #expect(try ZooArchive.roundTrip(ZooCollections()) == ZooCollections())
    }

    @Test("Top-level collections: arrays, sets, dictionaries, empty ones")
    func topLevelCollections() throws {
        #expect(try ZooArchive.roundTrip([Int]()) == [])
        #expect(try ZooArchive.roundTrip([String: [Int]]()) == [:])
        #expect(try ZooArchive.roundTrip(Set<String>()) == [])
        #expect(try ZooArchive.roundTrip([[String: Set<Int>]]([["a": [1, 2]], [:]])) == [["a": [1, 2]], [:]])
        #expect(try ZooArchive.roundTrip([7: [ZooAddress(street: "s", zip: 1)]]) == [7: [ZooAddress(street: "s", zip: 1)]])
    }

    @Test("A 10,000-element array of Ints, Strings and structs")
    func tenThousandElements() throws {
        let ints = Array(0..<10_000)
        #expect(try ZooArchive.roundTrip(ints) == ints)
        let strings = ints.map { "item \($0)" }
        #expect(try ZooArchive.roundTrip(strings) == strings)
        let addresses = ints.map { ZooAddress(street: "s\($0 % 97)", zip: $0) }
        #expect(try ZooArchive.roundTrip(addresses) == addresses)
    }

    // MARK: Generics, wrappers, lazy, keys

    @Test("A generic Box<T> with a declared class name")
    func genericBox() throws {
        let box = ZooBox<Int>(value: 42, label: "int")
        let data = try ZooArchive.encode(box)
        #expect(try ZooArchive.decode(ZooBox<Int>.self, from: data) == box)
        #expect(ZooArchive.className(of: try ZooArchive.topObject(data), in: try ZooArchive.objects(data)) == "Zoo.Box<Int>")
        let nested = ZooBox<[String: [Int]]>(value: ["a": [1, 2]], label: "dict")
        #expect(try ZooArchive.roundTrip(nested) == nested)
        #expect(try ZooArchive.roundTrip([ZooBox<String>(value: nil, label: "x")]) == [ZooBox<String>(value: nil, label: "x")])
    }

    @Test("A property wrapper is archived under the property's name, its storage coded as Archivable")
    func propertyWrapper() throws {
        var settings = ZooSettings()
        settings.name = "loud"
        settings.volume = 20  // clamped to 11
        #expect(settings.volume == 11)
        let data = try ZooArchive.encode(settings)
        let back = try ZooArchive.decode(ZooSettings.self, from: data)
        #expect(back == settings)
        #expect(back.volume == 11)
        let root = try ZooArchive.topObject(data)
        #expect(root.keys.contains("volume"))
        #expect(!root.keys.contains("_volume"))
        let objects = try ZooArchive.objects(data)
        let wrapper = ZooArchive.resolve(root["volume"], in: objects)?.dictValue
        #expect(wrapper.map { ZooArchive.className(of: $0, in: objects) } == String(reflecting: ZooClamped.self))
        #expect(wrapper?["stored"] == .int(11))
        #expect(wrapper?["upper"] == .int(11))
    }

    @Test("A Codable property wrapper is archived under the property's name")
    func codablePropertyWrapper() throws {
        var card = ZooCard()
        card.number = 4
        card.title = "  padded  "
        #expect(card.title == "padded")
        let data = try ZooArchive.encode(card)
        let root = try ZooArchive.topObject(data)
        #expect(root.keys == ["$class", "number", "title"])
        #expect(try ZooArchive.decode(ZooCard.self, from: data) == card)
    }

    @Test("A lazy var is archived under its name: touched keeps its value, untouched is computed again")
    func lazyProperty() throws {
        let untouched = ZooLazy()
        untouched.seed = 7
        let untouchedData = try ZooArchive.encode(untouched)
        let root = try ZooArchive.topObject(untouchedData)
        #expect(root["derived"] == .uid(0))  // the storage is an Optional, nil until touched
        #expect(!root.keys.contains(where: { $0.contains("lazy") }))
        let untouchedBack = try ZooArchive.decode(ZooLazy.self, from: untouchedData)
        #expect(untouchedBack.seed == 7)
        #expect(untouchedBack.derived == 700)

        let touched = ZooLazy()
        touched.seed = 7
        #expect(touched.derived == 700)
        touched.derived = 5
        let touchedData = try ZooArchive.encode(touched)
        #expect(try ZooArchive.topObject(touchedData)["derived"] == .int(5))
        let touchedBack = try ZooArchive.decode(ZooLazy.self, from: touchedData)
        #expect(touchedBack.derived == 5)
    }

    @Test("archiveKeys renames fields; a key beginning with $ is stored with one more $")
    func archiveKeysAndDollarKeys() throws {
        let value = ZooKeys(x: 9, looksLikeClass: "not a class", fullName: "Ann", dollar: "$")
        let data = try ZooArchive.encode(value)
        #expect(try ZooArchive.decode(ZooKeys.self, from: data) == value)
        let root = try ZooArchive.topObject(data)
        #expect(root.keys == ["$class", "$$x", "$$class", "name", "dollar"])
        #expect(root["$$x"] == .int(9))
        #expect(root["$class"].map { if case .uid = $0 { true } else { false } } == true)
        #expect(ZooArchive.className(of: root, in: try ZooArchive.objects(data)) == String(reflecting: ZooKeys.self))
    }

    @Test("transientFields are not archived and keep their init() values")
    func transientFields() throws {
        var value = ZooTransient()
        value.kept = 5
        value.cache = ["changed": 2]
        let data = try ZooArchive.encode(value)
        #expect(try ZooArchive.topObject(data).keys == ["$class", "kept"])
        let back = try ZooArchive.decode(ZooTransient.self, from: data)
        #expect(back.kept == 5)
        #expect(back.cache == ["default": 1])
        #expect(back.constant == 42)
    }

    @Test("RawRepresentable enums are stored as their raw values")
    func enums() throws {
        let value = ZooEnums(color: .blue, level: .high, maybeColor: .green, levels: [.high, .low])
        let data = try ZooArchive.encode(value)
        #expect(try ZooArchive.decode(ZooEnums.self, from: data) == value)
        let root = try ZooArchive.topObject(data)
        #expect(ZooArchive.resolve(root["color"], in: try ZooArchive.objects(data)) == .string("BLUE"))
        #expect(root["level"] == .int(100))
        #expect(try ZooArchive.roundTrip(ZooEnums()) == ZooEnums())
        #expect(try ZooArchive.roundTrip(ZooColor.green) == .green)
    }

    // MARK: Structs and classes

    @Test("A struct holding classes, and a class holding structs; identity kept across them")
    func structsAndClasses() throws {
        let engine = ZooEngine()
        engine.horsepower = 150
        engine.serial = "E-1"
        let garage = ZooGarage()
        garage.address = ZooAddress(street: "Dock", zip: 1)
        garage.cars = [ZooCar(model: "A", engine: engine, spare: nil), ZooCar(model: "B", engine: ZooEngine(), spare: engine)]
        let back = try ZooArchive.roundTrip(garage)
        #expect(back.address == garage.address)
        #expect(back.cars.map(\.model) == ["A", "B"])
        #expect(back.cars[0].engine.horsepower == 150)
        #expect(back.cars[0].engine.serial == "E-1")
        #expect(back.cars[1].spare === back.cars[0].engine)
        #expect(back.cars[1].engine !== back.cars[0].engine)
        #expect(back.cars[0].spare == nil)
    }

    @Test("A class hierarchy: superclass fields first, $classes is [Sub, Base..., NSObject]")
    func classHierarchy() throws {
        let puppy = ZooPuppy()
        puppy.name = "Rex"
        puppy.legs = 3
        puppy.breed = "Collie"
        puppy.good = false
        puppy.ageWeeks = 9
        let data = try ZooArchive.encode(puppy)
        let root = try ZooArchive.topObject(data)
        let objects = try ZooArchive.objects(data)
        #expect(root.keys == ["$class", "name", "legs", "breed", "good", "ageWeeks"])
        #expect(
            ZooArchive.classChain(of: root, in: objects)
                == [String(reflecting: ZooPuppy.self), String(reflecting: ZooDog.self), String(reflecting: ZooAnimal.self), "NSObject"])
        let back = try ZooArchive.decode(ZooPuppy.self, from: data)
        #expect(back.name == "Rex" && back.legs == 3 && back.breed == "Collie" && !back.good && back.ageWeeks == 9)

        let dogData = try ZooArchive.encode(ZooDog())
        #expect(
            ZooArchive.classChain(of: try ZooArchive.topObject(dogData), in: try ZooArchive.objects(dogData))
                == [String(reflecting: ZooDog.self), String(reflecting: ZooAnimal.self), "NSObject"])
    }

    // MARK: Identity and cycles

    @Test("A shared instance is archived once and comes back as one instance")
    func sharedInstances() throws {
        let engine = ZooEngine()
        engine.serial = "shared"
        let car = ZooCar(model: "m", engine: engine, spare: engine)
        let data = try ZooArchive.encode([car, car, ZooCar(model: "n", engine: engine, spare: nil)])
        let objects = try ZooArchive.objects(data)
        #expect(ZooArchive.uids(ofClass: String(reflecting: ZooEngine.self), in: objects).count == 1)
        // The struct is written per occurrence.
        #expect(ZooArchive.uids(ofClass: String(reflecting: ZooCar.self), in: objects).count == 3)
        let back = try ZooArchive.decode([ZooCar].self, from: data)
        #expect(back.count == 3)
        #expect(back[0].engine === back[0].spare)
        #expect(back[0].engine === back[1].engine)
        #expect(back[2].engine === back[0].engine)
        #expect(back[0].engine.serial == "shared")
    }

    @Test("Equal but distinct instances stay distinct")
    func equalInstancesAreNotMerged() throws {
        let a = ZooEngine()
        let b = ZooEngine()
        let back = try ZooArchive.roundTrip([a, b, a])
        #expect(back[0] !== back[1])
        #expect(back[0] === back[2])
    }

    @Test("Cycles through arrays, dictionaries, optional strong references and weak back-references")
    func cycles() throws {
        let root = ZooNode("root")
        let a = ZooNode("a")
        let b = ZooNode("b")
        root.children = [a, b]
        a.parent = root
        b.parent = root
        a.children = [root]  // cycle through an array
        b.byName = ["root": root, "a": a, "self": b]  // cycles through a dictionary
        a.next = b
        b.next = a  // cycle through optional strong references
        root.next = root  // self-loop
        defer {
            for node in [root, a, b] { node.next = nil; node.children = []; node.byName = [:] }
        }
        let data = try ZooArchive.encode(root)
        #expect(ZooArchive.uids(ofClass: String(reflecting: ZooNode.self), in: try ZooArchive.objects(data)).count == 3)
        let back = try ZooArchive.decode(ZooNode.self, from: data)
        defer { zooUnlink(back) }
        #expect(back.name == "root")
        #expect(back.next === back)
        #expect(back.children.map(\.name) == ["a", "b"])
        let backA = back.children[0]
        let backB = back.children[1]
        #expect(backA.parent === back)
        #expect(backB.parent === back)
        #expect(back.parent == nil)
        #expect(backA.children.count == 1 && backA.children[0] === back)
        #expect(backB.byName["root"] === back)
        #expect(backB.byName["a"] === backA)
        #expect(backB.byName["self"] === backB)
        #expect(backA.next === backB)
        #expect(backB.next === backA)
        for node in [back, backA, backB] { node.next = nil; node.children = []; node.byName = [:] }
    }

    @Test("A weak back-reference whose target is only weakly referenced comes back nil")
    func weakOnlyTarget() throws {
        let child = ZooNode("child")
        let orphanParent = ZooNode("parent")  // not reachable strongly from the root
        child.parent = orphanParent
        let back = try ZooArchive.roundTrip(child)
        // The parent was decoded, but nothing strong holds it once the unarchiver is gone.
        #expect(back.parent == nil || back.parent?.name == "parent")
        withExtendedLifetime(orphanParent) {}
    }

    @Test("An unowned back-reference points at the decoded owner")
    func unownedField() throws {
        let owner = ZooOwner()
        owner.name = "Ann"
        for name in ["Tom", "Kit"] {
            let pet = ZooPet()
            pet.name = name
            pet.owner = owner
            owner.pets.append(pet)
        }
        let back = try ZooArchive.roundTrip(owner)
        #expect(back.pets.map(\.name) == ["Tom", "Kit"])
        #expect(back.pets.allSatisfy { $0.owner === back })
        #expect(back.pets[0].owner.name == "Ann")
        owner.pets = []
        back.pets = []
    }

    // MARK: Polymorphism

    private static func makeKeeper() -> ZooKeeper {
        let keeper = ZooKeeper()
        let puppy = ZooPuppy()
        puppy.name = "Rex"
        puppy.ageWeeks = 8
        let cat = ZooCat()
        cat.name = "Tom"
        cat.indoor = true
        let dog = ZooDog()
        dog.breed = "Pug"
        let plain = ZooAnimal()
        plain.legs = 6
        keeper.favorite = puppy
        keeper.animals = [dog, cat, plain, puppy]
        keeper.optionalAnimal = cat
        return keeper
    }

    @Test("A base-class field holding subclass instances round-trips when the subclasses are registered")
    func polymorphismWithRegistration() throws {
        let data = try ZooArchive.encode(Self.makeKeeper())
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.register(ZooDog.self, ZooPuppy.self, ZooCat.self)
        let back = try unarchiver.decode(ZooKeeper.self, forKey: "root")
        let favorite = try #require(back.favorite as? ZooPuppy)
        #expect(favorite.name == "Rex" && favorite.ageWeeks == 8)
        #expect(back.animals.map { String(describing: type(of: $0)) } == ["ZooDog", "ZooCat", "ZooAnimal", "ZooPuppy"])
        #expect(back.animals[3] === favorite)
        #expect((back.animals[0] as? ZooDog)?.breed == "Pug")
        #expect((back.animals[1] as? ZooCat)?.indoor == true)
        #expect(back.animals[2].legs == 6)
        #expect(back.optionalAnimal === back.animals[1])
    }

    @Test("setClass maps an archived name to a subclass too")
    func polymorphismWithSetClass() throws {
        var pen = ZooPen()
        let cat = ZooCat()
        cat.indoor = true
        pen.animal = cat
        let data = try ZooArchive.encode(pen)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(ZooCat.self, forClassName: String(reflecting: ZooCat.self))
        let back = try unarchiver.decode(ZooPen.self, forKey: "root")
        #expect((back.animal as? ZooCat)?.indoor == true)
    }

    @Test("An unregistered subclass fails with .unknownClass naming the class and register(_:)")
    func polymorphismWithoutRegistration() throws {
        let data = try ZooArchive.encode(Self.makeKeeper())
        let error = try #require(ZooArchive.decodeError(ZooKeeper.self, from: data))
        #expect(error.code == .unknownClass)
        #expect(error.reason.contains(String(reflecting: ZooPuppy.self)))
        #expect(error.reason.contains("register"))
        #expect(error.keyPath == "root.favorite")
        #expect(error.byteOffset != nil)
    }

    /// Regression test for a bug found while writing this suite (fixed in f37c4dc):
    /// `KeyedUnarchiver.register(_:)` was ignored once the unarchiver had looked up any class
    /// name (`UnarchiverCore.mappedType` cached `registeredByName` and never invalidated it), so
    /// the retry the error message suggests kept failing with `.unknownClass`.
    @Test("register(_:) after a failed lookup takes effect on the next decode")
    func registerAfterFailedLookup() throws {
        var pen = ZooPen()
        pen.animal = ZooCat()
        let data = try ZooArchive.encode(pen)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(throws: ArchiveError.self) { try unarchiver.decode(ZooPen.self, forKey: "root") }
        unarchiver.register(ZooCat.self)
        let back = try unarchiver.decode(ZooPen.self, forKey: "root")
        #expect(back.animal is ZooCat)
    }

    /// Regression test for a bug found while writing this suite (fixed in f37c4dc): after a
    /// decode failed part-way through a class instance (here `.unknownClass` in `favorite`),
    /// the half-decoded instance stayed in the unarchiver's UID → instance table, and a retry
    /// after `setClass` returned it **without an error** (`favorite` the `init()` default,
    /// `animals` empty). A retry must decode afresh; it must never hand out a half-built object.
    @Test("Retrying a failed decode never returns the half-decoded instance")
    func retryAfterFailedDecode() throws {
        let keeper = ZooKeeper()
        let cat = ZooCat()
        cat.indoor = true
        keeper.favorite = cat
        keeper.animals = [cat]
        let data = try ZooArchive.encode(keeper)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(throws: ArchiveError.self) { try unarchiver.decode(ZooKeeper.self, forKey: "root") }
        unarchiver.setClass(ZooCat.self, forClassName: String(reflecting: ZooCat.self))
        let back = try unarchiver.decode(ZooKeeper.self, forKey: "root")
        #expect(back.favorite is ZooCat, "got a \(type(of: back.favorite)): the half-decoded instance from the failed attempt")
        #expect(back.animals.count == 1)
    }

    // MARK: Any

    @Test("[Any] and [String: Any] of plist values decode without registration, 1, 1.0 and true stay distinct")
    func anyCollections() throws {
        let values: [Any] = [
            1, 2.5, true, false, "text", Int64.min, UInt64.max, [1, "a", [2.0]] as [Any],
            ["k": 1, "nested": ["deep": [true]] as [String: Any]] as [String: Any], NSNull(), 1.0, Float(0.5),
        ]
        let back = try ZooArchive.roundTrip(values)
        try #require(back.count == values.count)
        #expect(back[0] as? Int == 1 && type(of: back[0]) == Int.self)
        #expect(back[1] as? Double == 2.5)
        #expect(back[2] as? Bool == true && type(of: back[2]) == Bool.self)
        #expect(back[3] as? Bool == false && type(of: back[3]) == Bool.self)
        #expect(back[4] as? String == "text")
        #expect(back[5] as? Int == Int(Int64.min))
        #expect(back[6] as? UInt64 == UInt64.max)
        let nested = try #require(back[7] as? [Any])
        #expect(nested[0] as? Int == 1 && nested[1] as? String == "a" && (nested[2] as? [Any])?.first as? Double == 2.0)
        let dict = try #require(back[8] as? [String: Any])
        #expect(dict["k"] as? Int == 1)
        #expect(((dict["nested"] as? [String: Any])?["deep"] as? [Any])?.first as? Bool == true)
        #expect(back[9] is NSNull)
        #expect(back[10] as? Double == 1.0 && type(of: back[10]) == Double.self)
        #expect(back[11] as? Float == 0.5 && type(of: back[11]) == Float.self)

        let object: [String: Any] = ["int": 1, "bool": true, "real": 1.0, "null": NSNull(), "list": [1, 2] as [Any], "s": "x"]
        let objectBack = try ZooArchive.roundTrip(object)
        #expect(type(of: objectBack["int"]!) == Int.self)
        #expect(type(of: objectBack["bool"]!) == Bool.self)
        #expect(type(of: objectBack["real"]!) == Double.self)
        #expect(objectBack["null"] is NSNull)
        #expect((objectBack["list"] as? [Any])?.count == 2)
        #expect(objectBack["s"] as? String == "x")
    }

    @Test("Any holding Foundation values, and a top-level Any")
    func anyFoundationValues() throws {
        let date = Date(timeIntervalSinceReferenceDate: 42)
        let uuid = UUID()
        let values: [Any] = [date, Data([1, 2]), URL(string: "https://example.com/x")!, uuid, Set<AnyHashable>([1, "a"])]
        let back = try ZooArchive.roundTrip(values)
        #expect(back[0] as? Date == date)
        #expect(back[1] as? Data == Data([1, 2]))
        #expect((back[2] as? URL)?.absoluteString == "https://example.com/x")
        #expect(back[3] as? UUID == uuid)
        #expect(back[4] as? Set<AnyHashable> == Set<AnyHashable>([1, "a"]))
        let top = try ZooArchive.decode(Any.self, from: try ZooArchive.encode(["a": [1, 2]] as [String: Any]))
        #expect(((top as? [String: Any])?["a"] as? [Any])?.count == 2)
    }

    @Test("Any holding Archivable structs and classes decodes them once registered")
    func anyHoldingArchivables() throws {
        let engine = ZooEngine()
        engine.serial = "any"
        let values: [Any] = [ZooAddress(street: "s", zip: 2), engine, engine, ["nested": engine] as [String: Any]]
        let data = try ZooArchive.encode(values)
        let unknown = try #require(ZooArchive.decodeError([Any].self, from: data))
        #expect(unknown.code == .unknownClass)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.register(ZooAddress.self, ZooEngine.self)
        let back = try unarchiver.decode([Any].self, forKey: "root")
        #expect(back[0] as? ZooAddress == ZooAddress(street: "s", zip: 2))
        let backEngine = try #require(back[1] as? ZooEngine)
        #expect(backEngine.serial == "any")
        #expect(back[2] as? ZooEngine === backEngine)
        #expect((back[3] as? [String: Any])?["nested"] as? ZooEngine === backEngine)
    }

    // MARK: Schema evolution

    @Test("An archive lacking a newer field keeps the init() default; extra keys are ignored")
    func schemaEvolution() throws {
        let old = ZooProfileV1(name: "Ann", age: 41)
        let upgraded = try ZooArchive.decode(ZooProfileV2.self, from: try ZooArchive.encode(old))
        #expect(upgraded.name == "Ann")
        #expect(upgraded.email == "unknown@example.com")
        #expect(upgraded.tags == ["new"])

        let new = ZooProfileV2(name: "Bob", email: "bob@example.com", tags: ["a", "b"])
        let downgraded = try ZooArchive.decode(ZooProfileV1.self, from: try ZooArchive.encode(new))
        #expect(downgraded.name == "Bob")
        #expect(downgraded.age == 0)
    }

    // MARK: Deterministic bytes

    struct ZooDeterminism: Archivable {
        var strings: Set<String> = []
        var ints: Set<Int> = []
        var doubles: Set<Double> = []
        var table: [String: Int] = [:]
        var byInt: [Int: [String]] = [:]
        var byLevel: [ZooLevel: Set<String>] = [:]
        var uuids: Set<UUID> = []
        var nested: [String: [String: Set<Int>]] = [:]
        var node: ZooNode? = nil

        /// The same contents each time; `reversed` inserts in the opposite order into differently sized storage.
        static func make(reversed: Bool) -> ZooDeterminism {
            var order = Array(0..<600)
            if reversed { order.reverse() }
            var value = ZooDeterminism()
            if reversed {
                value.strings.reserveCapacity(5_000)
                value.table.reserveCapacity(3_000)
            }
            var generator = ZooRandom(seed: 99)
            let uuids = (0..<64).map { _ in
                UUID(uuid: (
                    UInt8.random(in: 0...255, using: &generator), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                    UInt8.random(in: 0...255, using: &generator)))
            }
            for i in order {
                value.strings.insert("key-\(i * 7919 % 1000)")
                value.ints.insert(i &* 2_654_435_761 % 100_003 - 50_000)
                value.doubles.insert(Double(i) / 3)
                value.table["entry \(i)"] = i
                value.byInt[i % 50, default: []].append("x")
                value.nested["n\(i % 13)", default: [:]]["m\(i % 7)", default: []].insert(i)
            }
            for uuid in reversed ? uuids.reversed() : uuids { value.uuids.insert(uuid) }
            value.byLevel = [.low: ["a", "b", "c"], .high: ["z"]]
            let node = ZooNode("n")
            for i in order where i < 40 { node.byName["k\(i)"] = node }
            value.node = node
            return value
        }
    }

    @Test("The same graph archived twice, in two archivers, gives identical bytes (Sets and Dictionaries included)")
    func deterministicBytes() throws {
        let value = ZooDeterminism.make(reversed: false)
        let first = try ZooArchive.encode(value)
        let second = try ZooArchive.encode(value)
        #expect(first == second)
        // An equal graph built in another order (other hash-table layout) gives the same bytes too.
        let rebuilt = ZooDeterminism.make(reversed: true)
        #expect(rebuilt.strings == value.strings && rebuilt.table == value.table)
        let third = try ZooArchive.encode(rebuilt)
        #expect(third == first)
        let back = try ZooArchive.decode(ZooDeterminism.self, from: first)
        #expect(back.strings == value.strings && back.ints == value.ints && back.doubles == value.doubles)
        #expect(back.table == value.table && back.byInt == value.byInt && back.uuids == value.uuids)
        #expect(back.nested == value.nested && back.byLevel == value.byLevel)
        #expect(back.node?.byName.count == 40 && back.node?.byName.values.allSatisfy { $0 === back.node } == true)
        value.node?.byName = [:]
        rebuilt.node?.byName = [:]
        back.node?.byName = [:]
    }

    /// Set elements already archived elsewhere are ordered by their UID, so identity-hashed
    /// instances with equal fields (which archive to the same bytes on their own) still come out
    /// in one order: identically built graphs give identical bytes.
    @Test("Identically built graphs with a Set of identity-hashed instances give identical bytes")
    func setOfIdentityHashedInstances() throws {
        let first = ZooRefHolder.make()
        let second = ZooRefHolder.make()
        #expect(try ZooArchive.encode(first) == ZooArchive.encode(first))
        #expect(try ZooArchive.encode(first) == ZooArchive.encode(second))
        let back = try ZooArchive.roundTrip(first)
        #expect(back.set == Set(back.list))
        #expect(back.list.count == 30)
    }

    // MARK: Multi-object archives

    @Test("A multi-object archive: keys in order, shared instance stays shared across keys")
    func multiObjectArchive() throws {
        let engine = ZooEngine()
        engine.serial = "multi"
        let garage = ZooGarage()
        garage.cars = [ZooCar(model: "x", engine: engine, spare: nil)]
        let archiver = KeyedArchiver()
        try archiver.encode(engine, forKey: "zeta")
        try archiver.encode(garage, forKey: "alpha")
        try archiver.encode(41, forKey: "mid")
        try archiver.encode(["a", "b"], forKey: "list")
        try archiver.encode(42, forKey: "mid")  // the same key again replaces the value, keeps the position
        let data = try archiver.encodedData
        #expect(try archiver.encodedData == data)

        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(unarchiver.allKeys == ["zeta", "alpha", "mid", "list"])
        #expect(unarchiver.containsValue(forKey: "alpha"))
        #expect(!unarchiver.containsValue(forKey: "root"))
        let backGarage = try unarchiver.decode(ZooGarage.self, forKey: "alpha")
        let backEngine = try unarchiver.decode(ZooEngine.self, forKey: "zeta")
        #expect(backGarage.cars[0].engine === backEngine)
        #expect(backEngine.serial == "multi")
        #expect(try unarchiver.decode(Int.self, forKey: "mid") == 42)
        #expect(try unarchiver.decode([String].self, forKey: "list") == ["a", "b"])
        #expect(ZooArchive.uids(ofClass: String(reflecting: ZooEngine.self), in: try ZooArchive.objects(data)).count == 1)

        let missing = try #require(throws: ArchiveError.self) { try unarchiver.decode(Int.self, forKey: "nope") }
        #expect(missing.code == .keyNotFound)
        #expect(missing.keyPath == "nope")
    }

    @Test("setClassName renames a type in one archive; setClass reads it back")
    func setClassNameAndSetClass() throws {
        let engine = ZooEngine()
        engine.horsepower = 7
        let archiver = KeyedArchiver()
        archiver.setClassName("Legacy.Motor", for: ZooEngine.self)
        try archiver.encode([engine], forKey: "root")
        let data = try archiver.encodedData
        let objects = try ZooArchive.objects(data)
        let uids = ZooArchive.uids(ofClass: "Legacy.Motor", in: objects)
        #expect(uids.count == 1)
        #expect(uids.first.map { ZooArchive.classChain(of: objects[$0].dictValue ?? [:], in: objects) } == ["Legacy.Motor", "NSObject"])
        // Other archives are not affected.
        #expect(ZooArchive.uids(ofClass: "Legacy.Motor", in: try ZooArchive.objects(try ZooArchive.encode(engine))).isEmpty)

        let unknown = try #require(ZooArchive.decodeError([ZooEngine].self, from: data))
        #expect(unknown.code == .unknownClass)
        #expect(unknown.reason.contains("Legacy.Motor"))
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(ZooEngine.self, forClassName: "Legacy.Motor")
        #expect(try unarchiver.decode([ZooEngine].self, forKey: "root").first?.horsepower == 7)
    }

    @Test("encodedData finishes the archive: reading it again gives the same bytes, encoding again is .misuse")
    func encodedDataFinishes() throws {
        let archiver = KeyedArchiver()
        try archiver.encode(1, forKey: "a")
        let first = try archiver.encodedData
        #expect(!first.isEmpty)
        #expect(try archiver.encodedData == first)
        let error = try #require(throws: ArchiveError.self) { try archiver.encode(2, forKey: "b") }
        #expect(error.code == .misuse)
    }

    /// After an `encode(_:forKey:)` that failed half-way (here inside an array), the keys encoded
    /// before it are kept and `encodedData` is a valid archive.
    @Test("A failed encode does not silently empty the archive")
    func failedEncodeKeepsEarlierKeys() throws {
        let archiver = KeyedArchiver()
        try archiver.encode("kept", forKey: "a")
        #expect(throws: ArchiveError.self) { try archiver.encode([ZooPlain()], forKey: "b") }
        let data = try archiver.encodedData
        #expect(!data.isEmpty, "encodedData is empty after a failed encode; key \"a\" is lost without an error")
        if !data.isEmpty {
            #expect(try KeyedUnarchiver(forReadingFrom: data).decode(String.self, forKey: "a") == "kept")
        }
    }

    /// The instances a failed `encode(_:forKey:)` registered are forgotten, so a later encode
    /// writes them in full (not as a reference to the object abandoned half-way); instances
    /// registered by earlier, successful encodes stay shared.
    @Test("Instances first met in a failed encode are written in full later; earlier ones stay shared")
    func failedEncodeForgetsItsInstances() throws {
        let archiver = KeyedArchiver()
        let shared = ZooNode("shared")
        try archiver.encode(shared, forKey: "a")
        let fresh = ZooAnyBox()
        fresh.name = "fresh"
        fresh.contents = [shared, ZooHoldsPlain()]
        #expect(throws: ArchiveError.self) { try archiver.encode(fresh, forKey: "b") }
        fresh.contents = [shared]
        try archiver.encode(fresh, forKey: "c")
        let unarchiver = try KeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.register(ZooNode.self)
        let a = try unarchiver.decode(ZooNode.self, forKey: "a")
        let c = try unarchiver.decode(ZooAnyBox.self, forKey: "c")
        #expect(a.name == "shared")
        #expect(c.name == "fresh")
        try #require(c.contents.count == 1)
        #expect(c.contents[0] as? ZooNode === a, "the instance encoded before the failure is no longer shared")
    }

    // MARK: Long chains

    @Test("A 400-node linked list (under the default depth of 512) round-trips")
    func longLinkedList() throws {
        let head = ZooNode("0")
        var tail = head
        for i in 1..<400 {
            let node = ZooNode("\(i)")
            tail.next = node
            tail = node
        }
        defer { zooUnlink(head) }
        let back = try ZooArchive.roundTrip(head)
        defer { zooUnlink(back) }
        var count = 0
        var current: ZooNode? = back
        while let node = current {
            #expect(node.name == "\(count)")
            count += 1
            current = node.next
        }
        #expect(count == 400)
    }

    /// Both sides stop at a depth of 512 by default, so whatever is written can be read back:
    /// a 600-node linked list fails to encode with `.depthLimit` (a clear error, not a stack
    /// overflow), and with `maximumDepth` raised on the archiver and the unarchiver it round-trips.
    @Test("A 600-node linked list needs maximumDepth raised on both sides")
    func linkedListDeeperThanDefaultDepth() throws {
        let head = ZooNode("0")
        var tail = head
        for i in 1..<600 {
            let node = ZooNode("\(i)")
            tail.next = node
            tail = node
        }
        defer { zooUnlink(head) }
        let refused = try #require(throws: ArchiveError.self) { try ZooArchive.encode(head) }
        #expect(refused.code == .depthLimit)
        let archiver = KeyedArchiver()
        archiver.maximumDepth = 700
        try onThread(stackSize: deepStack) { try archiver.encode(head, forKey: "root") }
        let data = try archiver.encodedData
        let error = try #require(ZooArchive.decodeError(ZooNode.self, from: data))
        #expect(error.code == .depthLimit)
        var options = KeyedUnarchiver.Options()
        options.maximumDepth = 700
        let back = try onThread(stackSize: deepStack) {
            try KeyedUnarchiver(forReadingFrom: data, options: options).decode(ZooNode.self, forKey: "root")
        }
        defer { zooUnlink(back) }
        #expect(back.next?.next?.name == "2")
    }

    #if os(macOS) || os(Linux)  // exit tests run in a child process, which iOS, tvOS, watchOS and visionOS do not allow
    /// Encoding a 9,000-node linked list stops at the archiver's depth limit (512 by default)
    /// with `.depthLimit`, long before the stack runs out (isolated in an exit test all the same).
    @Test("Encoding a 9,000-node linked list never crashes")
    func veryLongLinkedListDoesNotCrash() async {
        await #expect(processExitsWith: .success) {
            let head = ZooNode("0")
            var tail = head
            for i in 1..<9_000 {
                let node = ZooNode("\(i)")
                tail.next = node
                tail = node
            }
            do {
                _ = try KeyedArchiver.archivedData(withRootObject: head)
            } catch let error as ArchiveError {
                _ = error  // .depthLimit would be acceptable
            } catch {
                exit(3)
            }
            zooUnlink(head)
        }
    }
    #endif
}

/// `[String]`, `[Int]`, `[Double]`, `[String: String]`, `[String: Int]` and `[String: Double]` have
/// coders compiled for their types; they must write and read exactly what the generic coders do.
@Suite("Collections with specialised coders")
struct SpecialisedCollectionTests {
    struct Holder: Archivable, Equatable {
        var strings: [String] = []
        var ints: [Int] = []
        var doubles: [Double] = []
        var names: [String: String] = [:]
        var counts: [String: Int] = [:]
        var scores: [String: Double] = [:]
    }

    @Test("They round-trip, empty and full, with NaN, -0.0, Int.min and non-ASCII keys")
    func roundTrip() throws {
        let full = Holder(
            strings: ["a", "", "é😀", "a"], ints: [Int.min, 0, Int.max, 7], doubles: [-0.0, .infinity, 1.5],
            names: ["k": "v", "é": "😀", "": ""], counts: ["x": -1, "y": Int.max], scores: ["pi": 3.14, "neg": -0.0])
        #expect(try ZooArchive.roundTrip(full) == full)
        #expect(try ZooArchive.roundTrip(Holder()) == Holder())
        let nan = try ZooArchive.roundTrip([Double.nan])
        #expect(nan.count == 1 && nan[0].isNaN)
    }

    @Test("They write the same bytes as the generic coders (the same values as [Any] and [AnyHashable: Any])")
    func sameBytesAsGeneric() throws {
        let strings = ["b", "a", "b"]
        #expect(try ZooArchive.encode(strings) == ZooArchive.encode(strings.map { $0 as Any }))
        let counts = ["zeta": 1, "alpha": 2, "mid": 3]
        let generic: [String: Any] = counts
        #expect(try ZooArchive.encode(counts) == ZooArchive.encode(generic))
    }

    @Test("Errors name the element: a string in [Int], an integer in [String: String], duplicate keys")
    func errors() throws {
        let wrongElement = try ZooArchive.encode(["1", "2"] as [Any])
        let intError = try #require(ZooArchive.decodeError([Int].self, from: wrongElement))
        #expect(intError.code == .typeMismatch && intError.keyPath == "root[0]", "\(intError)")
        // The byte offset and the object index name the same object: the string found.
        let bytes = [UInt8](wrongElement)
        let trailer = bytes.count - 32
        let width = Int(bytes[trailer + 6])
        let table = bytes[(trailer + 24)...].prefix(8).reduce(0) { $0 << 8 | Int($1) }
        let index = try #require(intError.objectIndex)
        let start = table + index * width
        #expect(bytes[start..<(start + width)].reduce(0) { $0 << 8 | Int($1) } == intError.byteOffset)
        #expect(intError.byteOffset.map { bytes[$0] } == 0x51, "a one-character ASCII string")
        let wrongValue = try ZooArchive.encode(["k": 5] as [String: Any])
        let stringError = try #require(ZooArchive.decodeError([String: String].self, from: wrongValue))
        #expect(stringError.code == .typeMismatch && stringError.keyPath == "root.k", "\(stringError)")
        let duplicate = try ZooArchive.patch(try ZooArchive.encode(["a": 1, "b": 2])) { objects in
            for i in objects.indices {
                guard var dict = objects[i].dictValue, case .array(let keys)? = dict["NS.keys"] else { continue }
                dict["NS.keys"] = .array([keys[0], keys[0]])
                objects[i] = .dict(dict)
            }
        }
        let duplicateError = try #require(ZooArchive.decodeError([String: Int].self, from: duplicate))
        #expect(duplicateError.code == .invalidArchive && duplicateError.reason.contains("twice"), "\(duplicateError)")
    }
}

/// A class whose field holds anything, so an encode can fail inside one of its instances.
private final class ZooAnyBox: Archivable {
    var name = ""
    var contents: [Any] = []
    required init() {}
}
