#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable run of trivial values in `malloc`ed memory, grown with `realloc`.
///
/// The writer's tables hold millions of these values for a large archive. `realloc` lets the
/// C library move a large block by remapping its pages instead of copying them, and capacity
/// that is never written is never made resident, so growing costs neither time nor memory the
/// way a copy into a fresh array would. The owner calls ``free()`` once; copies share storage.
struct RawVector<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>?
    private(set) var count = 0
    private(set) var capacity = 0

    init() {}

    subscript(index: Int) -> Element {
        @inline(__always) get { base.unsafelyUnwrapped[index] }
        @inline(__always) nonmutating set { base.unsafelyUnwrapped[index] = newValue }
    }

    /// Room for at least `minimum` elements in all.
    @inline(__always)
    mutating func reserve(_ minimum: Int) {
        if minimum > capacity { grow(minimum) }
    }

    private mutating func grow(_ minimum: Int) {
        let newCapacity = max(minimum, capacity &* 2, 256 / MemoryLayout<Element>.stride)
        let (bytes, overflow) = newCapacity.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        precondition(!overflow, "a writer table of \(newCapacity) elements does not fit in memory")
        guard let raw = realloc(base, bytes) else {
            preconditionFailure("out of memory growing a writer table to \(bytes) bytes")
        }
        base = raw.bindMemory(to: Element.self, capacity: newCapacity)
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow(count + 1) }
        base.unsafelyUnwrapped[count] = element
        count += 1
    }

    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress, !elements.isEmpty else { return }
        reserve(count + elements.count)
        (base.unsafelyUnwrapped + count).update(from: source, count: elements.count)
        count += elements.count
    }

    /// Makes the first `count` elements after the current end (written through ``base`` after a
    /// ``reserve(_:)``) part of the vector.
    @inline(__always)
    mutating func commit(_ added: Int) {
        count += added
    }

    /// Drops every element from `newCount` on.
    @inline(__always)
    mutating func truncate(to newCount: Int) {
        count = min(count, newCount)
    }

    /// Hands the block over to the caller (who frees it) and leaves the vector empty.
    mutating func take() -> UnsafeMutablePointer<Element>? {
        defer { base = nil; count = 0; capacity = 0 }
        return base
    }

    func free() {
        if let base { releaseBlock(base) }
    }
}

/// The C library's `free`, which ``RawVector/free()`` hides inside the type.
private func releaseBlock(_ pointer: UnsafeMutableRawPointer) {
    free(pointer)
}
