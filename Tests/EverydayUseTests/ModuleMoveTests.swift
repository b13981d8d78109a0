import ArchiveStore
import Foundation
import KeyedArchive
import MovedModelsAfter
import MovedModelsBefore
import Testing

/// Models that moved to another module (`MovedModelsBefore` → `MovedModelsAfter`, two real
/// modules with types of the same names) are still found: an archive's class names and the
/// store's type keys differ only by the module.
@Suite struct ModuleMoveTests {
    private func oldContact() -> MovedModelsBefore.Contact {
        let ann = MovedModelsBefore.Contact(name: "Ann", address: .init(street: "1 High St", city: "Leeds"))
        let bob = MovedModelsBefore.Contact(name: "Bob", address: .init(street: "2 Low Rd", city: "York"))
        ann.friends = [bob, ann]
        return ann
    }

    @Test func anArchiveOfTheOldModuleDecodesAsTheNewModulesType() throws {
        let old = oldContact()
        defer { old.friends = [] }  // the graph holds a cycle: let it go
        let data = try KeyedArchiver.archivedData(withRootObject: old)
        let plist = String(decoding: try PropertyListSerialization.data(
            fromPropertyList: try PropertyListSerialization.propertyList(from: data, format: nil), format: .xml, options: 0), as: UTF8.self)
        #expect(plist.contains("MovedModelsBefore.Contact"))
        #expect(plist.contains("MovedModelsBefore.Address"))

        let contact = try KeyedUnarchiver.unarchivedObject(ofType: MovedModelsAfter.Contact.self, from: data)
        defer { contact.friends = [] }
        #expect(contact.name == "Ann")
        #expect(contact.address == MovedModelsAfter.Address(street: "1 High St", city: "Leeds"))
        #expect(contact.friends.map(\.name) == ["Bob", "Ann"])
        #expect(contact.friends[0].address.city == "York")
        #expect(contact.friends[1] === contact, "identity survives the move")
    }

    @Test func genericAndCodableTypesMoveToo() throws {
        let box = MovedModelsBefore.Box(MovedModelsBefore.Address(street: "3 Mill Ln", city: "Hull"))
        let movedBox = try KeyedUnarchiver.unarchivedObject(
            ofType: MovedModelsAfter.Box<MovedModelsAfter.Address>.self, from: try KeyedArchiver.archivedData(withRootObject: box))
        #expect(movedBox.value == MovedModelsAfter.Address(street: "3 Mill Ln", city: "Hull"))

        let settings = MovedModelsBefore.Settings(theme: "dark", fontSize: 14)
        let movedSettings = try KeyedUnarchiver.unarchivedObject(
            ofType: MovedModelsAfter.Settings.self, from: try KeyedArchiver.archivedData(withRootObject: settings))
        #expect(movedSettings == MovedModelsAfter.Settings(theme: "dark", fontSize: 14))
    }

    @Test func aRegisteredTypeIsFoundByItsNameFromAnotherModule() throws {
        let old = oldContact()
        defer { old.friends = [] }
        let data = try KeyedArchiver.archivedData(withRootObject: [old] as [Any])
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.register(MovedModelsAfter.Contact.self)
        let list = try unarchiver.decode([Any].self, forKey: "root")
        let contact = try #require(list.first as? MovedModelsAfter.Contact)
        defer { contact.friends = [] }
        #expect(contact.name == "Ann")
        #expect(contact.friends.first?.name == "Bob")
    }

    @Test func aTypeWhoseOwnNameChangedStillNeedsItsOldName() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: MovedModelsBefore.PostalAddress())
        #expect {
            try KeyedUnarchiver.unarchivedObject(ofType: MovedModelsAfter.RenamedAddress.self, from: data)
        } throws: { error in
            guard let error = error as? ArchiveError else { return false }
            return error.code == .unknownClass && error.reason.contains("MovedModelsBefore.PostalAddress")
        }
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(MovedModelsAfter.RenamedAddress.self, forClassName: "MovedModelsBefore.PostalAddress")
        #expect(try unarchiver.decode(MovedModelsAfter.RenamedAddress.self, forKey: "root") == MovedModelsAfter.RenamedAddress())
    }

    @Test func theStoreFindsATypeKeyedValueSavedBeforeTheMoveAndMovesItOnTheNextSave() throws {
        let folder = try TemporaryDirectory("module-move")
        let before = try ArchiveStore(directory: folder.url)
        try before.save(MovedModelsBefore.Settings(theme: "dark", fontSize: 14))
        #expect(try before.listKeys() == ["MovedModelsBefore.Settings"])

        // A new process, after the move.
        let after = try ArchiveStore(directory: folder.url)
        #expect(try after.load(MovedModelsAfter.Settings.self) == MovedModelsAfter.Settings(theme: "dark", fontSize: 14))
        try after.save(MovedModelsAfter.Settings(theme: "light", fontSize: 15))
        #expect(try after.listKeys() == ["MovedModelsAfter.Settings"])
        #expect(try after.load(MovedModelsAfter.Settings.self) == MovedModelsAfter.Settings(theme: "light", fontSize: 15))
    }

    @Test func anAsyncSaveMovesTheValueToo() async throws {
        let folder = try TemporaryDirectory("module-move")
        let store = try ArchiveStore(directory: folder.url)
        try await store.async.save(MovedModelsBefore.Settings(theme: "dark", fontSize: 14))
        try await store.async.save(MovedModelsAfter.Settings(theme: "sepia", fontSize: 12))
        #expect(try await store.async.listKeys() == ["MovedModelsAfter.Settings"])
    }

    @Test func theInMemoryStoreFollowsTheSameRule() throws {
        let store = ArchiveStore.inMemory()
        try store.save(MovedModelsBefore.Settings(theme: "dark", fontSize: 14))
        #expect(try store.load(MovedModelsAfter.Settings.self)?.theme == "dark")
        try store.save(MovedModelsAfter.Settings(theme: "dark", fontSize: 16))
        #expect(try store.listKeys() == ["MovedModelsAfter.Settings"])
    }
}
