/// Every on-disk constant of an ``ArchiveStore``: top-level keys of a stored file and the names
/// of files and directories inside the store directory.
///
/// A store directory holds:
/// - `key-<escaped key>.archive`: one keyed archive per key (see ``StoreFileName``);
/// - `ns-<escaped namespace>/`: one directory per nested namespace, laid out the same way;
/// - `.tmp-<pid>-<sequence>-<random>`: a save in progress, or one killed midway (deleted when a
///   store next opens the folder; see ``ArchiveStore/sweepTemporaryFilesIfIdle(root:)``);
/// - `.lock` (in the store's root directory only): the advisory lock file;
/// - `.journal` (in the root only): the index of every value's size, expiry and last use
///   (``StoreJournal``), rebuilt from the files when it is missing or damaged;
/// - `.namespace` (in a namespace directory whose name is hashed): the namespace's full name.
///
/// Escaped names use only `a-z 0-9 - _ ^ %`, so `key-` files, `ns-` directories and the
/// dot-files above can never be mistaken for each other.
package enum StoreFormat {
    /// `$top` key of the stored value, the key `KeyedUnarchiver.unarchivedObject(ofType:from:)` reads.
    package static let rootKey = "root"
    /// `$top` key of the original key, as a string (exact UTF-8 bytes).
    package static let keyKey = "key"
    /// `$top` key of the expiry time, a real number of seconds since 2001-01-01 00:00:00 UTC
    /// (`Date.timeIntervalSinceReferenceDate`). Absent when the value never expires.
    package static let expiresKey = "expires"
    package static let keyFilePrefix = "key-"
    package static let keyFileExtension = ".archive"
    package static let namespacePrefix = "ns-"
    /// Separates a truncated escaped name from its hash; never produced by escaping.
    package static let hashSeparator: UInt8 = UInt8(ascii: "~")
    /// Hex digits of the SHA-256 prefix in a hashed name (128 bits).
    package static let hashHexLength = 32
    package static let temporaryPrefix = ".tmp-"
    package static let lockFileName = ".lock"
    /// In a namespace directory with a hashed name (see ``StoreFileName``): the namespace's full
    /// name as UTF-8, so ``ArchiveStore/namespaces`` can give it back. Written durably before the
    /// namespace's first value.
    package static let namespaceNameFileName = ".namespace"
    /// The longest namespace-name file read back.
    package static let maximumNamespaceNameFileSize = 1 << 20
    /// The longest file name written: `NAME_MAX` of ext4, APFS, btrfs, XFS and NTFS.
    package static let maximumFileNameLength = 255
}
