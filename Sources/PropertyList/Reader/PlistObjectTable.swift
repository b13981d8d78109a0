/// A property list read as a table of objects addressed by index: what a reader of a keyed
/// archive's graph needs from a document, whatever its format.
///
/// ``BPlistDocument`` (a `bplist00` file read in place) and ``XMLPlistDocument`` (an XML
/// property list read into a table of the same shape) implement it. Containers list their
/// elements as references (object indices): an array its elements, a dictionary its keys and
/// then its values. A reference read through ``reference(_:_:index:)`` is checked against the
/// table; ``checkedReference(_:_:)`` reads one that ``checkReferences(of:index:)`` checked.
/// An object's ``BPlistDocument/Object/offset`` is where it starts in the input (a byte offset
/// into the file, for messages).
package protocol PlistObjectTable {
    /// The index of the top object (the document's root value).
    var topObject: Int { get }
    /// Where the object at `index` starts in the input.
    func offset(of index: Int) -> Int
    /// The object at `index`, checked to be in the table.
    func object(at index: Int) throws(ArchiveError) -> BPlistDocument.Object
    /// Checks every reference of a container at once, for ``checkedReference(_:_:)``.
    func checkReferences(of object: BPlistDocument.Object, index: Int) throws(ArchiveError)
    /// The reference at position `i` of a container that ``checkReferences(of:index:)`` checked.
    func checkedReference(_ object: BPlistDocument.Object, _ i: Int) -> Int
    /// The reference at position `i` of a container, checked against the table.
    func reference(_ object: BPlistDocument.Object, _ i: Int, index: Int) throws(ArchiveError) -> Int
    /// The value of the object at `index` if it is a UID; nil for anything else.
    func uidValue(at index: Int) -> UInt64?
    /// A UID object's value.
    func uid(_ object: BPlistDocument.Object) -> UInt64
    /// A string object's text.
    func string(_ object: BPlistDocument.Object, index: Int) throws(ArchiveError) -> String
    /// An integer object as the bit pattern of an `Int64`, or (`aboveInt64`) a `UInt64` above `Int64.max`.
    func integerBits(_ object: BPlistDocument.Object, index: Int) throws(ArchiveError) -> (bits: UInt64, aboveInt64: Bool)
    /// An integer object as `.int` or, above `Int64.max`, `.uint`.
    func integer(_ object: BPlistDocument.Object, index: Int) throws(ArchiveError) -> PlistValue
    /// A real object: `.float` for a 4-byte real of a binary file, else `.real`.
    func real(_ object: BPlistDocument.Object) -> PlistValue
    /// A real or date object's value as a `Double` (a date's seconds since 2001-01-01).
    func double(_ object: BPlistDocument.Object) -> Double
    /// A data object's bytes.
    func data(_ object: BPlistDocument.Object) -> [UInt8]
}

extension BPlistDocument: PlistObjectTable {}
