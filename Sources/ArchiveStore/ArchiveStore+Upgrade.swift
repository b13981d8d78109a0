import ArchiveFileSystem
import Foundation
import KeyedArchive

extension ArchiveStore {
    /// Rewrites every value of `type` stored here, and in the namespaces nested in this one, at
    /// the type's current version (its `archiveVersion`), one file at a time.
    ///
    /// Loads already read older versions (``load(_:forKey:)-8yj94`` migrates them), and every
    /// save writes the current one; call this after a release that changed a model, so that
    /// files no longer depend on the migration code, or before removing it.
    ///
    /// A value is rewritten when it is a `type` and writing it again gives other bytes: an older
    /// version of it or of anything inside it, old keys read through aliases, an old class name.
    /// A value is taken for a `type` when its file's root object has the type's class name, one
    /// of its `archiveLegacyClassNames` or a name mapped to it with ``setClass(_:forClassName:)``;
    /// for an array, set, dictionary or Optional type, when the root is a collection and the file
    /// holds objects of the element type's names. Its key and expiry stay as they were;
    /// observers see a `.saved` change. A value that only holds `type`'s objects deeper down (a
    /// notebook of notes) is upgraded by a call for its own type, and a subclass stored through
    /// a base-class type by a call for the subclass.
    ///
    /// A type renamed since (`archiveLegacyClassNames`) is rewritten under its new name, which
    /// builds from before the rename cannot read: upgrade once no older build reads the store.
    ///
    /// Each rewrite is a save: a new file flushed and renamed over the old one, so a process
    /// killed at any moment leaves every value loadable, at the old version or the new, and
    /// calling this again finishes the job. A value saved by someone else between this call's
    /// read and its write is left as that save wrote it.
    ///
    /// - Parameter type: The type whose values to rewrite, as it is today.
    /// - Returns: How many values were rewritten.
    /// - Throws: The first error of a value of `type` that cannot be loaded (a failed migration,
    ///   a damaged file) or written; the values rewritten before it stay rewritten. Files of
    ///   other types are not decoded.
    @discardableResult
    public func upgradeAll<T>(_ type: T.Type) throws -> Int {
        let archived = KeyedArchiver.archivedNames(of: type)
        var names = Set(archived.names)
        // Names read as the type (or, for a collection, as its elements) with setClass(_:forClassName:).
        let own = names
        for (name, mapped) in configuration.withLock({ $0.classNames }) where own.contains(KeyedArchiver.className(of: mapped)) {
            names.insert(name)
        }
        var rewritten = 0
        for key in keys where try upgrade(type, forKey: key, names: names, in: archived.collection) { rewritten += 1 }
        for name in namespaces { rewritten += try namespace(name).upgradeAll(type) }
        return rewritten
    }

    /// Rewrites the value of `key` if it is a `T` and writing it again changes its file.
    private func upgrade<T>(_ type: T.Type, forKey key: String, names: Set<String>, in collection: ArchivedCollection?) throws -> Bool {
        let configuration = configuration.withLock { $0 }
        let now = clock.now
        guard let (record, version) = try engine.storedRecord(forKey: key, in: place, now: now, configuration: configuration),
            record.holdsObjects(ofClassesNamed: names, in: collection)
        else { return false }
        let value = try record.decodeValue(type)
        let expires = record.expires.map { Date(timeIntervalSinceReferenceDate: $0) }
        let content = try StoreRecord.encode(value, key: key, expires: expires)
        guard content != record.data else { return false }
        return try engine.rewrite(
            FileChange(place: place, key: key, action: .save(content, expires: record.expires)),
            ifUnchanged: version, at: now.timeIntervalSinceReferenceDate)
    }
}
