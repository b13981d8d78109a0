import Foundation
@_spi(Reader) import PropertyList

extension ArchiverCore {
    /// One level deeper into coded objects and collections; fails past `maximumDepth`.
    /// The caller decrements `depth` when it leaves.
    func enterNesting() throws(ArchiveError) {
        depth += 1
        guard depth <= maximumDepth else {
            depth -= 1
            throw ArchiveError(
                .depthLimit,
                reason: "values are nested more than \(maximumDepth) deep; the unarchiver's default limit is 512 (raise maximumDepth on both sides for deeper graphs)")
        }
        guard stack.hasRoom() else {
            depth -= 1
            throw ArchiveError(.depthLimit, reason: StackGuard.reason(depth: depth + 1))
        }
    }

    /// Writes a coded object (`$class` plus fields) for a value of type `T`.
    ///
    /// A class instance gets one UID for its whole life in the archive: a second reference reuses
    /// it. An instance of a subclass is handed to the coder of its dynamic type. With
    /// `allowsCycles` false, meeting an instance again while its fields are being written is a cycle error.
    func encodeObject<T>(
        _ value: T, className: String, allowsCycles: Bool, fields: (ObjectFrame) throws -> Void
    ) throws -> Int {
        try encodeObject(value, allowsCycles: allowsCycles, fields: fields) {
            if let renamed = classNames.isEmpty ? nil : classNames[ObjectIdentifier(T.self)] {
                return classUID(renamed, classes: [renamed, ArchiveFormat.rootClass])
            }
            return classUID(className, classes: [className, ArchiveFormat.rootClass])
        }
    }

    /// ``encodeObject(_:className:allowsCycles:fields:)`` for a type whose class
    /// description UID `classUID` gives (called once the fields are written).
    func encodeObject<T>(
        _ value: T, allowsCycles: Bool, fields: (ObjectFrame) throws -> Void, classUID: () -> Int
    ) throws -> Int {
        var instance: AnyObject?
        if T.self is AnyClass {
            let object = unsafeBitCast(value, to: AnyObject.self)
            let dynamicType: AnyObject.Type = type(of: object)
            if ObjectIdentifier(dynamicType) != ObjectIdentifier(T.self) {
                return try coders.coder(for: dynamicType).encodeAny(value, inline: false, self)
            }
            if let existing = existingUID(of: object) {
                if !allowsCycles { try checkAcyclic(object, typeName: String(reflecting: T.self)) }
                return uid(existing)
            }
            instance = object
        }
        guard let instance else { return try encodeValueObject(fields: fields, classUID: classUID) }
        try enterNesting()
        defer { depth -= 1 }
        let frame = beginObject()
        register(instance, uid: frame.uid)
        if !allowsCycles {
            do {
                try enterAcyclic(instance, typeName: String(reflecting: T.self))
            } catch {
                abandonObject(frame)
                throw error
            }
        }
        defer { if !allowsCycles { leaveAcyclic(instance) } }
        return try fill(frame, fields: fields, classUID: classUID)
    }

    /// Writes a coded object for a value without identity (a struct): a new UID every time.
    @inline(__always)
    func encodeValueObject(fields: (ObjectFrame) throws -> Void, classUID: () -> Int) throws -> Int {
        try enterNesting()
        defer { depth -= 1 }
        return try fill(beginObject(), fields: fields, classUID: classUID)
    }

    /// Writes the fields of the object begun as `frame`, then ends it with its class; on an
    /// error the object is abandoned. Returns its UID reference.
    @inline(__always)
    private func fill(_ frame: ObjectFrame, fields: (ObjectFrame) throws -> Void, classUID: () -> Int) throws -> Int {
        do {
            try fields(frame)
        } catch {
            abandonObject(frame)
            throw error
        }
        endObject(frame, classUID: classUID())
        return uid(frame.uid)
    }
}

extension UnarchiverCore {
    /// An instance decoded before, as `T`.
    static func cast<T>(_ existing: AnyObject, to type: T.Type, object: BPlistDocument.Object, index: Int) throws -> T {
        try cast(
            existing, to: T.self, object: object, index: index,
            reason: "expected \(String(reflecting: T.self)), found an instance of \(String(reflecting: Swift.type(of: existing)))")
    }

    /// `value` as `T`, or a `.typeMismatch` for `reason`. Out of line: its `T?` would otherwise
    /// make every `decodeObject` call look up `Optional<T>`'s metadata.
    @inline(never)
    static func cast<T>(
        _ value: Any, to type: T.Type, object: BPlistDocument.Object, index: Int, reason: @autoclosure () -> String
    ) throws -> T {
        guard let typed = value as? T else {
            throw ArchiveError(.typeMismatch, reason: reason(), byteOffset: object.offset, objectIndex: index)
        }
        return typed
    }

    /// Decodes `reference` as the type `mapped` (which the archive's class name selects), as `T`.
    func decodeMapped<T>(
        _ reference: Int, as type: T.Type, mapped: Any.Type, className: String, object: BPlistDocument.Object, index: Int
    ) throws -> T {
        try Self.cast(
            try coders.coder(for: mapped).decodeAny(reference, self), to: T.self, object: object, index: index,
            reason: "class \(className) is mapped to \(String(reflecting: mapped)), which is not a \(String(reflecting: T.self))")
    }

    /// Reads a coded object as `T`, choosing the type by the archive's class name: `T` itself
    /// (its own name, or a name mapped to `T`), or a registered or mapped type that is a `T`.
    ///
    /// `make` builds the value; a class that `registersEarly` calls `register` with its instance
    /// before decoding its fields, so references back to it (cycles) resolve to that instance.
    func decodeObject<T>(
        _ reference: Int, as type: T.Type, ownName: String, legacyNames: @autoclosure () -> [String] = [],
        registersEarly: Bool,
        make: (ObjectDict, (AnyObject) -> Void) throws -> T
    ) throws -> T {
        var typeName: String { String(reflecting: T.self) }
        guard case .object(let uid, let object, let index) = try target(reference) else {
            throw mismatch("an object of type \(typeName)", reference)
        }
        if let existing = instances[uid] { return try Self.cast(existing, to: T.self, object: object, index: index) }
        guard let (dict, description) = try objectDict(uid: uid, object: object, index: index) else {
            throw mismatch("an object of type \(typeName)", reference)
        }
        if description.name != ownName, !legacyNames().contains(description.name) {
            guard let mapped = mappedType(forClassName: description.name) else {
                throw ArchiveError(
                    .unknownClass,
                    reason: "the archive holds class \(description.name) where \(typeName) was expected; register its type with register(_:) or map the name with setClass(_:forClassName:)",
                    byteOffset: object.offset, objectIndex: index)
            }
            if ObjectIdentifier(mapped) != ObjectIdentifier(T.self) {
                return try decodeMapped(reference, as: T.self, mapped: mapped, className: description.name, object: object, index: index)
            }
        }
        guard inProgress.insert(uid) else {
            throw ArchiveError(
                .cycle,
                reason: "an instance of \(typeName) contains itself; only Archivable classes can be unarchived in cycles",
                byteOffset: object.offset, objectIndex: index)
        }
        try enter(index)
        defer {
            leave()
            inProgress.remove(uid)
        }
        let value = try make(dict) { self.register($0, uid: uid) }
        if T.self is AnyClass, instances[uid] == nil { register(unsafeBitCast(value, to: AnyObject.self), uid: uid) }
        return value
    }
}
