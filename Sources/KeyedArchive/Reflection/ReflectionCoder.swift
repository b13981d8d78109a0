// Unsafe code in this file: fields are read and written at the offsets the runtime gives for a value or instance of
// exactly type `A` (a subclass instance goes to its own coder), as the types it gives.

import Foundation
@_spi(Reader) import PropertyList
import Synchronization

/// `Archivable` types: fields found by reflection, read and written through typed pointers.
final class ReflectionCoder<A: Archivable>: TypedCoder<A>, @unchecked Sendable {  // layout published once, atomically
    private let name = A.archiveClassName ?? defaultClassName(of: A.self)
    private let isClass = A.self is AnyClass
    private let versioning = TypeVersioning.of(A.self)
    /// The layout, built on first use and published once: an `Unmanaged<LayoutBox>` pointer (0 =
    /// not yet), retained until the coder goes.
    private let published = Atomic<UInt>(0)
    /// The built layout itself, unretained (the published box keeps it; 0 = not built or failed):
    /// what the hot paths use, so handing the layout to each value costs no reference count.
    private let builtLayout = Atomic<UInt>(0)

    deinit {
        let bits = published.load(ordering: .acquiring)
        if bits != 0 { Unmanaged<LayoutBox>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    private final class LayoutBox: Sendable {
        let result: Result<FieldLayout, ArchiveError>
        init(_ result: Result<FieldLayout, ArchiveError>) { self.result = result }
    }

    override var className: String? { name }
    override var legacyClassNames: [String] { A.archiveLegacyClassNames }

    /// The layout, built (or its failure found) on the first call; ``withLayout(_:)`` is the
    /// path the coders take once it is built.
    private func layout() throws -> FieldLayout {
        let bits = published.load(ordering: .acquiring)
        if bits != 0 { return try Self.box(bits).result.get() }
        let built: Result<FieldLayout, ArchiveError>
        do {
            built = .success(try FieldLayout.build(A.self, className: name))
        } catch let error as ArchiveError {
            built = .failure(error)
        }
        let new = UInt(bitPattern: Unmanaged.passRetained(LayoutBox(built)).toOpaque())
        let (exchanged, winner) = published.compareExchange(expected: 0, desired: new, ordering: .acquiringAndReleasing)
        if exchanged {
            if case .success(let layout) = built {
                builtLayout.store(UInt(bitPattern: Unmanaged.passUnretained(layout).toOpaque()), ordering: .releasing)
            }
            return try built.get()
        }
        Unmanaged<LayoutBox>.fromOpaque(UnsafeRawPointer(bitPattern: new)!).release()
        return try Self.box(winner).result.get()
    }

    /// Runs `body` with the layout, borrowed without a reference count once it is built.
    @inline(__always)
    private func withLayout<R>(_ body: (FieldLayout) throws -> R) throws -> R {
        let bits = builtLayout.load(ordering: .acquiring)
        if bits != 0 {
            return try Unmanaged<FieldLayout>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef(body)
        }
        return try body(try layout())
    }

    private static func box(_ bits: UInt) -> LayoutBox {
        Unmanaged<LayoutBox>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
    }

    override func encode(_ value: A, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try withLayout { layout in
            if isClass {
                let object = unsafeBitCast(value, to: AnyObject.self)
                return try archiver.encodeObject(value, allowsCycles: true) { _ in
                    try encodeFields(layout, UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()), archiver)
                } classUID: {
                    archiver.classUID(of: layout, type: A.self, version: versioning.version)
                }
            }
            return try withUnsafePointer(to: value) { try encodeValue(at: UnsafeRawPointer($0), layout, archiver) }
        }
    }

    /// A struct field is written from where it lies, without copying the struct out first.
    override func encodeField(at pointer: UnsafeRawPointer, _ archiver: ArchiverCore) throws -> Int {
        if isClass { return try encode(pointer.assumingMemoryBound(to: A.self).pointee, inline: true, archiver) }
        return try withLayout { try encodeValue(at: pointer, $0, archiver) }
    }

    override func encodeElement(at pointer: UnsafePointer<A>, _ archiver: ArchiverCore) throws -> Int {
        try encodeField(at: UnsafeRawPointer(pointer), archiver)
    }

    private func encodeValue(at pointer: UnsafeRawPointer, _ layout: FieldLayout, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeValueObject { _ in
            try encodeFields(layout, pointer, archiver)
        } classUID: {
            archiver.classUID(of: layout, type: A.self, version: versioning.version)
        }
    }

    private func encodeFields(_ layout: FieldLayout, _ base: UnsafeRawPointer, _ archiver: ArchiverCore) throws {
        // What decoding would refuse is refused before it is written.
        if let field = layout.letField { throw layout.letFieldError(field, of: A.self) }
        try versioning.checkVersion()
        let keyStart = archiver.fieldKeyStart(of: layout)
        // Fields are read in place (a copied `Field` costs a retain and release per member).
        try layout.fields.withUnsafeBufferPointer { fields in
            for i in 0..<fields.count {
                let at = base + fields[i].offset
                let reference: Int
                switch fields[i].kind {
                case .int: reference = archiver.integer(Int64(at.load(as: Int.self)), inline: true)
                case .double: reference = archiver.real(at.load(as: Double.self), inline: true)
                case .bool: reference = archiver.boolean(at.load(as: Bool.self), inline: true)
                case .string: reference = archiver.string(at: at.assumingMemoryBound(to: String.self))
                case .other:
                    reference = try fields[i].unownedCoder._withUnsafeGuaranteedRef { coder in
                        try withKeyPath(fields[i].key) { try coder.encodeField(at: at, archiver) }
                    }
                }
                archiver.appendField(archiver.layoutKey(keyStart + i), value: reference)
            }
        }
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> A {
        try withLayout { try decode(reference, $0, unarchiver) }
    }

    private func decode(_ reference: Int, _ layout: FieldLayout, _ unarchiver: UnarchiverCore) throws -> A {
        try unarchiver.decodeObject(
            reference, as: A.self, ownName: name, legacyNames: A.archiveLegacyClassNames, versioning: versioning, registersEarly: true
        ) { coded, register in
            if let field = layout.letField { throw layout.letFieldError(field, of: A.self) }
            if isClass {
                let instance = A()
                let object = unsafeBitCast(instance, to: AnyObject.self)
                register(object)
                let fields = try ObjectFields(unarchiver, coded, versioning)
                try decodeFields(layout, UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()), fields, unarchiver)
                if unarchiver.reporter != nil { report(fields, layout) }
                return instance
            }
            var value = A()
            let fields = try ObjectFields(unarchiver, coded, versioning)
            try withUnsafeMutablePointer(to: &value) { try decodeFields(layout, UnsafeMutableRawPointer($0), fields, unarchiver) }
            if unarchiver.reporter != nil { report(fields, layout) }
            return value
        }
    }

    private func report(_ fields: ObjectFields, _ layout: FieldLayout) {
        fields.core.reportFields(of: fields.dict.uid, archived: fields.keys, taken: layout.fields.lazy.map(\.key))
    }

    /// Assigns each field decoding fills, of `instances` (instances of `A` it created), the value
    /// it has in one fresh `A()`. Only fields of the `.other` kind can hold a strong reference
    /// (weak and unowned ones are `.other` too, and left as they are by their coders).
    override func resetDecodedFields(of instances: [AnyObject]) {
        guard isClass, let layout = try? layout(), layout.letField == nil,
            layout.fields.contains(where: { $0.kind == .other })
        else { return }
        let template = unsafeBitCast(A(), to: AnyObject.self)
        withExtendedLifetime(template) {
            let source = UnsafeRawPointer(Unmanaged.passUnretained(template).toOpaque())
            for instance in instances where ObjectIdentifier(type(of: instance)) == ObjectIdentifier(A.self) {
                let target = UnsafeMutableRawPointer(Unmanaged.passUnretained(instance).toOpaque())
                for field in layout.fields where field.kind == .other {
                    field.coder.copyField(from: source + field.offset, to: target + field.offset)
                }
            }
        }
    }

    /// Fills the fields of the value at `base` from `fields`: each field the object has a value
    /// for (a field it lacks keeps the value init() gave it).
    private func decodeFields(
        _ layout: FieldLayout, _ base: UnsafeMutableRawPointer, _ fields: borrowing ObjectFields, _ unarchiver: UnarchiverCore
    ) throws {
        var hint = 0
        let keepsInvalid = unarchiver.options.keepsDefaultForInvalidFields
        try layout.fields.withUnsafeBufferPointer { layoutFields in
            for i in 0..<layoutFields.count {
                guard let slot = try fields.slot(keyID: layoutFields[i].keyID, key: layoutFields[i].key, hint: &hint) else { continue }
                let at = base + layoutFields[i].offset
                let mark = keepsInvalid ? unarchiver.fieldMark : nil
                do {
                    switch slot {
                    case .archived(let reference):
                        try decodeReflectedField(layoutFields[i].kind, layoutFields[i].unownedCoder, reference, at: at, unarchiver)
                    case .value(let set):
                        try layoutFields[i].unownedCoder._withUnsafeGuaranteedRef { try $0.assignField(set, at: at) }
                    }
                } catch {
                    try unarchiver.fieldFailed(error, key: layoutFields[i].key, of: fields.dict.uid, mark: mark)
                }
            }
        }
    }
}

/// Decodes one field (given by its trivial parts: copying a `Field` costs a retain and release per member).
@inline(__always)
private func decodeReflectedField(
    _ kind: FieldLayout.Kind, _ coder: Unmanaged<TypeCoder>, _ reference: Int, at: UnsafeMutableRawPointer,
    _ unarchiver: UnarchiverCore
) throws {
    switch kind {
    case .int: at.assumingMemoryBound(to: Int.self).pointee = try IntegerCoder<Int>.decodeValue(reference, unarchiver)
    case .double: at.assumingMemoryBound(to: Double.self).pointee = try DoubleCoder.decodeValue(reference, unarchiver)
    case .bool: at.assumingMemoryBound(to: Bool.self).pointee = try BoolCoder.decodeValue(reference, unarchiver)
    case .string: at.assumingMemoryBound(to: String.self).pointee = try StringCoder.decodeValue(reference, unarchiver)
    case .other: try coder._withUnsafeGuaranteedRef { try $0.decodeField(reference, at: at, unarchiver) }
    }
}
