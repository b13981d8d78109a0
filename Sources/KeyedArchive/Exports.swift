@_spi(Reader) import PropertyList

/// The library's error type, defined with the property-list codec and shared by every module.
public typealias ArchiveError = PropertyList.ArchiveError
