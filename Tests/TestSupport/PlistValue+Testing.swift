import PropertyList

extension PlistValue {
    /// The value as plist-json sees it: 4-byte reals widened to `.real`, so a file's `0x22` real
    /// compares equal to its plist-json `{"real": …}`. Everything else is unchanged.
    public var widenedFloats: PlistValue {
        mapScalars { if case .float(let f) = $0 { .real(Double(f)) } else { $0 } }
    }

    /// ``widenedFloats``, and every NaN real or date replaced by the canonical quiet NaN
    /// (plist-json spells every NaN `"nan"`, and other writers canonicalise the payload).
    public var canonicalNaNs: PlistValue {
        widenedFloats.mapScalars { scalar in
            switch scalar {
            case .real(let v) where v.isNaN: .real(.nan)
            case .date(let v) where v.isNaN: .date(.nan)
            default: scalar
            }
        }
    }

    /// The same tree with `transform` applied to every non-container value.
    public func mapScalars(_ transform: (PlistValue) -> PlistValue) -> PlistValue {
        switch self {
        case .array(let elements): .array(elements.map { $0.mapScalars(transform) })
        case .set(let elements): .set(elements.map { $0.mapScalars(transform) })
        case .dict(let dict):
            .dict(PlistDictionary(uniqueKeysWithValues: zip(dict.keys, dict.values.map { $0.mapScalars(transform) })))
        default: transform(self)
        }
    }

    /// How many values the tree holds, containers included, counting shared values once per place.
    public var treeSize: Int {
        switch self {
        case .array(let elements), .set(let elements): 1 + elements.reduce(0) { $0 + $1.treeSize }
        case .dict(let dict): 1 + dict.count + dict.values.reduce(0) { $0 + $1.treeSize }
        default: 1
        }
    }

    /// The deepest container nesting: 0 for a scalar, 1 for a flat container.
    public var nestingDepth: Int {
        switch self {
        case .array(let elements), .set(let elements): 1 + (elements.map(\.nestingDepth).max() ?? 0)
        case .dict(let dict): 1 + (dict.values.map(\.nestingDepth).max() ?? 0)
        default: 0
        }
    }
}

/// `n` arrays nested in each other, the innermost empty: `[[[]]]` for 3.
public func nestedArrays(_ n: Int) -> PlistValue {
    var value: PlistValue = .array([])
    for _ in 1..<max(n, 1) { value = .array([value]) }
    return value
}
