import ArchiveStore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(macOS) || os(Linux)  // runs other processes, which iOS, tvOS, watchOS and visionOS do not allow

/// The umask belongs to the whole process, so each case saves from a child process with its own.
@Suite("ArchiveStore file permissions")
struct PermissionsTests {
    /// Every path under `root` (itself included, as ".") with its permission bits.
    private func modes(under root: URL) throws -> [String: Int] {
        var result: [String: Int] = [:]
        let manager = FileManager.default
        for path in ["."] + StoreFixture.tree(at: root) {
            let attributes = try manager.attributesOfItem(atPath: root.appending(path: path).path)
            result[path] = (attributes[.posixPermissions] as? NSNumber)?.intValue
        }
        return result
    }

    @Test(arguments: [("0000", false), ("0077", false), ("0000", true), ("0277", true)])
    func filesAndFoldersGetExactModesWhateverTheUmask(umask: String, group: Bool) throws {
        let fixture = try StoreFixture()
        // A store directory that does not exist yet, two levels down: the child creates it all.
        let created = fixture.parent.appending(path: "made-by-the-store")
        let root = created.appending(path: "inner")
        let result = try CrashChild.run(
            ["save", root.path, "k", "10", "--namespace", "alice", "--umask", umask] + (group ? ["--group"] : []))
        #expect(result.output == "saved\n", "\(result.output) \(result.error)")
        let (file, folder) = group ? (0o660, 0o770) : (0o600, 0o700)
        let found = try modes(under: created)
        #expect(found["."] == folder)
        #expect(found["inner"] == folder)
        #expect(found["inner/.lock"] == file)
        #expect(found["inner/.journal"] == file)
        #expect(found["inner/ns-alice"] == folder)
        #expect(found["inner/ns-alice/key-k.archive"] == file)
        // Permissions other than the default are kept by the folder, for every opener.
        if group { #expect(found["inner/.configuration"] == file) }
        #expect(found.count == (group ? 7 : 6), "\(found)")
    }

    @Test func theDefaultIsOwnerOnly() throws {
        let fixture = try StoreFixture()
        try fixture.store.save(1, forKey: "k")
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.file(forKey: "k").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(fixture.store.permissions == .ownerOnly)
        #expect(ArchiveStore.Permissions(fileMode: 0o044, directoryMode: 0o055) == .init(fileMode: 0o644, directoryMode: 0o755))
    }
}
#endif
