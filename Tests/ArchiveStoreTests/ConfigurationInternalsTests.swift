import ArchiveStore
import Foundation
import KeyedArchive
import Testing

@Suite("ArchiveStore configuration")
struct ConfigurationInternalsTests {
    @Test func aFileBeyondTheSizeLimitCountsAsDamaged() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.save(String(repeating: "x", count: 500), forKey: "big")
        try store.save(1, forKey: "gone", expiresAfter: .seconds(-1))
        store.register(defaults: ["big": "registered"])
        store.unarchiverOptions.maximumArchiveSize = 200

        let error = expectArchiveError(.sizeLimit) { _ = try store.load(String.self, forKey: "big") }
        #expect(error?.reason.contains(fixture.file(forKey: "big").path) == true, "\(String(describing: error))")
        #expect(error?.reason.contains("left in place") == true)
        #expect(store.contains("big"))
        #expect(store.keys == ["big"])
        #expect(store.string(forKey: "big") == "registered")  // no readable value
        try store.removeExpired()
        #expect(FileManager.default.fileExists(atPath: fixture.file(forKey: "big").path))
        #expect(!FileManager.default.fileExists(atPath: fixture.file(forKey: "gone").path))

        store.unarchiverOptions = KeyedUnarchiver.Options()
        #expect(try store.load(String.self, forKey: "big")?.count == 500)
    }

    @Test func limitsBelowTheFilesOwnSizeApplyToItsValue() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(String(repeating: "y", count: 300), forKey: "text")
        fixture.store.unarchiverOptions.maximumStringLength = 100
        expectArchiveError(.sizeLimit) { _ = try fixture.store.load(String.self, forKey: "text") }
        #expect(fixture.store.string(forKey: "text") == nil)
    }

    @Test func threadsConfigureAndReadAtOnce() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.save([1, 2, 3], forKey: "numbers")
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            let namespace = store.namespace("thread \(thread % 2)")
            for step in 0..<200 {
                switch (thread + step) % 5 {
                case 0: namespace.register(Int.self, String.self)
                case 1: namespace.setClass(Int.self, forClassName: "Number\(step % 3)")
                case 2:
                    var options = namespace.unarchiverOptions
                    options.maximumDepth = 100 + step % 2
                    namespace.unarchiverOptions = options
                case 3: namespace.register(defaults: ["default \(step % 4)": step])
                default:
                    #expect((try? store.load([Int].self, forKey: "numbers")) == [1, 2, 3])
                    _ = namespace.integer(forKey: "default \(step % 4)")
                }
            }
        }
        #expect(store.unarchiverOptions.maximumDepth >= 100)
        #expect(try store.load([Int].self, forKey: "numbers") == [1, 2, 3])
        #expect((0..<4).allSatisfy { store.namespace("any").integer(forKey: "default \($0)") > 0 })
    }
}
