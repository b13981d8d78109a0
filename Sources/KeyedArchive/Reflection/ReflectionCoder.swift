import Foundation
@_spi(Reader) import PropertyList
import Synchronization

/// `Archivable` types: fields found by reflection, read and written at their addresses (``FieldAddress``).
final class ReflectionCoder<A: Archivable>: TypeCoder {  // layout published once, atomically
    private let name = A.archiveClassName ?? defaultClassName(of: A.self)
    private let isClass = A.self is AnyClass
    private let versioning = TypeVersioning.of(A.self)
    /// The layout, or why it cannot be built, published once by the first use.
    private let published = AtomicLazyReference<LayoutBox>()
    /// The built layout, published once it is built (the box in `published` keeps it): what the
    /// hot paths use, so handing the layout to each value costs no reference count.
    private let builtLayout = UnretainedSlot<FieldLayout>()

    private final class LayoutBox: Sendable {
        let result: Result<FieldLayout, ArchiveError>
        init(_ result: Result<FieldLayout, ArchiveError>) { self.result = result }
    }

    var className: String? { name }
    var legacyClassNames: [String] { A.archiveLegacyClassNames }

    /// The layout, built (or its failure found) on the first call; ``withLayout(_:)`` is the
    /// path the coders take once it is built.
    private func layout() throws -> FieldLayout {
        if let box = published.load() { return try box.result.get() }
        let built: Result<FieldLayout, ArchiveError>
        do {
            built = .success(try FieldLayout.build(A.self, className: name, versioningProblem: versioning.problem))
        } catch let error as ArchiveError {
            built = .failure(error)
        }
        let winner = published.storeIfNil(LayoutBox(built))
        if case .success(let layout) = winner.result { builtLayout.publish(layout) }
        return try winner.result.get()
    }

    /// Runs `body` with the layout, borrowed without a reference count once it is built.
    @inline(__always)
    private func withLayout<R>(_ body: (FieldLayout) throws -> R) throws -> R {
        if let layout = builtLayout.load() { return try layout.borrow(body) }
        return try body(try layout())
    }

    func encode(_ value: A, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try withLayout { layout in
            if isClass {
                // `value` keeps the instance alive while its fields are read.
                let base = FieldAddress(ofInstance: asObject(value))
                return try archiver.encodeObject(value, allowsCycles: true) { _ in
                    try encodeFields(layout, base, archiver)
                } classUID: {
                    archiver.classUID(of: layout, type: A.self, version: versioning.version)
                }
            }
            return try encodeValue(value, layout, archiver)
        }
    }

    /// A struct field is written from where it lies, without copying the struct out first.
    func encodeField(at field: FieldAddress, _ archiver: ArchiverCore) throws -> Int {
        if isClass { return try encode(field.load(as: A.self), inline: true, archiver) }
        return try withLayout { try encodeValue(at: field, $0, archiver) }
    }

    /// Decodes `reference` into the field at `field`: the extension's default, in code that knows
    /// `A` from the class rather than looking up `Coded` per call.
    func decodeField(_ reference: Int, at field: MutableFieldAddress, _ unarchiver: UnarchiverCore) throws {
        field.assign(try decode(reference, unarchiver), as: A.self)
    }

    func encodeElement(at element: FieldAddress, _ archiver: ArchiverCore) throws -> Int {
        try encodeField(at: element, archiver)
    }

    /// Writes the struct whose fields lie at `base` as an object.
    func encodeValue(at base: FieldAddress, _ layout: FieldLayout, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeValueObject { _ in
            try encodeFields(layout, base, archiver)
        } classUID: {
            archiver.classUID(of: layout, type: A.self, version: versioning.version)
        }
    }

    private func encodeFields(_ layout: FieldLayout, _ base: FieldAddress, _ archiver: ArchiverCore) throws {
        // What decoding would refuse is refused before it is written.
        if let refusal = layout.encodeRefusal { throw refusal }
        let keyStart = archiver.fieldKeyStart(of: layout)
        // Fields are read in place (a copied `Field` costs a retain and release per member).
        do {
            let fields = layout.borrowedFields
            for i in 0..<fields.count {
                let at = base.advanced(by: fields[i].offset)
                let reference: Int
                switch fields[i].kind {
                case .int: reference = archiver.integer(Int64(at.load(as: Int.self)), inline: true)
                case .double: reference = archiver.real(at.load(as: Double.self), inline: true)
                case .bool: reference = archiver.boolean(at.load(as: Bool.self), inline: true)
                case .string: reference = archiver.string(at: at)
                case .other:
                    reference = try fields[i].borrowedCoder.borrow { reference in
                        try withKeyPath(fields[i].key) { try reference.coder.encodeField(at: at, archiver) }
                    }
                }
                archiver.appendField(archiver.layoutKey(keyStart + i), value: reference)
            }
        }
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> A {
        try withLayout { try decode(reference, $0, unarchiver) }
    }

    private func decode(_ reference: Int, _ layout: FieldLayout, _ unarchiver: UnarchiverCore) throws -> A {
        try unarchiver.decodeObject(
            reference, as: A.self, ownName: name, legacyNames: A.archiveLegacyClassNames, versioning: versioning
        ) { coded, register in
            if let refusal = layout.letFieldError { throw refusal }
            if isClass {
                let decoded = A()
                let object = asObject(decoded)
                register(object)
                let fields = try ObjectFields(unarchiver, coded, versioning)
                // `decoded` keeps the instance alive while its fields are written.
                try decodeFields(layout, MutableFieldAddress(ofInstance: object), fields, unarchiver)
                if unarchiver.reporter != nil { report(fields, layout) }
                return decoded
            }
            var value = A()
            let fields = try ObjectFields(unarchiver, coded, versioning)
            try decodeFields(of: &value, layout, fields, unarchiver)
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
    func resetDecodedFields(of instances: [AnyObject]) {
        guard isClass, let layout = try? layout(), layout.letFieldError == nil,
            layout.fields.contains(where: { $0.kind == .other })
        else { return }
        let template = asObject(A())
        withExtendedLifetime(template) {
            let source = FieldAddress(ofInstance: template)
            for object in instances where ObjectIdentifier(type(of: object)) == ObjectIdentifier(A.self) {
                let target = MutableFieldAddress(ofInstance: object)
                for field in layout.fields where field.kind == .other {
                    field.coder.copyField(from: source.advanced(by: field.offset), to: target.advanced(by: field.offset))
                }
            }
        }
    }

    /// Fills the fields of the value at `base` from `fields`: each field the object has a value
    /// for (a field it lacks keeps the value init() gave it).
    func decodeFields(
        _ layout: FieldLayout, _ base: MutableFieldAddress, _ fields: borrowing ObjectFields, _ unarchiver: UnarchiverCore
    ) throws {
        try decodeLaidOutFields(layout, base, fields, unarchiver)
    }
}

/// ``ReflectionCoder/decodeFields(_:_:_:_:)``, which does not depend on the coded type: outside
/// the generic class, its loop is compiled once for each way of treating invalid fields (a strict
/// decode takes no mark before each field). Worth 1.3% of decoding: keyed-1k 24.91 M → 24.59 M
/// instructions (`valgrind --tool=callgrind --toggle-collect='*runMarked*'
/// KeyedArchiveBenchmarks keyed-1k --only ours-decode`, release).
private func decodeLaidOutFields(
    _ layout: FieldLayout, _ base: MutableFieldAddress, _ fields: borrowing ObjectFields, _ unarchiver: UnarchiverCore
) throws {
    if unarchiver.options.keepsDefaultForInvalidFields {
        try decodeLaidOutFields(layout, base, fields, unarchiver, KeepingInvalidFields.self)
    } else {
        try decodeLaidOutFields(layout, base, fields, unarchiver, RefusingInvalidFields.self)
    }
}

/// How a field holding a value of the wrong kind is treated, as a type: each policy's loop is
/// compiled for it.
private protocol InvalidFieldPolicy { static var keepsInvalid: Bool { get } }
private enum KeepingInvalidFields: InvalidFieldPolicy { static var keepsInvalid: Bool { true } }
private enum RefusingInvalidFields: InvalidFieldPolicy { static var keepsInvalid: Bool { false } }

private func decodeLaidOutFields<Policy: InvalidFieldPolicy>(
    _ layout: FieldLayout, _ base: MutableFieldAddress, _ fields: borrowing ObjectFields, _ unarchiver: UnarchiverCore,
    _ policy: Policy.Type
) throws {
    var hint = 0
    let layoutFields = layout.borrowedFields
    for i in 0..<layoutFields.count {
        guard let slot = try fields.slot(keyID: layoutFields[i].keyID, key: layoutFields[i].key, hint: &hint) else { continue }
        let at = base.advanced(by: layoutFields[i].offset)
        let mark = Policy.keepsInvalid ? unarchiver.fieldMark : nil
        do {
            switch slot {
            case .archived(let reference):
                try decodeReflectedField(layoutFields[i].kind, layoutFields[i].borrowedCoder, reference, at: at, unarchiver)
            case .value(let set):
                try layoutFields[i].borrowedCoder.borrow { try $0.coder.assignField(set, at: at) }
            }
        } catch {
            try unarchiver.fieldFailed(error, key: layoutFields[i].key, of: fields.dict.uid, mark: mark)
        }
    }
}

/// Decodes one field (given by its trivial parts: copying a `Field` costs a retain and release per member).
@inline(__always)
private func decodeReflectedField(
    _ kind: FieldLayout.Kind, _ coder: Unretained<FieldCoder>, _ reference: Int, at: MutableFieldAddress,
    _ unarchiver: UnarchiverCore
) throws {
    switch kind {
    case .int: at.assign(try IntegerCoder<Int>.decodeValue(reference, unarchiver))
    case .double: at.assign(try DoubleCoder.decodeValue(reference, unarchiver))
    case .bool: at.assign(try BoolCoder.decodeValue(reference, unarchiver))
    case .string: at.assign(try StringCoder.decodeValue(reference, unarchiver))
    case .other: try coder.borrow { try $0.coder.decodeField(reference, at: at, unarchiver) }
    }
}
