import ArchiveStore
import Foundation
import KeyedArchive
import Testing

/// A garage whose field is declared as the base class and may hold a subclass.
class Vehicle: Archivable {
    var wheels = 4
    required init() {}
}

final class Car: Vehicle {
    var seats = 5
}

final class Garage: Archivable {
    var parked = Vehicle()
    var name = ""
    required init() {}
}

/// The type as an older version of the app archived it, under its old class name.
struct LegacyPoint: Archivable {
    static var archiveClassName: String? { "OldApp.Location" }
    var x = 0
    var y = 0
}

/// The type the app reads it as today.
struct Point: Archivable, Equatable {
    var x = 0
    var y = 0
}

@Suite("A store's configuration: registered types, class names and limits")
struct StoreConfigurationTests {
    private func garage(holding car: Car) -> Garage {
        let garage = Garage()
        garage.name = "home"
        garage.parked = car
        return garage
    }

    private func car(seats: Int) -> Car {
        let car = Car()
        car.wheels = 3
        car.seats = seats
        return car
    }

    @Test func aSubclassInABaseClassFieldLoadsOnceRegistered() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        try store.save(garage(holding: car(seats: 2)), forKey: "garage")

        let error = #expect(throws: ArchiveError.self) { try store.load(Garage.self, forKey: "garage") }
        #expect(error?.code == .unknownClass)
        #expect(error?.reason.contains("EverydayUseTests.Car") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("register(_:)") == true, "\(String(describing: error))")

        store.register(Car.self)
        let loaded = try #require(try store.load(Garage.self, forKey: "garage"))
        let parked = try #require(loaded.parked as? Car)
        #expect(parked.seats == 2)
        #expect(parked.wheels == 3)
        #expect(loaded.name == "home")
    }

    @Test func namespacesShareTheirStoresRegistrationsWhenEverTheyWereMade() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        let early = store.namespace("+44 20 7946 0001")
        try early.save(garage(holding: car(seats: 7)), forKey: "garage")
        #expect(throws: ArchiveError.self) { try early.load(Garage.self, forKey: "garage") }

        store.register(Car.self)
        #expect((try early.load(Garage.self, forKey: "garage")?.parked as? Car)?.seats == 7)
        let late = store.namespace("+44 20 7946 0001")
        #expect((try late.load(Garage.self, forKey: "garage")?.parked as? Car)?.seats == 7)
        let nested = store.namespace("family").namespace("kid")
        try nested.save(garage(holding: car(seats: 1)), forKey: "garage")
        #expect((try nested.load(Garage.self, forKey: "garage")?.parked as? Car)?.seats == 1)
    }

    @Test func registeringOnANamespaceConfiguresTheWholeStore() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        try store.save(garage(holding: car(seats: 4)), forKey: "garage")
        store.namespace("someone").register(Car.self)
        #expect((try store.load(Garage.self, forKey: "garage")?.parked as? Car)?.seats == 4)

        // A store opened separately on the same folder in this process shares it.
        let other = try ArchiveStore(directory: folder.url)
        #expect((try other.load(Garage.self, forKey: "garage")?.parked as? Car)?.seats == 4)
    }

    @Test func setClassReadsAValueSavedUnderAnotherClassName() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        try store.save(LegacyPoint(x: 3, y: -4), forKey: "origin")
        try store.namespace("n").save(LegacyPoint(x: 5, y: 6), forKey: "origin")

        let error = #expect(throws: ArchiveError.self) { try store.load(Point.self, forKey: "origin") }
        #expect(error?.code == .unknownClass)
        #expect(error?.reason.contains("OldApp.Location") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("setClass(_:forClassName:)") == true, "\(String(describing: error))")

        store.setClass(Point.self, forClassName: "OldApp.Location")
        #expect(try store.load(Point.self, forKey: "origin") == Point(x: 3, y: -4))
        #expect(try store.namespace("n").load(Point.self, forKey: "origin") == Point(x: 5, y: 6))
    }

    @Test func unarchiverOptionsLimitEveryLoadOfTheStoreAndItsNamespaces() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        let user = store.namespace("user")
        let numbers = Array(0..<100)
        try store.save(numbers, forKey: "numbers")
        try user.save(numbers, forKey: "numbers")
        #expect(store.unarchiverOptions == KeyedUnarchiver.Options())

        store.unarchiverOptions.maximumArchiveSize = 64
        #expect(user.unarchiverOptions.maximumArchiveSize == 64)
        for target in [store, user] {
            let error = #expect(throws: ArchiveError.self) { try target.load([Int].self, forKey: "numbers") }
            #expect(error?.code == .sizeLimit)
            #expect(error?.reason.contains("maximumArchiveSize") == true, "\(String(describing: error))")
            // The file is too large to read, not gone.
            #expect(target.contains("numbers"))
            #expect(target.keys == ["numbers"])
        }

        var options = KeyedUnarchiver.Options()
        options.maximumDepth = 1
        store.unarchiverOptions = options
        try store.save([[[1]]], forKey: "deep")
        let error = #expect(throws: ArchiveError.self) { try store.load([[[Int]]].self, forKey: "deep") }
        #expect(error?.code == .depthLimit)

        store.unarchiverOptions = KeyedUnarchiver.Options()
        #expect(try user.load([Int].self, forKey: "numbers") == numbers)
        #expect(try store.load([[[Int]]].self, forKey: "deep") == [[[1]]])
    }
}
