import Foundation
import PropertyList
import TestSupport
import Testing

/// Seeded random values survive write → read unchanged, and Python's `plistlib` agrees with
/// both our bytes and our plist-json. Each value has its own seed, printed on failure.
@Suite("Random round trips")
struct RandomRoundTripTests {
    static let baseSeed: UInt64 = 0x5EED_2026_0000_0000

    @Test("10,000 random values write and read back equal, as does their plist-json")
    func randomValuesRoundTrip() throws {
        var kinds: Set<String> = []
        for i in 0..<10_000 {
            let seed = Self.baseSeed &+ UInt64(i)
            var rng = SplitMix64(seed: seed)
            let value = RandomPlist.value(using: &rng)
            let bytes = try BPlistWriter().write(value)
            let back = try BPlistReader().read(bytes)
            #expect(back == value, "seed \(seed): \(value.plistJSON.prefix(300))")
            // Every fourth value (to keep the debug run short): rewriting is stable, and plist-json
            // keeps everything but the width of 4-byte reals and NaN payloads.
            if i % 4 == 0 {
                #expect(try BPlistWriter().write(back) == bytes, "seed \(seed): rewriting changes the bytes")
                let json = try PlistValue(plistJSON: value.plistJSON)
                #expect(json == value.canonicalNaNs, "seed \(seed): \(value.plistJSON.prefix(300))")
            }
            if i % 16 == 0 { value.collectKinds(into: &kinds) }
        }
        // The generator really produces every kind the writer accepts.
        #expect(kinds.isSuperset(of: ["bool", "int", "uint", "real", "float", "date", "data", "string", "uid", "array", "dict", "utf16", "emptyArray", "emptyDict", "nan", "-0"]), "\(kinds.sorted())")
    }

    // MARK: Python cross-check

    /// Reads `N.bplist` with plistlib and writes `N.py.json` (plist-json); builds a value from
    /// our `N.json` and writes it with plistlib as `N.py.bplist`. Prints `ok` or the errors.
    static let pythonScript = #"""
    import base64, datetime, json, math, os, plistlib, sys
    from fractions import Fraction

    EPOCH = datetime.datetime(2001, 1, 1)

    def real(x):
        if math.isnan(x): return "nan"
        if math.isinf(x): return "inf" if x > 0 else "-inf"
        return x

    def to_pj(v):
        if isinstance(v, bool): return {"bool": v}
        if isinstance(v, int): return {"int": str(v)}
        if isinstance(v, float): return {"real": real(v)}
        if isinstance(v, str): return {"string": v}
        if isinstance(v, bytes): return {"data": base64.b64encode(v).decode("ascii")}
        if isinstance(v, plistlib.UID): return {"uid": v.data}
        if isinstance(v, datetime.datetime):
            # Exact: whole microseconds since 2001, divided with correct rounding.
            d = v - EPOCH
            us = (d.days * 86400 + d.seconds) * 1000000 + d.microseconds
            return {"date": real(us / 1000000)}
        if isinstance(v, list): return {"array": [to_pj(e) for e in v]}
        if isinstance(v, dict): return {"dict": {k: to_pj(e) for k, e in v.items()}}
        if v is None: return {"null": None}
        raise TypeError("unexpected %r" % type(v))

    def number(body):
        return float(body)  # also "nan", "inf", "-inf"

    def from_pj(j):
        (tag, body), = j.items()
        if tag == "bool": return body
        if tag == "int": return int(body)
        if tag == "real": return number(body)
        if tag == "string": return body
        if tag == "data": return base64.b64decode(body)
        if tag == "uid": return plistlib.UID(body)
        if tag == "date":
            return EPOCH + datetime.timedelta(microseconds=round(Fraction(number(body)) * 1000000))
        if tag == "array": return [from_pj(e) for e in body]
        if tag == "dict": return {k: from_pj(e) for k, e in body.items()}
        raise ValueError("unexpected tag " + tag)

    directory, count = sys.argv[1], int(sys.argv[2])
    errors = []
    for i in range(count):
        base = os.path.join(directory, str(i))
        try:
            with open(base + ".bplist", "rb") as f:
                value = plistlib.load(f, fmt=plistlib.FMT_BINARY)
            with open(base + ".py.json", "w", encoding="utf-8") as f:
                json.dump(to_pj(value), f, ensure_ascii=True)
        except Exception as e:
            errors.append("read %d: %r" % (i, e))
        try:
            with open(base + ".json", encoding="utf-8") as f:
                value = from_pj(json.load(f))
            with open(base + ".py.bplist", "wb") as f:
                f.write(plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False))
        except Exception as e:
            errors.append("write %d: %r" % (i, e))
    print("\n".join(errors) if errors else "ok")
    """#

    @Test("Python's plistlib reads 300 random values as we wrote them, and writes them so we read them back equal")
    func pythonAgreesOnRandomValues() throws {
        guard let python = Python.executable else {
            print("SKIPPED pythonAgreesOnRandomValues: python3 is not on PATH")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appending(path: "plist-crosscheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var options = RandomPlist.Options()
        options.pythonSafeDates = true
        var values: [(seed: UInt64, value: PlistValue)] = []
        for i in 0..<300 {
            let seed = Self.baseSeed &+ 0x1_0000_0000 &+ UInt64(i)
            var rng = SplitMix64(seed: seed)
            let value = RandomPlist.value(using: &rng, options: options)
            try Data(try BPlistWriter().write(value)).write(to: directory.appending(path: "\(i).bplist"))
            try Data(value.plistJSON.utf8).write(to: directory.appending(path: "\(i).json"))
            values.append((seed, value))
        }

        let output = try Python.run(python, script: Self.pythonScript, arguments: [directory.path, "300"])
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(output.prefix(2000))")

        for (i, (seed, value)) in values.enumerated() {
            do {
                // plistlib read our bytes: compare its plist-json with our value.
                let pyJSON = try Fixtures.text(at: directory.appending(path: "\(i).py.json"))
                let pyRead = try PlistValue(plistJSON: pyJSON)
                #expect(pyRead == value.canonicalNaNs, "seed \(seed): plistlib read \(pyJSON.prefix(300))")
                // plistlib wrote the value: we read it back. plistlib writes every real in 8 bytes, and
                // uniques 0.0 and -0.0 as one object (they are == in Python): compare modulo those.
                let pyBytes = try Fixtures.bytes(at: directory.appending(path: "\(i).py.bplist"))
                let ourRead = try BPlistReader().read(pyBytes)
                #expect(
                    ourRead.canonicalNaNs.unsignedZeros == value.canonicalNaNs.unsignedZeros,
                    "seed \(seed): read plistlib's bytes as \(ourRead.plistJSON.prefix(300))")
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }
}

extension PlistValue {
    /// Every `-0.0` real replaced by `0.0` (plistlib uniques the two into one object).
    fileprivate var unsignedZeros: PlistValue {
        mapScalars { if case .real(let v) = $0, v == 0 { .real(0) } else { $0 } }
    }

    /// Names of the kinds and edge cases present, to check the generator's coverage.
    fileprivate func collectKinds(into kinds: inout Set<String>) {
        switch self {
        case .null: kinds.insert("null")
        case .bool: kinds.insert("bool")
        case .int: kinds.insert("int")
        case .uint(let v): kinds.insert(v > UInt64(Int64.max) ? "uint" : "int")
        case .real(let v):
            kinds.insert("real")
            if v.isNaN { kinds.insert("nan") }
            if v == 0 && v.sign == .minus { kinds.insert("-0") }
        case .float: kinds.insert("float")
        case .date: kinds.insert("date")
        case .data: kinds.insert("data")
        case .string(let s): kinds.insert(s.utf8.contains { $0 >= 0x80 } ? "utf16" : "string")
        case .uid: kinds.insert("uid")
        case .array(let a):
            kinds.insert(a.isEmpty ? "emptyArray" : "array")
            for e in a { e.collectKinds(into: &kinds) }
        case .set(let a):
            kinds.insert("set")
            for e in a { e.collectKinds(into: &kinds) }
        case .dict(let d):
            kinds.insert(d.isEmpty ? "emptyDict" : "dict")
            for k in d.keys { PlistValue.string(k).collectKinds(into: &kinds) }
            for v in d.values { v.collectKinds(into: &kinds) }
        }
    }
}
