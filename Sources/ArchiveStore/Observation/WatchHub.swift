import Foundation
import Synchronization

/// One ``JournalWatcher`` per folder in a process, shared by every observer of it.
///
/// Each observer — a `changes()` loop, a `values(for:)` loop, an observable value, every
/// `@Stored` property — would otherwise hold an inotify instance (or dispatch sources), the
/// folder and the journal open: an app with a hundred stored properties would pass Linux's
/// default of 128 inotify instances per user. The hub starts the watcher with the first
/// observer, hands each batch of records to every observer in the order read, and stops it when
/// the last observer stops.
final class WatchHub: Sendable {
    typealias Deliver = @Sendable ([StoreJournal.Record]) -> Void

    private struct State {
        var watcher: JournalWatcher?
        var observers: [Int: Deliver] = [:]
        var next = 0
    }

    private let rootPath: String
    private let state = Mutex(State())

    init(rootPath: String) {
        self.rootPath = rootPath
    }

    /// Adds an observer; nil when the folder cannot be watched.
    func watch(_ deliver: @escaping Deliver) -> (any StoreWatch)? {
        state.withLock { state -> (any StoreWatch)? in
            if state.watcher == nil {
                state.watcher = JournalWatcher(rootPath: rootPath) { [weak self] records in self?.handOut(records) }
                guard state.watcher != nil else { return nil }
            }
            let id = state.next
            state.next += 1
            state.observers[id] = deliver
            return Observer(hub: self, id: id)
        }
    }

    private func handOut(_ records: [StoreJournal.Record]) {
        let observers = state.withLock { $0.observers.sorted { $0.key < $1.key }.map(\.value) }
        for deliver in observers { deliver(records) }
    }

    /// Removes an observer, and stops the watcher after the last one (without waiting for a
    /// delivery under way, as ``StoreWatch/stop()`` promises).
    fileprivate func remove(_ id: Int) {
        let stopping = state.withLock { state -> JournalWatcher? in
            guard state.observers.removeValue(forKey: id) != nil, state.observers.isEmpty else { return nil }
            defer { state.watcher = nil }
            return state.watcher
        }
        stopping?.stop()
    }

    private struct Observer: StoreWatch {
        let hub: WatchHub
        let id: Int

        func stop() { hub.remove(id) }
    }
}
