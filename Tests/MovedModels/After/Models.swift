// The same models in two modules, MovedModelsAfter and MovedModelsBefore:
// an app's models before and after they moved into another module (a package, a framework, a
// renamed target). The tests archive with one module's types and read with the other's.
import Foundation
import KeyedArchive

public struct Address: Archivable, Equatable, Sendable {
    public var street = ""
    public var city = ""
    public init() {}
    public init(street: String, city: String) {
        self.street = street
        self.city = city
    }
}

public final class Contact: Archivable, Equatable {
    public var name = ""
    public var address = Address()
    public var friends: [Contact] = []
    public init() {}
    public init(name: String, address: Address) {
        self.name = name
        self.address = address
    }
    public static func == (lhs: Contact, rhs: Contact) -> Bool {
        lhs.name == rhs.name && lhs.address == rhs.address && lhs.friends.map(\.name) == rhs.friends.map(\.name)
    }
}

public struct Settings: Codable, Equatable, Sendable {
    public var theme: String
    public var fontSize: Int
    public init(theme: String, fontSize: Int) {
        self.theme = theme
        self.fontSize = fontSize
    }
}

public struct Box<Value: Archivable & Equatable>: Archivable, Equatable {
    public var value: Value
    public init() { value = Value() }
    public init(_ value: Value) { self.value = value }
}

/// `MovedModelsBefore.PostalAddress` under a new name: found only through legacy names or `setClass`.
public struct RenamedAddress: Archivable, Equatable, Sendable {
    public var street = ""
    public init() {}
}
