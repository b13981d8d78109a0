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
    /// The lowest stack address a recursive step may start from; 0 when the bounds are unknown.
    package let floor: UInt

    /// The guard for the calling thread.
    package init() {
        floor = Self.floorForCurrentThread()
    }

    /// Whether the caller's frame is still above the reserve.
    @inline(__always)
    package func hasRoom() -> Bool {
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) } > floor
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

    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    private static func floorForCurrentThread() -> UInt {
        guard let key else { return computeFloor() }
        if let cached = pthread_getspecific(key) {
            return UInt(bitPattern: cached) &- 1
        }
        let floor = computeFloor()
        // Stored plus one so that an unknown floor (0) is still a non-nil slot.
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: floor &+ 1))
        return floor
    }

    private static func computeFloor() -> UInt {
        guard let (low, size) = stackBounds(), size > 0 else { return 0 }
        return low + UInt(reserve(forStackSize: size))
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
