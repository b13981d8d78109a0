#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

private final class ThreadBody: @unchecked Sendable {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// Runs `body` on a new thread whose stack is `stackSize` bytes and waits for it: to check how the
/// library behaves on small secondary-thread stacks, and to give deep tests a stack that does not
/// depend on the test runner's threads or on sanitizer-sized frames.
///
/// The stack is mapped here (below it one inaccessible page, so an overflow faults) rather than
/// sized with `pthread_attr_setstacksize`: glibc hands a new thread a cached stack of an exited
/// one up to four times the size asked for, and a small-stack test would then run on a big one.
public func onThread<R>(stackSize: Int, _ body: @escaping () throws -> R) throws -> R {
    nonisolated(unsafe) var result: Result<R, any Error>?
    let job = ThreadBody { result = Result { try body() } }
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let size = (stackSize + page - 1) / page * page
    guard let mapping = mmap(nil, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
        mapping != MAP_FAILED
    else { preconditionFailure("could not map a \(size)-byte stack") }
    defer { munmap(mapping, size + page) }
    precondition(mprotect(mapping, page, PROT_NONE) == 0, "could not protect the stack's guard page")
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    precondition(pthread_attr_setstack(&attributes, mapping + page, size) == 0, "stack size \(stackSize) refused")
    #if canImport(Darwin)
    var thread: pthread_t?
    #else
    var thread = pthread_t()
    #endif
    let context = Unmanaged.passRetained(job).toOpaque()
    let status = pthread_create(&thread, &attributes, { context in
        #if canImport(Darwin)
        let job = Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue()
        #else
        let job = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
        #endif
        job.body()
        return nil
    }, context)
    precondition(status == 0, "pthread_create failed: \(status)")
    #if canImport(Darwin)
    pthread_join(thread!, nil)
    #else
    pthread_join(thread, nil)
    #endif
    return try result!.get()
}

/// A stack big enough for any nesting the default limits allow, in any build (64 MiB).
public let deepStack = 64 << 20
