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
    /// This is the one place a keyed-archive-aware renderer plugs in (object graph with UIDs
    /// resolved, class names shown, shared objects marked `@N`, cycles cut). It belongs in its
    /// own file, conforming to ``DumpRenderer`` and starting from ``KeyedArchiveShape``:
    ///
    /// ```swift
    /// if case .keyedArchive(let archive) = KeyedArchiveShape.recognize(root) {
    ///     return KeyedArchiveDump(archive)
    /// }
    /// ```
    ///
    /// Until then every property list, keyed archives included, is shown as a plain tree.
    static func renderer(for root: PlistValue) -> any DumpRenderer {
        PlainTreeDump()
    }
}
