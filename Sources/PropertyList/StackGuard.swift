// Unsafe code in this file: stack bounds come from the thread library and addresses are only
// compared, never dereferenced; each thread's bounds object is retained by its thread-specific
// slot and released by the slot's destructor.

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Tells a recursive reader or writer when the current thread's stack is nearly used up, so
/// deep input fails with `.depthLimit` instead of overflowing the stack.
///
/// Depth limits alone cannot promise that: a nesting of 512 costs about 1.3 MB of stack when
/// decoding in an optimised build and several times that unoptimised, while secondary threads
/// often have 512 KiB. The guard reads the thread's stack bounds once per thread (cached in a
/// thread-specific slot) and leaves a reserve below the deepest level it allows, for the leaf work
/// and the error path.
package struct StackGuard {
    /// The lowest address of the thread's stack; 0 when the bounds are unknown.
    package let low: UInt
    /// The lowest stack address a recursive step may start from (`low` plus the reserve).
    package let floor: UInt

    /// The guard for the calling thread.
    package init() {
        (low, floor) = Self.boundsForCurrentThread()
    }

    /// Whether the caller's frame is still above the reserve. A local that does not live on the
    /// thread's stack at all (AddressSanitizer's fake stack frames, a coroutine's own stack) says
    /// nothing about it: the guard then lets the caller go on.
    @inline(__always)
    package func hasRoom() -> Bool {
        var marker: UInt8 = 0
        let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        return address > floor || address < low
    }

    /// The sentence errors use when the stack, not the depth option, stopped the recursion.
    package static func reason(depth: Int) -> String {
        "the thread's stack is nearly used up at nesting depth \(depth) (use a thread with a larger stack, or lower maximumDepth)"
    }

    // MARK: Stack bounds

    /// Reserve kept free below the deepest allowed step: a quarter of the stack, at most 256 KiB.
    private static func reserve(forStackSize size: Int) -> Int {
        min(size / 4, 256 << 10)
    }

    /// A thread's stack bounds, kept in its thread-specific slot.
    private final class ThreadBounds {
        let low: UInt
        let floor: UInt
        init(_ bounds: (low: UInt, floor: UInt)) { (low, floor) = bounds }
    }

    /// Thread-specific slot: the thread's ``ThreadBounds``, retained by the slot and released
    /// with the thread.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let destructor: @convention(c) (UnsafeMutableRawPointer?) -> Void = { slot in
            if let slot { Unmanaged<ThreadBounds>.fromOpaque(slot).release() }
        }
        return pthread_key_create(&key, destructor) == 0 ? key : nil
    }()

    private static func boundsForCurrentThread() -> (low: UInt, floor: UInt) {
        guard let key else { return computeBounds() }
        if let cached = pthread_getspecific(key) {
            let bounds = Unmanaged<ThreadBounds>.fromOpaque(cached).takeUnretainedValue()
            return (bounds.low, bounds.floor)
        }
        let bounds = computeBounds()
        let slot = Unmanaged.passRetained(ThreadBounds(bounds))
        if pthread_setspecific(key, slot.toOpaque()) != 0 { slot.release() }
        return bounds
    }

    private static func computeBounds() -> (low: UInt, floor: UInt) {
        guard let (low, size) = stackBounds(), size > 0 else { return (0, 0) }
        return (low, low + UInt(reserve(forStackSize: size)))
    }

    #if canImport(Darwin)
    private static func stackBounds() -> (low: UInt, size: Int)? {
        let thread = pthread_self()
        let high = UInt(bitPattern: pthread_get_stackaddr_np(thread))
        let size = pthread_get_stacksize_np(thread)
        guard high > UInt(size) else { return nil }
        return (high - UInt(size), size)
    }
    #else
    private typealias GetAttr = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32

    /// `pthread_getattr_np` (glibc and musl), looked up once at run time.
    private static let getAttr: GetAttr? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np") else { return nil }
        return unsafeBitCast(symbol, to: GetAttr.self)
    }()

    private static func stackBounds() -> (low: UInt, size: Int)? {
        guard let getAttr else { return nil }
        var attributes = pthread_attr_t()
        guard getAttr(pthread_self(), &attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        var address: UnsafeMutableRawPointer?
        var size = 0
        guard pthread_attr_getstack(&attributes, &address, &size) == 0, let address else { return nil }
        return (UInt(bitPattern: address), size)
    }
    #endif
}
