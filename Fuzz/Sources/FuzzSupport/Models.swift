import Foundation
import KeyedArchive

// The model zoo the keyed-archive fuzzers decode into: classes with cycles and a weak parent,
// a polymorphic base-class field holding a registered subclass, structs, optionals,
// collections, a raw-value enum, a Codable enum with associated values and a KeyedCoding type.
// Archived class names are fixed (`Fuzz.*`) so a regression file replays against the twin
// models in Tests/KeyedArchiveTests/FuzzRegressionTests.swift; the Codable enum is archived
// under its module-qualified name `FuzzSupport.FuzzShape`, which the test maps with setClass.

/// A graph node: strong `children` and `next` (so cycles), weak `parent`.
public final class FuzzNode: Archivable {
    public var name = ""
    public var value = 0
    public var children: [FuzzNode] = []
    public var next: FuzzNode? = nil
    public weak var parent: FuzzNode?
    public var tags: Set<String> = []
    public required init() {}
    public static var archiveClassName: String? { "Fuzz.Node" }
}

/// The polymorphic base class.
public class FuzzAnimal: Archivable {
    public var name = ""
    public var legs = 4
    public required init() {}
    public class var archiveClassName: String? { "Fuzz.Animal" }
}

/// The registered subclass.
public final class FuzzDog: FuzzAnimal {
    public var breed = ""
    public var good = true
    public var toys: [String] = []
    public override class var archiveClassName: String? { "Fuzz.Dog" }
}

public struct FuzzAddress: Archivable, Equatable {
    public var street = ""
    public var zip = 0
    public var unit: Int? = nil
    public init() {}
    public init(street: String, zip: Int, unit: Int? = nil) {
        self.street = street
        self.zip = zip
        self.unit = unit
    }
    public static var archiveClassName: String? { "Fuzz.Address" }
}

public enum FuzzColor: String, Hashable, Sendable {
    case red, green, blue = "BLUE"
}

/// A Codable enum with associated values (nested keyed containers).
public enum FuzzShape: Codable, Equatable, Sendable {
    case empty
    case circle(radius: Double)
    case rect(width: Int, height: Int)
    case named(String, tags: [String])
    indirect case group([FuzzShape])
}

/// A hand-coded value type.
public struct FuzzPoint: KeyedCoding, Equatable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
    public func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(x, forKey: "x")
        try coder.encode(y, forKey: "y")
    }
    public init(from coder: KeyedDecodingCoder) throws {
        x = try coder.decode(Double.self, forKey: "x")
        y = try coder.decodeIfPresent(Double.self, forKey: "y") ?? 0
    }
    public static var archiveClassName: String? { "Fuzz.Point" }
}

/// The root of the zoo: one field of each kind.
public struct FuzzRoot: Archivable {
    public var title = ""
    public var count = 0
    public var small: Int8 = 0
    public var big: UInt64 = 0
    public var ratio = 0.0
    public var single: Float = 0
    public var flag = false
    public var maybe: Int? = nil
    public var maybeName: String? = nil
    public var data = Data()
    public var date = Date(timeIntervalSinceReferenceDate: 0)
    public var url: URL? = nil
    public var uuid: UUID? = nil
    public var address = FuzzAddress()
    public var addresses: [FuzzAddress] = []
    public var lookup: [String: Int] = [:]
    public var byNumber: [Int: String] = [:]
    public var numbers: Set<Int> = []
    public var nested: [[String]] = []
    public var optionals: [Int?] = []
    public var color = FuzzColor.red
    public var colors: [FuzzColor] = []
    public var shape = FuzzShape.empty
    public var shapes: [FuzzShape] = []
    public var point = FuzzPoint(x: 0, y: 0)
    public var pet = FuzzAnimal()
    public var pets: [FuzzAnimal] = []
    public var maybePet: FuzzAnimal? = nil
    public var tree: FuzzNode? = nil
    public var extra: [String: Any] = [:]
    public init() {}
    public static var archiveClassName: String? { "Fuzz.Root" }
}
