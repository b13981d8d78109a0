// FieldTable.swift
//
// Stored-field tables for struct and class types, built from the Swift runtime's own reflection
// entry points (the ones behind `Mirror` and the stdlib's `_forEachField(of:options:body:)` SPI),
// which TypeMetadata.swift calls. No name-based type lookup.

// MARK: - Type kinds

/// Kind of a type, derived from the runtime metadata kind word
/// (values from swift/ABI/MetadataKind.def), without touching any value.
enum TypeKind: Equatable, Sendable {
    case `class`, `struct`, `enum`, optional, tuple, function, existential
    case metatype, existentialMetatype, foreignClass, foreignReference, opaque
    case other(UInt)

    init(_ type: Any.Type) {
        switch TypeMetadata.kind(type) {
        case 0: self = .class              // any pointer-valued (isa) kind
        case 0x200: self = .struct
        case 0x201: self = .enum
        case 0x202: self = .optional
        case 0x203: self = .foreignClass
        case 0x204: self = .foreignReference
        case 0x300: self = .opaque
        case 0x301: self = .tuple
        case 0x302: self = .function
        case 0x303: self = .existential
        case 0x304: self = .metatype
        case 0x305: self = .class           // ObjCClassWrapper (Darwin only)
        case 0x306: self = .existentialMetatype
        case let k: self = .other(k)
        }
    }
}

// MARK: - Field table

/// One stored field.
struct FieldInfo: Sendable, CustomStringConvertible {
    /// Name as stored in the field descriptor (`_y` for `@Wrapper var y`,
    /// `$__lazy_storage_$_x` for `lazy var x`).
    let name: String
    /// Byte offset inside the value (struct) or heap object (class).
    let offset: Int
    /// Declared field type. For weak/unowned fields: the referent type.
    let type: Any.Type
    /// False for `weak`, `unowned`, `unowned(unsafe)`.
    let isStrong: Bool
    /// False for `let`.
    let isVar: Bool
    /// False if the field's in-memory representation differs from that of a
    /// value of `type` handled generically (as `T`): function types (stored
    /// with their concrete calling convention, generic `T` uses a reabstraction
    /// thunk), thin metatypes such as `Int.Type` (0 bytes in the field, 8 as
    /// `T`), and Optionals/tuples containing those. `assign` refuses these.
    let hasGenericRepresentation: Bool
    /// For a field that is not strong: how it holds its object, read from the mangled type name in
    /// the type's field descriptor (nil when that cannot be read, or for strong fields).
    var ownership: ReferenceOwnership? = nil

    var description: String {
        "\(offset)\t\(name): \(type)\(isStrong ? "" : " [non-strong]")\(isVar ? "" : " [let]")"
            + (hasGenericRepresentation ? "" : " [NOT generically writable]")
    }
}

/// The stored-field table of a struct or class type.
struct FieldTable: Sendable {
    let type: Any.Type
    let kind: TypeKind
    /// For classes: root-most superclass fields first, then subclass fields,
    /// each class in declaration order. For structs: declaration order.
    let fields: [FieldInfo]

    /// Builds the table; `nil` unless `type` is a (Swift) struct or class.
    /// (The runtime calls are only safe/meaningful for those kinds.)
    init?(_ type: Any.Type) {
        let kind = TypeKind(type)
        guard kind == .struct || kind == .class else { return nil }
        self.type = type
        self.kind = kind
        let count = TypeMetadata.reflectedFieldCount(type)
        var fields: [FieldInfo] = []
        fields.reserveCapacity(count)
        for i in 0..<count {
            let field = TypeMetadata.reflectedField(type, index: i)
            fields.append(FieldInfo(
                name: field.name,
                offset: TypeMetadata.reflectedFieldOffset(type, index: i),
                type: field.type,
                isStrong: field.isStrong,
                isVar: field.isVar,
                hasGenericRepresentation: !_abstractionSensitive(field.type)))
        }
        if fields.contains(where: { !$0.isStrong }) {
            let suffixes = ReferenceOwnership.ofFields(type, kind: kind)
            if suffixes.count == fields.count {
                for i in fields.indices where !fields[i].isStrong && suffixes[i].name == fields[i].name {
                    fields[i].ownership = suffixes[i].ownership
                }
            }
        }
        self.fields = fields
    }
}

/// True if values of `type` stored in a concrete field may be laid out
/// differently from the same type handled as an opaque generic `T`.
private func _abstractionSensitive(_ type: Any.Type) -> Bool {
    switch TypeKind(type) {
    case .function:
        return true
    case .metatype:
        // Only class metatypes are thick (a pointer) in concrete storage; others are thin (no storage).
        guard let instance = TypeMetadata.instanceType(ofMetatype: type) else { return true }
        return TypeKind(instance) != .class
    case .optional:
        return (type as? any OptionalTypeProtocol.Type).map { _abstractionSensitive($0.wrappedType) } ?? true
    case .tuple:
        // The runtime reflects tuple elements too (count/metadata by type).
        for i in 0..<TypeMetadata.reflectedFieldCount(type) {
            if _abstractionSensitive(TypeMetadata.reflectedField(type, index: i).type) { return true }
        }
        return false
    default:
        return false  // nominal types (structs, enums, classes), existentials
    }
}

// MARK: - Optionals

/// Gets at `Wrapped` of an `Optional<Wrapped>` known only as `Any.Type`.
protocol OptionalTypeProtocol { static var wrappedType: Any.Type { get } }
extension Optional: OptionalTypeProtocol { static var wrappedType: Any.Type { Wrapped.self } }


// MARK: - Reference ownership

/// How a non-strong field holds its object. The runtime's reflection entry points only say "not
/// strong"; the field descriptor's mangled type name ends in `Xw` (weak), `Xo` (unowned) or
/// `Xu` (unowned(unsafe)).
enum ReferenceOwnership: Sendable {
    case weak, unowned, unmanaged

    /// Name and ownership of every stored field of a struct or class (superclass fields first),
    /// read from the nominal type descriptors; empty if a descriptor cannot be read.
    ///
    /// A class's fields are those of its Swift superclasses and its own, the ones the runtime's
    /// reflection counts: on Apple platforms the walk stops below `NSObject` (or the `SwiftObject`
    /// of a Swift root class), which has no Swift metadata.
    static func ofFields(_ type: Any.Type, kind: TypeKind) -> [(name: String, ownership: ReferenceOwnership?)] {
        let levels: [Any.Type]
        switch kind {
        case .struct: levels = [type]
        case .class: levels = TypeMetadata.swiftClassChain(type).reversed()
        default: return []
        }
        var fields: [(String, ReferenceOwnership?)] = []
        for level in levels {
            guard let declared = TypeMetadata.declaredFields(level) else { return [] }
            fields += declared.map { ($0.name, ownership(ofTypeNameEnd: $0.typeNameEnd)) }
        }
        return fields
    }

    /// The ownership a mangled type name ends in, if any.
    private static func ownership(ofTypeNameEnd end: (UInt8, UInt8)) -> ReferenceOwnership? {
        guard end.0 == UInt8(ascii: "X") else { return nil }
        switch end.1 {
        case UInt8(ascii: "w"): return .weak
        case UInt8(ascii: "o"): return .unowned
        case UInt8(ascii: "u"): return .unmanaged
        default: return nil
        }
    }
}
