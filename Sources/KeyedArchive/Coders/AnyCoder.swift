import Foundation
@_spi(Reader) import PropertyList

/// `Any`, `AnyObject` and `AnyHashable`: encoded by the value's dynamic type; decoded as
/// property-list values the way `JSONSerialization` gives them (Int, Double, Bool, String,
/// Data, Date, URL, UUID, `[Any]`, `[String: Any]`, `Set<AnyHashable>`, `NSNull`), or as a
/// registered or mapped type for any other class name.
final class AnyCoder<T>: TypeCoder {
    func encode(_ value: T, inline: Bool, _ archiver: ArchiverCore) throws -> Int {
        let unwrapped: Any = (value as? AnyHashable)?.base ?? value
        return try archiver.encodeDynamic(unwrapped, inline: inline)
    }

    func decode(_ reference: Int, _ unarchiver: UnarchiverCore) throws -> T {
        let value = try unarchiver.decodeAny(reference)
        if T.self == AnyHashable.self {
            guard let hashable = value as? AnyHashable else { throw unarchiver.mismatch("a hashable value", reference) }
            return hashable as! T
        }
        return value as! T  // T is Any or AnyObject: every value converts
    }
}
