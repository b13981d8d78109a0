import Foundation
import Testing

/// ARCHITECTURE.md's list of the files with unsafe code, checked against the repository's
/// `Sources`: the list must be exactly the Swift files that use `Unsafe…` types, `unsafeBitCast`,
/// `Unmanaged` or `withUnsafe…`, and each of them must start with its `// Unsafe code in this
/// file:` header.
@Suite("ARCHITECTURE.md")
struct ArchitectureDocumentTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // EverydayUseTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static let unsafeMarkers = ["Unsafe", "unsafeBitCast", "Unmanaged", "withUnsafe"]
    static let header = "// Unsafe code in this file: "

    /// The Swift files under `Sources/` that use unsafe code, as paths from the package root.
    static func filesWithUnsafeCode() throws -> Set<String> {
        let sources = packageRoot.appending(path: "Sources")
        let paths = try FileManager.default.subpathsOfDirectory(atPath: sources.path)
        var found: Set<String> = []
        for path in paths where path.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appending(path: path), encoding: .utf8)
            if unsafeMarkers.contains(where: { text.contains($0) }) { found.insert("Sources/" + path) }
        }
        return found
    }

    /// The files ARCHITECTURE.md's "Unsafe code" section lists (its lines "- `Sources/….swift`: …").
    static func listedFiles() throws -> [String] {
        let document = try String(contentsOf: packageRoot.appending(path: "ARCHITECTURE.md"), encoding: .utf8)
        let start = try #require(document.range(of: "\n## Unsafe code\n"), "ARCHITECTURE.md has no \"## Unsafe code\" section")
        let rest = document[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        return section.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("- `Sources/") else { return nil }
            return String(line.dropFirst(3).prefix { $0 != "`" })
        }
    }

    @Test("The unsafe-code list names exactly the files of Sources that use unsafe code")
    func unsafeListMatchesSources() throws {
        let listed = try Self.listedFiles()
        let found = try Self.filesWithUnsafeCode()
        #expect(found.count > 10, "found only \(found.sorted()) under \(Self.packageRoot.path)/Sources")
        #expect(listed.count == Set(listed).count, "ARCHITECTURE.md lists a file twice")
        let missing = found.subtracting(listed).sorted()
        let extra = Set(listed).subtracting(found).sorted()
        #expect(missing.isEmpty, "files with unsafe code that ARCHITECTURE.md does not list: \(missing)")
        #expect(extra.isEmpty, "files ARCHITECTURE.md lists that have no unsafe code (or do not exist): \(extra)")
    }

    @Test("The README's count of library files with unsafe code is the count in Sources, and at most 12")
    func readmeCountMatchesSources() throws {
        let readme = try String(contentsOf: Self.packageRoot.appending(path: "README.md"), encoding: .utf8)
        let match = try #require(readme.firstMatch(of: /unsafe code \(in (\d+) files/), "the README does not say how many files have unsafe code")
        let library = try Self.filesWithUnsafeCode().filter { !$0.hasPrefix("Sources/KeyedArchiveBenchmarks/") }
        #expect(Int(match.1) == library.count, "the README says \(match.1) files; Sources has \(library.count): \(library.sorted())")
        #expect(library.count <= 12, "\(library.count) library files have unsafe code: \(library.sorted())")
    }

    @Test("Each file with unsafe code starts with its header")
    func eachUnsafeFileHasItsHeader() throws {
        for path in try Self.filesWithUnsafeCode().sorted() {
            let text = try String(contentsOf: Self.packageRoot.appending(path: path), encoding: .utf8)
            #expect(text.hasPrefix(Self.header), "\(path) does not start with \"\(Self.header)…\"")
        }
    }
}
