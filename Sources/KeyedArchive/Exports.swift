@_spi(Reader) import PropertyList

/// The library's error type, defined with the property-list codec and shared by every module.
public typealias ArchiveError = PropertyList.ArchiveError

/// The two property-list formats (`.binary`, `.xml`) of ``KeyedArchiver/outputFormat`` and
/// ``ArchiveFile/format``, defined with the property-list codec.
public typealias PlistFormat = PropertyList.PlistFormat

/// The property-list limits of ``KeyedUnarchiver/Options/readingLimits``, defined with the
/// property-list codec (the binary and XML readers take the same type).
public typealias ReadingLimits = PropertyList.ReadingLimits
