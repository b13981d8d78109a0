import Foundation
import KeyedArchive
import PropertyList
import Testing

// Finding 8: `$classes` chains. A subclass's class dictionary lists the class, each superclass
// by the name it is archived under (its declared `archiveClassName`, or the name chosen for it
// with `setClassName(_:for:)` in this archive), then `NSObject`.

class ChainVehicle: Archivable {
    class var archiveClassName: String? { "ChainVehicle" }
    var wheels = 4
    required init() {}
}

final class ChainCar: ChainVehicle {
    override class var archiveClassName: String? { "ChainCar" }
    var brand = ""
}

class Truck: ChainVehicle {
    override class var archiveClassName: String? { "Truck" }
    var payload = 0
}

final class Pickup: Truck {
    override class var archiveClassName: String? { "Pickup" }
    var bedLength = 0.0
}

/// A garage holds vehicles through their base class.
final class ChainGarage: Archivable {
    var vehicles: [ChainVehicle] = []
    required init() {}
}

/// The `$classname` and `$classes` of every class dictionary in an archive, by class name.
private func classChains(in data: Data) throws -> [String: [String]] {
    guard case .dict(let top) = try BPlistReader().read(data), case .array(let objects)? = top["$objects"] else {
        throw ArchiveError(.invalidArchive, reason: "not a keyed archive")
    }
    var chains: [String: [String]] = [:]
    for object in objects {
        guard case .dict(let dict) = object, case .string(let name)? = dict["$classname"] else { continue }
        guard case .array(let classes)? = dict["$classes"] else {
            throw ArchiveError(.invalidArchive, reason: "the class dictionary of \(name) has no $classes array")
        }
        chains[name] = classes.map { $0.stringValue ?? "<\($0.kindDescription)>" }
    }
    return chains
}

/// The `$classes` of the root object's class.
private func rootClasses(in data: Data) throws -> [String]? {
    guard case .dict(let top) = try BPlistReader().read(data),
        case .array(let objects)? = top["$objects"],
        case .dict(let roots)? = top["$top"],
        case .uid(let root)? = roots["root"],
        case .dict(let object) = objects[Int(root)],
        case .uid(let classUID)? = object["$class"],
        case .dict(let classInfo) = objects[Int(classUID)],
        case .array(let classes)? = classInfo["$classes"]
    else { return nil }
    return classes.map { $0.stringValue ?? "<\($0.kindDescription)>" }
}

@Suite("$classes lists each superclass by its archive name")
struct ClassChainTests {
    @Test("a subclass's $classes names its superclass by its declared name, or by the name setClassName gives it")
    func superclassIsNamedByDeclaredOrChosenName() throws {
        let car = ChainCar()
        car.brand = "Volvo"
        #expect(try rootClasses(in: KeyedArchiver.archivedData(withRootObject: car)) == ["ChainCar", "ChainVehicle", "NSObject"])
        #expect(
            try rootClasses(in: KeyedArchiver.archivedData(withRootObject: Pickup())) == ["Pickup", "Truck", "ChainVehicle", "NSObject"])

        let archiver = KeyedArchiver()
        archiver.setClassName("RenamedVehicle", for: ChainVehicle.self)
        try archiver.encode(car, forKey: "root")
        #expect(try rootClasses(in: try archiver.encodedData) == ["ChainCar", "RenamedVehicle", "NSObject"])
    }

    @Test("renaming both classes renames both in $classes")
    func renamingBothClassesRenamesWholeChain() throws {
        let archiver = KeyedArchiver()
        archiver.setClassName("RenamedVehicle", for: ChainVehicle.self)
        archiver.setClassName("RenamedCar", for: ChainCar.self)
        try archiver.encode(ChainCar(), forKey: "root")
        #expect(try rootClasses(in: try archiver.encodedData) == ["RenamedCar", "RenamedVehicle", "NSObject"])
    }

    @Test("renaming the middle of a three-class chain renames it for every class below it, and the base class too")
    func renamedMiddleClassAppearsInEveryChain() throws {
        let garage = ChainGarage()
        garage.vehicles = [ChainVehicle(), ChainCar(), Truck(), Pickup()]
        let archiver = KeyedArchiver()
        archiver.setClassName("LegacyTruck", for: Truck.self)
        try archiver.encode(garage, forKey: "root")
        let chains = try classChains(in: try archiver.encodedData)
        #expect(chains["ChainVehicle"] == ["ChainVehicle", "NSObject"])
        #expect(chains["ChainCar"] == ["ChainCar", "ChainVehicle", "NSObject"])
        #expect(chains["LegacyTruck"] == ["LegacyTruck", "ChainVehicle", "NSObject"])
        #expect(chains["Pickup"] == ["Pickup", "LegacyTruck", "ChainVehicle", "NSObject"])
        #expect(chains["Truck"] == nil)
    }

    @Test("a car archived with a renamed superclass still decodes as a ChainCar with its fields")
    func renamedSuperclassArchiveDecodes() throws {
        let car = ChainCar()
        car.brand = "Saab"
        car.wheels = 3
        let garage = ChainGarage()
        garage.vehicles = [car]
        let archiver = KeyedArchiver()
        archiver.setClassName("RenamedVehicle", for: ChainVehicle.self)
        try archiver.encode(garage, forKey: "root")
        let data = try archiver.encodedData
        #expect(try classChains(in: data)["ChainCar"] == ["ChainCar", "RenamedVehicle", "NSObject"])

        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.register(ChainCar.self)
        let back = try unarchiver.decode(ChainGarage.self, forKey: "root")
        let decoded = try #require(back.vehicles.first as? ChainCar)
        #expect(back.vehicles.count == 1)
        #expect(decoded.brand == "Saab")
        #expect(decoded.wheels == 3)
    }
}
