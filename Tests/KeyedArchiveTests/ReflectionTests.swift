import Foundation
import KeyedArchive
import PropertyList
import Testing

/// Plain base class (not Archivable) under an Archivable subclass.
class ZooPlainBase {
    var baseField = 1
    init() {}
}

final class ZooFromPlainBase: ZooPlainBase, Archivable {
    var own = 2
    override init() {}
}

/// A plain stored property whose name starts with `_` (not a property wrapper), renamed in archiveKeys.
struct ZooUnderscored: Archivable {
    var _secret = 1
    var other = 2
    static var archiveKeys: [String: String] { ["_secret": "s"] }
}

/// `unowned` Optional (Swift 5+): an unowned reference, not a weak one.
final class ZooUnownedOptional: Archivable {
    var name = ""
    unowned var owner: ZooOwner? = nil
    required init() {}
}

/// `unowned(unsafe)`: a plain pointer with no reference counting.
final class ZooUnownedUnsafe: Archivable {
    var name = ""
    unowned(unsafe) var owner: ZooEngine = ZooUnownedUnsafe.placeholder
    required init() {}
    nonisolated(unsafe) static let placeholder: ZooEngine = {
        let engine = ZooEngine()
        engine.horsepower = 12_345
        engine.serial = "placeholder"
        return engine
    }()
}

/// A class-bound protocol for a weak delegate.
protocol ZooDelegate: AnyObject {}
extension ZooEngine: ZooDelegate {}

final class ZooWeakDelegate: Archivable {
    var name = ""
    weak var delegate: (any ZooDelegate)?
    required init() {}
}

final class ZooTransientDelegate: Archivable {
    var name = ""
    weak var delegate: (any ZooDelegate)?
    static var transientFields: Set<String> { ["delegate"] }
    required init() {}
}

/// An enum cannot be reflection-coded.
enum ZooArchivableEnum: Archivable {
    case only
    init() { self = .only }
}

struct ZooTupleField: Archivable {
    var pair = (1, "a")
}

/// Both KeyedCoding and Archivable: KeyedCoding wins.
struct ZooBothStrategies: KeyedCoding, Archivable {
    var value = 1
    init() {}
    func encode(with coder: KeyedEncodingCoder) throws { try coder.encode(value * 10, forKey: "handWritten") }
    init(from coder: KeyedDecodingCoder) throws { value = try coder.decode(Int.self, forKey: "handWritten") / 10 }
    /// Both protocols default it, so a type adopting both must declare it.
    static var archiveClassName: String? { "Zoo.Both" }
}

/// What reflection archives and refuses: `let` fields, types and fields that cannot be coded,
/// field order, and agreement between the cached field layout and `Mirror`.
@Suite("Reflection")
struct ReflectionTests {
    // MARK: let fields

    @Test("A type with an archived let is refused with .letField naming the field and the fixes, when archived and when unarchived")
    func letFieldInInit() throws {
        let encodeError = try #require(ZooArchive.encodeError(ZooLetInInit(id: 99, name: "n")))
        #expect(encodeError.code == .letField)
        #expect(encodeError.keyPath == "root.id")
        #expect(
            encodeError.reason
                == "KeyedArchiveTests.ZooLetInInit.id is a let constant; reflection cannot restore it. Declare it var, list it in transientFields, or adopt KeyedCoding or Codable")
        // An archive made elsewhere (here by a twin with a var) is refused the same way when decoded.
        let archiver = KeyedArchiver()
        archiver.setClassName(String(reflecting: ZooLetInInit.self), for: ZooVarTwin.self)
        try archiver.encode(ZooVarTwin(), forKey: "root")
        let error = try #require(ZooArchive.decodeError(ZooLetInInit.self, from: try archiver.encodedData))
        #expect(error.code == .letField)
        #expect(error.keyPath == "root.id")
        #expect(error.reason == encodeError.reason)
    }

    @Test("A let with a default value (folded to a constant in release) is refused the same way")
    func letFieldWithDefault() throws {
        let value = ZooLetWithDefault()
        value.first = 5
        let error = try #require(ZooArchive.encodeError(value))
        #expect(error.code == .letField)
        #expect(error.keyPath == "root.created")
        #expect(error.reason.contains("ZooLetWithDefault.created is a let constant"))
        #expect(error.reason.contains("var") && error.reason.contains("transientFields") && error.reason.contains("KeyedCoding"))
    }

    @Test("A let listed in transientFields is fine")
    func transientLet() throws {
        let back = try ZooArchive.roundTrip(ZooTransient())
        #expect(back.constant == 42)
    }

    // MARK: Not archivable

    @Test("A type with no conformance fails with .notArchivable naming the type, both ways")
    func plainStructIsNotArchivable() throws {
        let encodeError = try #require(ZooArchive.encodeError(ZooPlain()))
        #expect(encodeError.code == .notArchivable)
        #expect(encodeError.reason.contains("ZooPlain"))
        #expect(encodeError.reason.contains("Archivable"))
        #expect(encodeError.keyPath == "root")

        let decodeError = try #require(ZooArchive.decodeError(ZooPlain.self, from: try ZooArchive.encode(ZooAddress())))
        #expect(decodeError.code == .notArchivable)
        #expect(decodeError.reason.contains("ZooPlain"))
    }

    @Test("A field of a type that is not archivable fails with its key path")
    func notArchivableField() throws {
        let error = try #require(ZooArchive.encodeError(ZooHoldsPlain()))
        #expect(error.code == .notArchivable)
        #expect(error.reason.contains("ZooPlain"))
        #expect(error.keyPath == "root.plain")
        let inArray = try #require(ZooArchive.encodeError([ZooAddress(), ZooAddress()] as [Any] + [ZooPlain()]))
        #expect(inArray.code == .notArchivable)
        #expect(inArray.keyPath == "root[2]")
        // In a dictionary, whose entries are put in key order in a temporary buffer first: with a
        // few entries and with more than the insertion sort handles, string and integer keys.
        for count in [3, 40] {
            var byName: [String: Any] = [:]
            var byNumber: [Int: Any] = [:]
            for i in 0..<count {
                byName["k\(i)"] = "v\(i)"
                byNumber[i] = i
            }
            byName["k1"] = ZooPlain()
            byNumber[1] = ZooPlain()
            let named = try #require(ZooArchive.encodeError(byName))
            #expect(named.code == .notArchivable && named.keyPath == "root.k1", "\(named)")
            let numbered = try #require(ZooArchive.encodeError(byNumber))
            #expect(numbered.code == .notArchivable && numbered.keyPath == "root.1", "\(numbered)")
        }
    }

    @Test("A closure field is .notArchivable naming the field, unless it is transient")
    func closureField() throws {
        let error = try #require(ZooArchive.encodeError(ZooWithClosure()))
        #expect(error.code == .notArchivable)
        #expect(error.reason.contains("onChange"))
        #expect(error.reason.contains("transientFields"))
        let decodeError = try #require(ZooArchive.decodeError(ZooWithClosure.self, from: try ZooArchive.encode(ZooAddress())))
        #expect(decodeError.code == .notArchivable)

        let optional = try #require(ZooArchive.encodeError(ZooWithOptionalClosure()))
        #expect(optional.code == .notArchivable)
        #expect(optional.reason.contains("transform"))

        // Transient: fine (ZooTransient has a transient closure).
        var transient = ZooTransient()
        transient.kept = 3
        #expect(try ZooArchive.roundTrip(transient).kept == 3)
    }

    @Test("A tuple field is .notArchivable with its key path")
    func tupleField() throws {
        let error = try #require(ZooArchive.encodeError(ZooTupleField()))
        #expect(error.code == .notArchivable)
        #expect(error.keyPath == "root.pair")
    }

    @Test("An Archivable enum fails with .reflection naming the type and KeyedCoding")
    func archivableEnum() throws {
        let error = try #require(ZooArchive.encodeError(ZooArchivableEnum.only))
        #expect(error.code == .reflection)
        #expect(error.reason.contains("ZooArchivableEnum"))
        #expect(error.reason.contains("KeyedCoding"))
    }

    @Test("A weak protocol-typed delegate is .notArchivable naming the field, unless transient")
    func weakProtocolDelegate() throws {
        let error = try #require(ZooArchive.encodeError(ZooWeakDelegate()))
        #expect(error.code == .notArchivable)
        #expect(error.reason.contains("delegate"))
        #expect(error.reason.contains("transientFields"))
        let value = ZooTransientDelegate()
        value.name = "t"
        let engine = ZooEngine()
        value.delegate = engine
        let back = try ZooArchive.roundTrip(value)
        #expect(back.name == "t")
        #expect(back.delegate == nil)
    }

    @Test("A type that is both KeyedCoding and Archivable is coded by KeyedCoding")
    func keyedCodingBeforeArchivable() throws {
        var value = ZooBothStrategies()
        value.value = 4
        let data = try ZooArchive.encode(value)
        #expect(try ZooArchive.topObject(data).keys == ["$class", "handWritten"])
        #expect(try ZooArchive.topObject(data)["handWritten"] == .int(40))
        #expect(try ZooArchive.decode(ZooBothStrategies.self, from: data).value == 4)
    }

    // MARK: Non-strong references

    #if os(macOS) || os(Linux)  // exit tests run in a child process, which iOS, tvOS, watchOS and visionOS do not allow
    /// `unowned var owner: ZooOwner?` (an Optional unowned reference) is told apart from a weak one
    /// by the field descriptor's mangled type name and archived and restored as unowned, identity
    /// kept (isolated in an exit test, as a crash here would be memory unsafety).
    @Test("An unowned Optional field is archived as unowned, never read as weak")
    func unownedOptionalField() async {
        await #expect(processExitsWith: .success) {
            let owner = ZooOwner()
            owner.name = "Ann"
            let holder = ZooUnownedOptional()
            holder.name = "h"
            holder.owner = owner
            do {
                let data = try KeyedArchiver.archivedData(withRootObject: [owner] as [Any] + [holder])
                let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
                unarchiver.register(ZooOwner.self, ZooUnownedOptional.self)
                let back = try unarchiver.decode([Any].self, forKey: "root")
                guard let backOwner = back[0] as? ZooOwner, let backHolder = back[1] as? ZooUnownedOptional,
                    backHolder.owner === backOwner, backOwner.name == "Ann"
                else { exit(3) }
            } catch is ArchiveError {
                // A clear refusal is acceptable.
            }
            withExtendedLifetime(owner) {}
        }
    }

    /// An `unowned(unsafe)` field has no reference count, so a decoded object could be freed under
    /// it: reflection refuses it with `.notArchivable` (list it in `transientFields`) and never
    /// assigns it, so the `init()` default is never released (isolated in an exit test).
    @Test("Decoding unowned(unsafe) fields never frees the init() default")
    func unownedUnsafeField() async {
        await #expect(processExitsWith: .success) {
            let engine = ZooEngine()
            engine.serial = "real"
            for _ in 0..<2_000 {
                let holder = ZooUnownedUnsafe()
                holder.owner = engine
                do {
                    let data = try KeyedArchiver.archivedData(withRootObject: [engine] as [Any] + [holder])
                    let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
                    unarchiver.register(ZooEngine.self, ZooUnownedUnsafe.self)
                    _ = try unarchiver.decode([Any].self, forKey: "root")
                } catch is ArchiveError {
                    break  // a clear refusal is acceptable
                }
                // Churn the allocator so freed memory gets reused.
                let churn = (0..<8).map { _ in ZooEngine() }
                for item in churn { item.horsepower = 99 }
            }
            let placeholder = ZooUnownedUnsafe.placeholder
            if placeholder.horsepower != 12_345 || placeholder.serial != "placeholder" { exit(4) }
            withExtendedLifetime(engine) {}
        }
    }
    #endif

    // MARK: Field order and the layout

    @Test("Fields are archived in declaration order, not alphabetically")
    func declarationOrder() throws {
        #expect(try ZooArchive.topObject(try ZooArchive.encode(ZooOrder())).keys == ["$class", "zeta", "alpha", "mu", "beta"])
    }

    @Test("Superclass fields come first")
    func superclassFieldsFirst() throws {
        let data = try ZooArchive.encode(ZooOrderSub())
        #expect(try ZooArchive.topObject(data).keys == ["$class", "zBase", "aBase", "zSub", "aSub"])
        let back = try ZooArchive.decode(ZooOrderSub.self, from: data)
        #expect([back.zBase, back.aBase, back.zSub, back.aSub] as [Int] == [1, 2, 3, 4])
    }

    @Test("An Archivable subclass of a plain class archives the base's fields too")
    func plainBaseClass() throws {
        let value = ZooFromPlainBase()
        value.baseField = 10
        value.own = 20
        let data = try ZooArchive.encode(value)
        let root = try ZooArchive.topObject(data)
        #expect(root.keys == ["$class", "baseField", "own"])
        #expect(
            ZooArchive.classChain(of: root, in: try ZooArchive.objects(data))
                == [String(reflecting: ZooFromPlainBase.self), String(reflecting: ZooPlainBase.self), "NSObject"])
        let back = try ZooArchive.decode(ZooFromPlainBase.self, from: data)
        #expect(back.baseField == 10 && back.own == 20)
    }

    /// The keys reflection should archive for `value`, derived from `Mirror` alone: superclass
    /// fields first, `_x` and `$__lazy_storage_$_x` as `x`, transient fields dropped, renames
    /// applied, `$` keys escaped.
    static func mirrorKeys<T: Archivable>(_ value: T) -> [String] {
        var chain: [Mirror] = []
        var next: Mirror? = Mirror(reflecting: value)
        while let mirror = next {
            chain.append(mirror)
            next = mirror.superclassMirror
        }
        let labels = chain.reversed().flatMap { $0.children.compactMap(\.label) }
        let names = Set(labels)
        return labels.compactMap { label -> String? in
            var property = label
            if label.hasPrefix("$__lazy_storage_$_") {
                property = String(label.dropFirst("$__lazy_storage_$_".count))
            } else if label.hasPrefix("_"), !names.contains(String(label.dropFirst())) {
                property = String(label.dropFirst())
            }
            if T.transientFields.contains(property) || T.transientFields.contains(label) { return nil }
            let key = T.archiveKeys[property] ?? T.archiveKeys[label] ?? property
            return key.hasPrefix("$") ? "$" + key : key
        }
    }

    static func expectLayoutMatchesMirror<T: Archivable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let data = try ZooArchive.encode(value)
            let keys = Array(try ZooArchive.topObject(data).keys.dropFirst())
            #expect(keys == mirrorKeys(value), "\(T.self)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(T.self): \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("The archived fields agree with Mirror for every zoo type")
    func layoutAgreesWithMirror() {
        Self.expectLayoutMatchesMirror(ZooIntegers.maximum)
        Self.expectLayoutMatchesMirror(ZooReals.sample)
        Self.expectLayoutMatchesMirror(ZooStrings.sample)
        Self.expectLayoutMatchesMirror(ZooFoundation())
        Self.expectLayoutMatchesMirror(ZooOptionals.allSet)
        Self.expectLayoutMatchesMirror(ZooCollections.sample)
        Self.expectLayoutMatchesMirror(ZooEnums())
        Self.expectLayoutMatchesMirror(ZooBox<Int>())
        Self.expectLayoutMatchesMirror(ZooBox<[String: Set<Int>]>())
        Self.expectLayoutMatchesMirror(ZooClamped())
        Self.expectLayoutMatchesMirror(ZooSettings())
        Self.expectLayoutMatchesMirror(ZooLazy())
        Self.expectLayoutMatchesMirror(ZooKeys())
        Self.expectLayoutMatchesMirror(ZooTransient())
        Self.expectLayoutMatchesMirror(ZooAddress())
        Self.expectLayoutMatchesMirror(ZooEngine())
        Self.expectLayoutMatchesMirror(ZooCar())
        Self.expectLayoutMatchesMirror(ZooGarage())
        Self.expectLayoutMatchesMirror(ZooPerson())
        Self.expectLayoutMatchesMirror(ZooAnimal())
        Self.expectLayoutMatchesMirror(ZooDog())
        Self.expectLayoutMatchesMirror(ZooPuppy())
        Self.expectLayoutMatchesMirror(ZooCat())
        Self.expectLayoutMatchesMirror(ZooKeeper())
        Self.expectLayoutMatchesMirror(ZooPen())
        Self.expectLayoutMatchesMirror(ZooNode())
        Self.expectLayoutMatchesMirror(ZooOwner())
        Self.expectLayoutMatchesMirror(ZooPet())
        Self.expectLayoutMatchesMirror(ZooProfileV1())
        Self.expectLayoutMatchesMirror(ZooProfileV2())
        Self.expectLayoutMatchesMirror(ZooOrder())
        Self.expectLayoutMatchesMirror(ZooOrderSub())
        Self.expectLayoutMatchesMirror(ZooLinkTwin())
        Self.expectLayoutMatchesMirror(ZooFromPlainBase())
        Self.expectLayoutMatchesMirror(ZooHoldsNeedsAge())
    }

    /// A plain stored property whose name starts with `_` is archived without the underscore, as
    /// wrapper storage is (`_secret` → `secret`); `archiveKeys` can rename it by either name.
    @Test("archiveKeys can rename a plain field whose name starts with an underscore")
    func underscoredPlainField() throws {
        let data = try ZooArchive.encode(ZooUnderscored())
        let keys = try ZooArchive.topObject(data).keys
        #expect(keys == ["$class", "s", "other"], "archived keys: \(keys)")
        #expect(try ZooArchive.decode(ZooUnderscored.self, from: data)._secret == 1)
    }
}

struct LateKeyInner: Archivable, Equatable {
    var zzLateKeyField = 0
}

struct LateKeyOuter: Archivable, Equatable {
    var a = 0
    var inner = LateKeyInner()
}

/// Field keys are matched by number, and an archive key no field used yet is remembered as a
/// miss. A key first passed over as unknown (an extra key of the outer object, from a newer
/// schema) must still match once a later-built layout uses it (the inner object's field).
@Test("A key first met as unknown still matches a field of a layout built later")
func keyFirstMetAsUnknownMatchesLater() throws {
    let outerName = String(reflecting: LateKeyOuter.self)
    let innerName = String(reflecting: LateKeyInner.self)
    let data = try ZooArchive.archive(objects: [
        "$null",
        .dict(["$class": .uid(2), "zzLateKeyField": 7, "a": 5, "inner": .uid(3)]),
        ZooArchive.classDescription(outerName),
        .dict(["$class": .uid(4), "zzLateKeyField": 9]),
        ZooArchive.classDescription(innerName),
    ])
    let decoded = try ZooArchive.decode(LateKeyOuter.self, from: data)
    #expect(decoded == LateKeyOuter(a: 5, inner: LateKeyInner(zzLateKeyField: 9)))
}

struct WideRecord: Archivable, Equatable {
    var f00 = 0, f01 = 0, f02 = 0, f03 = 0, f04 = 0, f05 = 0, f06 = 0, f07 = 0, f08 = 0, f09 = 0
    var f10 = 0, f11 = 0, f12 = 0, f13 = 0, f14 = 0, f15 = 0, f16 = 0, f17 = 0, f18 = 0, f19 = 0
    var f20 = 0, f21 = 0, f22 = 0, f23 = 0, f24 = 0, f25 = 0, f26 = 0, f27 = 0, f28 = 0, f29 = 0
    var f30 = 0, f31 = 0, f32 = 0, f33 = 0, f34 = 0, f35 = 0, f36 = 0, f37 = 0, f38 = 0, f39 = 0

    var values: [Int] { Mirror(reflecting: self).children.map { $0.value as! Int } }
}

/// The unarchiver finds key objects and class descriptions through tables that grow with what
/// they hold: 40 keys and 31 class descriptions make both grow several times over.
@Test("Forty field keys, in a different order in each object, and thirty-one class descriptions are all found again")
func manyKeysAndClassDescriptions() throws {
    let names = (0..<40).map { String(format: "f%02d", $0) }
    var objects: [PlistValue] = ["$null", .dict([:]), ZooArchive.classDescription("NSArray")]
    var elements: [PlistValue] = []
    var expected: [[Int]] = []
    for k in 0..<30 {
        var fields: PlistDictionary = ["$class": .uid(UInt64(objects.count + 1))]
        // Each object lists its keys rotated by k, so matching starts from a different place.
        let order = Array(names[k...] + names[..<k])
        for name in order { fields[name] = .int(Int64(k * 100 + Int(name.dropFirst())!)) }
        expected.append((0..<40).map { k * 100 + $0 })
        elements.append(.uid(UInt64(objects.count)))
        objects.append(.dict(fields))
        objects.append(ZooArchive.classDescription("WideRecord\(k)"))
    }
    objects[1] = .dict(["$class": .uid(2), "NS.objects": .array(elements)])
    let unarchiver = try KeyedUnarchiver(forReadingFrom: try ZooArchive.archive(objects: objects))
    for k in 0..<30 { unarchiver.setClass(WideRecord.self, forClassName: "WideRecord\(k)") }
    let records = try unarchiver.decode([WideRecord].self, forKey: "root")
    #expect(records.map(\.values) == expected)
}
