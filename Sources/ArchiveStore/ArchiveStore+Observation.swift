import Foundation
import KeyedArchive
import Observation
import Synchronization

extension ArchiveStore {
    /// An `Observable` object holding the value under `key`, for SwiftUI views and `@Observable`
    /// models: reading ``ObservableValue/value`` tracks it, setting it saves.
    ///
    /// ```swift
    /// struct SettingsView: View {
    ///     let theme = settings.observable(.theme)
    ///     var body: some View {
    ///         Picker("Theme", selection: Bindable(theme).value) { … }
    ///     }
    /// }
    /// ```
    ///
    /// The object reads the value as `store[key]` does and follows every committed change to it,
    /// whoever made it: this object, another object or instance on the folder, another process
    /// (a widget, an extension). Each such change is one Observation change of `value`.
    ///
    /// - Parameter key: The key to follow.
    /// - Returns: A new object; it watches the folder as long as it lives.
    public func observable<Value: Sendable>(_ key: Key<Value>) -> ObservableValue<Value> {
        ObservableValue(store: self, key: key)
    }

    /// The value under a key, kept current and `Observable` (made by ``ArchiveStore/observable(_:)``).
    ///
    /// **Reading** ``value`` gives the value as `store[key]` reads it (the stored value, else the
    /// registered default, else the key's), from memory: the object reads the store when it is
    /// made and after each change. Inside `withObservationTracking`, a SwiftUI view's `body` or
    /// an `@Observable` model's computed property, the read is tracked.
    ///
    /// **Setting** ``value`` changes it at once (one change for observers) and saves it as
    /// `store[key] = value` does: a save that fails is reported on standard error and to
    /// ``ArchiveStore/failures()``, and the object then goes back to the stored value.
    ///
    /// **Changes made elsewhere** — through `store[key]`, ``ArchiveStore/set(_:for:)``, a batch,
    /// another instance, another process, expiry, removal — reach the object through the store's
    /// journal, as ``ArchiveStore/changes()`` do (within a few milliseconds), and make one change
    /// for observers when they change the value (a change to the same value makes none). Those
    /// changes are made on a queue of the store's, not on the main thread.
    ///
    /// Needs no macro: the object keeps its own `ObservationRegistrar`, so it works wherever
    /// the Observation module does, Linux included.
    public final class ObservableValue<Value: Sendable>: Observable, Sendable {
        /// The key this object follows.
        public let key: Key<Value>
        /// The store it reads and saves.
        public let store: ArchiveStore

        private let registrar = ObservationRegistrar()
        /// The value held, and its archived bytes, to tell a change from a save of the same value.
        private let current: Mutex<(value: Value, bytes: Data?)>
        private let watch: Mutex<(any StoreWatch)?> = Mutex(nil)

        init(store: ArchiveStore, key: Key<Value>) {
            self.store = store
            self.key = key
            let value = store[key]
            current = Mutex((value, Self.bytes(of: value)))
            let started = store.watchKey(key.name) { [weak self] in self?.refresh() }
            watch.withLock { $0 = started }
            // A change made between the first read and the start of the watch is read now.
            refresh()
        }

        deinit {
            watch.withLock { $0?.stop() }
        }

        /// The value under the key (see the type's notes on reading and setting it).
        public var value: Value {
            get {
                registrar.access(self, keyPath: \.value)
                return current.withLock { $0.value }
            }
            set {
                let bytes = Self.bytes(of: newValue)
                registrar.withMutation(of: self, keyPath: \.value) {
                    current.withLock { $0 = (newValue, bytes) }
                }
                do {
                    try store.set(newValue, for: key)
                } catch {
                    store.report(error, .write, key: key.name)
                    refresh()
                }
            }
        }

        /// Reads the store and, if the value is not the one held, takes it as one change.
        private func refresh() {
            let value = store[key]
            let bytes = Self.bytes(of: value)
            let changed = current.withLock { held in
                guard bytes == nil || held.bytes != bytes else { return false }
                held.bytes = bytes
                return true
            }
            guard changed else { return }
            registrar.withMutation(of: self, keyPath: \.value) {
                current.withLock { $0.value = value }
            }
        }

        /// The value archived, to compare two values of any type; nil when it cannot be archived
        /// (every read then counts as a change).
        private static func bytes(of value: Value) -> Data? {
            try? KeyedArchiver.archivedData(withRootObject: value)
        }
    }
}

/// A property that reads and writes the value under a store's key.
///
/// ```swift
/// struct Preferences {
///     @Stored(.theme, store: settings) var theme        // String, "light" until set
///     @Stored(.fontSize, store: settings) var fontSize  // Int
/// }
/// var preferences = Preferences()
/// preferences.theme = "dark"                             // saved
/// ```
///
/// Reading gives the value as `store[key]` reads it; setting saves it as `store[key] = value`
/// does (a failed save is reported on standard error and to ``ArchiveStore/failures()``).
/// The property keeps an ``ArchiveStore/ObservableValue`` (its projected value, `$theme`), so a
/// read inside `withObservationTracking`, a SwiftUI view's `body` or an `@Observable` model is
/// tracked, and changes made elsewhere, in this process or another, arrive as changes.
///
/// **Inside an `@Observable` class**, mark the property `@ObservationIgnored`: the macro turns
/// every stored property it tracks into a computed one, which cannot have a property wrapper
/// (without the mark the class does not compile). Tracking still works, through the
/// ``ArchiveStore/ObservableValue`` the property reads:
///
/// ```swift
/// @Observable final class SettingsModel {
///     @ObservationIgnored @Stored(.theme, store: settings) var theme
///     var isDark: Bool { theme == "dark" }                // tracked: follows every change of theme
/// }
/// ```
@propertyWrapper
public struct Stored<Value: Sendable>: Sendable {
    /// The object the property reads and saves through.
    public let projectedValue: ArchiveStore.ObservableValue<Value>

    /// A property holding the value under `key` in `store`.
    public init(_ key: ArchiveStore.Key<Value>, store: ArchiveStore) {
        projectedValue = store.observable(key)
    }

    /// The value under the key; setting it saves it.
    public var wrappedValue: Value {
        get { projectedValue.value }
        nonmutating set { projectedValue.value = newValue }
    }
}
