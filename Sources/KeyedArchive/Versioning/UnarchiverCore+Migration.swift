@_spi(Reader) import PropertyList

/// A coded object about to be decoded by its type's coder. Trivial (no reference counted
/// member), so handing it to the coder costs nothing on the path without migrations.
struct CodedObject {
    let dict: UnarchiverCore.ObjectDict
    /// The version the object was archived at, when it needs migrating or its aliases applied
    /// (see ``UnarchiverCore/migrated(_:_:)``); -1 when its fields are read as they are.
    let pendingVersion: Int
}

extension UnarchiverCore {
    /// For an object whose archived version is not its type's, or whose type has aliases: the
    /// version to migrate from, or nil when there is nothing to do. Refuses a newer version
    /// unless the options allow it.
    func migrationStart(_ dict: ObjectDict, _ description: ClassDescription, _ versioning: TypeVersioning) throws -> Int? {
        if let problem = versioning.problem {
            throw ArchiveError(problem.code, reason: problem.reason, byteOffset: dict.object.offset, objectIndex: dict.index)
        }
        let archived = description.version
        if archived > versioning.version {
            guard options.allowsNewerVersions else {
                throw ArchiveError(
                    .newerVersion,
                    reason: "the archive holds \(input: description.name) at version \(archived), newer than \(versioningName(versioning, description))'s archiveVersion \(versioning.version) here: it was written by a newer build (set allowsNewerVersions to read it, ignoring the fields this version does not know)",
                    byteOffset: dict.object.offset, objectIndex: dict.index)
            }
        }
        if archived < versioning.version { return archived }
        // Aliases matter only for an object that lacks a field and has one of its old keys.
        for alias in versioning.aliases {
            var hint = 0
            guard try value(in: dict, keyID: alias.fieldID, hint: &hint) == nil else { continue }
            for oldID in alias.oldIDs {
                hint = 0
                if try value(in: dict, keyID: oldID, hint: &hint) != nil { return archived }
            }
        }
        return nil
    }

    private func versioningName(_ versioning: TypeVersioning, _ description: ClassDescription) -> String {
        versioning.typeName.isEmpty ? description.name : versioning.typeName
    }

    /// The object's fields after its type's migration steps and aliases, or nil when they are
    /// read from the archive as they are.
    @inline(__always)
    func migrated(_ object: CodedObject, _ versioning: TypeVersioning) throws -> ArchivedObject? {
        guard object.pendingVersion >= 0 else { return nil }
        return try migrate(object, versioning)
    }

    private func migrate(_ object: CodedObject, _ versioning: TypeVersioning) throws -> ArchivedObject {
        let start = object.pendingVersion
        let className = try classDescription(of: object.dict).name
        var view = try ArchivedObject(
            core: self, dict: object.dict, className: className, version: start)
        var version = start
        while version < versioning.version {
            view.version = version
            do {
                try versioning.migrate(&view, from: version)
            } catch let error as ArchiveError where error.code == .migrationFailed {
                throw error
            } catch {
                throw migrationError(error, versioning, object, from: version, start: start)
            }
            version += 1
        }
        view.version = version
        if start < version { reportMigration(of: object.dict.uid, className: className, from: start, to: version) }
        for alias in versioning.aliases where !view.contains(alias.field) {
            if let old = alias.oldKeys.first(where: view.contains) { view.renameField(old, to: alias.field) }
        }
        return view
    }

    private func migrationError(_ error: any Error, _ versioning: TypeVersioning, _ object: CodedObject, from version: Int, start: Int) -> ArchiveError {
        let steps = start == version ? "" : " (archived at version \(start))"
        let base = "migrating \(versioning.typeName) from version \(version) to \(version + 1)\(steps) failed"
        guard let archiveError = error as? ArchiveError else {
            return ArchiveError(
                .migrationFailed, reason: "\(base): \(error)", byteOffset: object.dict.object.offset, objectIndex: object.dict.index)
        }
        return ArchiveError(
            .migrationFailed, reason: "\(base): \(archiveError.code): \(archiveError.reason)",
            byteOffset: archiveError.byteOffset ?? object.dict.object.offset, objectIndex: archiveError.objectIndex ?? object.dict.index,
            keyPath: archiveError.keyPath)
    }
}
