import ArchiveStore
import Foundation
import KeyedArchive
import Testing

@Suite("ArchiveStore standard locations")
struct StandardLocationTests {
    #if !canImport(Darwin)
    @Test func linuxDataDirectoryFollowsXDG() throws {
        let environment = ["XDG_DATA_HOME": "/xdg/data", "HOME": "/home/ada"]
        #expect(
            try ArchiveStore.standardDirectory(.data, named: "App", environment: environment).path == "/xdg/data/App")
        #expect(
            try ArchiveStore.standardDirectory(.data, named: "App", environment: ["HOME": "/home/ada"]).path
                == "/home/ada/.local/share/App")
        // A relative XDG path is ignored, as the specification says.
        #expect(
            try ArchiveStore.standardDirectory(
                .data, named: "App", environment: ["XDG_DATA_HOME": "rel", "HOME": "/h"]
            ).path
                == "/h/.local/share/App")
    }

    @Test func linuxCacheDirectoryFollowsXDG() throws {
        #expect(
            try ArchiveStore.standardDirectory(
                .cache, named: "App", environment: ["XDG_CACHE_HOME": "/xdg/cache", "HOME": "/h"]
            )
            .path == "/xdg/cache/App")
        #expect(
            try ArchiveStore.standardDirectory(.cache, named: "App", environment: ["HOME": "/h"]).path
                == "/h/.cache/App")
        #expect(
            try ArchiveStore.standardDirectory(.cache, named: "App", environment: ["XDG_CACHE_HOME": "", "HOME": "/h"])
                .path
                == "/h/.cache/App")
    }
    #endif

    @Test(arguments: ["", ".", "..", "a/b", "/", "nul\u{0}"])
    func invalidStoreNamesAreRejected(name: String) {
        let error = expectArchiveError(.invalidName) { _ = try ArchiveStore.dataStore(named: name) }
        #expect(error?.reason.contains("directory name") == true)
        expectArchiveError(.invalidName) { _ = try ArchiveStore.cacheStore(named: name) }
    }

    @Test func dataAndCacheStoresLiveInTheStandardDirectories() throws {
        let name = "archive-store-tests-\(UUID().uuidString)"
        let dataDirectory = try ArchiveStore.standardDirectory(.data, named: name)
        let cacheDirectory = try ArchiveStore.standardDirectory(.cache, named: name)
        defer {
            try? FileManager.default.removeItem(at: dataDirectory)
            try? FileManager.default.removeItem(at: cacheDirectory)
        }
        let data = try ArchiveStore.dataStore(named: name)
        let cache = try ArchiveStore.cacheStore(named: name)
        #expect(data.directory.standardizedFileURL.path == dataDirectory.standardizedFileURL.path)
        #expect(cache.directory.standardizedFileURL.path == cacheDirectory.standardizedFileURL.path)
        try data.save(1, forKey: "k")
        try cache.save(2, forKey: "k", expiresAfter: .seconds(60))
        #expect(try data.load(Int.self, forKey: "k") == 1)
        #expect(try cache.load(Int.self, forKey: "k") == 2)
        #if canImport(Darwin)
        let values = try cacheDirectory.resourceValues(forKeys: [.isExcludedFromBackupKey])
        #expect(values.isExcludedFromBackup == true)
        #endif
    }
}
