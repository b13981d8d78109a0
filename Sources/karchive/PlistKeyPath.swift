import PropertyList

/// A key path of `plutil`'s spellings over a plain property list: components split at `.`
/// (`\.` is a dot inside a key, other backslashes are themselves), each a dictionary key or an
/// array index. Finding, inserting, replacing and removing, with `plutil`'s messages.
struct PlistKeyPath {
    let components: [String]

    init(_ text: String) {
        var components: [String] = []
        var current = ""
        var characters = text[...]
        while let character = characters.first {
            characters = characters.dropFirst()
            if character == "\\", characters.first == "." {
                current.append(".")
                characters = characters.dropFirst()
            } else if character == "." {
                components.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        components.append(current)
        self.components = components
    }

    /// The path written back with `.` inside keys escaped, as messages show it.
    var text: String {
        components.map { $0.replacingOccurrences(of: ".", with: "\\.") }.joined(separator: ".")
    }

    /// The value at the path, or nil when a component is empty or leads nowhere.
    func value(in root: PlistValue) -> PlistValue? {
        var current = root
        for key in components {
            guard !key.isEmpty else { return nil }
            switch current {
            case .dict(let dict):
                guard let next = dict[key] else { return nil }
                current = next
            case .array(let elements), .set(let elements):
                guard let index = Int(key), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// `root` without the value at the path.
    ///
    /// - Throws: `No value to remove at key path …` when there is none; `Removing value resulted
    ///   in an empty property list at …` when the path is the whole list.
    func removing(from root: PlistValue) throws(Karchive.Failure) -> PlistValue {
        guard let result = try removing(from: root, components[...]) else {
            throw Karchive.Failure("Removing value resulted in an empty property list at \(text)")
        }
        return result
    }

    private func removing(from value: PlistValue, _ rest: ArraySlice<String>) throws(Karchive.Failure) -> PlistValue? {
        guard let key = rest.first else { return nil }
        let missing = Karchive.Failure("No value to remove at key path \(text)")
        guard !key.isEmpty else { throw missing }
        switch value {
        case .dict(var dict):
            guard let existing = dict[key] else { throw missing }
            dict[key] = try removing(from: existing, rest.dropFirst())
            return .dict(dict)
        case .array(var elements):
            guard let index = Int(key), elements.indices.contains(index) else { throw missing }
            if let kept = try removing(from: elements[index], rest.dropFirst()) {
                elements[index] = kept
            } else {
                elements.remove(at: index)
            }
            return .array(elements)
        default:
            throw missing
        }
    }

    /// `root` with `newValue` at the path: `-insert` refuses a key that is there (unless
    /// `appending` to the array it holds), `-replace` sets it either way. The last component
    /// of an array inserts before that index (or appends at the count).
    func inserting(_ newValue: PlistValue, into root: PlistValue, replacing: Bool, appending: Bool) throws(Karchive.Failure) -> PlistValue {
        try inserting(newValue, into: root, components[...], replacing: replacing, appending: appending)
    }

    private func inserting(
        _ newValue: PlistValue, into value: PlistValue, _ rest: ArraySlice<String>, replacing: Bool, appending: Bool
    ) throws(Karchive.Failure) -> PlistValue {
        guard let key = rest.first else { throw Karchive.Failure("Key path not found \(text)") }
        let isLast = rest.count == 1
        switch value {
        case .dict(var dict):
            let existing = dict[key]
            if !isLast {
                guard let existing else { throw Karchive.Failure("Key path not found \(text)") }
                dict[key] = try inserting(newValue, into: existing, rest.dropFirst(), replacing: replacing, appending: appending)
            } else if replacing || existing == nil {
                dict[key] = newValue
            } else if appending {
                guard case .array(let elements)? = existing else { throw Karchive.Failure("Appending to a non-array at key path \(text)") }
                dict[key] = .array(elements + [newValue])
            } else {
                throw Karchive.Failure("Value already exists at key path \(text)")
            }
            return .dict(dict)
        case .array(var elements):
            guard let index = Int(key) else { throw Karchive.Failure("Unable to index into array with key path \(text)") }
            let outOfBounds = Karchive.Failure("Index \(index) out of bounds in array at key path \(text)")
            if !isLast {
                guard elements.indices.contains(index) else { throw outOfBounds }
                elements[index] = try inserting(newValue, into: elements[index], rest.dropFirst(), replacing: replacing, appending: appending)
            } else if appending {
                guard elements.indices.contains(index), case .array(let inner) = elements[index] else {
                    throw Karchive.Failure("Attempt to append value to non-array at key path \(text)")
                }
                elements[index] = .array(inner + [newValue])
            } else if elements.indices.contains(index) {
                elements.insert(newValue, at: index)
            } else if index == elements.count {
                elements.append(newValue)
            } else {
                throw outOfBounds
            }
            return .array(elements)
        default:
            throw Karchive.Failure("Unable to insert value at key path \(text)")
        }
    }
}
