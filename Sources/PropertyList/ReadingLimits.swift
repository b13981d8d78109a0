/// Limits that bound what a hostile property list can make a reader do: one type for the
/// binary reader (``BPlistReader/Options``), the XML reader (``XMLPlistReader/Options``) and the
/// keyed unarchiver, whose options hold one.
///
/// Crossing a limit throws ``ArchiveError`` `.sizeLimit` (`.depthLimit` for nesting) naming it.
///
/// ```swift
/// var limits = ReadingLimits()
/// limits.maximumArchiveSize = 1 << 20
/// let value = try PlistReader(binaryOptions: limits, xmlOptions: limits).read(bytes)
/// ```
public struct ReadingLimits: Sendable, Hashable {
    /// Containers nested deeper than this fail with `.depthLimit`. Default 512, as CoreFoundation.
    public var maximumDepth: Int = 512
    /// The most objects a document may hold: the objects a binary file's trailer declares, or the
    /// values of an XML document (each container and each scalar counting one). Default
    /// 16,777,216; fails with `.sizeLimit`.
    public var maximumObjectCount: Int = 1 << 24
    /// The most values a binary document may expand to when every shared reference is counted
    /// once per place it appears (an XML document shares nothing). Default 16,777,216. A few
    /// hundred bytes of shared references can describe 2^40 values; this fails them with
    /// `.sizeLimit` at once.
    public var maximumExpandedSize: Int = 1 << 24
    /// The largest input accepted, in bytes. Default 1,073,741,824 (1 GiB); fails with `.sizeLimit`.
    public var maximumArchiveSize: Int = 1 << 30
    /// The longest string accepted: in a binary file, in characters as stored (ASCII bytes or
    /// UTF-16 code units); in XML, in UTF-8 bytes once entities are replaced. Default
    /// 268,435,456; fails with `.sizeLimit`.
    public var maximumStringLength: Int = 1 << 28
    /// The longest data value accepted, in bytes. Default 1,073,741,824; fails with `.sizeLimit`.
    public var maximumDataLength: Int = 1 << 30

    /// The default limits, as listed with each one.
    public init() {}

    /// The XML reader's name for ``maximumObjectCount``.
    @available(*, deprecated, renamed: "maximumObjectCount")
    public var maximumValueCount: Int {
        get { maximumObjectCount }
        set { maximumObjectCount = newValue }
    }
}
