import PropertyList
import TestSupport
import Testing

/// `PlistValue` and `PlistDictionary` hash consistently with their equality: a value equal to
/// another (an integer held as `.int` or `.uint`, a dictionary built in another order, a string
/// in other storage) hashes equal, so sets and dictionary keys of them do not depend on the
/// process's hash seed. Each value has its own seed, printed on failure.
@Suite("PlistValue hashing")
struct PlistValueHashingTests {
    static let baseSeed: UInt64 = 0x4A54_2026_0000_0000

    /// A value equal to `value` but built differently.
    static func twin(_ value: PlistValue, using rng: inout SplitMix64) -> PlistValue {
        switch value {
        case .int(let v) where v >= 0: return .uint(UInt64(v))
        case .uint(let v) where v <= UInt64(Int64.max): return .int(Int64(v))
        case .string(let s): return .string(String(decoding: Array(s.utf8), as: UTF8.self))
        case .array(let elements): return .array(elements.map { twin($0, using: &rng) })
        case .set(let elements): return .set(elements.map { twin($0, using: &rng) })
        case .dict(let dict):
            var pairs: [(String, PlistValue)] = []
            for (key, element) in dict.shuffled(using: &rng) { pairs.append((key, twin(element, using: &rng))) }
            return .dict(PlistDictionary(uniqueKeysWithValues: pairs))
        default: return value
        }
    }

    @Test("Equal values hash equal: 2,000 random values and a twin of each built another way")
    func equalValuesHashEqual() {
        var flat = RandomPlist.Options()
        flat.maximumDepth = 1
        for i in 0..<2_000 {
            let seed = Self.baseSeed &+ UInt64(i)
            var rng = SplitMix64(seed: seed)
            var value = RandomPlist.value(using: &rng)
            if i % 8 == 0 {
                // Dictionaries past 16 keys look keys up through an index.
                var wide = PlistDictionary()
                for k in 0..<Int.random(in: 17...40, using: &rng) {
                    wide["k\(k)"] = RandomPlist.value(using: &rng, options: flat)
                }
                wide["nested"] = value
                value = .dict(wide)
            }
            let twin = Self.twin(value, using: &rng)
            #expect(value == twin && twin == value, "seed \(seed): \(value.plistJSON.prefix(300))")
            #expect(value.hashValue == twin.hashValue, "seed \(seed): \(value.plistJSON.prefix(300))")
            #expect(Set([value]).contains(twin), "seed \(seed)")
        }
    }

    @Test("Values equal by their rules hash equal; values they tell apart compare unequal")
    func edgeCases() {
        let equal: [(PlistValue, PlistValue)] = [
            (.int(5), .uint(5)),
            (.real(.nan), .real(.nan)),
            (.date(.nan), .date(.nan)),
            (.dict(["a": 1, "b": 2]), .dict(["b": 2, "a": 1])),
            (.array([.uint(1), .dict(["x": .int(0)])]), .array([.int(1), .dict(["x": .uint(0)])])),
        ]
        for (a, b) in equal {
            #expect(a == b, "\(a) and \(b)")
            #expect(a.hashValue == b.hashValue, "\(a) and \(b)")
        }
        let unequal: [(PlistValue, PlistValue)] = [
            (.real(0), .real(-0.0)),
            (.int(1), .real(1)),
            (.int(1), .bool(true)),
            (.real(1), .float(1)),
            (.real(1), .date(1)),
            (.string("\u{E9}"), .string("e\u{301}")),
            (.dict(["\u{E9}": 1]), .dict(["e\u{301}": 1])),
            (.set([1, 2]), .set([2, 1])),
            (.uid(1), .int(1)),
        ]
        for (a, b) in unequal {
            #expect(a != b && b != a, "\(a) and \(b)")
        }
    }
}
