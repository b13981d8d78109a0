import Foundation
import KeyedArchive

/// How a store reads its values: which types a class name may select, and the unarchiver's limits.
///
/// The configuration belongs to the store made with ``ArchiveStore/init(directory:limits:permissions:durability:clock:)`` (or
/// ``ArchiveStore/dataStore(named:durability:)``, ``ArchiveStore/cacheStore(named:limits:durability:)``) and is shared by
/// every namespace made from it, at any depth and whenever it was made: registering a type on
/// the store or on any of its namespaces lets all of them read it. A change applies to every
/// read that starts after it (``ArchiveStore/load(_:forKey:)``, the typed getters,
/// ``ArchiveStore/contains(_:)``, ``ArchiveStore/keys``, ``ArchiveStore/removeExpired()``).
/// Thread-safe; saves are not affected.
///
/// ```swift
/// class Vehicle: Archivable { var wheels = 4; required init() {} }
/// final class Car: Vehicle { var seats = 5 }
/// final class Garage: Archivable { var parked: Vehicle = Vehicle(); required init() {} }
///
/// store.register(Car.self)                     // a Vehicle field may hold a Car
/// store.setClass(Car.self, forClassName: "OldApp.Automobile")
/// store.unarchiverOptions.maximumArchiveSize = 10 << 20
/// let garage = try store.namespace("alice").load(Garage.self, forKey: "garage")
/// ```
extension ArchiveStore {
    /// Allows these concrete types where a field declared as a base class (or `Any`) meets
    /// their class names, for every later load of this store and its namespaces.
    ///
    /// The unarchiver's ``/KeyedArchive/KeyedUnarchiver/register(_:)``. Registering a type twice is harmless.
    ///
    /// - Parameter types: `Archivable`, `KeyedCoding` or `Codable` types.
    public func register(_ types: Any.Type...) {
        configuration.withLock { $0.register(types) }
    }

    /// Reads objects archived under class name `name` as `type` (a renamed or moved type), for
    /// every later load of this store and its namespaces.
    ///
    /// The unarchiver's ``/KeyedArchive/KeyedUnarchiver/setClass(_:forClassName:)``; a later call for the
    /// same name replaces the earlier one.
    ///
    /// - Parameters:
    ///   - type: The type to read those objects as.
    ///   - name: A `$classname` as it appears in stored files, such as `OldApp.Point`.
    public func setClass(_ type: Any.Type, forClassName name: String) {
        configuration.withLock { $0.classNames[name] = type }
    }

    /// The limits every later read of this store and its namespaces uses
    /// (``/KeyedArchive/KeyedUnarchiver/Options``; its defaults until set).
    ///
    /// `maximumArchiveSize` also bounds the files read: a larger file is not read at all, and
    /// counts as a damaged file (``load(_:forKey:)`` throws `.sizeLimit`). Reading or setting
    /// the whole value is atomic; `store.unarchiverOptions.maximumDepth = 64` reads, changes and
    /// sets it, so two threads changing different limits at once may lose one change.
    public var unarchiverOptions: KeyedUnarchiver.Options {
        get { configuration.withLock { $0.unarchiverOptions } }
        set { configuration.withLock { $0.unarchiverOptions = newValue } }
    }

    /// How every later save of this store and its namespaces archives its value
    /// (``/KeyedArchive/KeyedArchiver/Options``; its defaults until set): the depth limit and the
    /// property-list format of the files.
    ///
    /// ```swift
    /// store.archiverOptions.maximumDepth = 2_048      // a reply thread thousands deep
    /// store.unarchiverOptions.maximumDepth = 2_048    // and read it back
    /// ```
    ///
    /// Files in XML (`outputFormat = .xml`) are read like binary ones, by every store.
    /// Shared by every store on the folder in this process, like ``unarchiverOptions``, and
    /// atomic in the same way.
    public var archiverOptions: KeyedArchiver.Options {
        get { configuration.withLock { $0.archiverOptions } }
        set { configuration.withLock { $0.archiverOptions = newValue } }
    }

    /// The configuration every namespace of this store shares.
    var configuration: Locked<StoreConfiguration> { engine.configuration }
}
