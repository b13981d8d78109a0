import Foundation
import KeyedArchive
import PropertyList
import Synchronization

extension ArchiveStore {
    /// An error that a call without `throws` met and could not throw: a subscript or an
    /// observable value that could not save, a getter that read a damaged file, a listing of a
    /// folder that could not be read.
    ///
    /// Those calls keep answering (the default, an empty list) and report the failure twice, so
    /// it is never silent:
    ///
    /// - on **standard error**, as one line starting with `ArchiveStore:` (Xcode's console, a
    ///   terminal, a server's log); a failed write every time, a failed read once per key and
    ///   error in a process;
    /// - to every sequence returned by ``failures()`` on a store of the same folder in this
    ///   process, every time.
    ///
    /// The throwing forms report nothing here: they throw. Each non-throwing call names its
    /// throwing twin (``value(for:)`` for `store[key]`, ``set(_:for:)`` for `store[key] = value`,
    /// ``listKeys()`` for ``keys``...).
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What the store was doing.
        public enum Operation: Sendable, Equatable, Hashable {
            /// Reading a value (a getter, `store[key]`, an observable value).
            case read
            /// Saving or removing a value (`store[key] = value`, an observable value, `@Stored`).
            case write
            /// Listing keys or namespaces, or counting values (``keys``, ``namespaces``, ``count``,
            /// ``totalBytes``).
            case list
        }

        /// What the store was doing.
        public let operation: Operation
        /// The key, exactly as given; nil for a listing.
        public let key: String?
        /// The directory of the namespace (see ``ArchiveStore/directory``).
        public let directory: URL
        /// What went wrong, as the throwing form would have thrown it.
        public let error: ArchiveError

        /// A failure of `operation` on `key` in `directory` (to compare with what ``ArchiveStore/failures()`` yields).
        public init(operation: Operation, key: String?, directory: URL, error: ArchiveError) {
            self.operation = operation
            self.key = key
            self.directory = directory
            self.error = error
        }

        /// `ArchiveStore: could not save "theme" in /path: ArchiveError.io: …`.
        public var description: String {
            let verb =
                switch operation {
                case .read: "read"
                case .write: "save"
                case .list: "list"
                }
            let subject = key.map { " \"\(ArchiveError.bounded($0))\"" } ?? ""
            var folder = directory.path(percentEncoded: false)
            while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
            return "ArchiveStore: could not \(verb)\(subject) in \(folder): \(error)"
        }
    }

    /// Every ``Failure`` the non-throwing calls meet from now on, on any store of this folder
    /// (every namespace, every instance) in this process, until the iteration ends.
    ///
    /// ```swift
    /// let failures = store.failures()             // reports from this line on
    /// Task {
    ///     for await failure in failures {
    ///         logger.error("\(failure)")          // or assertionFailure in debug builds
    ///     }
    /// }
    /// store[.theme] = "dark"                      // a failed save arrives above
    /// ```
    ///
    /// The sequence reports what happens after the call that made it, so make it before the
    /// task that reads it starts (a task's body may start later). Failures are kept for a slow
    /// reader, up to the 100 newest.
    public func failures() -> some AsyncSequence<Failure, Never> & Sendable {
        engine.failures.stream()
    }

    /// Reports `error` of a non-throwing call (see ``Failure``).
    func report(_ error: any Error, _ operation: Failure.Operation, key: String?) {
        let archiveError = error as? ArchiveError ?? ArchiveError(.io, reason: "\(error)")
        engine.failures.report(Failure(operation: operation, key: key, directory: directory, error: archiveError))
    }
}

/// Where a folder's ``ArchiveStore/Failure``s go: standard error and the live ``ArchiveStore/failures()`` sequences.
final class FailureChannel: Sendable {
    private struct State {
        var listeners: [Int: AsyncStream<ArchiveStore.Failure>.Continuation] = [:]
        var next = 0
        /// The reads already printed (the same damaged file is read again on every redraw).
        var printedReads: Set<String> = []
    }

    private let state = Mutex(State())
    /// How many distinct read failures are printed in a process, at most.
    private static let printedReadLimit = 1_000

    func stream() -> AsyncStream<ArchiveStore.Failure> {
        let (stream, continuation) = AsyncStream<ArchiveStore.Failure>.makeStream(bufferingPolicy: .bufferingNewest(100))
        let id = state.withLock { state in
            defer { state.next += 1 }
            state.listeners[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    func report(_ failure: ArchiveStore.Failure) {
        let (listeners, prints) = state.withLock { state -> ([AsyncStream<ArchiveStore.Failure>.Continuation], Bool) in
            var prints = true
            if failure.operation == .read {
                let signature = "\(failure.directory.path)\u{0}\(failure.key ?? "")\u{0}\(failure.error.code)"
                prints = state.printedReads.count < Self.printedReadLimit && state.printedReads.insert(signature).inserted
            }
            return (Array(state.listeners.values), prints)
        }
        if prints { FileHandle.standardError.write(Data((failure.description + "\n").utf8)) }
        for listener in listeners { listener.yield(failure) }
    }
}
