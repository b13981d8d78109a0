import Foundation
import KeyedArchive

// Versioned models: schema versions and migrations (`archiveVersion`, `migrate(_:from:)`,
// `archiveKeyAliases`). Today's types are decoded by the fuzzer; the `FuzzOld…`/`FuzzNew…` types,
// archived under the same class names, stand for earlier (and later) builds and only write seeds.
// Migrations never swallow an error (no `try?`), so that decoding with `allowsNewerVersions` can
// only succeed where a default decode succeeds, with the same result.

/// What migrations decoded from the archive that the decoded value may not hold (an old value a
/// migration read, then set as a value of another type): the harness breaks its cycles after each decode.
public enum MigrationScratch {
    nonisolated(unsafe) public static var decoded: [Any] = []

    public static func drain() {
        let items = decoded
        decoded = []
        for item in items { Zoo.unlink(item) }
    }
}

// MARK: - Today's versions

/// Version 2 of an item.
/// v0: label: String, qty: Int, codes: [Int], legacy: String, comment: String, steps: [Int]
/// v1: title: String, amount: Int, codes: [Int], ratio: Double, where: FuzzAddress, oldBox: FuzzOldBox?, point (v0), remark
/// v2: as below.
public struct FuzzItem: Archivable {
    public var title = ""
    public var amount: Int64 = 0
    public var codes: [UInt8] = []
    public var ratio: Float = 0
    public var address = FuzzAddress()
    public var box = FuzzBox()
    public var point: FuzzPointV? = nil
    public var steps: [Int] = []
    public var note = ""
    public init() {}
    public static var archiveClassName: String? { "Fuzz.Item" }
    public static var archiveVersion: Int { 2 }
    public static var archiveKeyAliases: [String: [String]] { ["note": ["comment", "remark"]] }
    public static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        var steps = try object.decode([Int]?.self, forKey: "steps") ?? []
        steps.append(version)
        try object.set(steps, forKey: "steps")
        switch version {
        case 0:
            object.renameField("label", to: "title")
            if let qty = try object.decode(Int?.self, forKey: "qty") { try object.set(qty, forKey: "amount") }
            object.removeField("qty")
            object.removeField("legacy")
        case 1:
            // An Int for the Int64 field, [Int] for [UInt8], a Double for the Float: read as the field's type reads them.
            if let amount = try object.decode(Int?.self, forKey: "amount") { try object.set(amount, forKey: "amount") }
            if let codes = try object.decode([Int]?.self, forKey: "codes") { try object.set(codes, forKey: "codes") }
            if let ratio = try object.decode(Double?.self, forKey: "ratio") { try object.set(ratio, forKey: "ratio") }
            if let place = try object.decode(FuzzAddress?.self, forKey: "where") { try object.set(place, forKey: "address") }
            object.removeField("where")
            // The old box, read as its old type and set for the field of the new type: read from its own archive.
            if let old = try object.decode(FuzzOldBox?.self, forKey: "oldBox") {
                MigrationScratch.decoded.append(old)
                try object.set(old, forKey: "box")
            }
            object.removeField("oldBox")
        default:
            break
        }
    }
}

/// Version 1 of a box; version 0 was archived as `Fuzz.OldBox` with `label` for `name`.
public struct FuzzBox: Archivable {
    public var name = ""
    public var node: FuzzNode? = nil
    public init() {}
    public static var archiveClassName: String? { "Fuzz.Box" }
    public static var archiveLegacyClassNames: [String] { ["Fuzz.OldBox"] }
    public static var archiveVersion: Int { 1 }
    public static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        object.renameField("label", to: "name")
    }
}

/// A folder tree at version 2: strong children, a weak parent read back during the migration.
/// v0: title, count: Int, children, parent; v1: name, size: Int, children, parent, vehicles.
public final class FuzzFolder: Archivable {
    public var name = ""
    public var size: Int64 = 0
    public var children: [FuzzFolder] = []
    public weak var parent: FuzzFolder?
    public var parentName = ""
    public var level = 0
    public var item: FuzzItem? = nil
    public var vehicles: [FuzzVehicle] = []
    public var link: FuzzNode? = nil
    public required init() {}
    public static var archiveClassName: String? { "Fuzz.Folder" }
    public static var archiveVersion: Int { 2 }
    public static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        switch version {
        case 0:
            object.renameField("title", to: "name")
            if let count = try object.decode(Int?.self, forKey: "count") { try object.set(count, forKey: "size") }  // Int for Int64
            object.removeField("count")
        case 1:
            // The parent is registered but still being filled (or not yet migrated itself).
            let parent = try object.decode(FuzzFolder?.self, forKey: "parent")
            try object.set(parent?.name ?? "", forKey: "parentName")
            try object.set((parent?.level ?? -1) &+ 1, forKey: "level")
            // Children decoded during the migration (their migrations read this instance back).
            if let children = try object.decode([FuzzFolder]?.self, forKey: "children") { try object.set(children, forKey: "children") }
        default:
            break
        }
    }
}

/// A class hierarchy: one line of versions, declared in the base class; the subclass adds steps of its own.
/// v0: wheelCount, maker (a car: seats: Int, plate); v1: wheels; v2: a car's seats an Int16.
public class FuzzVehicle: Archivable {
    public var wheels = 0
    public var maker = ""
    public required init() {}
    public class var archiveClassName: String? { "Fuzz.Vehicle" }
    public class var archiveVersion: Int { 2 }
    public class func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        if version == 0 { object.renameField("wheelCount", to: "wheels") }
    }
}

public final class FuzzCar: FuzzVehicle {
    public var seats: Int16 = 0
    public var plate = ""
    public override class var archiveClassName: String? { "Fuzz.Car" }
    public override class func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        try super.migrate(&object, from: version)
        if version == 1, let seats = try object.decode(Int?.self, forKey: "seats") { try object.set(seats, forKey: "seats") }  // Int for Int16
    }
}

/// Field renames without code.
public struct FuzzAccount: Archivable {
    public var login = ""
    public var balance = 0
    public var email: String? = nil
    public init() {}
    public static var archiveClassName: String? { "Fuzz.Account" }
    public static var archiveKeyAliases: [String: [String]] { ["login": ["name", "userName"], "email": ["mail"]] }
}

/// Hand-written coding at version 1: v0 had integer `x` and `y`, and an integer `tag`.
public struct FuzzPointV: KeyedCoding, Equatable {
    public var h: Double
    public var vertical: Double
    public var label: String?
    public init(h: Double, vertical: Double, label: String? = nil) {
        self.h = h
        self.vertical = vertical
        self.label = label
    }
    public func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(h, forKey: "h")
        try coder.encode(vertical, forKey: "vertical")
        if let label { try coder.encode(label, forKey: "label") }
    }
    public init(from coder: KeyedDecodingCoder) throws {
        _ = coder.allKeys
        h = try coder.decode(Double.self, forKey: "h")
        vertical = try coder.decodeIfPresent(Double.self, forKey: "vertical") ?? 0
        label = coder.contains("label") ? try coder.decode(String?.self, forKey: "label") : nil
    }
    public static var archiveClassName: String? { "Fuzz.PointV" }
    public static var archiveVersion: Int { 1 }
    public static var archiveKeyAliases: [String: [String]] { ["vertical": ["y"]] }
    public static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        if let x = try object.decode(Int?.self, forKey: "x") { try object.set(Double(x), forKey: "h") }
        object.removeField("x")
        if let tag = try object.decode(Int?.self, forKey: "tag") { try object.set(String(tag), forKey: "label") }
        object.removeField("tag")
    }
}

/// A nested Codable value.
public struct FuzzWindow: Codable, Equatable, Sendable {
    public var x: Int
    public var y: Int
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

/// Codable at version 3, adopting `ArchiveVersioned`.
/// v0: volume: Int (tenths), theme, tag: String, levels: [Int]; v1/v2: volume Double, scheme, tags, frame: [Int], levels.
public struct FuzzPrefs: Codable, Equatable, ArchiveVersioned {
    public var volume: Double
    public var scheme: String
    public var muted: Bool?
    public var tags: [String]
    public var window: FuzzWindow?
    public var levels: [Int64]
    public init(volume: Double, scheme: String, muted: Bool?, tags: [String], window: FuzzWindow?, levels: [Int64]) {
        self.volume = volume
        self.scheme = scheme
        self.muted = muted
        self.tags = tags
        self.window = window
        self.levels = levels
    }
    public static var archiveVersion: Int { 3 }
    public static var archiveKeyAliases: [String: [String]] { ["scheme": ["theme"]] }
    public static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        switch version {
        case 0:
            if let volume = try object.decode(Int?.self, forKey: "volume") { try object.set(Double(volume) / 10, forKey: "volume") }
            let tag = try object.decode(String?.self, forKey: "tag") ?? ""
            try object.set(tag.split(separator: ",").map(String.init), forKey: "tags")
            object.removeField("tag")
        case 1:
            if let frame = try object.decode([Int]?.self, forKey: "frame"), frame.count >= 2 {
                try object.set(FuzzWindow(x: frame[0], y: frame[1]), forKey: "window")
            }
            object.removeField("frame")
            // [Int] for the [Int64] field: read from the value's own archive.
            if let levels = try object.decode([Int]?.self, forKey: "levels") { try object.set(levels, forKey: "levels") }
        case 2:
            try object.set(true, forKey: "muted")
        default:
            break
        }
    }
}

// MARK: - Earlier (and later) builds, for seeds

struct FuzzOldItemV0: Archivable {
    var label = ""
    var qty = 0
    var codes: [Int] = []
    var legacy = ""
    var comment = ""
    var steps: [Int] = []
    static var archiveClassName: String? { "Fuzz.Item" }
}

struct FuzzOldItemV1: Archivable {
    var title = ""
    var amount = 0
    var codes: [Int] = []
    var ratio = 0.0
    var `where` = FuzzAddress()
    var oldBox: FuzzOldBox? = nil
    var point: FuzzOldPoint? = nil
    var remark = ""
    var steps: [Int] = []
    static var archiveClassName: String? { "Fuzz.Item" }
    static var archiveVersion: Int { 1 }
}

/// Written by a newer build: version 5, a field this build does not know.
struct FuzzNewItem: Archivable {
    var title = ""
    var amount: Int64 = 0
    var colour = "red"
    var steps: [Int] = []
    static var archiveClassName: String? { "Fuzz.Item" }
    static var archiveVersion: Int { 5 }
}

struct FuzzOldBox: Archivable {
    var label = ""
    var node: FuzzNode? = nil
    static var archiveClassName: String? { "Fuzz.OldBox" }
}

final class FuzzOldFolderV0: Archivable {
    var title = ""
    var count = 0
    var children: [FuzzOldFolderV0] = []
    weak var parent: FuzzOldFolderV0?
    required init() {}
    static var archiveClassName: String? { "Fuzz.Folder" }
}

final class FuzzOldFolderV1: Archivable {
    var name = ""
    var size = 0
    var children: [FuzzOldFolderV1] = []
    weak var parent: FuzzOldFolderV1?
    var item: FuzzOldItemV0? = nil
    var vehicles: [FuzzOldVehicle] = []
    var link: FuzzNode? = nil
    required init() {}
    static var archiveClassName: String? { "Fuzz.Folder" }
    static var archiveVersion: Int { 1 }
}

class FuzzOldVehicle: Archivable {
    var wheelCount = 0
    var maker = ""
    required init() {}
    class var archiveClassName: String? { "Fuzz.Vehicle" }
}

final class FuzzOldCar: FuzzOldVehicle {
    var seats = 0
    var plate = ""
    override class var archiveClassName: String? { "Fuzz.Car" }
}

struct FuzzOldAccount: Archivable {
    var userName = ""
    var balance = 0
    var mail: String? = nil
    static var archiveClassName: String? { "Fuzz.Account" }
}

struct FuzzOldPoint: KeyedCoding {
    var x = 0
    var y = 0
    var tag = 0
    init(x: Int, y: Int, tag: Int) {
        self.x = x
        self.y = y
        self.tag = tag
    }
    func encode(with coder: KeyedEncodingCoder) throws {
        try coder.encode(x, forKey: "x")
        try coder.encode(y, forKey: "y")
        try coder.encode(tag, forKey: "tag")
    }
    init(from coder: KeyedDecodingCoder) throws {}
    static var archiveClassName: String? { "Fuzz.PointV" }
}

struct FuzzOldPrefsV0: Codable {
    var volume: Int
    var theme: String
    var tag: String
    var levels: [Int]
}

struct FuzzOldPrefsV1: Codable, ArchiveVersioned {
    var volume: Double
    var scheme: String
    var tags: [String]
    var frame: [Int]
    var levels: [Int]
    static var archiveVersion: Int { 1 }
}
