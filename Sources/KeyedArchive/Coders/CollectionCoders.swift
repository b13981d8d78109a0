import Foundation
@_spi(Reader) import PropertyList

extension Optional: ArchiveContainer {
    static func makeCoder() -> any TypeCoder { OptionalCoder<Wrapped>() }
}

extension Array: ArchiveContainer {
    static func makeCoder() -> any TypeCoder {
        // The commonest element types get coders compiled for them (no generic code per element).
        if Element.self == String.self { return StringArrayCoder() }
        if Element.self == Int.self { return IntArrayCoder() }
        if Element.self == Double.self { return DoubleArrayCoder() }
        return ArrayCoder<Element>()
    }
}

extension Set: ArchiveContainer {
    static func makeCoder() -> any TypeCoder { SetCoder<Element>() }
}

extension Dictionary: ArchiveContainer {
    static func makeCoder() -> any TypeCoder {
        if Key.self == String.self {
            if Value.self == String.self { return StringToStringCoder() }
            if Value.self == Int.self { return StringToIntCoder() }
            if Value.self == Double.self { return StringToDoubleCoder() }
        }
        return DictionaryCoder<Key, Value>()
    }
}

/// `nil` is a UID pointing at `$null`; a value is coded as the wrapped type.
final class OptionalCoder<Wrapped>: TypeCoder {
    private let wrapped = CoderCache.global(Wrapped.self)
    var archivedNames: [String] { wrapped.archivedNames }
    var archivedCollection: ArchivedCollection? { wrapped.archivedCollection }

    func encode(_ value: Wrapped?, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        guard let value else { return archiver.nullReference }
        return try wrapped.encode(value, inline: inline, archiver)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Wrapped? {
        if case .null = try unarchiver.target(reference) { return nil }
        return try wrapped.decode(reference, unarchiver)
    }
}


/// `NSArray`: `{$class, NS.objects: [UID…]}`.
final class ArrayCoder<Element>: TypeCoder {
    private let element = CoderCache.global(Element.self)
    var archivedNames: [String] { element.archivedNames }
    var archivedCollection: ArchivedCollection? { .list }

    func encode(_ value: [Element], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Element] {
        try unarchiver.decodeList(reference, coder: element)
    }
}

/// `[String]`, `[Int]` and `[Double]`: ``ArrayCoder`` with the element type fixed at compile time,
/// so the list code is specialised for it. Their elements are archived under no class name.
final class StringArrayCoder: TypeCoder {
    private let element = StringCoder()
    var archivedCollection: ArchivedCollection? { .list }

    func encode(_ value: [String], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [String] {
        try unarchiver.decodeList(reference, coder: element)
    }
}

final class IntArrayCoder: TypeCoder {
    private let element = IntegerCoder<Int>()
    var archivedCollection: ArchivedCollection? { .list }

    func encode(_ value: [Int], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Int] {
        try unarchiver.decodeList(reference, coder: element)
    }
}

final class DoubleArrayCoder: TypeCoder {
    private let element = DoubleCoder()
    var archivedCollection: ArchivedCollection? { .list }

    func encode(_ value: [Double], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(value, coder: element)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Double] {
        try unarchiver.decodeList(reference, coder: element)
    }
}

/// `NSSet`: `{$class, NS.objects: [UID…]}`, elements in a stable order.
final class SetCoder<Element: Hashable>: TypeCoder {
    private let element = CoderCache.global(Element.self)
    var archivedNames: [String] { element.archivedNames }
    var archivedCollection: ArchivedCollection? { .list }
    private let list = CoderCache.global([Element].self)

    func encode(_ value: Set<Element>, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeList(try archiver.canonicalOrder(Array(value)), coder: element, asSet: true)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> Set<Element> {
        Set(try list.decode(reference, unarchiver))
    }
}

/// `NSDictionary`: `{$class, NS.keys: [UID…], NS.objects: [UID…]}`, keys in a stable order.
final class DictionaryCoder<Key: Hashable, Value>: TypeCoder {
    private let keyCoder = CoderCache.global(Key.self)
    private let valueCoder = CoderCache.global(Value.self)
    var archivedNames: [String] { valueCoder.archivedNames }
    var archivedCollection: ArchivedCollection? { .dictionary }

    func encode(_ value: [Key: Value], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeDictionary(value, keyCoder: keyCoder, valueCoder: valueCoder)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [Key: Value] {
        try unarchiver.decodeDictionary(reference, keyCoder: keyCoder, valueCoder: valueCoder)
    }
}

/// `[String: String]`, `[String: Int]` and `[String: Double]`: ``DictionaryCoder`` with both types
/// fixed at compile time (hashing, sorting and collection code specialised for them). Their values
/// are archived under no class name.
final class StringToStringCoder: TypeCoder {
    private let keyCoder = StringCoder()
    private let valueCoder = StringCoder()
    var archivedCollection: ArchivedCollection? { .dictionary }

    func encode(_ value: [String: String], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeDictionary(value, keyCoder: keyCoder, valueCoder: valueCoder)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [String: String] {
        try unarchiver.decodeDictionary(reference, keyCoder: keyCoder, valueCoder: valueCoder)
    }
}

final class StringToIntCoder: TypeCoder {
    private let keyCoder = StringCoder()
    private let valueCoder = IntegerCoder<Int>()
    var archivedCollection: ArchivedCollection? { .dictionary }

    func encode(_ value: [String: Int], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeDictionary(value, keyCoder: keyCoder, valueCoder: valueCoder)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [String: Int] {
        try unarchiver.decodeDictionary(reference, keyCoder: keyCoder, valueCoder: valueCoder)
    }
}

final class StringToDoubleCoder: TypeCoder {
    private let keyCoder = StringCoder()
    private let valueCoder = DoubleCoder()
    var archivedCollection: ArchivedCollection? { .dictionary }

    func encode(_ value: [String: Double], inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        try archiver.encodeDictionary(value, keyCoder: keyCoder, valueCoder: valueCoder)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> [String: Double] {
        try unarchiver.decodeDictionary(reference, keyCoder: keyCoder, valueCoder: valueCoder)
    }
}
