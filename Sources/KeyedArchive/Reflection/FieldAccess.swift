// Unsafe code in this file: an address points into a value or buffer lent for one call, or into a class instance its
// caller keeps alive, and a field or element is read or written there only as the type the reflection layout (or the
// coder holding the address) gives for it. Every read or write of a field or element through a pointer in the library
// is here: fields at their offsets, weak and unowned fields through boxes with their layout, strings read where they
// lie, elements of arrays, of a layout's fixed fields and of sorted dictionary entries, the raw bytes the layout check
// compares, and values reinterpreted as a type their caller has found to be their own.

internal import CAllocation
import Foundation
@_spi(Reader) import PropertyList

// MARK: Field addresses

/// Where a stored field or a collection element lies, for reading it.
///
/// Addresses of a struct's fields and of elements are lent for one call (``BorrowedElements/address(at:)``);
/// those of a class instance's fields (``init(ofInstance:)``) are valid while the instance is kept alive.
struct FieldAddress {
    fileprivate let pointer: UnsafeRawPointer

    /// The address `offset` bytes further on: a field's, from its value's or instance's address.
    @inline(__always)
    func advanced(by offset: Int) -> FieldAddress {
        FieldAddress(pointer: pointer + offset)
    }

    /// A copy of the value of type `T` that lies here.
    @inline(__always)
    func load<T>(as type: T.Type) -> T {
        pointer.assumingMemoryBound(to: T.self).pointee
    }

    /// The object a `weak var x: C?` field that lies here refers to, if it is still alive.
    func loadWeak<C: AnyObject>(_ type: C.Type) -> C? {
        pointer.assumingMemoryBound(to: WeakBox<C>.self).pointee.value
    }

    /// The object an `unowned var x: C` field that lies here refers to.
    func loadUnowned<C: AnyObject>(_ type: C.Type) -> C {
        pointer.assumingMemoryBound(to: UnownedBox<C>.self).pointee.value
    }

    /// The object an `unowned var x: C?` field that lies here refers to.
    func loadUnownedOptional<C: AnyObject>(_ type: C.Type) -> C? {
        pointer.assumingMemoryBound(to: UnownedOptionalBox<C>.self).pointee.value
    }
}

/// Where a stored field lies, for reading and assigning it.
struct MutableFieldAddress {
    fileprivate let pointer: UnsafeMutableRawPointer

    /// The address `offset` bytes further on: a field's, from its value's or instance's address.
    @inline(__always)
    func advanced(by offset: Int) -> MutableFieldAddress {
        MutableFieldAddress(pointer: pointer + offset)
    }

    /// Assigns `value` to the initialised value of type `T` that lies here.
    @inline(__always)
    func assign<T>(_ value: T, as type: T.Type = T.self) {
        pointer.assumingMemoryBound(to: T.self).pointee = value
    }

    /// Assigns the value of type `T` at `source` to the initialised value of type `T` that lies here.
    func assign<T>(_ type: T.Type, from source: FieldAddress) {
        pointer.assumingMemoryBound(to: T.self).pointee = source.pointer.assumingMemoryBound(to: T.self).pointee
    }

    /// Makes the `weak var x: C?` field that lies here refer to `object`.
    func assignWeak<C: AnyObject>(_ object: C?) {
        pointer.assumingMemoryBound(to: WeakBox<C>.self).pointee.value = object
    }

    /// Makes the `unowned var x: C` field that lies here refer to `object`.
    func assignUnowned<C: AnyObject>(_ object: C) {
        pointer.assumingMemoryBound(to: UnownedBox<C>.self).pointee.value = object
    }

    /// Makes the `unowned var x: C?` field that lies here refer to `object`.
    func assignUnownedOptional<C: AnyObject>(_ object: C?) {
        pointer.assumingMemoryBound(to: UnownedOptionalBox<C>.self).pointee.value = object
    }
}

/// Same layout as a `weak var` field (a single weak-reference word).
private struct WeakBox<T: AnyObject> { weak var value: T? }
/// Same layout as an `unowned` (safe) field.
private struct UnownedBox<T: AnyObject> { unowned var value: T }
/// Same layout as an `unowned var x: T?` field.
private struct UnownedOptionalBox<T: AnyObject> { unowned var value: T? }

extension ReflectionCoder {
    /// Writes the struct `value` as an object, its fields read where they lie.
    @inline(__always)
    func encodeValue(_ value: A, _ layout: FieldLayout, _ archiver: ArchiverCore) throws -> Int {
        try withUnsafePointer(to: value) { try encodeValue(at: FieldAddress(pointer: UnsafeRawPointer($0)), layout, archiver) }
    }

    /// Fills the fields of the struct `value` from `fields`, each written where it lies.
    @inline(__always)
    func decodeFields(
        of value: inout A, _ layout: FieldLayout, _ fields: borrowing ObjectFields, _ unarchiver: UnarchiverCore
    ) throws {
        try withUnsafeMutablePointer(to: &value) {
            try decodeFields(layout, MutableFieldAddress(pointer: UnsafeMutableRawPointer($0)), fields, unarchiver)
        }
    }
}

extension FieldAddress {
    /// The address of `object` (a class instance's fields lie at their offsets from it), valid
    /// while its caller keeps `object` alive.
    @inline(__always)
    init(ofInstance object: AnyObject) {
        pointer = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    }
}

extension MutableFieldAddress {
    /// The address of `object` (a class instance's fields lie at their offsets from it), valid
    /// while its caller keeps `object` alive.
    @inline(__always)
    init(ofInstance object: AnyObject) {
        pointer = Unmanaged.passUnretained(object).toOpaque()
    }
}

extension BPlistTable {
    /// Adds the string that lies at `field`, read where it lies (see ``add(stringAt:)``).
    @inline(__always)
    func add(stringAt field: FieldAddress) -> Int {
        add(stringAt: field.pointer.assumingMemoryBound(to: String.self))
    }
}

// MARK: Values of a type found to be their own

/// `value` as `B`, a type its caller has found to be `A` itself (`A.self == B.self`): what lets
/// generic code hand a value to code compiled for its concrete type.
@inline(__always)
func sameType<A, B>(_ value: A, as type: B.Type) -> B {
    assert(A.self == B.self, "\(A.self) is not \(B.self)")
    return unsafeBitCast(value, to: B.self)
}

/// `value`, of a class type `T`, as an object.
@inline(__always)
func asObject<T>(_ value: T) -> AnyObject {
    assert(T.self is AnyClass, "\(T.self) is not a class")
    return unsafeBitCast(value, to: AnyObject.self)
}

// MARK: Elements read where they lie

/// An array's elements, lent for one call and read where they lie (no copy of the array, no
/// bounds check: callers index below ``count``).
struct BorrowedElements<Element> {
    fileprivate let buffer: UnsafeBufferPointer<Element>

    /// The number of elements.
    var count: Int { buffer.count }

    /// The element at `index`, in `0..<count`.
    @inline(__always)
    subscript(index: Int) -> Element {
        unsafeAddress { buffer.baseAddress.unsafelyUnwrapped + index }
    }

    /// Where the element at `index`, in `0..<count`, lies.
    @inline(__always)
    func address(at index: Int) -> FieldAddress {
        FieldAddress(pointer: UnsafeRawPointer(buffer.baseAddress.unsafelyUnwrapped + index))
    }
}

/// Elements in an allocation of their own, fixed once made, whose ``elements`` stay where they
/// lie for as long as this value lives.
struct FixedElements<Element>: ~Copyable {
    private let buffer: UnsafeMutableBufferPointer<Element>

    /// A copy of `elements`.
    init(_ elements: [Element]) {
        buffer = .allocate(capacity: elements.count)
        _ = buffer.initialize(from: elements)
    }

    deinit {
        buffer.deinitialize()
        buffer.deallocate()
    }

    /// The elements, read where they lie; valid while this value lives.
    var elements: BorrowedElements<Element> { BorrowedElements(buffer: UnsafeBufferPointer(buffer)) }
}

extension Array {
    /// Runs `body` with the array's elements, read where they lie.
    @inline(__always)
    func withBorrowedElements<R>(_ body: (BorrowedElements<Element>) throws -> R) rethrows -> R {
        try withUnsafeBufferPointer { try body(BorrowedElements(buffer: $0)) }
    }
}

/// Runs `body` with the entries of `dictionary` ordered by key with `precedes`, in a temporary
/// buffer (on the stack for the few entries most dictionaries hold: no allocation per dictionary).
@inline(__always)
func withSortedEntries<Key, Value, R>(
    of dictionary: [Key: Value], by precedes: (Key, Key) -> Bool, _ body: (BorrowedElements<(key: Key, value: Value)>) throws -> R
) rethrows -> R {
    try withUnsafeTemporaryAllocation(of: (key: Key, value: Value).self, capacity: dictionary.count) { buffer in
        var filled = buffer.startIndex
        for entry in dictionary {
            buffer.initializeElement(at: filled, to: entry)
            filled += 1
        }
        let entries = UnsafeMutableBufferPointer(rebasing: buffer[..<filled])
        defer { entries.deinitialize() }
        sortEntries(entries, by: precedes)
        return try body(BorrowedElements(buffer: UnsafeBufferPointer(entries)))
    }
}

/// Sorts `entries` by key with `precedes`: an insertion sort for the few entries most archived
/// dictionaries hold (no closure context, no scratch buffer), the standard sort beyond that.
@inline(__always)
private func sortEntries<Key, Value>(_ entries: UnsafeMutableBufferPointer<(key: Key, value: Value)>, by precedes: (Key, Key) -> Bool) {
    guard entries.count <= 16 else {
        var entries = entries
        entries.sort { precedes($0.key, $1.key) }
        return
    }
    for i in entries.indices.dropFirst() {
        var j = i
        while j > 0, precedes(entries[j].key, entries[j - 1].key) {
            entries.swapAt(j, j - 1)
            j -= 1
        }
    }
}

/// Whether `a` sorts before `b` by their UTF-8 bytes (the canonical order of string keys and set elements).
@inline(__always)
func utf8Precedes(_ a: String, _ b: String) -> Bool {
    // Native strings (and small ones) lend their UTF-8 without a copy; others are made contiguous.
    if let inPlace = a.utf8.withContiguousStorageIfAvailable({ x in b.utf8.withContiguousStorageIfAvailable { y in bytesPrecede(x, y) } }),
        let result = inPlace
    {
        return result
    }
    var a = a
    var b = b
    return a.withUTF8 { x in b.withUTF8 { y in bytesPrecede(x, y) } }
}

@inline(__always)
private func bytesPrecede(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
    let common = min(x.count, y.count)
    let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
    return order != 0 ? order < 0 : x.count < y.count
}

// MARK: Raw bytes of a sample value

/// The bytes of one value (a struct's) or instance (a class's whole allocation), lent for one
/// call, for ``LayoutCheck`` to compare with what `Mirror` reads. Never read as typed values.
struct SampleBytes {
    fileprivate let bytes: UnsafeRawBufferPointer

    /// The number of bytes: the value's size, or the instance's allocation (0 when the allocator
    /// does not know it).
    var count: Int { bytes.count }

    /// Whether the bytes in `range` are the bits of `value` (false for a range not within `0..<count`).
    func holdBits<T>(of value: T, in range: Range<Int>) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return false }
        var copy = value
        return withUnsafeBytes(of: &copy) { $0.elementsEqual(UnsafeRawBufferPointer(rebasing: bytes[range])) }
    }
}

/// Runs `body` with the bytes of `sample`: a struct's value, or a class instance's allocation.
func withSampleBytes<A, R>(of sample: A, isClass: Bool, _ body: (SampleBytes) throws -> R) throws -> R {
    guard isClass else {
        var copy = sample
        return try withUnsafeBytes(of: &copy) { try body(SampleBytes(bytes: $0)) }
    }
    let object = sample as AnyObject
    return try withExtendedLifetime(object) {
        let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        return try body(SampleBytes(bytes: UnsafeRawBufferPointer(start: base, count: Int(archive_allocation_size(base)))))
    }
}
