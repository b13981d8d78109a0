import Foundation
@_spi(Reader) import PropertyList

/// The check a field layout passes before any value is read or written through it.
///
/// The runtime gives reflection each field's name, type and offset (and on Apple platforms this
/// library reads class metadata by offsets taken from the ABI documents). `Mirror` reads the
/// same fields by the runtime's own means. The first time a type's layout is built, both are
/// compared on one instance the type's `init()` made: the same fields in the same order, each
/// inside the value and none overlapping another, each field's value of the declared type, and,
/// where the comparison is decidable, the same value read both ways. A disagreement means this
/// library's idea of the platform's layout is wrong; the type then throws `.notArchivable` on
/// every use, and no field of it is read or written through the layout.
///
/// Values are compared for integer, floating-point and `Bool` fields (their bits), `String`
/// fields (the bits of the string value) and class references (the object's address): a copy
/// of each has the bits of the original. Other fields are checked for name, type, place and
/// size only (a struct's padding, or an enum's unused payload, may differ between copies).
package enum LayoutCheck {
    /// Types whose field offsets are checked as if the platform's were off by `shift` bytes,
    /// as a wrong ABI constant would make them: the tests' way to see a disagreement on a
    /// platform whose layout is right.
    package static let skewedOffsets = Locked<[ObjectIdentifier: Int]>([:])

    /// The field table's entries, each with its offset as this process's test hook leaves it.
    static func fields(of table: FieldTable) -> [FieldInfo] {
        guard let shift = skewedOffsets.withLock({ $0[ObjectIdentifier(table.type)] }) else { return table.fields }
        return table.fields.map { field in
            var moved = FieldInfo(
                name: field.name, offset: field.offset + shift, type: field.type, isStrong: field.isStrong,
                isVar: field.isVar, hasGenericRepresentation: field.hasGenericRepresentation)
            moved.ownership = field.ownership
            return moved
        }
    }

    /// Compares `fields` with `Mirror`'s view of `sample`; throws `.notArchivable` naming the
    /// first disagreement.
    static func verify<A>(_ fields: [FieldInfo], of sample: A, typeName: String) throws {
        func disagreement(_ detail: String) -> ArchiveError {
            ArchiveError(
                .notArchivable,
                reason: "reflection on this platform (\(platform)) disagrees with Mirror about \(typeName): \(detail). The library's reading of this platform's type layout is wrong, so no field of \(typeName) is read or written through it; adopt Codable or KeyedCoding for the type, and report the platform")
        }
        var mirrors: [Mirror] = []
        var next: Mirror? = Mirror(reflecting: sample)
        while let mirror = next {
            mirrors.append(mirror)
            next = mirror.superclassMirror
        }
        let children = mirrors.reversed().flatMap { Array($0.children) }
        let labels = children.map { $0.label ?? "" }
        let names = fields.map(\.name)
        guard labels == names else {
            throw disagreement("the field table lists \(names), Mirror \(labels)")
        }
        let isClass = A.self is AnyClass
        try withSampleBytes(of: sample, isClass: isClass) { bytes in
            // A class instance starts with its header (metadata and reference counts).
            let start = isClass ? 2 * MemoryLayout<Int>.size : 0
            var taken: [Range<Int>] = []
            for (field, child) in zip(fields, children) {
                let size = field.isStrong ? byteSize(of: field.type) : MemoryLayout<Int>.size
                let (end, overflow) = field.offset.addingReportingOverflow(size)
                guard field.offset >= start, !overflow, end <= bytes.count else {
                    throw disagreement(
                        "\(field.name) lies at bytes \(field.offset)..<\(field.offset &+ size), outside the value's \(start)..<\(bytes.count)")
                }
                let range = field.offset..<end
                if let other = taken.first(where: { $0.overlaps(range) }) {
                    throw disagreement("\(field.name) at bytes \(range) overlaps another field at \(other)")
                }
                if !range.isEmpty { taken.append(range) }
                guard field.isStrong else { continue }
                if let problem = compare(child.value, declared: field.type, with: bytes, in: range) {
                    throw disagreement("\(field.name) \(problem)")
                }
            }
        }
    }

    private static func byteSize(of type: Any.Type) -> Int {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        return _openExistential(type, do: size)
    }

    /// Why `value` (Mirror's) and the bytes in `range` of `bytes` (the layout's) disagree for a
    /// field declared as `declared`, or nil when they agree or cannot be compared.
    private static func compare(_ value: Any, declared: Any.Type, with bytes: SampleBytes, in range: Range<Int>) -> String? {
        let kind = TypeKind(declared)
        if kind != .class, kind != .existential, type(of: value) != declared {
            return "is declared \(declared), but Mirror reads a \(type(of: value))"
        }
        func same<T>(_ mirrored: T) -> String? {
            bytes.holdBits(of: mirrored, in: range) ? nil : "reads \(mirrored) through Mirror but other bytes through its offset"
        }
        // Only a field declared as one of these types holds exactly its bits (an `Any` or an
        // `NSNumber` field holding an Int does not).
        func scalar<T>(_: T.Type) -> String?? {
            guard declared == T.self, let mirrored = value as? T else { return .none }
            return .some(same(mirrored))
        }
        let scalars: [() -> String??] = [
            { scalar(Int.self) }, { scalar(Int64.self) }, { scalar(Int32.self) }, { scalar(Int16.self) },
            { scalar(Int8.self) }, { scalar(UInt.self) }, { scalar(UInt64.self) }, { scalar(UInt32.self) },
            { scalar(UInt16.self) }, { scalar(UInt8.self) }, { scalar(Double.self) }, { scalar(Float.self) },
            { scalar(Bool.self) },
        ]
        for compared in scalars {
            if let result = compared() { return result }
        }
        if declared == String.self, let string = value as? String {
            // The bits of a String value, not its characters, are what a copy keeps.
            return same(string) == nil ? nil : "reads \(String(reflecting: string)) through Mirror but another string through its offset"
        }
        guard kind == .class, range.count == MemoryLayout<Int>.size else { return nil }
        return same(UInt(bitPattern: ObjectIdentifier(value as AnyObject)))
    }

    /// The platform, as the error names it.
    private static var platform: String {
        #if os(Linux)
        let system = "Linux"
        #elseif os(macOS)
        let system = "macOS"
        #elseif os(iOS)
        let system = "iOS"
        #elseif os(tvOS)
        let system = "tvOS"
        #elseif os(watchOS)
        let system = "watchOS"
        #elseif os(visionOS)
        let system = "visionOS"
        #else
        let system = "an unknown system"
        #endif
        #if arch(x86_64)
        let architecture = "x86_64"
        #elseif arch(arm64)
        let architecture = "arm64"
        #elseif arch(arm64_32)
        let architecture = "arm64_32"
        #else
        let architecture = "another architecture"
        #endif
        return "\(system), \(architecture)"
    }
}
