/// Wire-format constants of the keyed archive layout (NSKeyedArchiver's).
package enum ArchiveFormat {
    package static let archiverKey = "$archiver"
    package static let versionKey = "$version"
    package static let topKey = "$top"
    package static let objectsKey = "$objects"
    package static let archiverName = "NSKeyedArchiver"
    package static let version: Int64 = 100_000
    /// `$objects[0]`, and what a reference to nil points at.
    package static let null = "$null"
    package static let classKey = "$class"
    package static let classNameKey = "$classname"
    package static let classesKey = "$classes"
    package static let classHintsKey = "$classhints"
    /// A class description's version of its type (``ArchiveVersioned/archiveVersion``), written
    /// only when it is not 0. Foundation's readers and `plistlib` pass over keys they do not know.
    package static let classVersionKey = "$classversion"
    /// The `$top` key of the one-object API.
    package static let rootKey = "root"
    /// The root of every class chain written, so Foundation can resolve it.
    package static let rootClass = "NSObject"

    package static let objectsField = "NS.objects"
    package static let keysField = "NS.keys"
    package static let timeField = "NS.time"
    package static let baseField = "NS.base"
    package static let relativeField = "NS.relative"
    package static let uuidBytesField = "NS.uuidbytes"
    package static let stringField = "NS.string"
    package static let dataField = "NS.data"
    package static let orderedSetPrefix = "NS.object."
    package static let decimalExponentField = "NS.exponent"
    package static let decimalLengthField = "NS.length"
    package static let decimalNegativeField = "NS.negative"
    package static let decimalCompactField = "NS.compact"
    package static let decimalByteOrderField = "NS.mantissa.bo"
    package static let decimalMantissaField = "NS.mantissa"

    package static let arrayClass = "NSArray"
    package static let dictionaryClass = "NSDictionary"
    package static let setClass = "NSSet"
    package static let dateClass = "NSDate"
    package static let urlClass = "NSURL"
    package static let uuidClass = "NSUUID"
    package static let nullClass = "NSNull"
    package static let decimalNumberClass = "NSDecimalNumber"
    package static let countedSetClass = "NSCountedSet"

    /// Class names read as arrays, dictionaries, sets, strings and data.
    package static let arrayClasses: Set<String> = ["NSArray", "NSMutableArray"]
    package static let dictionaryClasses: Set<String> = ["NSDictionary", "NSMutableDictionary"]
    package static let setClasses: Set<String> = ["NSSet", "NSMutableSet"]
    package static let orderedSetClasses: Set<String> = ["NSOrderedSet", "NSMutableOrderedSet"]
    /// Classes a list (array, set or ordered set) decodes from.
    /// (`NSCountedSet` keeps its elements as `NS.object<n>` fields, each with a count beside it.)
    package static let listClasses = arrayClasses.union(setClasses).union(orderedSetClasses).union([countedSetClass])
    package static let stringClasses: Set<String> = ["NSString", "NSMutableString"]
    package static let dataClasses: Set<String> = ["NSData", "NSMutableData"]

    /// A user key as stored: keys that begin with `$` get one more `$`, so they never collide with `$class`.
    package static func escape(_ key: String) -> String {
        key.utf8.first == UInt8(ascii: "$") ? "$" + key : key
    }

    /// A stored key as the user wrote it, or nil for the archive's own `$` keys.
    package static func unescape(_ key: String) -> String? {
        guard key.utf8.first == UInt8(ascii: "$") else { return key }
        return key.utf8.dropFirst().first == UInt8(ascii: "$") ? String(key.dropFirst()) : nil
    }
}
