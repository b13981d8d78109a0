import Foundation

/// An attributed string as an archive holds it: its text and the attributes of each run.
///
/// An `NSAttributedString` or `NSMutableAttributedString` in an archive decodes to this value
/// where any value is expected (a field of type `Any`, an element of `[String: Any]`), so reading
/// an archive never builds Foundation's class unless the caller asks for it. A field declared
/// `NSAttributedString` (or `NSMutableAttributedString`) decodes to Foundation's class;
/// ``makeAttributedString()`` makes one from this value. Archiving this value writes Apple's
/// layout, as archiving the Foundation class does.
///
/// ```swift
/// let value = try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: data)
/// if let text = value as? ArchivedAttributedString {
///     for run in text.runs where run.attributes["NSLink"] != nil { print(run.range) }
/// }
/// ```
///
/// Foundation on Linux never frees the run storage of an `NSAttributedString` it builds: every
/// `makeAttributedString()`, and every decode into a field of that class, leaks a little memory
/// there. Code that reads untrusted archives on Linux should read this value instead.
public struct ArchivedAttributedString {
    /// A range of the string and the attributes every character in it has.
    public struct Run {
        /// The range, in UTF-16 code units of ``ArchivedAttributedString/string``.
        public var range: NSRange
        /// The attributes, by name (`NSAttributedString.Key`'s raw value), decoded as any value.
        public var attributes: [String: Any]

        /// A run of `range` with `attributes`.
        public init(range: NSRange, attributes: [String: Any]) {
            self.range = range
            self.attributes = attributes
        }
    }

    /// The characters.
    public var string: String
    /// Whether it was archived as (and is made as) an `NSMutableAttributedString`.
    public var isMutable: Bool
    /// The distinct attribute dictionaries, each held once however many runs have it.
    private(set) var attributeSets: [[String: Any]]
    /// Each run's range and the position of its attributes in ``attributeSets``.
    private(set) var runTable: [(range: NSRange, attributes: Int)]

    /// The runs, in order: each starts where the one before it ends, the first at 0, the last
    /// ending at the string's UTF-16 length. A string without attributes has none.
    public var runs: [Run] {
        get { runTable.map { Run(range: $0.range, attributes: attributeSets[$0.attributes]) } }
        set { (attributeSets, runTable) = Self.table(of: newValue) }
    }

    /// An attributed string of `string` with `runs`.
    public init(string: String, runs: [Run] = [], isMutable: Bool = false) {
        self.string = string
        self.isMutable = isMutable
        (attributeSets, runTable) = Self.table(of: runs)
    }

    /// An attributed string whose runs name their attributes by position in `attributeSets`,
    /// as an archive does (every position checked by the caller).
    init(string: String, attributeSets: [[String: Any]], runTable: [(range: NSRange, attributes: Int)], isMutable: Bool) {
        self.string = string
        self.isMutable = isMutable
        self.attributeSets = attributeSets
        self.runTable = runTable
    }

    /// The distinct dictionaries of `runs` (told apart with NSDictionary's equality) and each
    /// run's position among them.
    private static func table(of runs: [Run]) -> ([[String: Any]], [(range: NSRange, attributes: Int)]) {
        var sets: [[String: Any]] = []
        var distinct: [NSDictionary] = []
        var table: [(range: NSRange, attributes: Int)] = []
        for run in runs {
            let object = NSDictionary(dictionary: run.attributes)
            let index = distinct.firstIndex(of: object) ?? {
                distinct.append(object)
                sets.append(run.attributes)
                return sets.count - 1
            }()
            table.append((run.range, index))
        }
        return (sets, table)
    }

    /// The text and runs of `attributedString` (consecutive runs with equal attributes are one run).
    public init(_ attributedString: NSAttributedString) {
        var runs: [Run] = []
        attributedString.enumerateAttributes(in: NSRange(location: 0, length: attributedString.length), options: []) { attributes, range, _ in
            runs.append(Run(range: range, attributes: Dictionary(uniqueKeysWithValues: attributes.map { ($0.key.rawValue, $0.value) })))
        }
        self.init(string: attributedString.string, runs: runs, isMutable: attributedString is NSMutableAttributedString)
    }

    /// Foundation's attributed string of this text and these runs: an `NSMutableAttributedString`
    /// if ``isMutable``, else an `NSAttributedString`.
    ///
    /// Runs that do not cover the string as ``runs`` describes are applied where they fall
    /// inside it and ignored outside it.
    public func makeAttributedString() -> NSAttributedString {
        let built = NSMutableAttributedString(string: string)
        let length = built.length
        let keyed = attributeSets.map { Dictionary(uniqueKeysWithValues: $0.map { (NSAttributedString.Key($0.key), $0.value) }) }
        for run in runTable {
            let start = min(max(run.range.location, 0), length)
            let end = min(start + min(max(run.range.length, 0), length), length)
            guard end > start else { continue }
            built.setAttributes(keyed[run.attributes], range: NSRange(location: start, length: end - start))
        }
        return isMutable ? built : NSAttributedString(attributedString: built)
    }
}
