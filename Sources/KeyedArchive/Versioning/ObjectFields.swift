@_spi(Reader) import PropertyList

/// The fields of one coded object as the type decoding it sees them: the archive's own, or, when
/// the type migrated the object (``ArchiveVersioned``), the fields its migration left. Every
/// coder that reads an object's fields — reflection, ``KeyedCoding``, `Codable`'s keyed
/// containers — reads them through this view, so none of them has a path of its own for
/// migrated objects.
///
/// A field's value is in a ``Slot``: a reference into the archive, or a value a migration set.
struct ObjectFields {
    typealias Slot = ArchivedObject.Slot

    let core: UnarchiverCore
    /// The object in the archive (for error positions, the report and cycle checks).
    let dict: UnarchiverCore.ObjectDict
    /// The migration's result, when the object had one (held by reference, so the view stays
    /// two words and an object's coordinates, cheap to pass to every field).
    private let migrated: Migrated?

    private final class Migrated {
        let object: ArchivedObject
        init(_ object: ArchivedObject) { self.object = object }
    }

    /// The archive's fields of `dict`, as they are.
    init(_ core: UnarchiverCore, dict: UnarchiverCore.ObjectDict) {
        self.init(core, dict: dict, migrated: nil)
    }

    /// The fields of `coded` as its type reads them: migrated first when its archived version
    /// or its type's aliases ask for it (see ``UnarchiverCore/migrated(_:_:)``).
    init(_ core: UnarchiverCore, _ coded: CodedObject, _ versioning: TypeVersioning) throws {
        // Migrated before any property is set: a throwing initialiser that set some first would
        // copy and destroy the partly made view.
        let migrated = try core.migrated(coded, versioning).map(Migrated.init)
        self.init(core, dict: coded.dict, migrated: migrated)
    }

    private init(_ core: UnarchiverCore, dict: UnarchiverCore.ObjectDict, migrated: Migrated?) {
        self.core = core
        self.dict = dict
        self.migrated = migrated
    }

    /// The keys, in archive order (a key a migration set comes last), without `$class`.
    var keys: [String] { migrated?.object.keys ?? (try? core.keys(of: dict)) ?? [] }

    /// Whether there is a value under `key` (a stored nil counts as a value).
    func contains(_ key: String) -> Bool {
        ((try? slot(forKey: key)) ?? nil) != nil
    }

    /// Where the value under `key` is; nil when absent.
    func slot(forKey key: String) throws -> Slot? {
        guard let migrated else {
            return try core.value(in: dict, escapedKey: ArchiveFormat.escape(key)).map(Slot.archived)
        }
        return migrated.object.slot(forKey: key)
    }

    /// ``slot(forKey:)`` by the key's number in ``ArchiveKeyIDs``, searching the archive from
    /// `hint` (see ``ArchiveGraph/value(in:keyID:hint:)``): reflection's way, field after field.
    /// (`key` is read only for a migrated object: a field costs no copy of its key otherwise.)
    @inline(__always)
    func slot(keyID: Int32, key: @autoclosure () -> String, hint: inout Int) throws -> Slot? {
        guard let migrated else {
            guard let reference = try core.value(in: dict, keyID: keyID, hint: &hint) else { return nil }
            return .archived(reference)
        }
        return migrated.object.slot(forKey: key())
    }

    /// The value in `slot` as `T`.
    func read<T>(_ slot: Slot, as type: T.Type) throws -> T {
        try ArchivedObject.read(slot, as: T.self, core)
    }

    /// The value in `slot` as `T`, or nil when it is nil.
    func readIfPresent<T>(_ slot: Slot, as type: T.Type) throws -> T? {
        try ArchivedObject.read(slot, as: T?.self, core)
    }

    /// The archive and reference holding the value in `slot` (for a value a migration set, that
    /// value's own archive), and the set value itself: for decoders that read it through containers.
    func location(of slot: Slot) throws -> (core: UnarchiverCore, reference: Int, set: SetValue?) {
        switch slot {
        case .archived(let reference): return (core, reference, nil)
        case .value(let set):
            let (core, reference) = try set.archivedValue()
            return (core, reference, set)
        }
    }

    /// The error for a key the fields lack, `advice` appended to its reason; its key path is
    /// the key unless the caller adds it (`withKeyPath: false`).
    func keyNotFound(_ key: String, owner: String, advice: String = "", withKeyPath: Bool = true) -> ArchiveError {
        let holds = migrated.map { " (as its migration left it: \(input: "\($0.object.keys)"))" } ?? ""
        return ArchiveError(
            .keyNotFound, reason: "\(owner) has no value for the key \(quoted: key)\(holds)\(advice)",
            byteOffset: dict.object.offset, objectIndex: dict.index, keyPath: withKeyPath ? key : nil)
    }
}
