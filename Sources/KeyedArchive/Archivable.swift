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
public protocol Archivable {
    init()
    /// Field name → archive key, for fields stored under another key. Default: none.
    static var archiveKeys: [String: String] { get }
    /// Fields never archived. Default: none.
    static var transientFields: Set<String> { get }
    /// The class name written to archives. Default nil: the module-qualified type name.
    static var archiveClassName: String? { get }
    /// Class names this type was archived under before (a renamed or moved type), read as this
    /// type; `ArchiveStore.load(_:)` also finds values saved under them. Default: none.
    static var archiveLegacyClassNames: [String] { get }
}

extension Archivable {
    public static var archiveKeys: [String: String] { [:] }
    public static var transientFields: Set<String> { [] }
    public static var archiveClassName: String? { nil }
    public static var archiveLegacyClassNames: [String] { [] }
}

extension Archivable where Self: KeyedCoding {
    /// The one default for a type adopting both protocols (``KeyedCoding`` codes it).
    public static var archiveLegacyClassNames: [String] { [] }
}
