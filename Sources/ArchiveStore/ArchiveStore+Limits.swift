import ArchiveFileSystem
import Foundation
import KeyedArchive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ArchiveStore {
    /// How much a store keeps: at most so many bytes, so many values, values used within a
    /// given time. Set when the store is made (``init(directory:limits:permissions:durability:clock:)``,
    /// ``cacheStore(named:limits:durability:)``); a nil field sets no limit.
    ///
    /// A store past a limit removes values, least recently used first ("use" is a save or a
    /// load, remembered across launches and seen between processes), until it is within every
    /// limit again. A save that would take it past a limit makes room first (and writes its
    /// value into the file of a value it evicted from its own folder, which costs the file
    /// system less than a file deleted and one created); ``trim()`` does the same on demand.
    /// Expired values go first, and each removal is recorded as `evicted` (or `expired`) for
    /// the store's observers, before the save is recorded as `saved`. The value being saved is
    /// never removed to make room for itself: a value larger than `maximumBytes` is kept, alone.
    /// The room a save made stays made if the save then fails (a full disk, an I/O error): the
    /// values it evicted were the ones the store gives up first, and the key's previous value
    /// is intact as always.
    ///
    /// The limits count the whole store: its values and those of every namespace inside it
    /// (``count`` and ``totalBytes`` of the root store are what they compare). Bytes are the
    /// stored files' sizes. In one process every store opened on a folder uses the limits,
    /// permissions and durability its latest opener gave. A ``batch(_:)`` is counted whole: its values are
    /// never evicted to make room for each other, and the limits are applied once for it.
    ///
    /// ```swift
    /// let cache = try ArchiveStore.cacheStore(
    ///     named: "com.example.Feed",
    ///     limits: .init(maximumBytes: 50 << 20, maximumCount: 10_000, maximumAge: .seconds(7 * 86_400)))
    /// ```
    public struct Limits: Sendable, Equatable {
        /// The most bytes the store's files may take together.
        public var maximumBytes: Int?
        /// The most values the store may hold.
        public var maximumCount: Int?
        /// How long a value may go without a save or a load before it is removed.
        public var maximumAge: Duration?
        /// The most bytes (counted as the files' sizes) of values kept in memory after a save or
        /// a load, so that loading them again skips the disk; nil keeps none. A value is checked
        /// against its file (one `stat`) before it is returned from memory, so a save by another
        /// instance or process is seen. A hit returns a copy of a value whose type holds no class
        /// instance, and decodes new instances from the kept bytes for one that does.
        public var memoryBytes: Int?

        /// Limits; nil sets none. Negative values count as zero.
        public init(maximumBytes: Int? = nil, maximumCount: Int? = nil, maximumAge: Duration? = nil, memoryBytes: Int? = nil) {
            self.maximumBytes = maximumBytes.map { max(0, $0) }
            self.maximumCount = maximumCount.map { max(0, $0) }
            self.maximumAge = maximumAge.map { max(.zero, $0) }
            self.memoryBytes = memoryBytes.map { max(0, $0) }
        }

        /// No limit: the store keeps every value until it is removed or expires.
        public static let unlimited = Limits()

        /// No limit (``unlimited``). Renamed: where a parameter takes optional limits (nil:
        /// the folder's own), `.none` would read as nil.
        @available(*, deprecated, renamed: "unlimited")
        public static var none: Limits { unlimited }

        /// Whether any limit applies to the files.
        var limitsDisk: Bool { maximumBytes != nil || maximumCount != nil || maximumAge != nil }
    }

    /// Who may read and write a store's files and folders.
    ///
    /// The modes are applied exactly, whatever the process's umask: files and folders the store
    /// creates get them (the store directory itself too when the store creates it; an existing
    /// directory keeps its own).
    public struct Permissions: Sendable, Equatable {
        /// The mode of each file (`0o600`: owner read and write).
        public let fileMode: UInt16
        /// The mode of each folder (`0o700`).
        public let directoryMode: UInt16

        /// Files `0600` and folders `0700`: only the owner reads or writes (the default).
        public static let ownerOnly = Permissions(fileMode: 0o600, directoryMode: 0o700)
        /// Files `0660` and folders `0770`: the owner's group shares the store (a folder shared
        /// by several of one user's apps or services that run as different users of a group).
        public static let group = Permissions(fileMode: 0o660, directoryMode: 0o770)

        /// The data protection class of the store's files on iOS, iPadOS, tvOS, watchOS and
        /// visionOS (set on the store's folders, whose new files inherit it); ignored elsewhere.
        /// Default ``FileProtection/completeUntilFirstUserAuthentication``, the system's default
        /// for app data: readable by background work once the device was unlocked after a restart.
        public var fileProtection: FileProtection = .completeUntilFirstUserAuthentication

        /// Custom modes. The owner always keeps read and write (and search on folders): a store
        /// cannot work without them, so those bits are added.
        public init(
            fileMode: UInt16, directoryMode: UInt16,
            fileProtection: FileProtection = .completeUntilFirstUserAuthentication
        ) {
            self.fileMode = (fileMode & 0o777) | 0o600
            self.directoryMode = (directoryMode & 0o777) | 0o700
            self.fileProtection = fileProtection
        }
    }

    /// Data protection classes (Foundation's `FileProtectionType`), for ``Permissions/fileProtection``.
    public enum FileProtection: Sendable, Equatable {
        /// Readable only while the device is unlocked.
        case complete
        /// Files open when the device locks stay readable; new ones can be created while locked.
        case completeUnlessOpen
        /// Readable once the device was unlocked after a restart (the system's default).
        case completeUntilFirstUserAuthentication
        /// No protection beyond the file system's.
        case none
    }

    /// What an acknowledged save, removal or batch survives.
    ///
    /// | | `.full` | `.buffered` |
    /// |---|---|---|
    /// | the process killed at any moment | kept | kept |
    /// | an operating-system crash or a power loss | kept | may be lost |
    /// | flushes per save | about two per group of saves made at once | none |
    ///
    /// At either level a key holds its old value or its new one after a kill, never a mix, and
    /// a batch is applied whole or not at all; at `.buffered` a crash of the whole system or a
    /// power loss may take back the latest changes (on some file systems a key being replaced
    /// may then read as a damaged file, which ``load(_:forKey:)`` reports and a new save
    /// replaces). `.buffered` is what `UserDefaults`, MMKV and caches that write a file and
    /// rename it give; use it for what can be fetched or computed again.
    ///
    /// **What `.full` costs.** A drive keeps what it is given in a volatile cache, and only a
    /// cache flush makes it survive a power loss: about 17 ms on Apple's NVMe drives. A save at
    /// `.full` flushes twice, once so the value's bytes are on the drive before its name points
    /// at them, once so the rename is: on Apple platforms the first is an `F_BARRIERFSYNC` (the
    /// bytes are sent in order, the cache is not flushed) and the second an `F_FULLFSYNC` (one
    /// cache flush, which makes both durable); on Linux an `fsync` of the file and of its
    /// folder. Saves, removals and batches that threads of one process make at the same time
    /// share those flushes: one of them writes them all, flushes once (a single `syncfs` of the
    /// file system on Linux for several files), renames them all, flushes once, and each caller
    /// returns once its value is durable. Processes do not share flushes with each other; each
    /// flushes for its own saves, which are as safe as ever.
    public enum Durability: Sendable, Equatable, Hashable {
        /// An acknowledged change survives a power loss (the default of ``init(directory:limits:permissions:durability:clock:)``
        /// and ``dataStore(named:durability:)``).
        case full
        /// An acknowledged change survives the process being killed, not a crash of the system
        /// or a power loss; nothing is flushed (the default of ``cacheStore(named:limits:durability:)``).
        case buffered
    }
}
