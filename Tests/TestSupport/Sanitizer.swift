#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which sanitizer the tests were built with (`swift test --sanitize=…`), from the symbols its
/// runtime adds to the process. The package's executables are built the same way.
public enum Sanitizer {
    /// True under AddressSanitizer.
    public static let address: Bool = hasSymbol("__asan_init")

    private static func hasSymbol(_ name: String) -> Bool {
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        guard let handle = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(handle) }
        return dlsym(handle, name) != nil
        #else
        return false
        #endif
    }
}
