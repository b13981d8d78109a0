import Foundation
import KeyedArchive

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
        Zoo.unlink(root)
    }
}
