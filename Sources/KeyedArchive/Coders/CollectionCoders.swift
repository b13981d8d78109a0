import Foundation
@_spi(Reader) import PropertyList

extension Optional: ArchiveContainer {
    static func makeCoder() -> TypeCoder { OptionalCoder<Wrapped>() }
}

extension Array: ArchiveContainer {
    static func makeCoder() -> TypeCoder {
        // The commonest element types get coders compiled for them (no generic code per element).
        if Element.self == String.self { return StringArrayCoder() }
        if Element.self == Int.self { return IntArrayCoder() }
        if Element.self == Double.self { return DoubleArrayCoder() }
        return ArrayCoder<Element>()
    }
}

extension Set: ArchiveContainer {
    static func makeCoder() -> TypeCoder { SetCoder<Element>() }
}

extension Dictionary: ArchiveContainer {
    static func makeCoder() -> TypeCoder {
        if Key.self == String.self {
            if Value.self == String.self { return StringToStringCoder() }
            if Value.self == Int.self { return StringToIntCoder() }
            if Value.self == Double.self { return StringToDoubleCoder() }
        }
        return DictionaryCoder<Key, Value>()
    }
}

/// `nil` is a UID pointing at `$null`; a value is coded as the wrapped type.
final class OptionalCoder<Wrapped>: TypedCoder<Wrapped?>, @unchecked Sendable {
    private let wrapped = CoderCache.global(Wrapped.self)
    override var archivedNames: [String] { wrapped.archivedNames }
    override var archivedCollection: ArchivedCollection? { wrapped.archivedCollection }

    override func encode(_ value: Wrapped?, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        guard let value else { return archiver.nullReference }
        return try wrapped.encode(value, inline: inline, archiver)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Wrapped? {
        if case .null = try unarchiver.target(reference) { return nil }
        return try wrapped.decode(reference, unarchiver)
    }
}


/// `NSArray`: `{$class, NS.objects: [UID…]}`.
class ArrayCoder<Element>: TypedCoder<[Element]>, @unchecked Sendable {
    private let element = CoderCache.global(Element.self)
    override var archivedNames: [String] { element.archivedNames }
    override var archivedCollection: ArchivedCollection? { .list }

    override func encode(_ value: [Element], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Element] {
        try unarchiver.decodeList(reference, coder: element)
    }
}

/// `[String]`, `[Int]` and `[Double]`: ``ArrayCoder`` (whose names and kind they inherit), with
/// the element type fixed at compile time so the list code is specialised for it.
final class StringArrayCoder: ArrayCoder<String>, @unchecked Sendable {
    private let element = StringCoder()

    override func encode(_ value: [String], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [String] {
        try unarchiver.decodeList(reference, coder: element)
    }
}

final class IntArrayCoder: ArrayCoder<Int>, @unchecked Sendable {
    private let element = IntegerCoder<Int>()

    override func encode(_ value: [Int], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Int] {
        try unarchiver.decodeList(reference, coder: element)
    }
}

final class DoubleArrayCoder: ArrayCoder<Double>, @unchecked Sendable {
    private let element = DoubleCoder()

    override func encode(_ value: [Double], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Double] {
        try unarchiver.decodeList(reference, coder: element)
    }
}

/// `NSSet`: `{$class, NS.objects: [UID…]}`, elements in a stable order.
final class SetCoder<Element: Hashable>: TypedCoder<Set<Element>>, @unchecked Sendable {
    private let element = CoderCache.global(Element.self)
    override var archivedNames: [String] { element.archivedNames }
    override var archivedCollection: ArchivedCollection? { .list }
    private let list = CoderCache.global([Element].self)

    override func encode(_ value: Set<Element>, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(try archiver.canonicalOrder(Array(value)), coder: element, asSet: true)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Set<Element> {
        Set(try list.decode(reference, unarchiver))
    }
}

/// `NSDictionary`: `{$class, NS.keys: [UID…], NS.objects: [UID…]}`, keys in a stable order.
class DictionaryCoder<Key: Hashable, Value>: TypedCoder<[Key: Value]>, @unchecked Sendable {
    private let keyCoder = CoderCache.global(Key.self)
    private let valueCoder = CoderCache.global(Value.self)
    override var archivedNames: [String] { valueCoder.archivedNames }
    override var archivedCollection: ArchivedCollection? { .dictionary }

    override func encode(_ value: [Key: Value], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeDictionary(value, keyCoder: keyCoder, valueCoder: valueCoder)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Key: Value] {
        try unarchiver.decodeDictionary(reference, keyCoder: keyCoder, valueCoder: valueCoder)
    }
}

/// `[String: String]`, `[String: Int]` and `[String: Double]`: ``DictionaryCoder`` (whose names and
/// kind they inherit) with both types fixed at compile time (hashing, sorting and collection code
/// specialised for them).
final class StringToStringCoder: DictionaryCoder<String, String>, @unchecked Sendable {
    private let keyCoder = StringCoder()
    private let valueCoder = StringCoder()

    override func encode(_ value: [String: String], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeDictionary(value, keyCoder: keyCoder, valueCoder: valueCoder)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [String: String] {
        try unarchiver.decodeDictionary(reference, keyCoder: keyCoder, valueCoder: valueCoder)
    }
}

final class StringToIntCoder: DictionaryCoder<String, Int>, @unchecked Sendable {
    private let keyCoder = StringCoder()
    private let valueCoder = IntegerCoder<Int>()

    override func encode(_ value: [String: Int], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeDictionary(value, keyCoder: keyCoder, valueCoder: valueCoder)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [String: Int] {
        try unarchiver.decodeDictionary(reference, keyCoder: keyCoder, valueCoder: valueCoder)
    }
}

final class StringToDoubleCoder: DictionaryCoder<String, Double>, @unchecked Sendable {
    private let keyCoder = StringCoder()
    private let valueCoder = DoubleCoder()

    override func encode(_ value: [String: Double], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeDictionary(value, keyCoder: keyCoder, valueCoder: valueCoder)
    }

    override func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [String: Double] {
        try unarchiver.decodeDictionary(reference, keyCoder: keyCoder, valueCoder: valueCoder)
    }
}
