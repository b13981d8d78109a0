@_spi(Reader) import PropertyList

extension ArchiveError.Code {
    /// The archive is a property list but not a keyed archive (`$archiver`, `$version`, `$top`, `$objects`).
    public static let invalidArchive = Self("invalidArchive")
    /// A value has a different kind than the type being decoded expects.
    public static let typeMismatch = Self("typeMismatch")
    /// A required key is not in the archive.
    public static let keyNotFound = Self("keyNotFound")
    /// The archive names a class that is neither the requested type, registered, nor mapped.
    public static let unknownClass = Self("unknownClass")
    /// The type cannot be archived or unarchived by any strategy.
    public static let notArchivable = Self("notArchivable")
    /// Reflection decoding met a `let` field it would have to overwrite.
    public static let letField = Self("letField")
    /// Reflection cannot safely read or write a type's fields.
    public static let reflection = Self("reflection")
    /// The archiver was used after it finished.
    public static let misuse = Self("misuse")
}
