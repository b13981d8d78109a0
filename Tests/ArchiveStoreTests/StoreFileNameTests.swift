import ArchiveStore
import Foundation
import TestSupport
import Testing

@Suite("StoreFileName")
struct StoreFileNameTests {
    @Test(arguments: [
        ("profile", "key-profile.archive"),
        ("UserSettings", "key-^user^settings.archive"),
        ("a/b", "key-a%2fb.archive"),
        ("", "key-.archive"),
        (".", "key-%2e.archive"),
        ("..", "key-%2e%2e.archive"),
        ("../../etc/passwd", "key-%2e%2e%2f%2e%2e%2fetc%2fpasswd.archive"),
        ("nul\u{0}byte", "key-nul%00byte.archive"),
        ("caf\u{E9}", "key-caf%c3%a9.archive"),
        ("cafe\u{301}", "key-cafe%cc%81.archive"),
        ("snake_case-and-kebab", "key-snake_case-and-kebab.archive"),
        ("%^~", "key-%25%5e%7e.archive"),
    ])
    func keysEscapeToDocumentedNames(key: String, name: String) {
        #expect(StoreFileName.keyFileName(for: key) == name)
        #expect(StoreFileName.classify(name) == .key(key))
        if case .key(let back) = StoreFileName.classify(name) { #expect(sameBytes(back, key)) }
    }

    @Test func namesUseASafeAlphabetWithoutUppercaseWithinTheLengthLimit() {
        var generator = SplitMix64(seed: 0x5EED_0001)
        let safe = Set("abcdefghijklmnopqrstuvwxyz0123456789-_^%~.".utf8)
        for _ in 0..<2_000 {
            let key = randomKey(using: &generator)
            let name = StoreFileName.keyFileName(for: key)
            #expect(name.utf8.count <= 255, "\(name)")
            #expect(name.utf8.allSatisfy(safe.contains), "\(name)")
            #expect(name.lowercased() == name)
        }
    }

    @Test func distinctKeysGetDistinctNamesEvenIgnoringCase() {
        var generator = SplitMix64(seed: 0x5EED_0002)
        var seen: [String: [UInt8]] = [:]
        var keys: [[UInt8]] = []
        for _ in 0..<5_000 { keys.append(Array(randomKey(using: &generator).utf8)) }
        keys += bytes(["A", "a", "caf\u{E9}", "cafe\u{301}", "", ".", "..", "%41", "^a", "~"])
        for key in Set(keys) {
            let name = StoreFileName.keyFileName(for: String(decoding: key, as: UTF8.self)).lowercased()
            if let previous = seen[name] {
                Issue.record("\(previous) and \(key) share the name \(name)")
            }
            seen[name] = key
        }
    }

    @Test func reversibleNamesDecodeToTheExactKey() {
        var generator = SplitMix64(seed: 0x5EED_0003)
        for _ in 0..<2_000 {
            let key = randomKey(using: &generator, maximumLength: 40)
            let name = StoreFileName.keyFileName(for: key)
            guard !StoreFileName.isHashed(name) else { continue }
            guard case .key(let back) = StoreFileName.classify(name) else {
                Issue.record("\(name) did not classify as a key")
                continue
            }
            #expect(sameBytes(back, key))
        }
    }

    @Test func longKeysGetHashedNamesOfAtMost255Bytes() {
        let long = String(repeating: "x", count: 5_000)
        let name = StoreFileName.keyFileName(for: long)
        #expect(name.utf8.count <= 255)
        #expect(StoreFileName.isHashed(name))
        #expect(StoreFileName.classify(name) == .hashedKey)
        // Same prefix, different tail: different names.
        #expect(StoreFileName.keyFileName(for: long + "y") != name)
        // Stable.
        #expect(StoreFileName.keyFileName(for: long) == name)
        // A multi-byte key is cut at a whole escape.
        let wide = String(repeating: "\u{E9}", count: 200)
        let wideName = StoreFileName.keyFileName(for: wide)
        #expect(wideName.utf8.count <= 255)
        #expect(StoreFileName.classify(wideName) == .hashedKey)
        // The longest unhashed key fits exactly.
        let fits = String(repeating: "k", count: 255 - "key-".count - ".archive".count)
        #expect(StoreFileName.keyFileName(for: fits).utf8.count == 255)
        #expect(!StoreFileName.isHashed(StoreFileName.keyFileName(for: fits)))
        #expect(StoreFileName.isHashed(StoreFileName.keyFileName(for: fits + "k")))
    }

    @Test(arguments: [
        ".lock", ".tmp-1-2-3", "key-%41.archive", "key-A.archive", "key-a.Archive", "key-%4.archive",
        "key-%ff.archive", "key-^.archive", "key-a~short.archive", "readme.txt", "ns-A", "key-a.b.archive",
        "ns-%ff", "ns-%41", "ns-a~short", ".namespace",
    ])
    func foreignAndNonCanonicalNamesAreNotKeys(name: String) {
        switch StoreFileName.classify(name) {
        case .key, .hashedKey, .namespace, .hashedNamespace: Issue.record("\(name) was read as a store name")
        case .temporary, .other: break
        }
    }

    @Test func namespacesAndKeysNeverShareAName() {
        for text in ["a", "", "key-a.archive", "ns-a", ".lock", ".namespace", "caf\u{E9}", "\u{0}"] {
            let namespace = StoreFileName.namespaceDirectoryName(for: text)
            guard case .namespace(let back) = StoreFileName.classify(namespace) else {
                Issue.record("\(namespace) did not classify as a namespace")
                continue
            }
            #expect(sameBytes(back, text))
            #expect(namespace != StoreFileName.keyFileName(for: text))
        }
        #expect(
            StoreFileName.classify(StoreFileName.namespaceDirectoryName(for: String(repeating: "n", count: 400)))
                == .hashedNamespace)
    }
}

/// A random key mixing ASCII, separators, control bytes, combining marks, and astral scalars.
func randomKey(using generator: inout SplitMix64, maximumLength: Int = 120) -> String {
    let pieces: [String] = [
        "a", "Z", "0", "-", "_", ".", "/", "\\", "%", "^", "~", " ", "\u{0}", "\u{7F}", "\u{E9}", "e\u{301}",
        "\u{1F600}",
        "\u{FFFF}", "key-", "ns-", ":", "*", "?", "\"", "<", "|",
    ]
    let length = Int.random(in: 0...maximumLength, using: &generator)
    var key = ""
    for _ in 0..<length { key += pieces.randomElement(using: &generator)! }
    return key
}
