import ArchiveStore
import Foundation
import KeyedArchive
import Testing

@Suite("ArchiveStore damaged and foreign files")
struct DamagedFileTests {
    enum Damage: String, CaseIterable, Sendable {
        case garbage, empty, truncated, flippedBytes, notAKeyedArchive, noRoot, anotherKeysFile, wrongMetadata
    }

    /// The code each damage is reported with (the others depend on which byte the reader meets first).
    static let expectedCode: [Damage: ArchiveError.Code] = [
        .garbage: .notPropertyList, .empty: .notPropertyList, .notAKeyedArchive: .invalidArchive,
        .noRoot: .invalidArchive, .anotherKeysFile: .invalidArchive, .wrongMetadata: .invalidArchive,
    ]

    /// The bytes to put under key "k" for `damage`.
    static func content(_ damage: Damage, store: ArchiveStore, fixture: borrowing StoreFixture) throws -> Data {
        try store.save(Array(0..<50), forKey: "k")
        let good = try Data(contentsOf: fixture.file(forKey: "k"))
        switch damage {
        case .garbage: return Data("definitely not an archive".utf8)
        case .empty: return Data()
        case .truncated: return good.prefix(good.count / 2)
        case .flippedBytes:
            var bytes = good
            for index in stride(from: 8, to: bytes.count, by: 7) { bytes[index] ^= 0xA5 }
            return bytes
        case .notAKeyedArchive:
            // A valid binary property list holding the string "a": not a keyed archive.
            return Data(
                [0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0x51, 0x61, 0x08] + [UInt8](repeating: 0, count: 6)
                    + [1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 10])
        case .noRoot:
            let archiver = KeyedArchiver()
            try archiver.encode(1, forKey: "other")
            return try archiver.encodedData
        case .anotherKeysFile:
            try store.save("other", forKey: "other")
            return try Data(contentsOf: fixture.file(forKey: "other"))
        case .wrongMetadata:
            let archiver = KeyedArchiver()
            try archiver.encode(1, forKey: "root")
            try archiver.encode(1, forKey: "key")
            return try archiver.encodedData
        }
    }

    @Test(arguments: Damage.allCases)
    func damagedFileMakesLoadThrowAndIsLeftInPlace(damage: Damage) throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let file = fixture.file(forKey: "k")
        let bytes = try Self.content(damage, store: store, fixture: fixture)
        try bytes.write(to: file)

        let error = expectArchiveError { _ = try store.load([Int].self, forKey: "k") }
        if let expected = Self.expectedCode[damage] {
            #expect(error?.code == expected, "\(String(describing: error))")
        }
        #expect(error?.reason.contains(file.path) == true, "\(String(describing: error))")
        #expect(error?.reason.contains("left in place") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: file) == bytes)
        #expect(store.contains("k"))
        #expect(store.keys.contains("k"))
        #expect(store.integer(forKey: "k") == 0)
        #expect(store.data(forKey: "k") == nil)
        try store.removeExpired()
        #expect(try Data(contentsOf: file) == bytes)
        // Saving replaces it; remove deletes it.
        try store.save([7], forKey: "k")
        #expect(try store.load([Int].self, forKey: "k") == [7])
        try bytes.write(to: file)
        try store.remove(forKey: "k")
        #expect(try store.load([Int].self, forKey: "k") == nil)
        try bytes.write(to: file)
        try store.removeAll()
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func aDirectoryUnderAKeysNameThrowsIO() throws {
        let fixture = try StoreFixture()
        try FileManager.default.createDirectory(at: fixture.file(forKey: "k"), withIntermediateDirectories: true)
        expectArchiveError(.io) { _ = try fixture.store.load(Int.self, forKey: "k") }
        #expect(fixture.store.integer(forKey: "k") == 0)
        #expect(!fixture.store.contains("k"))
        #expect(fixture.store.keys.isEmpty)
    }

    @Test func aPlainKeyedArchiveCopiedUnderAKeysNameLoads() throws {
        let fixture = try StoreFixture()
        try KeyedArchiver.archivedData(withRootObject: [1, 2]).write(to: fixture.file(forKey: "imported"))
        #expect(try fixture.store.load([Int].self, forKey: "imported") == [1, 2])
        #expect(fixture.store.keys == ["imported"])
        // Under a hashed name it cannot be told apart from another long key's file.
        let long = String(repeating: "L", count: 300)
        try KeyedArchiver.archivedData(withRootObject: [1, 2]).write(to: fixture.file(forKey: long))
        expectArchiveError(.invalidArchive) { _ = try fixture.store.load([Int].self, forKey: long) }
        #expect(fixture.store.keys == ["imported"])
    }
}
