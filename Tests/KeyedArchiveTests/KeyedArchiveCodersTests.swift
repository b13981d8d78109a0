import Foundation
import KeyedArchive
import Testing

@Suite("KeyedArchiveEncoder and KeyedArchiveDecoder")
struct KeyedArchiveCodersTests {
    struct Order: Codable, Equatable {
        var id: Int
        var items: [String]
    }

    final class Vehicle: Archivable {
        var wheels = 4
        required init() {}
    }

    @Test func aValueRoundTripsAndIsAnOrdinaryOneObjectArchive() throws {
        let order = Order(id: 3, items: ["a", "b"])
        let data = try KeyedArchiveEncoder().encode(order)
        #expect(try KeyedArchiveDecoder().decode(Order.self, from: data) == order)
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: Order.self, from: data) == order)
        #expect(data == (try KeyedArchiver.archivedData(withRootObject: order)))
    }

    @Test func theRootKeyIsAnOption() throws {
        var encoder = KeyedArchiveEncoder()
        encoder.rootKey = "order"
        let data = try encoder.encode(Order(id: 1, items: []))
        #expect(try KeyedUnarchiver(forReadingFrom: data).allKeys == ["order"])
        let error = #expect(throws: ArchiveError.self) { try KeyedArchiveDecoder().decode(Order.self, from: data) }
        #expect(error?.code == .keyNotFound)
        var decoder = KeyedArchiveDecoder()
        decoder.rootKey = "order"
        #expect(try decoder.decode(Order.self, from: data) == Order(id: 1, items: []))
    }

    @Test func theUnarchiverLimitsApply() throws {
        let data = try KeyedArchiveEncoder().encode(Array(repeating: "x", count: 100))
        var decoder = KeyedArchiveDecoder()
        decoder.options.maximumArchiveSize = 64
        let error = #expect(throws: ArchiveError.self) { try decoder.decode([String].self, from: data) }
        #expect(error?.code == .sizeLimit)
        #expect(error?.reason.contains("more than the maximum of 64") == true)
    }

    @Test func classNamesAndRegisteredTypesApply() throws {
        var encoder = KeyedArchiveEncoder()
        encoder.setClassName("OldApp.Vehicle", for: Vehicle.self)
        #expect(encoder.className(for: Vehicle.self) == "OldApp.Vehicle")
        let vehicle = Vehicle()
        vehicle.wheels = 3
        let data = try encoder.encode(vehicle)
        #expect(String(decoding: data, as: UTF8.self).contains("OldApp.Vehicle"))
        // Read back as Any: the name must be mapped to the type and the type registered.
        #expect(throws: ArchiveError.self) { try KeyedArchiveDecoder().decode(Any.self, from: data) }
        var decoder = KeyedArchiveDecoder()
        decoder.classNames["OldApp.Vehicle"] = Vehicle.self
        decoder.registeredTypes = [Vehicle.self]
        let back = try #require(try decoder.decode(Any.self, from: data) as? Vehicle)
        #expect(back.wheels == 3)
    }

    @Test func theDepthLimitApplies() throws {
        var encoder = KeyedArchiveEncoder()
        encoder.maximumDepth = 2
        let error = #expect(throws: ArchiveError.self) { try encoder.encode([[[[1]]]]) }
        #expect(error?.code == .depthLimit)
    }
}
