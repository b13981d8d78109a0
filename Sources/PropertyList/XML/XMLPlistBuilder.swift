/// What ``XMLPlistParser`` makes of the values it reads, in document order: a tree of
/// ``PlistValue`` (``XMLValueTree``) or a table of objects (``XMLPlistDocument``).
///
/// The parser checks the markup, the limits and the text of each element, then hands the
/// builder each scalar, and each container as it opens, gains an element and closes. Offsets
/// are where each element's start tag begins in the input.
protocol XMLPlistBuilder {
    /// A value the builder made.
    associatedtype Value
    /// An array being read.
    associatedtype OpenArray
    /// A dictionary being read.
    associatedtype OpenDict

    /// A scalar element (`string`, `integer`, `real`, `date`, `data`, `true`, `false`) at `offset`.
    mutating func scalar(_ value: PlistValue, at offset: Int) -> Value
    mutating func beginArray(at offset: Int) -> OpenArray
    mutating func append(_ element: Value, to array: inout OpenArray)
    mutating func end(_ array: OpenArray) -> Value
    mutating func beginDict(at offset: Int) -> OpenDict
    /// Adds an entry whose `<key>` starts at `keyOffset`; false when the dictionary has the key already.
    mutating func append(key: String, at keyOffset: Int, value: Value, to dict: inout OpenDict) -> Bool
    /// Ends a dictionary. A one-entry dictionary `{"CF$UID": n}` with `n` below 2^32 is the UID
    /// `n`, as CoreFoundation reads it: how keyed archives spell their references in XML.
    mutating func end(_ dict: OpenDict) -> Value
}

/// The UID a dictionary of one entry spells, if it is `{"CF$UID": n}` with `n` below 2^32.
func xmlUID(key: String, value: PlistValue?) -> UInt64? {
    guard key == "CF$UID", let number = value?.uint64Value, number <= UInt64(UInt32.max) else { return nil }
    return number
}

/// Builds the ``PlistValue`` tree ``XMLPlistReader`` returns.
struct XMLValueTree: XMLPlistBuilder {
    func scalar(_ value: PlistValue, at offset: Int) -> PlistValue { value }
    func beginArray(at offset: Int) -> [PlistValue] { [] }
    func append(_ element: PlistValue, to array: inout [PlistValue]) { array.append(element) }
    func end(_ array: [PlistValue]) -> PlistValue { .array(array) }
    func beginDict(at offset: Int) -> PlistDictionary { PlistDictionary() }

    func append(key: String, at keyOffset: Int, value: PlistValue, to dict: inout PlistDictionary) -> Bool {
        dict.appendNew(key: key, value: value)
    }

    func end(_ dict: PlistDictionary) -> PlistValue {
        if dict.count == 1, let uid = xmlUID(key: dict.keys[0], value: dict.values[0]) { return .uid(uid) }
        return .dict(dict)
    }
}
