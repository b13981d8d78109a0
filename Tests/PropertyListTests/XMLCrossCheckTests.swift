import Foundation
import PropertyList
import TestSupport
import Testing

/// Python's `plistlib` and Foundation's `PropertyListSerialization` read our XML as we wrote it,
/// and we read `plistlib`'s XML as it wrote it: seeded random values of every kind, deep and wide.
@Suite("XML cross-checks")
struct XMLCrossCheckTests {
    static let baseSeed: UInt64 = 0x0C50_55C4_EC00_0000

    /// Reads `N.xml` (ours) with plistlib and writes `N.py.json`; builds a value from our `N.json`
    /// (UIDs as CF$UID dictionaries, which plistlib's XML writer cannot write as UIDs) and writes it
    /// as `N.py.xml`. Prints `ok` or the errors.
    static let pythonScript = #"""
    import base64, datetime, json, math, os, plistlib, sys

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
        if isinstance(v, datetime.datetime):
            d = v - EPOCH
            return {"date": float(d.days * 86400 + d.seconds)}
        if isinstance(v, list): return {"array": [to_pj(e) for e in v]}
        if isinstance(v, dict): return {"dict": {k: to_pj(e) for k, e in v.items()}}
        raise TypeError("unexpected %r" % type(v))

    def from_pj(j):
        (tag, body), = j.items()
        if tag == "bool": return body
        if tag == "int": return int(body)
        if tag == "real": return float(body)
        if tag == "string": return body
        if tag == "data": return base64.b64decode(body)
        if tag == "date": return EPOCH + datetime.timedelta(seconds=int(float(body)))
        if tag == "uid": return {"CF$UID": body}
        if tag == "array": return [from_pj(e) for e in body]
        if tag == "dict": return {k: from_pj(e) for k, e in body.items()}
        raise ValueError("unexpected tag " + tag)

    directory, count = sys.argv[1], int(sys.argv[2])
    errors = []
    for i in range(count):
        base = os.path.join(directory, str(i))
        try:
            with open(base + ".xml", "rb") as f:
                value = plistlib.load(f, fmt=plistlib.FMT_XML)
            with open(base + ".py.json", "w", encoding="utf-8") as f:
                json.dump(to_pj(value), f, ensure_ascii=True)
        except Exception as e:
            errors.append("read %d: %r" % (i, e))
        try:
            with open(base + ".json", encoding="utf-8") as f:
                value = from_pj(json.load(f))
            with open(base + ".py.xml", "wb") as f:
                f.write(plistlib.dumps(value, fmt=plistlib.FMT_XML, sort_keys=(i % 2 == 0)))
        except Exception as e:
            errors.append("write %d: %r" % (i, e))
    print("\n".join(errors) if errors else "ok")
    """#

    /// Random values as any XML reader keeps them: XML's kinds, XML 1.0 text, whole-second dates.
    static func values(count: Int, seedOffset: UInt64) -> [(seed: UInt64, value: PlistValue)] {
        var options = RandomPlist.Options()
        options.pythonSafeDates = true
        return (0..<count).map { i in
            let seed = baseSeed &+ seedOffset &+ UInt64(i)
            var rng = SplitMix64(seed: seed)
            var value = RandomPlist.value(using: &rng, options: options).xmlRepresentable.xml10Text
            if i % 30 == 0 {
                // Deep and wide: a 200-element array of random values, nested 100 deep.
                value = .array((0..<200).map { _ in RandomPlist.value(using: &rng, options: options).xmlRepresentable.xml10Text })
                for _ in 0..<100 { value = ["level": value] }
            }
            return (seed, value)
        }
    }

    @Test("plistlib reads 300 random values as we wrote them in XML, and writes XML we read back equal")
    func plistlibAgrees() throws {
        guard let python = Python.executable else {
            print("SKIPPED plistlibAgrees: python3 is not on PATH")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appending(path: "xml-crosscheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let values = Self.values(count: 300, seedOffset: 0)
        for (i, (_, value)) in values.enumerated() {
            try Data(try XMLPlistWriter().write(value)).write(to: directory.appending(path: "\(i).xml"))
            try Data(value.plistJSON.utf8).write(to: directory.appending(path: "\(i).json"))
        }
        let output = try Python.run(python, script: Self.pythonScript, arguments: [directory.path, "\(values.count)"])
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(output.prefix(2000))")
        for (i, (seed, value)) in values.enumerated() {
            do {
                let pyRead = try PlistValue(plistJSON: try Fixtures.text(at: directory.appending(path: "\(i).py.json")))
                #expect(pyRead == value.uidsAsDictionaries, "seed \(seed): plistlib read \(pyRead.plistJSON.prefix(300))")
                let ourRead = try XMLPlistReader().read(try Fixtures.bytes(at: directory.appending(path: "\(i).py.xml")))
                #expect(ourRead == value, "seed \(seed): read plistlib's XML as \(ourRead.plistJSON.prefix(300))")
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }

    @Test("PropertyListSerialization reads 300 random values as we wrote them in XML")
    func foundationAgrees() throws {
        var compared = 0
        // Foundation's dictionaries merge keys that are canonically equal ("é", "e\u{301}"): skip those values.
        for (seed, value) in Self.values(count: 400, seedOffset: 1 << 32) where compared < 300 && !value.hasCanonicallyEqualKeys {
            compared += 1
            let bytes = try XMLPlistWriter().write(value)
            let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
            let mismatch = value.foundationMismatch(object)
            #expect(mismatch == nil, "seed \(seed): \(mismatch ?? "")")
            if mismatch != nil { break }
        }
        #expect(compared == 300)
    }
}
