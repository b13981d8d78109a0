import PropertyList

/// Seeded random property-list values for round-trip tests: every kind the writer accepts
/// (no null, no sets, UIDs below 2^32), with the edge cases that break codecs (UInt64 above
/// Int64.max, -0.0, NaN, infinities, subnormals, 4-byte reals, empty containers, UTF-16 and
/// surrogate pairs, strings that look alike but differ in their scalars, deep-ish nesting).
///
/// ```swift
/// var rng = SplitMix64(seed: 1)
/// let value = RandomPlist.value(using: &rng)
/// ```
public enum RandomPlist {
    public struct Options: Sendable {
        /// Deepest container nesting of an ordinary value (a rare "chain" goes deeper).
        public var maximumDepth = 5
        /// Most elements in one container.
        public var maximumElements = 8
        /// Dates as whole microseconds within ±2^30 s or whole seconds within the years 1..9999, so Python's
        /// `datetime` (microsecond resolution) holds them exactly; otherwise any bit pattern, NaN and infinities too.
        public var pythonSafeDates = false
        public init() {}
    }

    public static func value(using rng: inout SplitMix64, options: Options = Options()) -> PlistValue {
        if rng.chance(1, in: 40) {
            // A deep-ish chain of arrays and dictionaries.
            var value = scalar(using: &rng, options: options)
            for _ in 0..<Int.random(in: 10...60, using: &rng) {
                value = rng.chance(1, in: 2) ? .array([value]) : .dict([string(using: &rng): value])
            }
            return value
        }
        return value(depth: 0, using: &rng, options: options)
    }

    static func value(depth: Int, using rng: inout SplitMix64, options: Options) -> PlistValue {
        let containerChance = depth == 0 ? 5 : max(0, 3 - depth / 2)
        guard depth < options.maximumDepth, Int.random(in: 0..<6, using: &rng) < containerChance else {
            return scalar(using: &rng, options: options)
        }
        let count = rng.chance(1, in: 10) ? 0 : Int.random(in: 1...options.maximumElements, using: &rng)
        if rng.chance(1, in: 2) {
            return .array((0..<count).map { _ in value(depth: depth + 1, using: &rng, options: options) })
        }
        var dict = PlistDictionary()
        for _ in 0..<count { dict[string(using: &rng)] = value(depth: depth + 1, using: &rng, options: options) }
        return .dict(dict)
    }

    public static func scalar(using rng: inout SplitMix64, options: Options = Options()) -> PlistValue {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return .bool(rng.chance(1, in: 2))
        case 1, 2: return integer(using: &rng)
        case 3: return .real(double(using: &rng))
        case 4: return .float(float(using: &rng))
        case 5: return .date(date(using: &rng, options: options))
        case 6: return .data(data(using: &rng))
        case 7: return .uid(uid(using: &rng))
        default: return .string(string(using: &rng))
        }
    }

    static let edgeIntegers: [Int64] = [
        0, 1, -1, 14, 15, 255, 256, 65535, 65536, 0xFFFF_FFFF, 0x1_0000_0000, .max, .min, .max - 1, .min + 1, -256,
    ]

    public static func integer(using rng: inout SplitMix64) -> PlistValue {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return .int(edgeIntegers.randomElement(using: &rng)!)
        case 1: return .uint(UInt64.random(in: (1 << 63)...(.max), using: &rng))  // above Int64.max
        case 2: return .uint([UInt64.max, 1 << 63, (1 << 63) + 1].randomElement(using: &rng)!)
        case 3: return .int(Int64(bitPattern: rng.next()))
        default:
            // Every width: a random value below 2^(1...63), sometimes negated.
            let bits = UInt64.random(in: 1...63, using: &rng)
            let magnitude = Int64(rng.next() >> (64 - bits))
            return .int(rng.chance(1, in: 4) ? -magnitude : magnitude)
        }
    }

    static let edgeDoubles: [Double] = [
        0, -0.0, 1, -1, 0.1, 1.5, .nan, -.nan, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
        .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .pi, 1e300, 1e-300,
        Double(Int64.max), 9_007_199_254_740_994, Double(bitPattern: 0x7FF0_0000_0000_0001),  // a signalling NaN
    ]

    public static func double(using rng: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return edgeDoubles.randomElement(using: &rng)!
        case 1: return Double(bitPattern: rng.next())
        case 2: return Double(Int.random(in: -1_000_000...1_000_000, using: &rng)) / 64
        default: return Double.random(in: -1e6...1e6, using: &rng)
        }
    }

    public static func float(using rng: inout SplitMix64) -> Float {
        switch Int.random(in: 0..<3, using: &rng) {
        case 0:
            return [0, -0.0, 1, 0.1, .nan, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .pi]
                .randomElement(using: &rng)!
        case 1: return Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
        default: return Float.random(in: -1000...1000, using: &rng)
        }
    }

    public static func date(using rng: inout SplitMix64, options: Options) -> Double {
        if options.pythonSafeDates {
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return [0, 10, -978_307_200, 1_169_176_448, -0.5, 0.000_001].randomElement(using: &rng)!
            case 1: return Double(Int64.random(in: -(1 << 30) * 1_000_000...(1 << 30) * 1_000_000, using: &rng)) / 1_000_000
            default: return Double(Int64.random(in: -63_000_000_000...250_000_000_000, using: &rng))
            }
        }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return [0, -0.0, .nan, .infinity, -.infinity, -978_307_200, .greatestFiniteMagnitude].randomElement(using: &rng)!
        case 1: return Double(bitPattern: rng.next())
        default: return Double.random(in: -4e9...4e9, using: &rng)
        }
    }

    public static func data(using rng: inout SplitMix64) -> [UInt8] {
        let count = rng.chance(1, in: 20) ? Int.random(in: 15...300, using: &rng) : Int.random(in: 0...16, using: &rng)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    public static func uid(using rng: inout SplitMix64) -> UInt64 {
        let bits = UInt64.random(in: 0...32, using: &rng)
        return bits == 0 ? 0 : rng.next() >> (64 - bits)
    }

    /// Strings from a pool of look-alikes (so keys and values repeat and collide) or random text.
    static let stringPool: [String] = [
        "", "a", "A", "a ", "key", "Key", "name", "é", "e\u{301}", "É", "ß", "ss", "😀", "👍🏽", "日本語", "\u{0}", "\u{7F}",
        "\u{80}", "\u{FFFF}", "\u{10FFFF}", "$null", "$class", "NS.objects", "abcdefghijklmn", "abcdefghijklmno",
        "ééééééééééééééé", "line\nbreak", "tab\t\"quote\"\\", String(repeating: "x", count: 300),
    ]

    public static func string(using rng: inout SplitMix64) -> String {
        if rng.chance(1, in: 2) { return stringPool.randomElement(using: &rng)! }
        let count = rng.chance(1, in: 10) ? Int.random(in: 14...40, using: &rng) : Int.random(in: 0...12, using: &rng)
        let asciiOnly = rng.chance(1, in: 2)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<count {
            let value: UInt32
            switch asciiOnly ? 0 : Int.random(in: 0..<4, using: &rng) {
            case 0: value = UInt32.random(in: 0...0x7F, using: &rng)
            case 1: value = UInt32.random(in: 0x80...0x7FF, using: &rng)
            case 2: value = UInt32.random(in: 0x800...0xFFFD, using: &rng)
            default: value = UInt32.random(in: 0x1_0000...0x10_FFFF, using: &rng)
            }
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")  // surrogate code points are not scalars
        }
        return String(scalars)
    }
}
