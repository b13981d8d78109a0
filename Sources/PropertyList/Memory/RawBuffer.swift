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
package struct RawBuffer<Element>: ~Copyable {
    /// The block (nil while the capacity is 0).
    package private(set) var base: UnsafeMutablePointer<Element>?
    /// Initialized elements, from the start of the block.
    package private(set) var count = 0
    package private(set) var capacity = 0

    /// An empty buffer; it allocates on the first `append` or `reserve`.
    package init() {}

    /// A buffer of `count` copies of `value`.
    package init(count: Int, repeating value: Element) {
        precondition(count >= 0, "a buffer of \(count) elements")
        reserve(count)
        base?.initialize(repeating: value, count: count)
        self.count = count
    }

    deinit {
        if let base {
            base.deinitialize(count: count)
            releaseBlock(base)
        }
    }

    /// The element at `index` (below ``count``).
    package subscript(index: Int) -> Element {
        @inline(__always) get {
            precondition(index >= 0 && index < count, "buffer index \(index) out of range 0..<\(count)")
            return base.unsafelyUnwrapped[index]
        }
        @inline(__always) nonmutating set {
            precondition(index >= 0 && index < count, "buffer index \(index) out of range 0..<\(count)")
            base.unsafelyUnwrapped[index] = newValue
        }
    }

    /// Makes room for at least `minimum` elements in all.
    @inline(__always)
    package mutating func reserve(_ minimum: Int) {
        if minimum > capacity { grow(minimum) }
    }

    private mutating func grow(_ minimum: Int) {
        let newCapacity = max(minimum, capacity &* 2, 256 / max(MemoryLayout<Element>.stride, 1))
        let (bytes, overflow) = newCapacity.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        precondition(!overflow, "a table of \(newCapacity) elements does not fit in memory")
        let raw: UnsafeMutableRawPointer?
        if _isBitwiseTakable(Element.self) {
            raw = realloc(base, max(bytes, 1))
        } else {
            raw = malloc(max(bytes, 1))
            if let raw, let base {
                raw.bindMemory(to: Element.self, capacity: newCapacity).moveInitialize(from: base, count: count)
                releaseBlock(base)
            }
        }
        guard let raw else { preconditionFailure("out of memory growing a table to \(bytes) bytes") }
        base = raw.bindMemory(to: Element.self, capacity: newCapacity)
        capacity = newCapacity
    }

    @inline(__always)
    package mutating func append(_ element: Element) {
        if count == capacity { grow(count + 1) }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
    }

    package mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress, !elements.isEmpty else { return }
        reserve(count + elements.count)
        (base.unsafelyUnwrapped + count).initialize(from: source, count: elements.count)
        count += elements.count
    }

    /// Appends `added` copies of `value`.
    package mutating func append(repeating value: Element, count added: Int) {
        guard added > 0 else { return }
        reserve(count + added)
        (base.unsafelyUnwrapped + count).initialize(repeating: value, count: added)
        count += added
    }

    /// Makes the first `added` elements after the end — initialized by the caller through
    /// ``base`` after a ``reserve(_:)`` — part of the buffer.
    @inline(__always)
    package mutating func commit(_ added: Int) {
        precondition(added >= 0 && added <= capacity - count, "committing \(added) elements past the reserved capacity")
        count += added
    }

    /// Drops every element from `newCount` on.
    @inline(__always)
    package mutating func truncate(to newCount: Int) {
        guard newCount >= 0, newCount < count else { return }
        (base.unsafelyUnwrapped + newCount).deinitialize(count: count - newCount)
        count = newCount
    }

    /// Drops every element, keeping the block.
    package mutating func removeAll() {
        truncate(to: 0)
    }

    /// Sets every element to `value`.
    package func fill(with value: Element) {
        guard let base else { return }
        base.update(repeating: value, count: count)
    }

    /// The elements from `start` on, to read in place while the buffer is neither changed nor gone.
    package func elements(from start: Int = 0) -> UnsafeBufferPointer<Element> {
        precondition(start >= 0 && start <= count, "buffer position \(start) out of range 0...\(count)")
        return UnsafeBufferPointer(start: base.map { $0 + start }, count: count - start)
    }

    /// Moves the block into a new buffer and leaves this one empty.
    package mutating func take() -> RawBuffer<Element> {
        var taken = RawBuffer()
        (taken.base, taken.count, taken.capacity) = (base, count, capacity)
        (base, count, capacity) = (nil, 0, 0)
        return taken
    }
}

extension RawBuffer where Element: BitwiseCopyable {
    /// Hands the block over to the caller, who must free it with the C library's `free` (as
    /// `Data(bytesNoCopy:count:deallocator: .free)` does); nil for a buffer that never allocated.
    package consuming func releasingBlock() -> UnsafeMutableRawPointer? {
        let block = base.map(UnsafeMutableRawPointer.init)
        discard self
        return block
    }
}

/// The C library's `free` (a name of its own, so it reads apart from the members).
@inline(__always)
private func releaseBlock(_ pointer: UnsafeMutableRawPointer) {
    free(pointer)
}
