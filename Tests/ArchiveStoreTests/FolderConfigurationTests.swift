import ArchiveStore
import Foundation
import KeyedArchive
import Testing

/// Limits, durability and permissions belong to the store's folder: every instance and every
/// process that opens it without passing them applies the ones it keeps.
@Suite("ArchiveStore configuration kept by the folder")
struct FolderConfigurationTests {
    @Test func aSecondInstanceOpenedWithoutLimitsEvictsToTheFoldersLimits() throws {
        let fixture = try StoreFixture()
        let limited = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 3), durability: .buffered)
        let plain = try ArchiveStore(directory: fixture.directory)
        #expect(plain.limits == .init(maximumCount: 3))
        #expect(plain.durability == .buffered)
        for key in ["a", "b", "c", "d", "e", "f"] { try plain.set(1, forKey: key) }
        #expect(plain.keys == ["d", "e", "f"])
        #expect(limited.count == 3)
    }

    #if os(macOS) || os(Linux)
    @Test func aChildProcessOpeningTheFolderWithoutLimitsEvictsToThem() throws {
        let fixture = try StoreFixture()
        _ = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 3))
        for key in ["a", "b", "c", "d", "e", "f"] {
            let result = try CrashChild.run(["save", fixture.directory.path, key, "4", "--print-count"])
            #expect(result.output.hasPrefix("saved\ncount "), "\(result.output) \(result.error)")
            #expect(Int(result.output.split(separator: " ").last?.dropLast() ?? "") ?? 0 <= 3, "\(result.output)")
        }
        let reopened = try ArchiveStore(directory: fixture.directory)
        #expect(reopened.keys == ["d", "e", "f"])
    }

    /// An opener that passes limits changes them for the instances already open, in this process
    /// (at once) and in others (from their next save: here a child process's save).
    @Test func anOpenerThatPassesLimitsChangesThemForEveryone() throws {
        let fixture = try StoreFixture()
        let first = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 5))
        for key in ["a", "b", "c", "d", "e"] { try first.set(1, forKey: key) }
        let result = try CrashChild.run(["save", fixture.directory.path, "f", "1", "--maximum-bytes", "100000", "--print-count"])
        #expect(result.output == "saved\ncount 6\n", "\(result.output) \(result.error)")
        // The child's limits (bytes only, no count) are the folder's now: this process follows
        // them at its next save.
        try first.set(1, forKey: "g")
        #expect(first.limits == .init(maximumBytes: 100_000))
        #expect(first.count == 7)
    }
    #endif

    @Test func aFolderKeepsItsSettingsAcrossLaunchesAndANewOpenerKeepsTheDefaultsImplicit() throws {
        let fixture = try StoreFixture()
        // The defaults (no limits, owner only, .full) are kept without a file.
        try fixture.store.set(1, forKey: "a")
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.appending(path: ".configuration").path))
        do {
            let cache = try ArchiveStore(
                directory: fixture.directory, limits: .init(maximumBytes: 1 << 20, maximumAge: .seconds(90)),
                permissions: .group, durability: .buffered)
            #expect(cache.count == 1)
        }
        #expect(FileManager.default.fileExists(atPath: fixture.directory.appending(path: ".configuration").path))
        let later = try ArchiveStore(directory: fixture.directory)
        #expect(later.limits == .init(maximumBytes: 1 << 20, maximumAge: .seconds(90)))
        #expect(later.permissions == .group)
        #expect(later.durability == .buffered)
        // Back to the defaults, given explicitly.
        let reset = try ArchiveStore(directory: fixture.directory, limits: .unlimited, permissions: .ownerOnly, durability: .full)
        #expect(reset.limits == .unlimited)
        #expect(try ArchiveStore(directory: fixture.directory).durability == .full)
    }

    @Test func aDamagedConfigurationFileCountsAsNone() throws {
        let fixture = try StoreFixture()
        _ = try ArchiveStore(directory: fixture.directory, limits: .init(maximumCount: 2))
        try Data("not a keyed archive".utf8).write(to: fixture.directory.appending(path: ".configuration"))
        let reopened = try ArchiveStore(directory: fixture.directory)
        #expect(reopened.limits == .unlimited)
        for key in ["a", "b", "c"] { try reopened.set(1, forKey: key) }
        #expect(reopened.count == 3)
    }

    @Test func instancesInOneProcessShareRegistrationsAndDefaults() throws {
        let fixture = try StoreFixture()
        let one = try ArchiveStore(directory: fixture.directory)
        let other = try ArchiveStore(directory: fixture.directory)
        one.register(FolderDerived.self)
        one.register(defaults: ["theme": "dark"])
        one.unarchiverOptions.maximumDepth = 77
        let holder = FolderHolder()
        let derived = FolderDerived()
        derived.extra = 5
        holder.item = derived
        try one.save(holder, forKey: "holder")
        #expect((try other.load(FolderHolder.self, forKey: "holder")?.item as? FolderDerived)?.extra == 5)
        #expect(other.string(forKey: "theme") == "dark")
        #expect(other.unarchiverOptions.maximumDepth == 77)
        // A store on another folder shares nothing.
        let elsewhere = try StoreFixture()
        #expect(elsewhere.store.string(forKey: "theme") == nil)
    }
}

class FolderBase: Archivable {
    var name = ""
    required init() {}
}

final class FolderDerived: FolderBase {
    var extra = 0
}

final class FolderHolder: Archivable {
    var item = FolderBase()
    required init() {}
}
