import PropertyList

/// Turns a property list into the text `karchive dump` prints.
protocol DumpRenderer {
    /// The whole dump, each line ending in a newline.
    func render(_ root: PlistValue) -> String
}

/// Chooses how `karchive dump` shows a property list.
enum Dump {
    /// The renderer for `root`.
    ///
    /// Keyed archives are shown as their object graph; anything else as a plain tree.
    static func renderer(for root: PlistValue) -> any DumpRenderer {
        if case .keyedArchive(let archive) = KeyedArchiveShape.recognize(root) {
            return KeyedArchiveDump(archive)
        }
        return PlainTreeDump()
    }
}
