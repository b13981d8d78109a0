import Foundation
import PropertyList
import Synchronization

/// `Archivable` types: fields found by reflection, read and written through typed pointers.
final class ReflectionCoder<A: Archivable>: TypedCoder<A>, @unchecked Sendable {  // layout behind a Mutex
    private let name = A.archiveClassName ?? String(reflecting: A.self)
    private let isClass = A.self is AnyClass
    private let cachedLayout = Mutex<Result<FieldLayout, ArchiveError>?>(nil)

    override var className: String? { name }

    func layout() throws -> FieldLayout {
        if let cached = cachedLayout.withLock({ $0 }) { return try cached.get() }
        let built: Result<FieldLayout, ArchiveError>
        do {
            built = .success(try FieldLayout.build(A.self, className: name))
        } catch let error as ArchiveError {
            built = .failure(error)
        }
        cachedLayout.withLock { $0 = built }
        return try built.get()
    }

    override func encode(_ value: A, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let layout = try layout()
        if isClass {
            let object = unsafeBitCast(value, to: AnyObject.self)
            return try archiver.encodeObject(value, coder: self, className: name, classes: layout.classes, allowsCycles: true) { _ in
                try encodeFields(layout, UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()), archiver)
            }
        }
        return try withUnsafePointer(to: value) { pointer in
            try archiver.encodeObject(value, coder: self, className: name, classes: layout.classes, allowsCycles: true) { _ in
                try encodeFields(layout, UnsafeRawPointer(pointer), archiver)
            }
        }
    }

    private func encodeFields(_ layout: FieldLayout, _ base: UnsafeRawPointer, _ archiver: ArchiverCore) throws {
        for field in layout.fields {
            let reference = try withKeyPath(field.key) { try field.coder.encodeField(at: base + field.offset, archiver) }
            archiver.addEscapedField(archiver.table.add(string: field.escapedKey), value: reference)
        }
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> A {
        let layout = try layout()
        return try unarchiver.decodeObject(reference, as: A.self, ownName: name, registersEarly: true) { dict, register in
            if let field = layout.letField {
                throw ArchiveError(
                    .letField,
                    reason: "\(String(reflecting: A.self)).\(field.key) is a let constant; reflection cannot restore it. Declare it var, list it in transientFields, or adopt KeyedCoding or Codable")
            }
            if isClass {
                let instance = A()
                let object = unsafeBitCast(instance, to: AnyObject.self)
                register(object)
                try decodeFields(layout, UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()), dict, unarchiver)
                return instance
            }
            var value = A()
            try withUnsafeMutablePointer(to: &value) { pointer in
                try decodeFields(layout, UnsafeMutableRawPointer(pointer), dict, unarchiver)
            }
            return value
        }
    }

    private func decodeFields(
        _ layout: FieldLayout, _ base: UnsafeMutableRawPointer, _ dict: UnarchiverCore.ObjectDict, _ unarchiver: UnarchiverCore
    ) throws {
        for field in layout.fields {
            // A field the archive lacks keeps the value init() gave it.
            guard let reference = try unarchiver.value(in: dict, escapedKey: field.escapedKey) else { continue }
            try withKeyPath(field.key) { try field.coder.decodeField(reference, at: base + field.offset, unarchiver) }
        }
    }
}
