/// A type archived field by field through reflection, with no coding code.
///
/// Conform, give the type an `init()` (non-final classes: `required init()`), and every stored
/// property is archived under its name: superclass fields first, in declaration order. Lazy
/// properties and property wrappers are archived under the property's name. Decoding calls
/// `init()` and then writes each field found in the archive; a field the archive lacks keeps
/// the value `init()` gave it, and keys the type no longer has are ignored.
///
/// ```swift
/// final class User: Archivable {
///     var name = ""
///     var age = 0
///     weak var team: Team?
///     static var transientFields: Set<String> { ["cache"] }
///     var cache: [String: Int] = [:]
///     required init() {}
/// }
/// let data = try KeyedArchiver.archivedData(withRootObject: user)
/// let back = try KeyedUnarchiver.unarchivedObject(ofType: User.self, from: data)
/// ```
///
/// Archived fields must be `var`: reflection cannot safely write a `let` after `init()`, so
/// decoding a type with an archived `let` throws `.letField` (list it in `transientFields`,
/// or adopt ``KeyedCoding`` or `Codable` instead).
public protocol Archivable: ArchiveVersioned {
    /// Makes the value decoding starts from: every field the archive lacks keeps the value this
    /// initialiser gives it.
    ///
    /// A non-final class declares it `required init()`. Decoding calls it once per object, before
    /// any field is read; for a class, the instance is then registered, so references back to it
    /// (cycles) resolve to it while its fields are decoded.
    init()
    /// Field name → archive key, for fields stored under another key. Default: none.
    ///
    /// Name the property as declared (`"name"`; the `_name` storage of a wrapper matches too).
    /// A key that begins with `$` is stored with one more `$`, so it cannot collide with the
    /// archive's own `$class`. Two fields archived under one key are refused with `.notArchivable`.
    static var archiveKeys: [String: String] { get }
    /// Fields never archived. Default: none.
    ///
    /// A transient field is neither written nor read: decoding leaves it as ``init()`` made it.
    /// List the fields reflection cannot code (functions, metatypes, tuples, `unowned(unsafe)`
    /// references), `let` constants, caches and anything derived.
    static var transientFields: Set<String> { get }
    /// The class name written to archives. Default nil: the module-qualified type name.
    ///
    /// A move to another module needs no declaration: a name that differs from the type's
    /// default name only by its modules (`OldApp.User` for `Models.User`) is read as the type.
    /// Declare it for a type whose archives must survive a rename. In a class hierarchy declare it as a `class var` in
    /// the base class and override it in each subclass: a subclass archived under its base
    /// class's name is refused, since it would be read back as the base class.
    static var archiveClassName: String? { get }
    /// Class names this type was archived under before (a renamed or moved type), read as this
    /// type; `ArchiveStore.load(_:)` also finds values saved under them. Default: none.
    static var archiveLegacyClassNames: [String] { get }
}

extension Archivable {
    /// No renamed fields: each field is archived under its property's name.
    public static var archiveKeys: [String: String] { [:] }
    /// No transient fields: every stored property is archived.
    public static var transientFields: Set<String> { [] }
    /// No declared name: the type is archived under its module-qualified name (`MyApp.User`).
    public static var archiveClassName: String? { nil }
    /// No earlier names.
    public static var archiveLegacyClassNames: [String] { [] }
}

extension Archivable where Self: KeyedCoding {
    /// The one default for a type adopting both protocols (``KeyedCoding`` codes it).
    public static var archiveLegacyClassNames: [String] { [] }
}
