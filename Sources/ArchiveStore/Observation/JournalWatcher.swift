import ArchiveFileSystem
import Dispatch
import Synchronization
import Foundation
import KeyedArchive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Follows a store's journal as it grows and hands each new record to `deliver`: the source of
/// ``ArchiveStore/changes()`` and its relatives.
///
/// Every process using the store appends its saves, removals, expiries and evictions to the
/// journal, so following it sees them all, this process's included. The file system says when
/// it grows: inotify on the store's folder on Linux, dispatch sources on the folder and the
/// journal (kqueue) on Apple platforms. A compaction replaces the journal: the watcher reads the
/// old file to its end (it keeps it open) before it follows the new one, so no record is missed.
final class JournalWatcher: StoreWatch, @unchecked Sendable {
    // @unchecked: every mutable property is touched only on `queue`.
    private let queue = DispatchQueue(label: "ArchiveStore.JournalWatcher")
    private let root: Directory
    private let rootPath: String
    private let deliver: @Sendable ([StoreJournal.Record]) -> Void
    /// The journal file being read, and how far.
    private var journal: Int32 = -1
    private var identity: StoreJournal.Identity?
    private var offset = 0
    private var sources: [DispatchSourceProtocol] = []
    #if canImport(Glibc) || canImport(Musl)
    private var notifications: Int32 = -1
    #endif
    private var stopped = false

    /// By store folder: watchers alive and the descriptors they hold open (their folder's
    /// included), in this process: what a test checks an ended iteration gave back.
    static let resources = Mutex<[String: Int]>([:])

    /// Counts `change` resources for the folder at `rootPath`.
    private static func count(_ change: Int, for rootPath: String) {
        resources.withLock { counts in
            let total = counts[rootPath, default: 0] + change
            counts[rootPath] = total == 0 ? nil : total
        }
    }

    private static func opened(_ descriptor: Int32, for rootPath: String) -> Int32 {
        if descriptor >= 0 { count(1, for: rootPath) }
        return descriptor
    }

    private static func close(_ descriptor: Int32, for rootPath: String) {
        guard descriptor >= 0 else { return }
        count(-1, for: rootPath)
        _ = systemClose(descriptor)
    }

    /// Starts following the journal of the store whose root is `rootPath` from its current end.
    /// Nil when the folder cannot be opened or watched.
    init?(rootPath: String, deliver: @escaping @Sendable ([StoreJournal.Record]) -> Void) {
        guard let root = try? Directory.open(path: rootPath) else { return nil }
        Self.count(1, for: rootPath)  // this watcher, with its folder
        self.root = root
        self.rootPath = rootPath
        self.deliver = deliver
        let started: Bool = queue.sync {
            openJournal(atEnd: true)
            return startWatching()
        }
        if !started {
            stop()
            return nil
        }
    }

    deinit {
        // Descriptors watched by a dispatch source are closed by its cancel handler.
        #if !canImport(Darwin)
        Self.close(journal, for: rootPath)
        #endif
        Self.count(-1, for: rootPath)
    }

    /// Stops watching, without waiting: a delivery already under way may still finish.
    ///
    /// It must not wait: it is called when an observing task ends, and a task cancelled while a
    /// record is being handed to it finishes its cancellation only after that hand-over, which
    /// would wait for this call in turn.
    func stop() {
        queue.async { [self] in
            stopped = true
            for source in sources { source.cancel() }
            sources.removeAll()
            #if canImport(Darwin)
            journalSource?.cancel()
            journalSource = nil
            journal = -1
            #endif
        }
    }

    // MARK: Reading

    /// Opens the journal now in the folder; from its end when `atEnd` (records already there are
    /// not news), else from its first record.
    private func openJournal(atEnd: Bool) {
        #if canImport(Darwin)
        journalSource?.cancel()  // its cancel handler closes the old descriptor
        journalSource = nil
        #else
        Self.close(journal, for: rootPath)
        #endif
        journal = Self.opened(
            retryingInterrupts { openat(root.descriptor, StoreJournal.fileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) },
            for: rootPath)
        identity = nil
        offset = StoreJournal.headerSize
        guard journal >= 0 else { return }
        var info = stat()
        guard fstat(journal, &info) == 0 else { return }
        identity = StoreJournal.Identity(info)
        if atEnd { offset = max(StoreJournal.headerSize, Int(info.st_size)) }
        #if canImport(Darwin)
        watchJournalFile()
        #endif
    }

    /// Reads what the journal gained; follows a new journal file once the old one is read out.
    private func readNewRecords() {
        guard !stopped else { return }
        var records = journal >= 0 ? readToEnd() : []
        var current = stat()
        let replaced =
            fstatat(root.descriptor, StoreJournal.fileName, &current, AT_SYMLINK_NOFOLLOW) == 0
            && StoreJournal.Identity(current) != identity
        if replaced {
            // A compaction's snapshot describes values, not changes: follow from its end; a
            // journal started afresh is read from its first record.
            openJournal(atEnd: false)
            records += readToEnd().filter { $0.kind != .snapshot }
        }
        if !records.isEmpty { deliver(records) }
    }

    /// The whole records between `offset` and the end of the open journal.
    private func readToEnd() -> [StoreJournal.Record] {
        var info = stat()
        guard fstat(journal, &info) == 0 else { return [] }
        let length = Int(info.st_size)
        guard length > offset, length - offset <= StoreJournal.maximumJournalLength else {
            if length < offset { offset = StoreJournal.headerSize }  // truncated in place
            return []
        }
        let parsed = StoreJournal.parse(StoreJournal.bytes(of: journal, from: offset, count: length - offset), from: 0)
        if parsed.damaged {
            // Nothing after damage can be trusted: skip to the end (the store repairs the journal).
            offset = length
        } else {
            offset += parsed.end
        }
        return parsed.records
    }

    // MARK: Notifications

    #if canImport(Glibc) || canImport(Musl)
    /// inotify on the store's folder: an append to the journal (`IN_MODIFY`), a journal linked or
    /// renamed into place (`IN_CREATE`, `IN_MOVED_TO`).
    private func startWatching() -> Bool {
        notifications = Self.opened(inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)), for: rootPath)
        guard notifications >= 0,
            inotify_add_watch(notifications, root.path, UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO)) >= 0
        else { return false }
        let source = DispatchSource.makeReadSource(fileDescriptor: notifications, queue: queue)
        source.setEventHandler { [weak self] in
            self?.drainNotifications()
            self?.readNewRecords()
        }
        let descriptor = notifications
        source.setCancelHandler { [rootPath] in Self.close(descriptor, for: rootPath) }
        sources.append(source)
        source.resume()
        return true
    }

    private func drainNotifications() {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = Directory.read(notifications, into: &buffer, at: 0)
            if count <= 0 { return }
        }
    }
    #elseif canImport(Darwin)
    /// A dispatch source on the store's folder (an entry created or renamed: a journal replaced)
    /// and one on the journal file (grown, deleted or renamed).
    private func startWatching() -> Bool {
        let source = DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: root.descriptor, eventMask: [.write, .link, .rename], queue: queue)
        source.setEventHandler { [weak self] in self?.readNewRecords() }
        let root = root
        source.setCancelHandler { withExtendedLifetime(root) {} }  // keeps the folder open until then
        sources.append(source)
        source.resume()
        return true
    }

    private var journalSource: DispatchSourceFileSystemObject?

    private func watchJournalFile() {
        guard journal >= 0 else { return }
        let descriptor = journal
        guard !stopped else {
            Self.close(descriptor, for: rootPath)
            journal = -1
            return
        }
        let source = DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: descriptor, eventMask: [.extend, .write, .delete, .rename, .revoke], queue: queue)
        source.setEventHandler { [weak self] in self?.readNewRecords() }
        source.setCancelHandler { [rootPath] in Self.close(descriptor, for: rootPath) }
        journalSource = source
        source.resume()
    }
    #endif
}

/// The C library's `close`, named apart from the watcher's own.
private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
