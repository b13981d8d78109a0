@_spi(Reader) import PropertyList

/// What one type declares about its archive versions (``ArchiveVersioned``), read once per coder.
// @unchecked: every property is a `let` set in init; the migration steps are the type's declared
// closures, which read and write only the object each call is handed.
final class TypeVersioning: @unchecked Sendable {
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
    /// `version` when there are no aliases and the versioning is sound, else -1 (no archived
    /// version): an object whose archived version equals it is read as it is, found with one comparison.
    let plainVersion: Int
    let typeName: String
    private let step: ((inout ArchivedObject, Int) throws -> Void)?
    /// Why the type cannot be archived or unarchived at all: a negative version, or a class whose
    /// version differs from its base class's.
    let problem: ArchiveError?

    /// A type that is not ``ArchiveVersioned``: version 0, no aliases, no migration.
    static let unversioned = TypeVersioning(version: 0, aliases: [:], typeName: "", step: nil, problem: nil)

    private init(
        version: Int, aliases: [String: [String]], typeName: String, step: ((inout ArchivedObject, Int) throws -> Void)?,
        problem: ArchiveError?
    ) {
        self.version = version
        self.typeName = typeName
        self.step = step
        self.problem = problem
        self.aliases = aliases.sorted { $0.key < $1.key }.map { field, oldKeys in
            Alias(
                field: field, fieldID: ArchiveKeyIDs.id(for: ArchiveFormat.escape(field)), oldKeys: oldKeys,
                oldIDs: oldKeys.map { ArchiveKeyIDs.id(for: ArchiveFormat.escape($0)) })
        }
        plainVersion = aliases.isEmpty && problem == nil ? version : -1
    }

    /// The versioning `type` declares.
    static func of(_ type: Any.Type) -> TypeVersioning {
        let versioned = type as? any ArchiveVersioned.Type
        let version = versioned?.archiveVersion ?? 0
        let problem = problem(of: type, version: version)
        guard let versioned else {
            return problem.map { TypeVersioning(version: 0, aliases: [:], typeName: String(reflecting: type), step: nil, problem: $0) }
                ?? unversioned
        }
        var aliases = versioned.archiveKeyAliases
        // A field named by its property, when archiveKeys archives it under another key.
        if let archivable = type as? any Archivable.Type, !archivable.archiveKeys.isEmpty {
            aliases = Dictionary(
                aliases.map { (archivable.archiveKeys[$0.key] ?? $0.key, $0.value) }, uniquingKeysWith: { $0 + $1 })
        }
        if version == 0, aliases.isEmpty, problem == nil { return unversioned }
        return TypeVersioning(
            version: version, aliases: aliases, typeName: String(reflecting: type),
            step: { try versioned.migrate(&$0, from: $1) }, problem: problem)
    }

    /// A negative version, which no archive can hold; or a class at another version than a base
    /// class of its: a hierarchy is one line of versions, or a base class's steps would never run
    /// for the subclass's objects.
    private static func problem(of type: Any.Type, version: Int) -> ArchiveError? {
        let name = String(reflecting: type)
        if version < 0 {
            return ArchiveError(.notArchivable, reason: "\(name).archiveVersion is \(version); versions start at 0 and only go up")
        }
        guard type is AnyClass else { return nil }
        for base in FieldLayout.archivedSuperclasses(of: type) {
            let baseVersion = (base as? any ArchiveVersioned.Type)?.archiveVersion ?? 0
            guard baseVersion != version else { continue }
            return ArchiveError(
                .notArchivable,
                reason: "\(name).archiveVersion is \(version) but its base class \(String(reflecting: base))'s is \(baseVersion): a class hierarchy is one line of versions. Declare archiveVersion as a class var in the base class only (raise it there for a change to any class of the hierarchy), and override migrate(_:from:) in a subclass to add its own steps, calling super.migrate")
        }
        return nil
    }

    /// Throws ``problem``, if there is one.
    func checkVersion() throws(ArchiveError) {
        if let problem { throw problem }
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
