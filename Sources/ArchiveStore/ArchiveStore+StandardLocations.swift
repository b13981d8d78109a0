import ArchiveFileSystem
import Foundation
import KeyedArchive

/// The platform's standard places for an app's stores.
extension ArchiveStore {
    /// The kinds of standard directory a store can live in.
    package enum StandardLocation: Sendable {
        /// Data the app cannot recreate (Application Support; `$XDG_DATA_HOME`).
        case data
        /// Data the system or the user may delete to free space (Caches; `$XDG_CACHE_HOME`).
        case cache
    }

    /// The store for the app's own data, created if needed.
    ///
    /// - Apple platforms: `Application Support/<name>` in the user's Library (back it up).
    /// - Linux and others: `$XDG_DATA_HOME/<name>` when that variable is an absolute path,
    ///   else `~/.local/share/<name>`.
    ///
    /// ```swift
    /// let store = try ArchiveStore.dataStore(named: "com.example.Notes")
    /// ```
    ///
    /// - Parameters:
    ///   - name: One directory name, usually the app's bundle identifier.
    ///   - durability: What an acknowledged save survives (``Durability``). Nil: what the
    ///     folder keeps, else ``Durability/full``: the app's data survives a power loss.
    /// - Throws: `ArchiveError` `.invalidName` for an empty name, `.`, `..`, or a name with
    ///   `/` or NUL; `.io` when the directory cannot be created.
    public static func dataStore(named name: String, durability: Durability? = nil) throws -> ArchiveStore {
        try ArchiveStore(directory: standardDirectory(.data, named: name), durability: durability)
    }

    /// The store for values that can be fetched or computed again, created if needed; with
    /// `limits`, the least recently used values are removed once it holds more than they allow.
    ///
    /// - Apple platforms: `Caches/<name>`, marked excluded from backup.
    /// - Linux and others: `$XDG_CACHE_HOME/<name>` when that variable is an absolute path,
    ///   else `~/.cache/<name>`.
    ///
    /// The system may delete cached files at any time (while the app is not running); pair it
    /// with `expiresAfter` for values that go stale.
    ///
    /// ```swift
    /// let images = try ArchiveStore.cacheStore(named: "com.example.Photos", limits: .init(maximumBytes: 200 << 20))
    /// ```
    ///
    /// - Parameters:
    ///   - name: One directory name, usually the app's bundle identifier.
    ///   - limits: The most the cache keeps (``Limits``). Nil: what the folder keeps, else none.
    ///   - durability: What an acknowledged save survives (``Durability``). Nil: what the
    ///     folder keeps, else ``Durability/buffered``: a cache can be filled again, so its saves
    ///     flush nothing and survive the app being killed, not a power loss.
    /// - Throws: as ``dataStore(named:durability:)``.
    public static func cacheStore(
        named name: String, limits: Limits? = nil, durability: Durability? = nil
    ) throws -> ArchiveStore {
        let directory = try standardDirectory(.cache, named: name)
        let store = try ArchiveStore(
            directory: directory, limits: limits, permissions: nil, durability: durability, clock: .system,
            defaultDurability: .buffered)
        #if canImport(Darwin)
        var excluded = directory
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        do {
            try excluded.setResourceValues(values)
        } catch {
            throw ArchiveError(
                .io, reason: "could not exclude \(directory.path) from backup: \(error.localizedDescription)")
        }
        #endif
        return store
    }

    /// The directory of the standard store `name` of `kind`.
    ///
    /// - Parameter environment: The process environment (a parameter so tests can vary it).
    package static func standardDirectory(
        _ kind: StandardLocation, named name: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> URL {
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(UInt8(ascii: "/")),
            !name.utf8.contains(0)
        else {
            throw ArchiveError(
                .invalidName,
                reason:
                    "the store name \(StoreRecord.quoted(name)) is not a single directory name; use a name such as \"com.example.MyApp\" without \"/\""
            )
        }
        return try baseDirectory(kind, environment: environment).appending(path: name, directoryHint: .isDirectory)
    }

    private static func baseDirectory(_ kind: StandardLocation, environment: [String: String]) throws -> URL {
        #if canImport(Darwin)
        let search: FileManager.SearchPathDirectory = kind == .data ? .applicationSupportDirectory : .cachesDirectory
        guard let url = FileManager.default.urls(for: search, in: .userDomainMask).first else {
            throw ArchiveError(.io, reason: "the system reports no \(search) directory for this user")
        }
        return url
        #else
        let variable = kind == .data ? "XDG_DATA_HOME" : "XDG_CACHE_HOME"
        // The XDG Base Directory specification: a relative path in the variable is ignored.
        if let value = environment[variable], value.hasPrefix("/") {
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        let home: URL
        if let value = environment["HOME"], !value.isEmpty {
            home = URL(fileURLWithPath: value, isDirectory: true)
        } else {
            home = FileManager.default.homeDirectoryForCurrentUser
        }
        return kind == .data
            ? home.appending(path: ".local/share", directoryHint: .isDirectory)
            : home.appending(path: ".cache", directoryHint: .isDirectory)
        #endif
    }
}
