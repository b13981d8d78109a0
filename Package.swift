// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "swift-keyed-archive",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "KeyedArchive", targets: ["KeyedArchive"]),
        .library(name: "ArchiveStore", targets: ["ArchiveStore"]),
        .executable(name: "karchive", targets: ["karchive"]),
        .executable(name: "KeyedArchiveBenchmarks", targets: ["KeyedArchiveBenchmarks"]),
    ],
    targets: [
        .target(name: "PropertyList"),
        // The system calls of ArchiveFile and ArchiveStore (package-only: no product).
        .target(name: "CFileSystem"),
        .target(name: "ArchiveFileSystem", dependencies: ["PropertyList", "CFileSystem"]),
        // The allocator's size of a heap block, for reflection's check of a class instance's layout.
        .target(name: "CAllocation"),
        .target(name: "KeyedArchive", dependencies: ["PropertyList", "ArchiveFileSystem", "CAllocation"]),
        .target(name: "ArchiveStore", dependencies: ["KeyedArchive", "PropertyList", "ArchiveFileSystem"]),
        .executableTarget(name: "archive-store-crash-child", dependencies: ["ArchiveStore", "KeyedArchive"]),
        .executableTarget(name: "karchive", dependencies: ["KeyedArchive", "PropertyList", "ArchiveFileSystem"]),
        .executableTarget(name: "KeyedArchiveBenchmarks", dependencies: ["ArchiveStore", "KeyedArchive", "PropertyList"]),
        // Examples/: small apps doing the jobs of the helpers this library replaces (`swift run user-folders`).
        .executableTarget(name: "user-folders", dependencies: ["ArchiveStore", "KeyedArchive"], path: "Examples/user-folders"),
        .executableTarget(name: "archived-items", dependencies: ["ArchiveStore", "KeyedArchive"], path: "Examples/archived-items"),
        .executableTarget(name: "settings-store", dependencies: ["ArchiveStore", "KeyedArchive"], path: "Examples/settings-store"),
        .executableTarget(name: "model-cache", dependencies: ["ArchiveStore", "KeyedArchive"], path: "Examples/model-cache"),
        .executableTarget(name: "json-cache", dependencies: ["ArchiveStore", "KeyedArchive"], path: "Examples/json-cache"),
        .executableTarget(name: "encoder-store", dependencies: ["KeyedArchive"], path: "Examples/encoder-store"),
        .target(name: "TestSupport", dependencies: ["PropertyList"], path: "Tests/TestSupport"),
        // The same model types in two modules, as before and after an app moved them.
        .target(name: "MovedModelsBefore", dependencies: ["KeyedArchive"], path: "Tests/MovedModels/Before"),
        .target(name: "MovedModelsAfter", dependencies: ["KeyedArchive"], path: "Tests/MovedModels/After"),
        .testTarget(name: "PropertyListTests", dependencies: ["PropertyList", "TestSupport"]),
        .testTarget(name: "KeyedArchiveTests", dependencies: ["KeyedArchive", "PropertyList", "ArchiveFileSystem", "TestSupport"]),
        .testTarget(name: "KarchiveTests", dependencies: ["PropertyList", "KeyedArchive", "TestSupport"]),
        .testTarget(name: "ArchiveStoreTests", dependencies: ["ArchiveStore", "KeyedArchive", "ArchiveFileSystem", "TestSupport"]),
        // The library as an app meets it: public modules only, no `@testable`, no SPI.
        .testTarget(
            name: "EverydayUseTests",
            dependencies: ["ArchiveStore", "KeyedArchive", "PropertyList", "MovedModelsBefore", "MovedModelsAfter"]),
    ],
    swiftLanguageModes: [.v6]
)
