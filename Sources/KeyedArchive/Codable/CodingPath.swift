/// The coding path of a value being coded through `Codable`, as a list from the innermost key
/// outwards: a container's path is its parent's node plus one key, so nesting shares nodes and
/// `codingPath` arrays are built only when someone asks for one.
indirect enum CodingPath {
    case root
    case key(any CodingKey, parent: CodingPath, depth: Int)

    /// How many keys the path has.
    var depth: Int {
        switch self {
        case .root: 0
        case .key(_, _, let depth): depth
        }
    }

    func appending(_ key: any CodingKey) -> CodingPath {
        .key(key, parent: self, depth: depth + 1)
    }

    /// The keys, outermost first, as `Encoder.codingPath` gives them.
    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        keys.reserveCapacity(depth)
        var node = self
        while case .key(let key, let parent, _) = node {
            keys.append(key)
            node = parent
        }
        return keys.reversed()
    }

    /// The keys below the first `base` ones as an `ArchiveError` key path (`items[3].zip`).
    func keyPath(below base: Int) -> String {
        Self.keyPath(keys.dropFirst(base))
    }

    /// The keys below the first `base` ones plus `key`, as an `ArchiveError` key path.
    func keyPath(below base: Int, appending key: any CodingKey) -> String {
        Self.keyPath(keys.dropFirst(base) + [key])
    }

    /// `a.b[3].c`: indices in brackets, other keys by their string value, dot-separated.
    static func keyPath(_ keys: some Sequence<any CodingKey>) -> String {
        var path = ""
        for key in keys {
            // Ours, or the standard library's (`DecodingError.dataCorruptedError(in:)` makes "Index 2").
            if let index = key.intValue, key is IndexKey || key.stringValue == "Index \(index)" {
                path += "[\(index)]"
            } else {
                if !path.isEmpty { path += "." }
                path += key.stringValue
            }
        }
        return path
    }
}

/// The key of an element of an unkeyed container; written `[3]` in key paths.
struct IndexKey: CodingKey {
    let index: Int

    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.index = intValue }

    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}

/// A key given by name: `super` for `superEncoder()`/`superDecoder()`.
struct NamedKey: CodingKey {
    let stringValue: String

    static let `super` = NamedKey(stringValue: "super")

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    var intValue: Int? { nil }
}

/// Runs `body`, putting the key path of `path` below `base` (plus `key`) in front of the path of
/// any `ArchiveError` it throws; the path text is built only on error.
@inline(__always)
func withCodingPath<R>(_ path: CodingPath, below base: Int, appending key: (any CodingKey)?, _ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as ArchiveError {
        let component = key.map { path.keyPath(below: base, appending: $0) } ?? path.keyPath(below: base)
        throw component.isEmpty ? error : error.prependingKeyPath(component)
    }
}

extension ArchiveError {
    /// A `DecodingError` thrown by `init(from:)` as an `ArchiveError`: `.keyNotFound` for a
    /// missing key, `.typeMismatch` for the rest (a wrong kind, a nil, corrupted data), with the
    /// part of its coding path below `base` as the key path.
    init(_ error: DecodingError, in typeName: String, below base: Int) {
        let code: Code
        let keys: [any CodingKey]
        let context: DecodingError.Context
        let kind: String
        switch error {
        case .keyNotFound(let key, let errorContext):
            (code, context, kind) = (.keyNotFound, errorContext, "keyNotFound")
            keys = errorContext.codingPath + [key]
        case .typeMismatch(_, let errorContext):
            (code, context, kind, keys) = (.typeMismatch, errorContext, "typeMismatch", errorContext.codingPath)
        case .valueNotFound(_, let errorContext):
            (code, context, kind, keys) = (.typeMismatch, errorContext, "valueNotFound", errorContext.codingPath)
        case .dataCorrupted(let errorContext):
            (code, context, kind, keys) = (.typeMismatch, errorContext, "dataCorrupted", errorContext.codingPath)
        @unknown default:
            (code, context, kind, keys) = (.typeMismatch, DecodingError.Context(codingPath: [], debugDescription: "\(error)"), "unknown", [])
        }
        let path = CodingPath.keyPath(keys.dropFirst(base))
        self.init(
            code,
            reason: "\(typeName).init(from:) threw DecodingError.\(kind): \(context.debugDescription)"
                + (context.underlyingError.map { " (\($0))" } ?? ""),
            keyPath: path.isEmpty ? nil : path)
    }

    /// An `EncodingError` thrown by `encode(to:)` as an `ArchiveError` with code `.unencodable`.
    init(_ error: EncodingError, in typeName: String, below base: Int) {
        var context: EncodingError.Context?
        if case .invalidValue(_, let errorContext) = error { context = errorContext }
        let path = CodingPath.keyPath((context?.codingPath ?? []).dropFirst(base))
        self.init(
            .unencodable,
            reason: "\(typeName).encode(to:) threw EncodingError.invalidValue: \(context?.debugDescription ?? "\(error)")"
                + (context?.underlyingError.map { " (\($0))" } ?? ""),
            keyPath: path.isEmpty ? nil : path)
    }
}
