import ArchiveFileSystem
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The values a store keeps in memory after a save or a load (``ArchiveStore/Limits/memoryBytes``),
/// least recently used dropped first, each checked against its file before it is returned.
///
/// What is kept decides what a hit returns, so that it is always what a disk load would return:
/// - a decoded value whose type holds no class instance (structs, enums, strings, numbers,
///   collections of them) is kept as it is, and a hit returns a copy: nothing a caller does to
///   it can reach the cache or another caller;
/// - for anything holding class instances the archive's bytes are kept, and each hit decodes new
///   instances (the file read is what it saves): a shared instance changed by one caller would
///   be a value no disk load returns;
/// - a save keeps the bytes it wrote; the first load decodes them.
///
/// Sizes are the files' sizes.
struct MemoryTier: @unchecked Sendable {
    // @unchecked: `Any` values are kept only when they hold no class instance (see above), so
    // every copy handed out is independent; archives are `Data`. Access is under the state's lock.
    enum Content {
        /// A decoded value of `type`, free of class instances.
        case value(Any, type: Any.Type)
        /// A stored file's bytes.
        case archive(Data)
    }

    /// A value's namespace and key, by the key's exact bytes: found without escaping the key.
    struct Name: Hashable {
        var directory: String
        var key: [UInt8]
    }

    struct Item {
        var content: Content
        var name: Name
        /// The key's file name, and its absolute path, checked on each hit.
        var fileName: String
        var file: String
        var identity: FileIdentity
        var size: Int
        var expires: Double?
    }

    private(set) var capacity: Int
    private var items = RecencyList<Item>()
    private var pathByName: [Name: String] = [:]
    private(set) var bytes = 0
    private var clock = 0.0

    var count: Int { items.count }

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The item of `name` and its path, marked used.
    mutating func item(named name: Name) -> (path: String, item: Item)? {
        guard let path = pathByName[name], let item = items[path] else { return nil }
        clock += 1
        items.touch(path, at: clock)
        return (path, item)
    }

    /// Sets the capacity, dropping the least recently used items beyond it.
    mutating func resize(to capacity: Int) {
        self.capacity = capacity
        while bytes > capacity, let oldest = items.oldest {
            remove(oldest.path)
        }
    }

    /// Keeps `item` for `path`, dropping the least recently used items beyond the capacity. An
    /// item larger than the whole capacity is not kept.
    mutating func keep(_ item: Item, at path: String) {
        remove(path)
        guard item.size <= capacity else { return }
        clock += 1
        items.put(item, at: path, time: clock)
        pathByName[item.name] = path
        bytes += item.size
        while bytes > capacity, let oldest = items.oldest {
            remove(oldest.path)
        }
    }

    mutating func remove(_ path: String) {
        if let old = items.remove(path) {
            bytes -= old.size
            pathByName[old.name] = nil
        }
    }

    /// Drops the items of a directory and of the namespaces inside it.
    mutating func removeAll(under directory: String) {
        let prefix = directory.isEmpty ? "" : directory + "/"
        for (path, _, _) in items.elementsByUse where prefix.isEmpty || path.hasPrefix(prefix) {
            remove(path)
        }
    }

    /// Whether `value` can be kept as it is: it is no class instance and holds none (within a
    /// bounded walk of its stored properties; a value too large to walk is kept as bytes).
    static func isSelfContained(_ value: Any) -> Bool {
        var budget = 4_096
        return isSelfContained(value, budget: &budget, depth: 0)
    }

    private static func isSelfContained(_ value: Any, budget: inout Int, depth: Int) -> Bool {
        budget -= 1
        guard budget >= 0, depth < 32, !(type(of: value) is AnyClass) else { return false }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .class { return false }
        for child in mirror.children where !isSelfContained(child.value, budget: &budget, depth: depth + 1) {
            return false
        }
        return true
    }
}
