// Writes XML property lists with this platform's Foundation, for Fixtures/xml (see
// Scripts/make-xml-fixtures.sh): `PropertyListSerialization` for every kind of value, and
// `NSKeyedArchiver` with `outputFormat = .xml` for a small object graph.
import Foundation

let folder = URL(fileURLWithPath: CommandLine.arguments[1])
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

let values: [String: Any] = [
    "string": "plain",
    "escaped": "<a href=\"x\">Fish & Chips</a> 'quoted'",
    "unicode": "Mässig, Maß — 日本語 😀",
    "empty string": "",
    "integers": [0, 1, -1, 255, 65536, Int64.max, Int64.min, -80_000_000_000] as [Any],
    "above Int64.max": UInt64.max,
    "reals": [0.5, 0.1, 60.0, -2.25, 1e300, Double.leastNonzeroMagnitude, Double.nan, Double.infinity, -Double.infinity, 123456789012345680.0],
    "dates": [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 120_479_613),
              Date(timeIntervalSinceReferenceDate: -978_307_200)],
    "data": Data((0..<200).map { UInt8($0 % 251) }),
    "empty data": Data(),
    "booleans": [true, false],
    "empty array": [Any](),
    "empty dict": [String: Any](),
    "nested": ["level": ["deeper": ["deepest": [Data([1, 2, 3]), "end"]]]],
]
let xml = try PropertyListSerialization.data(fromPropertyList: values, format: .xml, options: 0)
try xml.write(to: folder.appendingPathComponent("foundation-values.plist"))

final class Note: NSObject, NSCoding {
    let title: String
    let stars: Int
    var next: Note?
    init(title: String, stars: Int) { self.title = title; self.stars = stars }
    func encode(with coder: NSCoder) {
        coder.encode(title, forKey: "title")
        coder.encode(stars, forKey: "stars")
        coder.encode(next, forKey: "next")
    }
    init?(coder: NSCoder) { nil }
}
let first = Note(title: "first", stars: 3)
let second = Note(title: "second & <last>", stars: 5)
first.next = second
let archiver = NSKeyedArchiver(requiringSecureCoding: false)
archiver.outputFormat = .xml
archiver.encode(first, forKey: "root")
archiver.encode(["a", "b", "a"] as NSArray, forKey: "letters")
archiver.encode(["count": 2, "name": "notes"] as NSDictionary, forKey: "info")
archiver.finishEncoding()
try archiver.encodedData.write(to: folder.appendingPathComponent("foundation-keyed-archive.plist"))
