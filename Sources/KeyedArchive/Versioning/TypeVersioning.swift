@_spi(Reader) import PropertyList

/// What one type declares about its archive versions (``ArchiveVersioned``), read once per coder.
final class TypeVersioning: @unchecked Sendable {  // immutable after init
    /// A field the archive may hold under old keys.
    struct Alias {
        let field: String
        let fieldID: Int32
        let oldKeys: [String]
        let oldIDs: [Int32]
    }

    /// `archiveVersion`.
    let version: Int
    /// `archiveKeyAliases`, sorted by field, so migrations run in the same order in every process.
    let aliases: [Alias]
    /// `version` when there are no aliases, else -1 (no archived version): an object whose
    /// archived version equals it is read as it is, found with one comparison.
    let plainVersion: Int
    let typeName: String
    private let step: ((inout ArchivedObject, Int) throws -> Void)?

    /// A type that is not ``ArchiveVersioned``: version 0, no aliases, no migration.
    static let unversioned = TypeVersioning(version: 0, aliases: [:], typeName: "", step: nil)

    private init(version: Int, aliases: [String: [String]], typeName: String, step: ((inout ArchivedObject, Int) throws -> Void)?) {
        self.version = version
        self.typeName = typeName
        self.step = step
        self.aliases = aliases.sorted { $0.key < $1.key }.map { field, oldKeys in
            Alias(
                field: field, fieldID: ArchiveKeyIDs.id(for: ArchiveFormat.escape(field)), oldKeys: oldKeys,
                oldIDs: oldKeys.map { ArchiveKeyIDs.id(for: ArchiveFormat.escape($0)) })
        }
        plainVersion = aliases.isEmpty ? version : -1
    }

    /// The versioning `type` declares.
    static func of(_ type: Any.Type) -> TypeVersioning {
        guard let versioned = type as? any ArchiveVersioned.Type else { return unversioned }
        let version = versioned.archiveVersion, aliases = versioned.archiveKeyAliases
        if version == 0, aliases.isEmpty { return unversioned }
        return TypeVersioning(
            version: version, aliases: aliases, typeName: String(reflecting: type),
            step: { try versioned.migrate(&$0, from: $1) })
    }

    /// `.notArchivable` for a negative version, which no archive can hold.
    func checkVersion() throws(ArchiveError) {
        guard version < 0 else { return }
        throw ArchiveError(
            .notArchivable, reason: "\(typeName).archiveVersion is \(version); versions start at 0 and only go up")
    }

    /// Runs the migration step from `version`.
    func migrate(_ object: inout ArchivedObject, from version: Int) throws {
        try step?(&object, version)
    }
}

extension ArchiveError.Code {
    /// The archive holds a type at a higher version than the type's `archiveVersion`: it was
    /// written by a newer build (see ``KeyedUnarchiver/Options/allowsNewerVersions``).
    public static let newerVersion = Self("newerVersion")
    /// A type's `migrate(_:from:)` threw while bringing an archived object to the current version.
    public static let migrationFailed = Self("migrationFailed")
}
