/// A type whose archives carry its version, so that archives of its earlier shapes read into
/// today's: fields renamed, split, retyped or removed, the type itself renamed.
///
/// ``Archivable`` and ``KeyedCoding`` refine it, so their types declare these members directly.
/// A `Codable` type adopts it to take part:
///
/// ```swift
/// struct Profile: Archivable {
///     var name = ""             // version 1: was "fullName"
///     var age = ""              // version 2: was an Int
///     init() {}
///
///     static var archiveVersion: Int { 2 }
///     static var archiveKeyAliases: [String: [String]] { ["name": ["fullName"]] }
///     static func migrate(_ object: inout ArchivedObject, from version: Int) throws {
///         switch version {
///         case 1: try object.set(String(try object.decode(Int.self, forKey: "age")), forKey: "age")
///         default: break
///         }
///     }
/// }
/// ```
///
/// **Where the version goes.** An object of a type whose `archiveVersion` is not 0 has
/// `$classversion` in its class description, beside `$classname` and `$classes`: one integer per
/// class per archive. Foundation's `NSKeyedUnarchiver` and Python's `plistlib` pass over it, and
/// a type at version 0 writes nothing, so its archives keep their bytes.
///
/// **How an archive at an older version is read.** Before a type's fields are filled, its
/// ``migrate(_:from:)`` runs once for each version step, oldest first (from 0, then from 1, up to
/// `archiveVersion - 1`), on a view of the archived object's fields; then ``archiveKeyAliases``
/// give each field the archive lacks a value from an old key; then the fields are filled from the
/// view as they are from any archive (a field the view lacks keeps its `init()` value, a key no
/// field takes is ignored). Each object is migrated once, however often it is referenced, and
/// class instances are registered before their migration runs, so identity and cycles hold.
///
/// **A class hierarchy** is one line of versions: declare `class var archiveVersion` in the base
/// class only, and raise it there for a change to any class of the hierarchy. A subclass whose
/// version differs from its base class's is refused with `.notArchivable` when it is archived or
/// unarchived (the base class's steps would never run for its objects). Declare
/// `class func migrate(_:from:)` in the base class too; a subclass overrides it for steps of its
/// own and calls `super.migrate(&object, from: version)`. A member declared only in a subclass,
/// with the base class on the defaults, is never called: the base class's conformance chose the
/// default, and nothing can tell.
///
/// **Adding a field** needs no new version for ``Archivable`` types (the field keeps its `init()`
/// value). A `Codable` type's synthesized `init(from:)` requires every non-optional key: make the
/// new property optional, or raise the version and set the field in a migration step.
public protocol ArchiveVersioned {
    /// The version this type is archived at now. Default 0; never negative.
    ///
    /// Raise it by one with every change to the type's archived fields that needs
    /// ``migrate(_:from:)``. Adding a field needs no new version (it keeps its `init()` value when
    /// an archive lacks it), nor does renaming one listed in ``archiveKeyAliases``.
    ///
    /// An archive holding the type at a higher version (written by a newer build of the app) is
    /// refused with `.newerVersion`, unless ``KeyedUnarchiver/Options/allowsNewerVersions`` is set.
    static var archiveVersion: Int { get }
    /// Field name → the keys it was archived under before, read in this order when the archive
    /// has no value under the field's own key. Default: none.
    ///
    /// The common migration without code: `["name": ["fullName"]]` reads an archive's `fullName`
    /// into `name`. Name the field by its property (or by the key it is archived under); the old
    /// keys as they were archived. Aliases apply after the migration steps.
    static var archiveKeyAliases: [String: [String]] { get }
    /// Brings an archived object of an earlier version one version forward, before the type's
    /// fields are filled from it.
    ///
    /// Called with `version` = the object's version, then once more for each version up to
    /// `archiveVersion - 1`: write one step per `case` (from 0 to 1, from 1 to 2). During the call
    /// `object.version` is `version`. The default does nothing.
    ///
    /// - Parameters:
    ///   - object: The object's fields as archived (with earlier steps applied): read them with
    ///     ``ArchivedObject/decode(_:forKey:)``, change them with ``ArchivedObject/set(_:forKey:)``,
    ///     ``ArchivedObject/renameField(_:to:)`` and ``ArchivedObject/removeField(_:)``.
    ///   - version: The version this step starts from.
    /// - Throws: Any error, which stops the decode with `.migrationFailed` naming the type, both
    ///   versions and the key path.
    static func migrate(_ object: inout ArchivedObject, from version: Int) throws
}

extension ArchiveVersioned {
    /// Version 0: nothing is recorded in the archive.
    public static var archiveVersion: Int { 0 }
    /// No old keys.
    public static var archiveKeyAliases: [String: [String]] { [:] }
    /// Nothing to migrate.
    public static func migrate(_ object: inout ArchivedObject, from version: Int) throws {}
}
