import ArchiveFileSystem
import Foundation
import KeyedArchive

extension ArchiveStore {
    /// Rewrites every value of `type` stored here, and in the namespaces nested in this one, at
    /// the type's current version (its `archiveVersion`), one file at a time.
    ///
    /// Loads already read older versions (``load(_:forKey:)`` migrates them), and every
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
    /// A value that cannot be read (a damaged file, a foreign file, a failed migration) is left
    /// untouched and listed in the result's ``UpgradeResult/skipped`` with its error; the other
    /// values are upgraded all the same.
    ///
    /// - Parameter type: The type whose values to rewrite, as it is today.
    /// - Returns: How many values were rewritten, and the ones skipped and why.
    /// - Throws: `ArchiveError` `.io` when a folder cannot be listed or a rewritten value cannot
    ///   be written (a full disk); the values rewritten before it stay rewritten.
    @discardableResult
    public func upgradeAll<T>(_ type: T.Type) throws -> UpgradeResult {
        let archived = KeyedArchiver.archivedNames(of: type)
        var names = Set(archived.names)
        // Names read as the type (or, for a collection, as its elements) with setClass(_:forClassName:).
        let own = names
        for (name, mapped) in configuration.withLock({ $0.classNames }) where own.contains(KeyedArchiver.className(of: mapped)) {
            names.insert(name)
        }
        var result = UpgradeResult()
        try upgradeAll(type, names: names, in: archived.collection, namespacePath: [], into: &result)
        return result
    }

    private func upgradeAll<T>(
        _ type: T.Type, names: Set<String>, in collection: ArchivedCollection?, namespacePath: [String],
        into result: inout UpgradeResult
    ) throws {
        for key in try listKeys() {
            do {
                if try upgrade(type, forKey: key, names: names, in: collection) { result.rewritten += 1 }
            } catch let error as UpgradeWriteFailure {
                throw error.error
            } catch {
                let archiveError = error as? ArchiveError ?? ArchiveError(.io, reason: "\(error)")
                result.skipped.append(.init(key: key, namespacePath: namespacePath, error: archiveError))
            }
        }
        for name in try listNamespaces() {
            try namespace(name).upgradeAll(type, names: names, in: collection, namespacePath: namespacePath + [name], into: &result)
        }
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
        let content = try StoreRecord.encode(value, key: key, expires: expires, options: configuration.archiverOptions)
        guard content != record.data else { return false }
        do {
            return try engine.rewrite(
                FileChange(place: place, key: key, action: .save(content, expires: record.expires)),
                ifUnchanged: version, at: now.timeIntervalSinceReferenceDate)
        } catch let error as ArchiveError {
            throw UpgradeWriteFailure(error: error)
        }
    }

    /// What ``upgradeAll(_:)`` did.
    public struct UpgradeResult: Sendable {
        /// A value left as it was, and why.
        public struct Skipped: Sendable {
            /// Its key.
            public let key: String
            /// The names of the namespaces holding it, from the store ``upgradeAll(_:)`` was
            /// called on (empty: that store itself).
            public let namespacePath: [String]
            /// Why it could not be read or upgraded (the error ``load(_:forKey:)`` throws for it).
            public let error: ArchiveError
        }

        /// How many values were rewritten.
        public var rewritten = 0
        /// The values that could not be read or upgraded, in the order met.
        public var skipped: [Skipped] = []
    }
}

/// A rewrite that could not be written: it ends ``ArchiveStore/upgradeAll(_:)``, where a value
/// that cannot be read is only skipped.
private struct UpgradeWriteFailure: Error {
    let error: ArchiveError
}

