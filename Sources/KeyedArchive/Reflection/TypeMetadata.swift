// Unsafe code in this file: metadata is read only through the runtime's own functions or at the documented offsets
// below, and a class chain stops at the first class without Swift metadata; a field name the runtime allocates is
// copied, then released with the function it gives for that.

// TypeMetadata.swift
//
// Every read of the Swift runtime's type metadata and type descriptors in the library, so that no
// other file knows a metadata layout. Layouts are those of include/swift/ABI/Metadata.h,
// include/swift/RemoteInspection/Records.h and docs/ABI/TypeMetadata.rst in the Swift repository.
//
// What it reads, only ever from metadata and descriptors the compiler and runtime made (never from
// a value, never from archive input):
// - the stored fields of a struct, class or tuple (name, type, ownership strength, `var`, offset),
//   through the runtime's reflection entry points behind `Mirror`;
// - the metadata kind, through the runtime's `swift_getMetadataKind`;
// - the nominal type descriptor of a struct or class, through the runtime's
//   `swift_getTypeContextDescriptor`. For class metadata the runtime answers only for Swift
//   classes: with Objective-C interop it first tests the class's `Data` word (4 pointers in) with
//   its own `SWIFT_CLASS_IS_SWIFT_MASK`, which is 2 (the Objective-C runtime's `FAST_IS_SWIFT_STABLE`)
//   in Apple's runtimes since Swift 5, but was 1 (the pre-stable `FAST_IS_SWIFT_LEGACY`) or chosen
//   at launch in runtimes built for Xcode or to deploy to older systems, so it is not repeated here.
//   It answers nil for an Objective-C class (`NSObject`, `SwiftObject`), an Objective-C class
//   wrapper (kind 0x305) and an artificial subclass (one made for key-value observing), and it
//   authenticates the descriptor pointer, which is signed on arm64e. So this file reads neither
//   the `Data` word nor the descriptor's slot in class metadata (64 bytes in on 64-bit Apple
//   platforms, 44 on arm64_32, 40 without interop) or in value metadata (one pointer in);
// - superclasses, through the runtime's `_getSuperclass`, never the raw superclass word (also signed
//   on arm64e). On Apple platforms it answers nil above a Swift root class (whose superclass word
//   holds `SwiftObject`), and an Objective-C class wrapper above a Swift class whose superclass is
//   an Objective-C class such as `NSObject`;
// - metatype metadata: the instance type, one pointer in;
// - from a type descriptor: its field descriptor and field records (32-bit relative pointers), and
//   the bytes of each record's field name and mangled type name.
//
// Guarantees: nothing is read outside Swift metadata. A class is Swift only if the runtime gives
// its type descriptor; a walk up a class chain stops at the first class that is not Swift, where
// the runtime's own reflection (`swift_reflectionMirror_recursiveCount`) stops counting fields.
// Where something cannot be read the answer is nil, meaning unknown, never a guess.
//
// Only Linux on 64-bit, without Objective-C interop, has run this code; ARCHITECTURE.md lists what has
// not been run.

// MARK: Runtime entry points
//
// All are exported (SWIFT_RUNTIME_STDLIB_API, swiftcc) from libswiftCore. A thick metatype
// `Any.Type` is passed as exactly one pointer: the type's metadata pointer, the C++
// `const Metadata *`. So `Any.Type` is used directly in the declarations, and a returned
// `const Metadata *` comes back as `Any.Type`.

/// Number of stored fields of `type`, *including all superclass fields* for classes (the runtime
/// walks the superclass chain as long as the superclass is Swift type metadata). Structs: number
/// of stored properties. Enums and Optionals: always 0 (no value is passed, so no case can be
/// inspected). Tuples: number of elements. Other kinds: 0. Calling it with an *existential* type
/// (`Any.self`, `P.self`) dereferences a null value pointer inside the runtime: never pass
/// existentials.
@_silgen_name("swift_reflectionMirror_recursiveCount")
private func _rt_recursiveCount(_ type: Any.Type) -> Int

/// Metadata of field `index` (in the same flattened numbering as `recursiveCount`: root-most
/// superclass fields first). The out-struct gets the field name, an optional function to free
/// that name, whether the reference ownership is strong and whether the field is a `var`. For
/// weak/unowned fields the *referent* type is returned (e.g. `Node?` for `weak var parent: Node?`,
/// `Owner` for `unowned let owner: Owner`), not some storage type.
@_silgen_name("swift_reflectionMirror_recursiveChildMetadata")
private func _rt_recursiveChildMetadata(
    _ type: Any.Type,
    index: Int,
    fieldMetadata: UnsafeMutablePointer<_FieldReflectionMetadata>
) -> Any.Type

/// Byte offset of field `index` from the start of the value (structs, tuples) or from the start
/// of the heap object (classes, i.e. the offset includes the 16-byte object header on 64-bit).
@_silgen_name("swift_reflectionMirror_recursiveChildOffset")
private func _rt_recursiveChildOffset(_ type: Any.Type, index: Int) -> Int

/// C function that releases a name string produced by the runtime. Only set for synthesized names
/// (tuple labels like ".0"); struct/class field names point into the static field descriptor and
/// come with `freeFunc == nil`.
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

/// The metadata kind word (class kinds are normalised to 0).
@_silgen_name("swift_getMetadataKind")
private func _rt_metadataKind(_ type: Any.Type) -> UInt

/// The nominal type descriptor of a struct, enum or Swift class; nil for other metadata,
/// Objective-C classes and artificial subclasses.
@_silgen_name("swift_getTypeContextDescriptor")
private func _rt_typeContextDescriptor(_ type: Any.Type) -> UnsafeRawPointer?

/// Reads of type metadata and type descriptors, for the reflection code.
enum TypeMetadata {
    /// The runtime's metadata kind of `type` (values from swift/ABI/MetadataKind.def): 0 for every
    /// class object, Swift or Objective-C; 0x305 for the wrapper of an Objective-C class.
    static func kind(_ type: Any.Type) -> UInt {
        _rt_metadataKind(type)
    }

    /// The number of stored fields the runtime's reflection sees in `type`: a struct's, a class's
    /// with its Swift superclasses', a tuple's elements; 0 for other kinds. `type` must not be an
    /// existential.
    static func reflectedFieldCount(_ type: Any.Type) -> Int {
        _rt_recursiveCount(type)
    }

    /// A stored field as the runtime's reflection sees it.
    struct ReflectedField {
        /// The stored name (empty when the runtime gives none).
        let name: String
        /// The declared type; for a weak or unowned field, the referent type.
        let type: Any.Type
        /// False for `weak`, `unowned` and `unowned(unsafe)` fields.
        let isStrong: Bool
        /// False for a `let`.
        let isVar: Bool
    }

    /// Field `index` of `type`, in ``reflectedFieldCount(_:)``'s numbering (root-most superclass
    /// fields first).
    static func reflectedField(_ type: Any.Type, index: Int) -> ReflectedField {
        var meta = _FieldReflectionMetadata()
        let fieldType = _rt_recursiveChildMetadata(type, index: index, fieldMetadata: &meta)
        // Copy the name out, then free it if the runtime asked for that (tuple labels are allocated).
        let name = meta.name.map { String(cString: $0) } ?? ""
        meta.freeFunc?(meta.name)
        return ReflectedField(name: name, type: fieldType, isStrong: meta.isStrong, isVar: meta.isVar)
    }

    /// The byte offset of field `index` of `type`: from the start of a value (structs, tuples), or
    /// of the heap object (classes, header included).
    static func reflectedFieldOffset(_ type: Any.Type, index: Int) -> Int {
        _rt_recursiveChildOffset(type, index: index)
    }

    private static let classKind: UInt = 0
    private static let structKind: UInt = 0x200
    private static let metatypeKind: UInt = 0x304

    /// Whether `type` is Swift class metadata: false for structs and every other kind, and for
    /// Objective-C classes and their wrappers.
    static func isSwiftClass(_ type: Any.Type) -> Bool {
        kind(type) == classKind && _rt_typeContextDescriptor(type) != nil
    }

    /// `type` and its superclasses, nearest first, as far as they are Swift classes: empty if
    /// `type` is not one. On Apple platforms the chain of an `NSObject` subclass ends below
    /// `NSObject`; elsewhere every class is Swift and the chain ends at the root class.
    static func swiftClassChain(_ type: Any.Type) -> [Any.Type] {
        var chain: [Any.Type] = []
        var next: Any.Type? = type
        while let current = next, isSwiftClass(current) {
            chain.append(current)
            next = (current as? AnyClass).flatMap { _getSuperclass($0) }
        }
        return chain
    }

    /// The instance type of a metatype's metadata (`Int` for `Int.Type`); nil for other kinds.
    static func instanceType(ofMetatype type: Any.Type) -> Any.Type? {
        guard kind(type) == metatypeKind else { return nil }
        return unsafeBitCast(type, to: UnsafeRawPointer.self)
            .load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.size, as: Any.Type.self)
    }

    /// A stored property as its type's field descriptor records it.
    struct DeclaredField {
        /// The stored name (`_x` for a wrapped property, `$__lazy_storage_$_x` for a lazy one).
        let name: String
        /// The last two characters of the mangled type name that are not part of a symbolic
        /// reference (0 where there are fewer): an ownership suffix such as `Xw` ends it.
        let typeNameEnd: (UInt8, UInt8)
    }

    /// The stored properties `type` declares itself (for a class, not those of its superclasses),
    /// in declaration order; nil unless `type` is a struct or Swift class whose field records can
    /// be read.
    static func declaredFields(_ type: Any.Type) -> [DeclaredField]? {
        let kind = kind(type)
        guard kind == structKind || kind == classKind, let descriptor = _rt_typeContextDescriptor(type) else { return nil }
        // Type context descriptor: flags, parent, name, access function, fields.
        guard let fieldDescriptor = relativeTarget(descriptor + 16) else { return [] }
        // Field descriptor: mangled type name, superclass (relative pointers), kind, record size
        // (16 bits each), record count (32 bits), then the records.
        let recordSize = Int(fieldDescriptor.load(fromByteOffset: 10, as: UInt16.self))
        let count = Int(fieldDescriptor.load(fromByteOffset: 12, as: UInt32.self))
        guard recordSize >= 12 else { return nil }
        var fields: [DeclaredField] = []
        fields.reserveCapacity(count)
        for i in 0..<count {
            // Field record: flags, mangled type name, field name.
            let record = fieldDescriptor + 16 + i * recordSize
            guard let name = relativeTarget(record + 8) else { return nil }
            fields.append(
                DeclaredField(
                    name: String(cString: name.assumingMemoryBound(to: CChar.self)),
                    typeNameEnd: relativeTarget(record + 4).map(mangledNameEnd) ?? (0, 0)))
        }
        return fields
    }

    /// Where the 32-bit relative pointer at `field` points; nil for a null one.
    private static func relativeTarget(_ field: UnsafeRawPointer) -> UnsafeRawPointer? {
        let offset = Int(field.load(as: Int32.self))
        return offset == 0 ? nil : field + offset
    }

    /// The last two characters of a mangled name, skipping symbolic references (a control byte
    /// 0x01–0x17 and a 4-byte relative offset, or 0x18–0x1F and a pointer).
    private static func mangledNameEnd(_ start: UnsafeRawPointer) -> (UInt8, UInt8) {
        var last: (UInt8, UInt8) = (0, 0)
        var position = start
        for _ in 0..<4096 {
            let byte = position.load(as: UInt8.self)
            if byte == 0 { break }
            if byte <= 0x17 {
                position += 5
                last = (last.1, 0)
            } else if byte <= 0x1F {
                position += 1 + MemoryLayout<UnsafeRawPointer>.size
                last = (last.1, 0)
            } else {
                position += 1
                last = (last.1, byte)
            }
        }
        return last
    }
}
