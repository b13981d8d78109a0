/// An XML property list read into a table of objects, the shape of a `bplist00` document's:
/// what a keyed archive in XML is decoded from, without converting it to binary.
///
/// Objects are numbered in document order (a container before its elements). Scalars keep
/// their values; containers list their elements' numbers, a dictionary its keys then its
/// values; `{"CF$UID": n}` is a UID object, as CoreFoundation reads it. Each object's
/// ``BPlistDocument/Object/offset`` is the byte offset of its start tag in the text, which
/// errors turn into a line and column. Values are not uniqued: an XML file spells every
/// occurrence of a value, and each is an object of its own.
///
/// It is read by the same parser as ``XMLPlistReader``, so it accepts exactly the documents that
/// reader accepts, within the same ``ReadingLimits``, and fails with the same errors.
package final class XMLPlistDocument: PlistObjectTable {
    package typealias Object = BPlistDocument.Object

    /// Every object, in document order; the root value is number 0.
    private let objects: [Object]
    /// The values of the scalar objects, addressed by their `payload`.
    private let scalars: [PlistValue]
    /// Container elements (object numbers); each container's a contiguous run from its `payload`.
    private let references: [Int]

    package var topObject: Int { 0 }
    /// The number of objects.
    package var objectCount: Int { objects.count }

    /// The table a parse built.
    init(_ table: Builder) {
        objects = table.objects
        scalars = table.scalars
        references = table.references
    }

    package func offset(of index: Int) -> Int {
        objects[index].offset
    }

    package func object(at index: Int) throws(ArchiveError) -> Object {
        guard index >= 0, index < objects.count else {
            throw ArchiveError(.invalidReference, reason: "object \(index) is out of range: the document has \(objects.count) objects")
        }
        return objects[index]
    }

    /// Does nothing: every reference of the table names one of its objects.
    package func checkReferences(of object: Object, index: Int) throws(ArchiveError) {}

    package func checkedReference(_ object: Object, _ i: Int) -> Int {
        references[object.payload + i]
    }

    package func reference(_ object: Object, _ i: Int, index: Int) throws(ArchiveError) -> Int {
        references[object.payload + i]
    }

    package func uidValue(at index: Int) -> UInt64? {
        let object = objects[index]
        return object.kind == .uid ? UInt64(object.payload) : nil
    }

    package func uid(_ object: Object) -> UInt64 {
        UInt64(object.payload)
    }

    package func string(_ object: Object, index: Int) throws(ArchiveError) -> String {
        guard case .string(let text) = scalars[object.payload] else { throw notA("string", object) }
        return text
    }

    package func integerBits(_ object: Object, index: Int) throws(ArchiveError) -> (bits: UInt64, aboveInt64: Bool) {
        switch scalars[object.payload] {
        case .int(let value): return (UInt64(bitPattern: value), false)
        case .uint(let value): return (value, value > UInt64(Int64.max))
        default: throw notA("integer", object)
        }
    }

    package func integer(_ object: Object, index: Int) throws(ArchiveError) -> PlistValue {
        let (bits, aboveInt64) = try integerBits(object, index: index)
        return aboveInt64 ? .uint(bits) : .int(Int64(bitPattern: bits))
    }

    package func real(_ object: Object) -> PlistValue {
        .real(double(object))
    }

    package func double(_ object: Object) -> Double {
        switch scalars[object.payload] {
        case .real(let value), .date(let value): value
        default: .nan
        }
    }

    package func data(_ object: Object) -> [UInt8] {
        if case .data(let bytes) = scalars[object.payload] { return bytes }
        return []
    }

    /// A read of an object as a kind its `kind` does not say (a caller's mistake, never the input's).
    private func notA(_ kind: String, _ object: Object) -> ArchiveError {
        ArchiveError(.invalidMarker, reason: "the object at byte \(object.offset) is not \(kind)", byteOffset: object.offset)
    }
}

extension XMLPlistDocument {
    /// Builds the table as the parser reads the document.
    ///
    /// A class: the parser's helpers capture the parser, and with it a builder held inline, so
    /// each scalar copied and released the builder's four arrays (measured: a fifth of the time of
    /// reading a keyed-1k XML archive). Its arrays are touched only by its own methods, one at a
    /// time, so their accesses are not checked at run time (checked, they cost a quarter of the parse).
    final class Builder: XMLPlistBuilder {
        @exclusivity(unchecked) fileprivate var objects: [Object] = []
        @exclusivity(unchecked) fileprivate var scalars: [PlistValue] = []
        @exclusivity(unchecked) fileprivate var references: [Int] = []
        /// Reference lists of the containers being read, innermost last.
        @exclusivity(unchecked) private var scratch: [Int] = []

        private func append(_ object: Object) -> Int {
            objects.append(object)
            return objects.count - 1
        }

        /// An array being read: its number and where its elements start on the scratch list.
        struct OpenArray {
            let index: Int
            let start: Int
        }

        /// A dictionary being read: its number, where its keys and values (alternating) start on
        /// the scratch list, and, once it has many keys, the set of them.
        struct OpenDict {
            let index: Int
            let start: Int
            var keys: Set<String>?
        }

        func scalar(_ value: PlistValue, at offset: Int) -> Int {
            let payload = scalars.count
            scalars.append(value)
            let kind: Object.Kind
            var marker: UInt8 = 0
            var count = 8
            switch value {
            case .bool(let flag): kind = .bool; marker = flag ? BPlistFormat.trueMarker : BPlistFormat.falseMarker; count = 0
            case .int, .uint: kind = .int
            case .real, .float: kind = .real
            case .date: kind = .date
            case .data(let bytes): kind = .data; count = bytes.count
            case .string(let text): kind = .utf16String; count = text.utf16.count
            default: kind = .null; count = 0  // The parser hands over no other scalars.
            }
            return append(Object(kind: kind, marker: marker, offset: offset, payload: payload, count: count))
        }

        func beginArray(at offset: Int) -> OpenArray {
            OpenArray(index: append(Object(kind: .array, marker: 0xA0, offset: offset, payload: 0, count: 0)), start: scratch.count)
        }

        func append(_ element: Int, to array: inout OpenArray) {
            scratch.append(element)
        }

        func end(_ array: OpenArray) -> Int {
            let payload = references.count
            references.append(contentsOf: scratch[array.start...])
            let count = scratch.count - array.start
            scratch.removeSubrange(array.start...)
            let open = objects[array.index]
            objects[array.index] = Object(kind: .array, marker: open.marker, offset: open.offset, payload: payload, count: count)
            return array.index
        }

        func beginDict(at offset: Int) -> OpenDict {
            OpenDict(index: append(Object(kind: .dict, marker: 0xD0, offset: offset, payload: 0, count: 0)), start: scratch.count)
        }

        func append(key: String, at keyOffset: Int, value: Int, to dict: inout OpenDict) -> Bool {
            // A key is an object of its own (a string), as in a binary file.
            let entries = (scratch.count - dict.start) / 2
            if dict.keys == nil, entries >= 16 {
                dict.keys = Set(stride(from: dict.start, to: scratch.count, by: 2).map { keyText(scratch[$0]) })
            }
            if dict.keys != nil {
                guard dict.keys!.insert(key).inserted else { return false }
            } else {
                for i in stride(from: dict.start, to: scratch.count, by: 2) where keyText(scratch[i]) == key { return false }
            }
            let keyIndex = scalar(.string(key), at: keyOffset)
            scratch.append(keyIndex)
            scratch.append(value)
            return true
        }

        private func keyText(_ index: Int) -> String {
            if case .string(let text) = scalars[objects[index].payload] { return text }
            return ""
        }

        func end(_ dict: OpenDict) -> Int {
            let count = (scratch.count - dict.start) / 2
            let open = objects[dict.index]
            if count == 1 {
                let value = objects[scratch[dict.start + 1]]
                if value.kind == .int, let uid = xmlUID(key: keyText(scratch[dict.start]), value: scalars[value.payload]) {
                    // The value, then its key, were the last objects added: they leave the table.
                    scratch.removeSubrange(dict.start...)
                    objects.removeSubrange((dict.index + 1)...)
                    scalars.removeLast(2)
                    objects[dict.index] = Object(kind: .uid, marker: 0x80, offset: open.offset, payload: Int(uid), count: 4)
                    return dict.index
                }
            }
            let payload = references.count
            references.reserveCapacity(references.count + 2 * count)
            for i in stride(from: dict.start, to: scratch.count, by: 2) { references.append(scratch[i]) }
            for i in stride(from: dict.start + 1, to: scratch.count, by: 2) { references.append(scratch[i]) }
            scratch.removeSubrange(dict.start...)
            objects[dict.index] = Object(kind: .dict, marker: open.marker, offset: open.offset, payload: payload, count: count)
            return dict.index
        }
    }
}
