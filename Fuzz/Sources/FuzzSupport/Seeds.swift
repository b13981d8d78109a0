import Foundation
import KeyedArchive
import PropertyList

/// Writes archives of the zoo into `directory` (for the corpus), when `FUZZ_WRITE_SEEDS` names one.
public enum Seeds {
    public static func writeIfAsked() {
        guard let directory = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] else { return }
        do {
            try write(to: URL(fileURLWithPath: directory))
        } catch {
            fuzzFail("writing seeds failed: \(error)")
        }
        exit(0)
    }

    /// Fills the directory `FUZZ_WRITE_SEEDS` names with the XML property lists among the files of
    /// the directory `FUZZ_XML_SEEDS_FROM` (those `PlistFormat` takes for XML, copied as they are)
    /// and the XML form of the others that `BPlistReader` reads and `XMLPlistWriter` writes (as
    /// `xml-of-NAME.plist`); then exits. Does nothing unless both are set.
    public static func writeXMLIfAsked() {
        let environment = ProcessInfo.processInfo.environment
        guard let source = environment["FUZZ_XML_SEEDS_FROM"], let directory = environment["FUZZ_WRITE_SEEDS"] else { return }
        do {
            let (copied, converted, skipped) = try writeXML(from: URL(fileURLWithPath: source), to: URL(fileURLWithPath: directory))
            print("XML seeds: \(copied) copied, \(converted) converted from bplist00, \(skipped) skipped")
        } catch {
            fuzzFail("writing XML seeds failed: \(error)")
        }
        exit(0)
    }

    static func writeXML(from source: URL, to directory: URL) throws -> (copied: Int, converted: Int, skipped: Int) {
        let files = FileManager.default
        try files.createDirectory(at: directory, withIntermediateDirectories: true)
        var (copied, converted, skipped) = (0, 0, 0)
        for name in try files.contentsOfDirectory(atPath: source.path).sorted() {
            let data = try Data(contentsOf: source.appendingPathComponent(name))
            if PlistFormat(of: data) == .xml {
                try data.write(to: directory.appendingPathComponent(name))
                copied += 1
            } else if let value = try? BPlistReader().read(data), let xml = try? XMLPlistWriter().write(value) {
                try Data(xml).write(to: directory.appendingPathComponent("xml-of-\(name).plist"))
                converted += 1
            } else {
                skipped += 1  // not a binary property list, or one holding what XML cannot (null, sets, large UIDs)
            }
        }
        return (copied, converted, skipped)
    }

    public static func sampleRoot() -> FuzzRoot {
        var root = FuzzRoot()
        root.title = "zoo ü 🐕"
        root.count = -42
        root.small = -8
        root.big = .max
        root.ratio = -0.5
        root.single = 1.25
        root.flag = true
        root.maybe = 7
        root.data = Data([0, 1, 2, 0xFF])
        root.date = Date(timeIntervalSinceReferenceDate: 123_456.5)
        root.url = URL(string: "sub/page.html?x=1", relativeTo: URL(string: "https://example.com/dir/")!)
        root.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        root.address = FuzzAddress(street: "Main", zip: 8000, unit: 3)
        root.addresses = [FuzzAddress(street: "A", zip: 1), FuzzAddress()]
        root.lookup = ["one": 1, "$two": 2, "": 0]
        root.byNumber = [-1: "minus", 5: "five"]
        root.numbers = [3, 1, .min]
        root.nested = [[], ["a", "b"]]
        root.optionals = [1, nil, 3]
        root.color = .blue
        root.colors = [.red, .green]
        root.shape = .rect(width: 3, height: 4)
        root.shapes = [.circle(radius: 1.5), .named("n", tags: ["t"]), .group([.empty, .circle(radius: 0)])]
        root.point = FuzzPoint(x: 1, y: -1)
        let dog = FuzzDog()
        dog.name = "Rex"
        dog.breed = "collie"
        dog.toys = ["ball"]
        root.pet = dog
        root.pets = [dog, FuzzAnimal()]
        root.maybePet = dog
        let parent = FuzzNode()
        parent.name = "parent"
        let child = FuzzNode()
        child.name = "child"
        child.parent = parent
        child.next = parent
        child.tags = ["x", "y"]
        parent.children = [child, child]
        root.tree = parent
        root.extra = ["n": 1, "s": "str", "list": [1, "two", 3.5] as [Any], "node": parent, "null": NSNull()]
        return root
    }

    static func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func save(_ name: String, _ data: Data) throws {
            try data.write(to: directory.appendingPathComponent("seed-\(name).archive"))
        }
        let root = sampleRoot()
        try save("root", try Zoo.archive(root))
        try save("root-empty", try Zoo.archive(FuzzRoot()))
        try save("animals", try Zoo.archive(root.pets))
        try save("animal-dog", try Zoo.archive(root.pet))
        try save("node-cycle", try Zoo.archive(root.tree!))
        try save("shapes", try Zoo.archive(root.shapes))
        try save("shape", try Zoo.archive(FuzzShape.named("a", tags: [])))
        try save("address", try Zoo.archive(root.address))
        try save("any-dict", try Zoo.archive(root.extra))
        try save("any-mixed", try Zoo.archive(["a", 1, 2.5, true, Data([1]), Date(timeIntervalSinceReferenceDate: 5), ["k": [1]]] as [Any]))
        try save("any-set", try Zoo.archive(Set<AnyHashable>([1, "a"])))
        try save("string-set", try Zoo.archive(Set(["x", "y"])))
        let archiver = KeyedArchiver()
        try archiver.encode(root.tree!, forKey: "tree")
        try archiver.encode(root.address, forKey: "address")
        try archiver.encode(root.pets, forKey: "pets")
        try archiver.encode(root, forKey: "root")
        try save("multi-top", archiver.encodedData)
        try save("multi-top-xml", Data(try PlistReader().read(archiver.encodedData).bytes(format: .xml)))
        Zoo.unlink(root)
        try writeVersioned(save)
        try writeValueClasses(save)
    }

    /// Archives of Foundation's value classes: each value as this library archives it and, for
    /// the classes Foundation's own `NSKeyedArchiver` takes, as that writes it; all of them in one
    /// `[String: Any]` (decoded through `Any`) and under keys of their own, in binary and in XML.
    /// Attributed strings have seeds of their own, written when the archiver takes them: the
    /// other seeds do not depend on how NSAttributedString is archived.
    static func writeValueClasses(_ save: (String, Data) throws -> Void) throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.locale = Locale(identifier: "ja_JP")
        calendar.timeZone = TimeZone(identifier: "Asia/Tokyo")!
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        let styled = NSMutableAttributedString(string: "héllo wörld")
        styled.addAttribute(NSAttributedString.Key("bold"), value: true, range: NSRange(location: 1, length: 3))
        styled.addAttribute(NSAttributedString.Key("size"), value: 12, range: NSRange(location: 6, length: 5))
        let plain = NSAttributedString(string: "plain", attributes: [NSAttributedString.Key("font"): "Times"])
        let counted = NSCountedSet(array: [1, 1, 2, "a", "a", "a"])
        let note = Notification(name: Notification.Name("didSave"), object: "store", userInfo: ["count": 3, "ids": IndexSet([1, 5])])

        // (name, ours, Foundation's object for its NSKeyedArchiver)
        let values: [(String, () throws -> Data, NSObject?)] = [
            ("indexset-ranges", { try Zoo.archive(IndexSet([1, 2, 300, 301, 302, 5000])) }, NSIndexSet(indexSet: IndexSet([1, 2, 300, 301, 302, 5000]))),
            ("indexset-one-range", { try Zoo.archive(IndexSet(integersIn: 3..<7)) }, NSIndexSet(indexesIn: NSRange(location: 3, length: 4))),
            ("indexset-empty", { try Zoo.archive(IndexSet()) }, NSIndexSet()),
            ("indexpath", { try Zoo.archive(IndexPath(indexes: [4, 8, 300, 1 << 40])) }, IndexPath(indexes: [4, 8, 300, 1 << 40]) as NSIndexPath),
            ("indexpath-one", { try Zoo.archive(IndexPath(index: 7)) }, IndexPath(index: 7) as NSIndexPath),
            ("locale", { try Zoo.archive(Locale(identifier: "fr_CA")) }, NSLocale(localeIdentifier: "fr_CA")),
            ("timezone", { try Zoo.archive(TimeZone(identifier: "Europe/Paris")!) }, NSTimeZone(name: "Europe/Paris")),
            ("timezone-offset", { try Zoo.archive(TimeZone(secondsFromGMT: 3600)!) }, NSTimeZone(forSecondsFromGMT: 3600)),
            ("calendar", { try Zoo.archive(calendar) }, calendar as NSCalendar),
            ("calendar-iso8601", { try Zoo.archive(Calendar(identifier: .iso8601)) }, Calendar(identifier: .iso8601) as NSCalendar),
            ("measurement-length", { try Zoo.archive(Measurement(value: 1.5, unit: UnitLength.kilometers)) }, NSMeasurement(doubleValue: 1.5, unit: UnitLength.kilometers)),
            ("measurement-temperature", { try Zoo.archive(Measurement(value: -4, unit: UnitTemperature.fahrenheit)) }, NSMeasurement(doubleValue: -4, unit: UnitTemperature.fahrenheit)),
            ("measurement-fuel", { try Zoo.archive(Measurement(value: 30, unit: UnitFuelEfficiency.milesPerGallon)) }, NSMeasurement(doubleValue: 30, unit: UnitFuelEfficiency.milesPerGallon)),
            ("measurement-unit", { try Zoo.archive(Measurement(value: 2, unit: Unit(symbol: "pcs"))) }, nil),
            ("nsrange", { try Zoo.archive(NSRange(location: 3, length: 4)) }, NSValue(range: NSRange(location: 3, length: 4))),
            ("int-range", { try Zoo.archive(2..<9) }, nil),
            ("rect", { try Zoo.archive(CGRect(x: 1, y: 2.5, width: 3, height: 4)) }, NSValue(rect: CGRect(x: 1, y: 2.5, width: 3, height: 4))),
            ("point", { try Zoo.archive(CGPoint(x: -1, y: 0.25)) }, NSValue(point: CGPoint(x: -1, y: 0.25))),
            ("size", { try Zoo.archive(CGSize(width: 640, height: 480)) }, NSValue(size: CGSize(width: 640, height: 480))),
            ("counted-set", { try Zoo.archive(counted) }, counted),
            ("notification", { try Zoo.archive(note) }, NSNotification(name: note.name, object: note.object, userInfo: note.userInfo)),
        ]
        for (name, ours, object) in values {
            try save("value-\(name)", try ours())
            if let object, let theirs = try? NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false) {
                try save("foundation-\(name)", theirs)
            }
        }
        let texts: [(String, NSAttributedString)] = [("attributed-string", styled), ("attributed-string-plain", plain)]
        for (name, text) in texts {
            if let ours = try? Zoo.archive(text) { try save("value-\(name)", ours) }
            if let anyText = try? Zoo.archive(["text": text, "note": note] as [String: Any]) { try save("values-any-\(name)", anyText) }
            if let theirs = try? NSKeyedArchiver.archivedData(withRootObject: text, requiringSecureCoding: false) {
                try save("foundation-\(name)", theirs)
            }
        }

        let all: [String: Any] = [
            "indexSet": IndexSet([1, 2, 300]), "indexPath": IndexPath(indexes: [1, 2]), "locale": Locale(identifier: "de_CH"),
            "timeZone": TimeZone(identifier: "America/New_York")!, "calendar": calendar,
            "length": Measurement(value: 3, unit: UnitLength.meters), "range": NSRange(location: 0, length: 2),
            "rect": CGRect(x: 0, y: 0, width: 1, height: 1), "counted": counted, "note": note,
        ]
        try save("values-any", try Zoo.archive(all))
        let archiver = KeyedArchiver()
        try archiver.encode(IndexSet([1, 2, 300]), forKey: "indexSet")
        try archiver.encode(IndexPath(indexes: [1, 2]), forKey: "indexPath")
        try archiver.encode(NSRange(location: 5, length: 1), forKey: "range")
        try archiver.encode(3..<5, forKey: "intRange")
        try archiver.encode(CGRect(x: 0, y: 0, width: 1, height: 1), forKey: "rect")
        try archiver.encode(TimeZone(identifier: "UTC")!, forKey: "timeZone")
        try archiver.encode(calendar, forKey: "calendar")
        try archiver.encode(Locale(identifier: "en_US"), forKey: "locale")
        try archiver.encode(Measurement(value: 3, unit: UnitLength.meters), forKey: "length")
        try archiver.encode(note, forKey: "note")
        try archiver.encode(counted, forKey: "counted")
        let multi = try archiver.encodedData
        try save("values-multi-top", multi)
        // The same keys in XML, which lists them sorted.
        try save("values-multi-top-xml", Data(try PlistReader().read(multi).bytes(format: .xml)))
    }

    /// Archives of earlier (and later) versions of the versioned models, so that decoding starts on the migration path.
    static func writeVersioned(_ save: (String, Data) throws -> Void) throws {
        let v0 = FuzzOldItemV0(label: "widget", qty: 3, codes: [1, 2, 255], legacy: "gone", comment: "hello", steps: [9])
        try save("item-v0", try Zoo.archive(v0))
        try save("items-v0", try Zoo.archive([v0, FuzzOldItemV0(), v0]))

        // A box holding a node cycle, read by the item's migration as its old type and set for the new one.
        let parent = FuzzNode()
        parent.name = "boxed"
        let child = FuzzNode()
        child.name = "child"
        child.parent = parent
        child.next = parent
        parent.children = [child]
        let box = FuzzOldBox(label: "crate", node: parent)
        var v1 = FuzzOldItemV1()
        v1.title = "gizmo"
        v1.amount = -7
        v1.codes = [0, 128]
        v1.ratio = 0.25
        v1.where = FuzzAddress(street: "Old Road", zip: 99, unit: 1)
        v1.oldBox = box
        v1.point = FuzzOldPoint(x: 3, y: 4, tag: 12)
        v1.remark = "from v1"
        v1.steps = [0]
        try save("item-v1", try Zoo.archive(v1))
        try save("box-old", try Zoo.archive(box))

        var today = FuzzItem()
        today.title = "now"
        today.amount = .min
        today.codes = [7]
        today.box.name = "b"
        today.point = FuzzPointV(h: 1, vertical: 2, label: "l")
        today.note = "n"
        try save("item-v2", try Zoo.archive(today))
        try save("item-v5", try Zoo.archive(FuzzNewItem(title: "future", amount: 5, colour: "blue", steps: [1, 2, 3, 4])))

        // Folder trees: weak parents, read back by the children's migrations.
        let root0 = FuzzOldFolderV0()
        root0.title = "/"
        root0.count = 2
        for name in ["a", "b"] {
            let folder = FuzzOldFolderV0()
            folder.title = name
            folder.count = 1
            folder.parent = root0
            let leaf = FuzzOldFolderV0()
            leaf.title = name + "/leaf"
            leaf.parent = folder
            folder.children = [leaf]
            root0.children.append(folder)
        }
        root0.children.append(root0.children[0])  // shared
        try save("folder-v0", try Zoo.archive(root0))

        let root1 = FuzzOldFolderV1()
        root1.name = "home"
        root1.size = 1 << 40
        root1.item = v0
        let vehicle = FuzzOldVehicle()
        vehicle.wheelCount = 2
        vehicle.maker = "bike"
        let car = FuzzOldCar()
        car.wheelCount = 4
        car.seats = 5
        car.plate = "ZH 1"
        root1.vehicles = [vehicle, car, car]
        let sub = FuzzOldFolderV1()
        sub.name = "sub"
        sub.parent = root1
        sub.link = parent
        root1.children = [sub]
        root1.link = child
        try save("folder-v1", try Zoo.archive(root1))
        try save("vehicles-old", try Zoo.archive(root1.vehicles))

        try save("account-old", try Zoo.archive(FuzzOldAccount(userName: "ada", balance: 3, mail: "a@b")))
        try save("points-old", try Zoo.archive([FuzzOldPoint(x: 1, y: 2, tag: 3), FuzzOldPoint(x: -1, y: 0, tag: 0)]))

        var encoder = KeyedArchiveEncoder()
        encoder.setClassName(String(reflecting: FuzzPrefs.self), for: FuzzOldPrefsV0.self)
        encoder.setClassName(String(reflecting: FuzzPrefs.self), for: FuzzOldPrefsV1.self)
        try save("prefs-v0", try encoder.encode(FuzzOldPrefsV0(volume: 7, theme: "dark", tag: "a,b", levels: [1, -2])))
        try save(
            "prefs-v1",
            try encoder.encode(FuzzOldPrefsV1(volume: 0.5, scheme: "light", tags: ["t"], frame: [10, 20], levels: [3])))
        try save(
            "prefs-v3",
            try KeyedArchiveEncoder().encode(
                FuzzPrefs(volume: 1, scheme: "s", muted: nil, tags: [], window: FuzzWindow(x: 1, y: 2), levels: [.max])))

        let archiver = KeyedArchiver()
        try archiver.encode(v0, forKey: "item")
        try archiver.encode(FuzzOldAccount(userName: "u", balance: 1), forKey: "account")
        try archiver.encode([FuzzOldPoint(x: 5, y: 6, tag: 7)], forKey: "points")
        try archiver.encode(root0, forKey: "folder")
        try save("versioned-multi-top", archiver.encodedData)
        root1.children = []
        root0.children = []
        parent.children = []
        child.next = nil
    }
}
