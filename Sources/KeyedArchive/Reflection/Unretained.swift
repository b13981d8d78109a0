// Unsafe code in this file: an unretained reference is used only while a strong reference beside it keeps its object
// alive (held next to an `Unretained`, or by the owner of an `UnretainedSlot`).

import Synchronization

/// A reference that the hot loops borrow without reference counting, while a strong reference
/// held beside it keeps the object alive.
///
/// Reading a class reference out of memory costs a retain and a release around each use; reading
/// this one and calling ``borrow(_:)`` costs neither.
struct Unretained<Object: AnyObject> {
    private let unmanaged: Unmanaged<Object>

    /// A reference to `object`, which its caller keeps alive for as long as this value is used.
    init(_ object: Object) {
        unmanaged = Unmanaged.passUnretained(object)
    }

    fileprivate init(unmanaged: Unmanaged<Object>) {
        self.unmanaged = unmanaged
    }

    /// Runs `body` with the object, without a reference count.
    @inline(__always)
    func borrow<R>(_ body: (Object) throws -> R) rethrows -> R {
        try unmanaged._withUnsafeGuaranteedRef(body)
    }
}

/// An object published once to every thread and then borrowed without a lock or a reference
/// count: the owner of the slot keeps the object alive (with a strong reference of its own)
/// for as long as the slot lives.
struct UnretainedSlot<Object: AnyObject & Sendable>: ~Copyable, Sendable {
    /// The object's address (0 before it is published).
    private let bits = Atomic<UInt>(0)

    init() {}

    /// Publishes `object`, which the slot's owner holds strongly from now on.
    func publish(_ object: Object) {
        bits.store(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()), ordering: .releasing)
    }

    /// The published object, to borrow while the slot's owner lives; nil before it is published.
    @inline(__always)
    func load() -> Unretained<Object>? {
        let bits = bits.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        return Unretained(unmanaged: Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped))
    }
}
