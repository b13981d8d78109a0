/// Wire-format constants of the keyed archive layout (NSKeyedArchiver's).
enum ArchiveFormat {
    static let archiverKey = "$archiver"
    static let versionKey = "$version"
    static let topKey = "$top"
    static let objectsKey = "$objects"
    static let archiverName = "NSKeyedArchiver"
    static let version: Int64 = 100_000
    /// `$objects[0]`, and what a reference to nil points at.
    static let null = "$null"
    static let classKey = "$class"
    static let classNameKey = "$classname"
    static let classesKey = "$classes"
    static let classHintsKey = "$classhints"
    /// The `$top` key of the one-object API.
    static let rootKey = "root"
    /// The root of every class chain written, so Foundation can resolve it.
    static let rootClass = "NSObject"

    static let objectsField = "NS.objects"
    static let keysField = "NS.keys"
    static let timeField = "NS.time"
    static let baseField = "NS.base"
    static let relativeField = "NS.relative"
    static let uuidBytesField = "NS.uuidbytes"
    static let stringField = "NS.string"
    static let dataField = "NS.data"
    static let orderedSetPrefix = "NS.object."
    static let decimalExponentField = "NS.exponent"
    static let decimalLengthField = "NS.length"
    static let decimalNegativeField = "NS.negative"
    static let decimalCompactField = "NS.compact"
    static let decimalByteOrderField = "NS.mantissa.bo"
    static let decimalMantissaField = "NS.mantissa"

    static let arrayClass = "NSArray"
    static let dictionaryClass = "NSDictionary"
    static let setClass = "NSSet"
    static let dateClass = "NSDate"
    static let urlClass = "NSURL"
    static let uuidClass = "NSUUID"
    static let nullClass = "NSNull"
    static let decimalNumberClass = "NSDecimalNumber"

    /// Class names read as arrays, dictionaries, sets, strings and data.
    static let arrayClasses: Set<String> = ["NSArray", "NSMutableArray"]
    static let dictionaryClasses: Set<String> = ["NSDictionary", "NSMutableDictionary"]
    static let setClasses: Set<String> = ["NSSet", "NSMutableSet"]
    static let orderedSetClasses: Set<String> = ["NSOrderedSet", "NSMutableOrderedSet"]
    /// Classes a list (array, set or ordered set) decodes from.
    static let listClasses = arrayClasses.union(setClasses).union(orderedSetClasses)
    static let stringClasses: Set<String> = ["NSString", "NSMutableString"]
    static let dataClasses: Set<String> = ["NSData", "NSMutableData"]

    /// A user key as stored: keys that begin with `$` get one more `$`, so they never collide with `$class`.
    static func escape(_ key: String) -> String {
        key.utf8.first == UInt8(ascii: "$") ? "$" + key : key
    }

    /// A stored key as the user wrote it, or nil for the archive's own `$` keys.
    static func unescape(_ key: String) -> String? {
        guard key.utf8.first == UInt8(ascii: "$") else { return key }
        return key.utf8.dropFirst().first == UInt8(ascii: "$") ? String(key.dropFirst()) : nil
    }
}
