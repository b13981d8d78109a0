// Unsafe code in this file: field records come from the runtime's reflection entry points; names it allocates are
// released with the function it gives for that.

// FieldTable.swift
//
// Stored-field tables for struct and class types, built from the Swift
// runtime's own reflection entry points (the ones behind `Mirror` and the
// stdlib's `_forEachField(of:options:body:)` SPI). No name-based type lookup. Raw metadata and
// descriptors are read in TypeMetadata.swift only.
//
// Swift 6 language mode, strict concurrency, no warnings.


// MARK: - Runtime entry points
//
// All three are exported (SWIFT_RUNTIME_STDLIB_API, swiftcc) from libswiftCore.
// A thick metatype `Any.Type` is passed as exactly one pointer: the type's
// metadata pointer, i.e. the C++ `const Metadata *`. So `Any.Type` can be
// used directly in the declarations (no unsafeBitCast to a raw pointer
// needed), and a returned `const Metadata *` comes back as `Any.Type`.

/// Number of stored fields of `type`, *including all superclass fields* for
/// classes (the runtime walks the superclass chain as long as the superclass
/// is Swift type metadata). Structs: number of stored properties. Enums and
/// Optionals: always 0 (no value is passed, so no case can be inspected).
/// Tuples: number of elements. Other kinds: 0.
/// Calling it with an *existential* type (`Any.self`, `P.self`) dereferences
/// a null value pointer inside the runtime: never pass existentials.
@_silgen_name("swift_reflectionMirror_recursiveCount")
private func _rt_recursiveCount(_ type: Any.Type) -> Int

/// Metadata of field `index` (in the same flattened numbering as
/// `recursiveCount`: root-most superclass fields first). The out-struct gets
/// the field name, an optional function to free that name, whether the
/// reference ownership is strong and whether the field is a `var`.
/// For weak/unowned fields the *referent* type is returned (e.g. `Node?`
/// for `weak var parent: Node?`, `Owner` for `unowned let owner: Owner`),
/// not some storage type.
@_silgen_name("swift_reflectionMirror_recursiveChildMetadata")
private func _rt_recursiveChildMetadata(
    _ type: Any.Type,
    index: Int,
    fieldMetadata: UnsafeMutablePointer<_FieldReflectionMetadata>
) -> Any.Type

/// Byte offset of field `index` from the start of the value (structs,
/// tuples) or from the start of the heap object (classes, i.e. the offset
/// includes the 16-byte object header on 64-bit).
@_silgen_name("swift_reflectionMirror_recursiveChildOffset")
private func _rt_recursiveChildOffset(_ type: Any.Type, index: Int) -> Int

/// C function that releases a name string produced by the runtime. Only set
/// for synthesized names (tuple labels like ".0"); struct/class field names
/// point into the static field descriptor and come with `freeFunc == nil`.
private typealias _NameFreeFunc = @convention(c) (UnsafePointer<CChar>?) -> Void

/// Mirrors `struct _FieldReflectionMetadata` from SwiftShims/Reflection.h:
///   { const char *name; NameFreeFunc freeFunc; bool isStrong; bool isVar; }
/// Same order, same sizes (8, 8, 1, 1) => same layout as the C struct.
private struct _FieldReflectionMetadata {
    var name: UnsafePointer<CChar>? = nil
    var freeFunc: _NameFreeFunc? = nil
    var isStrong: Bool = false
    var isVar: Bool = false
}

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
        let count = _rt_recursiveCount(type)
        var fields: [FieldInfo] = []
        fields.reserveCapacity(count)
        for i in 0..<count {
            var meta = _FieldReflectionMetadata()
            let fieldType = _rt_recursiveChildMetadata(type, index: i, fieldMetadata: &meta)
            // Copy the name out, then free it if the runtime asked us to.
            let name = meta.name.map { String(cString: $0) } ?? ""
            meta.freeFunc?(meta.name)
            fields.append(FieldInfo(
                name: name,
                offset: _rt_recursiveChildOffset(type, index: i),
                type: fieldType,
                isStrong: meta.isStrong,
                isVar: meta.isVar,
                hasGenericRepresentation: !_abstractionSensitive(fieldType)))
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
        for i in 0..<_rt_recursiveCount(type) {
            var meta = _FieldReflectionMetadata()
            let element = _rt_recursiveChildMetadata(type, index: i, fieldMetadata: &meta)
            meta.freeFunc?(meta.name)   // tuple labels are malloc'ed: must free
            if _abstractionSensitive(element) { return true }
        }
        return false
    default:
        return false  // nominal types (structs, enums, classes), existentials
    }
}

// MARK: - Non-strong storage

/// Same layout as a `weak var` field (a single weak-reference word).
struct WeakBox<T: AnyObject> { weak var value: T? }
/// Same layout as an `unowned` (safe) field.
struct UnownedBox<T: AnyObject> { unowned var value: T }
/// Same layout as an `unowned var x: T?` field.
struct UnownedOptionalBox<T: AnyObject> { unowned var value: T? }

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
