import Foundation
import KeyedArchive

/// A reflection-coded model with a stable class name.
final class Profile: Archivable, Equatable {
    static var archiveClassName: String? { "Contacts.Profile" }
    var name = ""
    var phone = ""
    var tags: [String] = []
    var joined = Date(timeIntervalSinceReferenceDate: 0)
    required init() {}

    convenience init(name: String, phone: String, tags: [String] = []) {
        self.init()
        self.name = name
        self.phone = phone
        self.tags = tags
    }

    static func == (lhs: Profile, rhs: Profile) -> Bool {
        lhs.name == rhs.name && lhs.phone == rhs.phone && lhs.tags == rhs.tags && lhs.joined == rhs.joined
    }
}

/// A reflection-coded model without a class name: its key is its module-qualified name.
struct Settings: Archivable, Equatable {
    var theme = "light"
    var fontSize = 14
}

/// A Codable model (the Codable bridge).
struct FeedItem: Codable, Equatable {
    var id: Int
    var title: String
    var score: Double
}

/// A hand-coded model with a class name.
struct Point: KeyedCoding, Equatable {
    static var archiveClassName: String? { "Geometry.Point" }
    var x: Double
    var y: Double
    init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
    func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(x, forKey: "x")
        try coder.encode(y, forKey: "y")
    }
    init(from coder: KeyedDecodingCoder) throws {
        x = try coder.decode(Double.self, forKey: "x")
        y = try coder.decode(Double.self, forKey: "y")
    }
}

/// A type no strategy can archive.
struct NotArchivable {
    var handle: () -> Void = {}
}
