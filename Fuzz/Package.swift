// swift-tools-version: 6.0
// libFuzzer targets for swift-keyed-archive (issue 6). Build and run with `./run.sh TARGET SECONDS`,
// or by hand: `swift build -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address`
// (the -Xswiftc option is needed: swift-driver keeps only the last `-sanitize=`, and SwiftPM's order varies).
import PackageDescription

// The fuzz entry points are `@_cdecl("LLVMFuzzerTestOneInput")` functions: libFuzzer supplies
// `main`, so the executables are compiled as libraries (no top-level code, no Swift `main`).
let fuzzTarget: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "swift-keyed-archive-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "swift-keyed-archive", path: "..")],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "PropertyList", package: "swift-keyed-archive"),
                .product(name: "KeyedArchive", package: "swift-keyed-archive"),
            ]),
        .executableTarget(name: "FuzzPlistReader", dependencies: ["FuzzSupport"], swiftSettings: fuzzTarget),
        .executableTarget(name: "FuzzKeyedUnarchiver", dependencies: ["FuzzSupport"], swiftSettings: fuzzTarget),
        .executableTarget(name: "FuzzArchiveFile", dependencies: ["FuzzSupport"], swiftSettings: fuzzTarget),
        .executableTarget(name: "FuzzXMLPlistReader", dependencies: ["FuzzSupport"], swiftSettings: fuzzTarget),
    ],
    swiftLanguageModes: [.v6]
)
