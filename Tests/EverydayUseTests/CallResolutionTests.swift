import ArchiveStore
import Foundation
import KeyedArchive
import Testing

// The snippets an app writes, in a synchronous function, an `async` function and on the main
// actor (top-level code is Examples/settings-store/main.swift). The store's methods have no
// `async` overloads, so each call below resolves to the one form its spelling names: without
// `await`, the synchronous method, which has finished when it returns; through `store.async`,
// the `async` form. Were an `async` overload of `save`, `load` or `remove` to come back, the
// synchronous calls in the `async` functions would stop compiling ("expression is 'async' but
// is not marked with 'await'").

private struct Draft: Codable, Equatable {
    var text: String
}

extension ArchiveStore.Key {
    fileprivate static var draftCount: ArchiveStore.Key<Int> { .init("draftCount", default: 0) }
}

/// Everything a settings screen calls, synchronously.
private func synchronousCalls(_ store: ArchiveStore) throws -> [String] {
    try store.save(Draft(text: "a"), forKey: "draft")
    try store.save(Draft(text: "typed"))
    try store.set(1, forKey: "count")
    try store.set(nil, forKey: "gone")
    store[.draftCount] = 1
    try store.set(2, for: .draftCount)
    try store.batch { batch in
        try batch.set(3, forKey: "count")
        try batch.set(3, for: .draftCount)
    }
    try store.remove(forKey: "gone")
    try store.remove(for: .draftCount)
    _ = try store.upgradeAll(Draft.self)
    try store.removeExpired()
    try store.trim()
    #expect(try store.load(Draft.self, forKey: "draft") == Draft(text: "a"))
    #expect(try store.load(Draft.self) == Draft(text: "typed"))
    #expect(try store.value(for: .draftCount) == 0)
    return try store.listKeys()
}

/// The same calls inside an `async` function: still synchronous, no `await`; the `async` forms
/// only through `store.async`.
private func asynchronousCalls(_ store: ArchiveStore) async throws -> [String] {
    try store.save(Draft(text: "b"), forKey: "draft")
    #expect(store.contains("draft"))  // done when the call returned
    try store.set(4, forKey: "count")
    store[.draftCount] = 4
    try await store.async.save(Draft(text: "c"), forKey: "draft")
    try await store.async.save(Draft(text: "typed-async"))
    try await store.async.set(5, forKey: "count")
    try await store.async.set(5, for: .draftCount)
    try await store.async.batch { batch in try batch.set(6, forKey: "count") }
    #expect(try await store.async.load(Draft.self, forKey: "draft") == Draft(text: "c"))
    #expect(try await store.async.load(Draft.self) == Draft(text: "typed-async"))
    #expect(try await store.async.value(for: .draftCount) == 5)
    #expect(await store.async.integer(forKey: "count") == 6)
    #expect(await store.async.contains("draft"))
    #expect(try await store.async.size().count == store.count)
    try await store.async.remove(for: .draftCount)
    try await store.async.removeExpired()
    try await store.async.trim()
    _ = try await store.async.upgradeAll(Draft.self)
    #expect(try await store.async.listNamespaces() == [])
    return try await store.async.listKeys()
}

@MainActor
private func mainActorCalls(_ store: ArchiveStore) async throws {
    try store.save(Draft(text: "main"), forKey: "draft")  // blocks the main actor: the app's choice
    try await store.async.save(Draft(text: "off the main actor"), forKey: "draft")
    let loaded = try await store.async.load(Draft.self, forKey: "draft")
    #expect(loaded == Draft(text: "off the main actor"))
    store[.draftCount] = 9
    #expect(store[.draftCount] == 9)
}

@Suite("Each store call resolves as its spelling says, in synchronous and async code")
struct CallResolutionTests {
    @Test func synchronousFunction() throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        #expect(try synchronousCalls(store) == [KeyedArchiver.className(of: Draft.self), "count", "draft"].sorted())
    }

    @Test func asyncFunction() async throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        #expect(try await asynchronousCalls(store) == [KeyedArchiver.className(of: Draft.self), "count", "draft"].sorted())
    }

    @Test func mainActorFunction() async throws {
        let folder = try TemporaryDirectory()
        let store = try ArchiveStore(directory: folder.url)
        try await mainActorCalls(store)
        #expect(store.integer(forKey: "draftCount") == 9)
    }
}
