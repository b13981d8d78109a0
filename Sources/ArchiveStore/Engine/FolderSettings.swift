import ArchiveFileSystem
import Foundation
import KeyedArchive

/// What the opener of a store decides, kept by the folder in `.configuration` so that every
/// instance and every process that opens the folder applies the same limits, durability and
/// permissions.
///
/// An opener that passes a setting changes it for everyone: the file is rewritten (atomically,
/// durably) when what it resolves to differs from what the folder keeps, and the instances
/// already open, in this process and others, apply the new settings from their next save,
/// removal, batch or ``ArchiveStore/trim()`` on (they look at the file's identity then: one
/// `lstat`). An opener that passes none uses the kept ones. A folder that keeps nothing uses
/// ``implicit`` (no limits, files for their owner only, `.full`), and gets a file only once an
/// opener asks for something else. A damaged or unreadable file counts as keeping nothing.
///
/// The file is a keyed archive of a dictionary (`karchive dump .configuration` shows it):
/// `maximumBytes`, `maximumCount`, `memoryBytes` (integers, absent when unset), `maximumAge`
/// (seconds and attoseconds, two integers), `durability` (`"full"` or `"buffered"`),
/// `fileMode`, `directoryMode` (integers) and `fileProtection` (a string).
struct StoreSettings: Sendable, Equatable {
    var limits: ArchiveStore.Limits
    var permissions: ArchiveStore.Permissions
    var durability: ArchiveStore.Durability

    static let fileName = ".configuration"
    static let implicit = StoreSettings(limits: .unlimited, permissions: .ownerOnly, durability: .full)
    /// A larger `.configuration` is damage.
    static let maximumFileSize = 64 << 10

    /// The settings an opener ends up with: what it passed, else what the folder keeps (`kept`),
    /// else its own defaults.
    static func resolve(
        limits: ArchiveStore.Limits?, permissions: ArchiveStore.Permissions?, durability: ArchiveStore.Durability?,
        kept: StoreSettings?, defaultDurability: ArchiveStore.Durability
    ) -> StoreSettings {
        StoreSettings(
            limits: limits ?? kept?.limits ?? .unlimited,
            permissions: permissions ?? kept?.permissions ?? .ownerOnly,
            durability: durability ?? kept?.durability ?? defaultDurability)
    }

    // MARK: - The file

    /// The settings `root` keeps and the identity of their file; nil when it keeps none (or
    /// its file cannot be read).
    static func kept(in root: Directory) -> (settings: StoreSettings, identity: FileIdentity)? {
        guard let (data, status) = try? root.readFileAndStatus(fileName, maximumSize: maximumFileSize),
            let settings = try? StoreSettings(decoding: data)
        else { return nil }
        return (settings, FileIdentity(status))
    }

    /// The identity of `root`'s `.configuration` file, nil when there is none.
    static func identity(in root: Directory) -> FileIdentity? {
        (try? root.status(of: fileName)).flatMap { $0.map(FileIdentity.init) }
    }

    /// Writes these settings as `root`'s `.configuration`, durably.
    func keep(in root: Directory, temporaryName: String) throws {
        try root.replaceFile(
            Self.fileName, with: try encoded(), temporaryName: temporaryName, mode: UInt32(permissions.fileMode))
        try root.sync()
    }

    func encoded() throws -> Data {
        var dictionary: [String: Any] = [
            "durability": durability == .full ? "full" : "buffered",
            "fileMode": Int(permissions.fileMode),
            "directoryMode": Int(permissions.directoryMode),
            "fileProtection": Self.name(of: permissions.fileProtection),
        ]
        if let maximumBytes = limits.maximumBytes { dictionary["maximumBytes"] = maximumBytes }
        if let maximumCount = limits.maximumCount { dictionary["maximumCount"] = maximumCount }
        if let memoryBytes = limits.memoryBytes { dictionary["memoryBytes"] = memoryBytes }
        if let maximumAge = limits.maximumAge {
            dictionary["maximumAge"] = [maximumAge.components.seconds, maximumAge.components.attoseconds]
        }
        return try KeyedArchiver.archivedData(withRootObject: dictionary)
    }

    init(limits: ArchiveStore.Limits, permissions: ArchiveStore.Permissions, durability: ArchiveStore.Durability) {
        self.limits = limits
        self.permissions = permissions
        self.durability = durability
    }

    /// Reads a `.configuration` file.
    ///
    /// - Throws: `ArchiveError` `.invalidArchive` for a file that is not one.
    init(decoding data: Data) throws {
        var options = KeyedUnarchiver.Options()
        options.maximumArchiveSize = Self.maximumFileSize
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: options)
        let dictionary = try unarchiver.decode([String: Any].self, forKey: "root")
        func integer(_ key: String) throws -> Int? {
            guard let value = dictionary[key] else { return nil }
            guard let integer = value as? Int else { throw Self.invalid("\(key) is not an integer") }
            return integer
        }
        var maximumAge: Duration?
        if let age = dictionary["maximumAge"] {
            guard let parts = age as? [Int], parts.count == 2 else { throw Self.invalid("maximumAge is not two integers") }
            maximumAge = Duration(secondsComponent: Int64(parts[0]), attosecondsComponent: Int64(parts[1]))
        }
        limits = ArchiveStore.Limits(
            maximumBytes: try integer("maximumBytes"), maximumCount: try integer("maximumCount"), maximumAge: maximumAge,
            memoryBytes: try integer("memoryBytes"))
        switch dictionary["durability"] as? String {
        case "full": durability = .full
        case "buffered": durability = .buffered
        default: throw Self.invalid("durability is neither \"full\" nor \"buffered\"")
        }
        guard let fileMode = try integer("fileMode"), let directoryMode = try integer("directoryMode"),
            let fileProtection = (dictionary["fileProtection"] as? String).flatMap(Self.fileProtection(named:)),
            let fileBits = UInt16(exactly: fileMode), let directoryBits = UInt16(exactly: directoryMode)
        else { throw Self.invalid("its permissions are missing or out of range") }
        permissions = ArchiveStore.Permissions(
            fileMode: fileBits, directoryMode: directoryBits, fileProtection: fileProtection)
    }

    private static func invalid(_ what: String) -> ArchiveError {
        ArchiveError(.invalidArchive, reason: "the store's \(fileName) file is damaged: \(what)")
    }

    private static func name(of protection: ArchiveStore.FileProtection) -> String {
        switch protection {
        case .complete: "complete"
        case .completeUnlessOpen: "completeUnlessOpen"
        case .completeUntilFirstUserAuthentication: "completeUntilFirstUserAuthentication"
        case .none: "none"
        }
    }

    private static func fileProtection(named name: String) -> ArchiveStore.FileProtection? {
        switch name {
        case "complete": .complete
        case "completeUnlessOpen": .completeUnlessOpen
        case "completeUntilFirstUserAuthentication": .completeUntilFirstUserAuthentication
        case "none": ArchiveStore.FileProtection.none
        default: nil
        }
    }
}
