import Foundation
import KeyedArchive

/// What a store's reads use besides the files: the unarchiver's limits, its registered types
/// and class names, and the registered defaults of the typed getters.
///
/// The engine of a store's folder in this process owns one, behind a lock: every store opened
/// on the folder and every namespace made from them (at any depth, before or after a change)
/// share it, so configuring any of them configures them all. Each read takes a copy under the lock, so a change applies
/// to the reads that start after it.
// `Any.Type` values are immutable metadata that live as long as the process; they are only
// non-Sendable because the type they name may be, and no instance is reachable through them.
struct StoreConfiguration: @unchecked Sendable {
    /// Types allowed where a polymorphic field or `Any` meets their class names, in registration order.
    var registeredTypes: [Any.Type] = []
    /// Class names read as another type (`setClass(_:forClassName:)`).
    var classNames: [String: Any.Type] = [:]
    var unarchiverOptions = KeyedUnarchiver.Options()
    var archiverOptions = KeyedArchiver.Options()
    /// What every reader of a key gets when it has no readable stored value (`register(defaults:)`).
    var defaults: [String: TypedValue] = [:]
    /// The defaults of the typed keys used with the store in this process, for the getters that
    /// take a string (a registered default wins over them).
    var keyDefaults: [String: TypedValue] = [:]
    /// For a namespace directory and a type's key: the keys found holding the type's values
    /// saved under its name from another module (looked for once per process, see
    /// ``ArchiveStore/movedKeys(for:)``).
    var movedKeys: [MovedKeysEntry: [String]] = [:]

    struct MovedKeysEntry: Hashable {
        let directory: String
        let key: String
    }

    /// Registers `types`, each once.
    mutating func register(_ types: [Any.Type]) {
        for type in types where !registeredTypes.contains(where: { $0 == type }) {
            registeredTypes.append(type)
        }
    }

    /// Gives `unarchiver` the registered types and class names.
    func configure(_ unarchiver: KeyedUnarchiver) {
        for type in registeredTypes { unarchiver.register(type) }
        // A name maps to one type, so the order of these calls does not matter.
        for (name, type) in classNames { unarchiver.setClass(type, forClassName: name) }
    }
}
