/// A property-list dictionary: string keys, insertion order kept, lookups by exact key.
///
/// Keys are matched by their exact Unicode scalars, so two keys that differ only in Unicode
/// normalisation are two keys, as they are in a `bplist00` file. Equality ignores order;
/// iteration and writing follow insertion order.
///
/// ```swift
/// var dict: PlistDictionary = ["name": "Ann"]
/// dict["age"] = 30
/// dict["name"] = nil
/// print(dict.keys)   // ["age"]
/// ```
public struct PlistDictionary: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// The keys, in insertion order.
    public private(set) var keys: [String] = []
    /// The values, in the order of ``keys``.
    public private(set) var values: [PlistValue] = []
    private var index: [ExactString: Int] = [:]

    /// An empty dictionary.
    public init() {}

    /// A dictionary from pairs in order. A repeated key keeps its first position and its last value.
    public init(uniqueKeysWithValues pairs: some Sequence<(String, PlistValue)>) {
        for (key, value) in pairs { self[key] = value }
    }

    /// A dictionary from a literal, keys in the literal's order. A repeated key keeps its first
    /// position and its last value.
    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        self.init(uniqueKeysWithValues: elements)
    }

    package init(reservingCapacity capacity: Int) {
        keys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    private static let linearLimit = 16

    /// Keys known to be distinct (checked by the caller).
    package init(distinctKeys: [String], values: [PlistValue]) {
        keys = distinctKeys
        self.values = values
        buildIndexIfNeeded()
    }

    private func position(of key: String) -> Int? {
        if keys.count <= Self.linearLimit && index.isEmpty {
            let exact = ExactString(key)
            for i in keys.indices where ExactString(keys[i]) == exact { return i }
            return nil
        }
        return index[ExactString(key)]
    }

    private mutating func buildIndexIfNeeded() {
        if index.isEmpty && keys.count >= Self.linearLimit {
            index = Dictionary(minimumCapacity: keys.count * 2)
            for (i, k) in keys.enumerated() { index[ExactString(k)] = i }
        }
    }

    /// The position of the first entry: always 0.
    public var startIndex: Int { 0 }
    /// The position after the last entry: the number of entries.
    public var endIndex: Int { keys.count }
    /// The entry at `position`, counted in insertion order from 0.
    ///
    /// - Parameter position: A position from ``startIndex`` up to, not including, ``endIndex``;
    ///   any other traps, as an array subscript does.
    public subscript(position: Int) -> (key: String, value: PlistValue) { (keys[position], values[position]) }

    /// The value for `key`, matched by its exact Unicode scalars; setting `nil` removes it.
    ///
    /// Setting a new key appends it; setting an existing key replaces its value in place.
    public subscript(key: String) -> PlistValue? {
        get { position(of: key).map { values[$0] } }
        set {
            let exact = ExactString(key)
            if let position = position(of: key) {
                if let newValue {
                    values[position] = newValue
                } else {
                    keys.remove(at: position)
                    values.remove(at: position)
                    index = [:]
                    buildIndexIfNeeded()
                }
            } else if let newValue {
                buildIndexIfNeeded()
                if !index.isEmpty { index[exact] = keys.count }
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Appends a pair whose key is known to be new; returns false (and changes nothing) if it is not.
    package mutating func appendNew(key: String, value: PlistValue) -> Bool {
        if position(of: key) != nil { return false }
        buildIndexIfNeeded()
        if !index.isEmpty { index[ExactString(key)] = keys.count }
        keys.append(key)
        values.append(value)
        return true
    }

    /// Whether both hold the same keys with equal values, in any order.
    public static func == (lhs: PlistDictionary, rhs: PlistDictionary) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in zip(lhs.keys, lhs.values) where rhs[key] != value { return false }
        return true
    }

    /// Hashes the entries regardless of their order, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        // Order-independent: a commutative sum of per-entry hashes.
        var sum = 0
        for (key, value) in zip(keys, values) {
            var entry = Hasher()
            entry.combine(ExactString(key))
            entry.combine(value)
            sum = sum &+ entry.finalize()
        }
        hasher.combine(count)
        hasher.combine(sum)
    }
}
