import PropertyList

/// Where a difference lies, written as `ArchiveError` key paths are: `root.friends[2].name`.
///
/// Keys are joined with `.` and indexes written `[2]`. A key that is empty, long, or holds a
/// character that would make the path ambiguous (`.`, `[`, `]`, `(`, `)`, `"`, `\`, `:`, space
/// or control) is written quoted in brackets: `info["first name"]`. The path of a plain property
/// list's root itself is `(root)`; a keyed archive's paths start at a `$top` key. Paths share
/// their parents, so the path of every object met costs one node.
indirect enum DiffPath {
    case root
    case key(DiffPath, String)
    case index(DiffPath, Int)

    func appending(key: String) -> DiffPath { .key(self, key) }
    func appending(index: Int) -> DiffPath { .index(self, index) }

    /// The path as a difference line starts with it; a stretch repeated many times (a path down a
    /// long chain) is written once with its count, as ``ArchiveError/abbreviated(keyPath:)`` does.
    var text: String {
        var components: [String] = []
        var node = self
        walk: while true {
            switch node {
            case .root: break walk
            case .key(let parent, let key):
                components.append(Self.component(key))
                node = parent
            case .index(let parent, let index):
                components.append("[\(index)]")
                node = parent
            }
        }
        var path = ""
        for component in components.reversed() {
            if !path.isEmpty, !component.hasPrefix("[") { path += "." }
            path += component
        }
        return path.isEmpty ? "(root)" : ArchiveError.abbreviated(keyPath: path)
    }

    /// Characters that make a key be written quoted, besides spaces and control characters.
    private static let separators: Set<Unicode.Scalar> = [".", "[", "]", "(", ")", "\"", "\\", ":"]

    /// `name`, or `["first name"]`.
    private static func component(_ key: String) -> String {
        let plain =
            !key.isEmpty && key.unicodeScalars.count <= ArchiveError.quotedLength
            && key.unicodeScalars.allSatisfy { scalar in
                !scalar.properties.isWhitespace && scalar.properties.generalCategory != .control && !separators.contains(scalar)
            }
        return plain ? key : "[" + DiffText.quoted(key) + "]"
    }
}
