import ArchiveStore
import Foundation
import KeyedArchive
import Testing

// Typed values, registered defaults and typed keys, on both kinds of store.

extension StoreContractTests {
    @Test("each typed value reads back as itself, and as an ordinary stored value", arguments: StoreKind.allCases)
    func typedValuesRoundTrip(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            let url = URL(string: "https://example.com/a?b=c#d")!
            let date = Date(timeIntervalSinceReferenceDate: 123_456.789)
            let data = Data([0, 1, 2, 255])
            try store.set(42, forKey: "int")
            try store.set(-0.5, forKey: "double")
            try store.set(Float(0.25), forKey: "float")
            try store.set(true, forKey: "bool")
            try store.set("caf\u{E9}", forKey: "string")
            try store.set(url, forKey: "url")
            try store.set(date, forKey: "date")
            try store.set(data, forKey: "data")
            #expect(store.integer(forKey: "int") == 42)
            #expect(store.double(forKey: "double") == -0.5)
            #expect(store.float(forKey: "float") == 0.25)
            #expect(store.bool(forKey: "bool") == true)
            #expect(sameBytes(store.string(forKey: "string"), "caf\u{E9}"))
            #expect(store.url(forKey: "url") == url)
            #expect(store.date(forKey: "date") == date)
            #expect(store.data(forKey: "data") == data)
            #expect(store.keys == ["bool", "data", "date", "double", "float", "int", "string", "url"])
            #expect(try store.load(Int.self, forKey: "int") == 42)
            #expect(try store.load(URL.self, forKey: "url") == url)
            #expect(try store.load(Date.self, forKey: "date") == date)
            try store.set(false, forKey: "bool")
            #expect(store.bool(forKey: "bool") == false)
            #expect(store.contains("bool"))
        }
    }

    @Test("typed getters convert as UserDefaults does, and give 0, false or nil for nothing", arguments: StoreKind.allCases)
    func typedConversions(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            try store.set("42", forKey: "answer")
            try store.set(" 7", forKey: "padded")
            try store.set("4.9", forKey: "decimal")
            try store.set("abc", forKey: "word")
            try store.set("YES", forKey: "yes")
            try store.set(7, forKey: "seven")
            try store.set(4.9, forKey: "real")
            try store.set(true, forKey: "true")
            try store.set("/tmp/x", forKey: "path")
            try store.set(Date(timeIntervalSinceReferenceDate: 5), forKey: "date")
            try store.save([1, 2], forKey: "array")

            #expect(store.integer(forKey: "answer") == 42)
            #expect(store.double(forKey: "answer") == 42)
            #expect(store.bool(forKey: "answer") == true)
            #expect(store.string(forKey: "answer") == "42")
            #expect(store.integer(forKey: "padded") == 7)
            #expect(store.integer(forKey: "decimal") == 4)
            #expect(store.double(forKey: "decimal") == 4.9)
            #expect(store.integer(forKey: "word") == 0)
            #expect(store.bool(forKey: "word") == false)
            #expect(store.bool(forKey: "yes") == true)
            #expect(store.string(forKey: "seven") == "7")
            #expect(store.double(forKey: "seven") == 7)
            #expect(store.bool(forKey: "seven") == true)
            #expect(store.integer(forKey: "real") == 4)
            #expect(store.string(forKey: "real") == "4.9")
            #expect(store.integer(forKey: "true") == 1)
            #expect(store.string(forKey: "true") == "1")
            #expect(store.url(forKey: "path") == URL(fileURLWithPath: "/tmp/x"))
            #expect(store.url(forKey: "seven") == nil)
            #expect(store.integer(forKey: "date") == 0)
            #expect(store.string(forKey: "date") == nil)
            #expect(store.data(forKey: "date") == nil)
            #expect(store.integer(forKey: "array") == 0)
            #expect(store.string(forKey: "array") == nil)
            #expect(store.date(forKey: "seven") == nil)
            // Nothing stored.
            #expect(store.integer(forKey: "none") == 0)
            #expect(store.double(forKey: "none") == 0)
            #expect(store.float(forKey: "none") == 0)
            #expect(store.bool(forKey: "none") == false)
            #expect(store.string(forKey: "none") == nil)
            #expect(store.url(forKey: "none") == nil)
            #expect(store.date(forKey: "none") == nil)
            #expect(store.data(forKey: "none") == nil)
        }
    }

    @Test("registered defaults answer for keys without a value, convert, and lose to any stored value", arguments: StoreKind.allCases)
    func registeredDefaults(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            store.register(defaults: ["launches": 3, "theme": "light", "answer": "42", "volume": 0.8, "onboarded": true])
            #expect(store.integer(forKey: "launches") == 3)
            #expect(store.string(forKey: "theme") == "light")
            #expect(store.integer(forKey: "answer") == 42)
            #expect(store.double(forKey: "volume") == 0.8)
            #expect(store.bool(forKey: "onboarded") == true)
            // Registered values are never stored.
            #expect(!store.contains("launches"))
            #expect(store.keys == [])
            #expect(store.count == 0)
            #expect(try store.load(Int.self, forKey: "launches") == nil)

            try store.set(5, forKey: "launches")
            #expect(store.integer(forKey: "launches") == 5)
            try store.set("not a number", forKey: "volume")
            #expect(store.double(forKey: "volume") == 0)  // a stored value wins, even one that does not convert
            try store.remove(forKey: "launches")
            #expect(store.integer(forKey: "launches") == 3)

            // Calls merge, and namespaces share the registrations with the store they came from.
            store.namespace("alice").register(defaults: ["theme": "dark", "fontSize": 14])
            #expect(store.string(forKey: "theme") == "dark")
            #expect(store.integer(forKey: "fontSize") == 14)
            #expect(store.integer(forKey: "launches") == 3)
            #expect(store.namespace("bob").integer(forKey: "fontSize") == 14)
        }
    }

    @Test("typed keys read their default until set, after removal, and for a value of another type", arguments: StoreKind.allCases)
    func typedKeys(kind: StoreKind) throws {
        try kind.withStore { store, _ in
            let theme = ArchiveStore.Key<String>("theme", default: "light")
            let fontSize = ArchiveStore.Key<Int>("fontsize", default: 14)
            let recent = ArchiveStore.Key<[String]>("recent", default: [])
            let item = ArchiveStore.Key<FeedItem?>("item", default: nil)
            #expect(store[theme] == "light")
            #expect(store[recent] == [])
            #expect(store[item] == nil)
            #expect(try store.value(for: fontSize) == 14)

            try store.set("dark", for: theme)
            try store.set(["a", "b"], for: recent)
            try store.set(FeedItem(id: 1, title: "t", score: 0.5), for: item)
            #expect(store[theme] == "dark")
            #expect(store[recent] == ["a", "b"])
            #expect(store[item] == FeedItem(id: 1, title: "t", score: 0.5))
            #expect(try store.value(for: theme) == "dark")
            #expect(try store.load(String.self, forKey: "theme") == "dark")  // an ordinary stored value
            #expect(store.keys == ["item", "recent", "theme"])

            try store.remove(for: theme)
            #expect(store[theme] == "light")
            #expect(!store.contains("theme"))

            try store.save("not a number", forKey: "fontsize")
            #expect(store[fontSize] == 0)  // converted as integer(forKey:) converts it
            try store.save(["a"], forKey: "fontsize")
            #expect(store[fontSize] == 14)
            let error = try #require(throws: ArchiveError.self) { try store.value(for: fontSize) }
            #expect(error.code == .typeMismatch)
            #expect(
                error.reason
                    == "\(place(ofKey: "fontsize", in: store, kind: kind)): the stored value is an array, which does not read as Int")
        }
    }
}
