// Unsafe code in this file: the one owner of raw table memory; its invariants are listed below.
// RawBuffer: the one owner of the raw memory this library's tables live in.
//
// What it guarantees:
// - A buffer owns one block from `malloc` (or none, while its capacity is 0). It cannot be
//   copied (`~Copyable`), so exactly one value owns a block, and its `deinit` deinitializes the
//   first `count` elements and frees the block, exactly once, on every path: a table that
//   goes away, is replaced, or belongs to an instance whose initializer threw.
// - Elements `0..<count` are initialized; `count..<capacity` are not. Every operation keeps
//   this: `append` initializes before it counts, `truncate` and `removeAll` deinitialize what
//   they drop, and growing moves the initialized elements to the new block.
// - Subscripts check the index against `count` (a failed check stops the process; it never
//   reads or writes outside the block). Writing past `count` is possible only through
//   `reserve` + `base` + `commit`, whose caller promises to initialize what it commits.
// - `releasingBlock()` is the one way a block leaves: the caller takes it over and must free
//   it with the C library's `free` (for example `Data(bytesNoCopy:count:deallocator: .free)`).
//
// No other type in the library calls `malloc`, `realloc`, `free`, `allocate` or `deallocate`.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable run of elements in `malloc`ed memory, owned by exactly one value.
///
/// The writer's tables hold millions of values for a large archive. For elements that move
/// bitwise (every table's), growing uses `realloc`, which lets the C library move a large
/// block by remapping its pages instead of copying them, and capacity that is never written is
/// never made resident.
@_spi(Reader) public struct RawBuffer<Element>: ~Copyable {
    // Public only as the SPI `Reader`, with `@inlinable` members over `@usableFromInline`
    // storage, so the package's other modules specialize them for their element types (a
    // `package` member's body is not inlined into another module, and an unspecialized generic
    // call per append costs a metadata lookup); only this file changes the storage.
    @usableFromInline var block: UnsafeMutablePointer<Element>?
    @usableFromInline var initialized = 0
    @usableFromInline var allocated = 0

    /// The block (nil while the capacity is 0).
    @inlinable public var base: UnsafeMutablePointer<Element>? { block }
    /// Initialized elements, from the start of the block.
    @inlinable public var count: Int { initialized }
    @inlinable public var capacity: Int { allocated }

    /// An empty buffer; it allocates on the first `append` or `reserve`.
    @inlinable public init() {}

    /// A buffer of `count` copies of `value`.
    @inlinable public init(count: Int, repeating value: Element) {
        precondition(count >= 0, "a buffer of \(count) elements")
        reserve(count)
        block?.initialize(repeating: value, count: count)
        initialized = count
    }

    deinit {
        if let block {
            block.deinitialize(count: initialized)
            releaseBlock(block)
        }
    }

    /// The element at `index` (below ``count``).
    @inlinable public subscript(index: Int) -> Element {
        @inline(__always) get {
            precondition(index >= 0 && index < initialized, "buffer index out of range")
            return block.unsafelyUnwrapped[index]
        }
        @inline(__always) nonmutating set {
            precondition(index >= 0 && index < initialized, "buffer index out of range")
            block.unsafelyUnwrapped[index] = newValue
        }
    }

    /// The element at `index` (below ``count``), unchecked: for the writer's tables, whose
    /// indices only their own code makes, on paths that run once per value written.
    @inlinable public subscript(unchecked index: Int) -> Element {
        @inline(__always) get {
            assert(index >= 0 && index < initialized, "buffer index out of range")
            return block.unsafelyUnwrapped[index]
        }
        @inline(__always) nonmutating set {
            assert(index >= 0 && index < initialized, "buffer index out of range")
            block.unsafelyUnwrapped[index] = newValue
        }
    }

    /// Makes room for at least `minimum` elements in all.
    @inlinable @inline(__always)
    public mutating func reserve(_ minimum: Int) {
        if minimum > allocated { grow(minimum) }
    }

    @usableFromInline mutating func grow(_ minimum: Int) {
        let newCapacity = max(minimum, allocated &* 2, 256 / max(MemoryLayout<Element>.stride, 1))
        let (bytes, overflow) = newCapacity.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        precondition(!overflow, "a table of \(newCapacity) elements does not fit in memory")
        let raw: UnsafeMutableRawPointer?
        if _isBitwiseTakable(Element.self) {
            raw = realloc(block, max(bytes, 1))
        } else {
            raw = malloc(max(bytes, 1))
            if let raw, let block {
                raw.bindMemory(to: Element.self, capacity: newCapacity).moveInitialize(from: block, count: initialized)
                releaseBlock(block)
            }
        }
        guard let raw else { preconditionFailure("out of memory growing a table to \(bytes) bytes") }
        block = raw.bindMemory(to: Element.self, capacity: newCapacity)
        allocated = newCapacity
    }

    @inlinable @inline(__always)
    public mutating func append(_ element: Element) {
        if initialized == allocated { grow(initialized + 1) }
        (block.unsafelyUnwrapped + initialized).initialize(to: element)
        initialized += 1
    }

    @inlinable
    public mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress, !elements.isEmpty else { return }
        reserve(initialized + elements.count)
        (block.unsafelyUnwrapped + initialized).initialize(from: source, count: elements.count)
        initialized += elements.count
    }

    /// Appends `added` copies of `value`.
    @inlinable
    public mutating func append(repeating value: Element, count added: Int) {
        guard added > 0 else { return }
        reserve(initialized + added)
        (block.unsafelyUnwrapped + initialized).initialize(repeating: value, count: added)
        initialized += added
    }

    /// Makes the first `added` elements after the end — initialized by the caller through
    /// ``base`` after a ``reserve(_:)`` — part of the buffer.
    @inlinable @inline(__always)
    public mutating func commit(_ added: Int) {
        precondition(added >= 0 && added <= allocated - initialized, "committing elements past the reserved capacity")
        initialized += added
    }

    /// Drops every element from `newCount` on.
    @inlinable @inline(__always)
    public mutating func truncate(to newCount: Int) {
        guard newCount >= 0, newCount < initialized else { return }
        (block.unsafelyUnwrapped + newCount).deinitialize(count: initialized - newCount)
        initialized = newCount
    }

    /// Drops every element, keeping the block.
    @inlinable
    public mutating func removeAll() {
        truncate(to: 0)
    }

    /// Sets every element to `value`.
    @inlinable
    public func fill(with value: Element) {
        guard let block else { return }
        block.update(repeating: value, count: initialized)
    }

    /// The elements from `start` on, to read in place while the buffer is neither changed nor gone.
    @inlinable @inline(__always)
    public func elements(from start: Int = 0) -> UnsafeBufferPointer<Element> {
        precondition(start >= 0 && start <= initialized, "buffer position out of range")
        guard let block else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: block + start, count: initialized - start)
    }

    /// Moves the block into a new buffer and leaves this one empty.
    @inlinable
    public mutating func take() -> RawBuffer<Element> {
        var taken = RawBuffer()
        (taken.block, taken.initialized, taken.allocated) = (block, initialized, allocated)
        (block, initialized, allocated) = (nil, 0, 0)
        return taken
    }
}

@_spi(Reader) extension RawBuffer where Element: BitwiseCopyable {
    /// Hands the block over to the caller, who must free it with the C library's `free` (as
    /// `Data(bytesNoCopy:count:deallocator: .free)` does); nil for a buffer that never allocated.
    public consuming func releasingBlock() -> UnsafeMutableRawPointer? {
        let released = block.map(UnsafeMutableRawPointer.init)
        discard self
        return released
    }
}

/// The C library's `free` (a name of its own, so it reads apart from the members).
@inline(__always)
private func releaseBlock(_ pointer: UnsafeMutableRawPointer) {
    free(pointer)
}
