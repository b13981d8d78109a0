// Unsafe code in this file: metadata is read only through the runtime's own functions or at the documented offsets
// below, and a class chain stops at the first class without Swift metadata.

// TypeMetadata.swift
//
// Every read of the Swift runtime's type metadata and type descriptors in the library, so that no
// other file knows a metadata layout. Layouts are those of include/swift/ABI/Metadata.h,
// include/swift/RemoteInspection/Records.h and docs/ABI/TypeMetadata.rst in the Swift repository.
//
// What it reads, only ever from metadata and descriptors the compiler and runtime made (never from
// a value, never from archive input):
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
