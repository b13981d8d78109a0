/// The module-qualified name of `type` as Swift prints it (`MyApp.User`, `MyApp.Box<Swift.Int>`),
/// the default class name in archives. A private or local type prints an address
/// (`MyApp.(unknown context at $55d3a1c4).Note`) that changes from one launch to the next; it is
/// left out, so the name stays the same across launches.
func defaultClassName(of type: Any.Type) -> String {
    var name = String(reflecting: type)
    while let start = name.range(of: "(unknown context at $") {
        guard let end = name[start.upperBound...].range(of: ").") else { break }
        name.removeSubrange(start.lowerBound..<end.upperBound)
    }
    return name
}

/// The rule by which an archived class name still finds a type that moved to another module.
///
/// A default class name is module-qualified (`OldApp.User`), so moving the type into another
/// module (a package, a framework, a renamed app target) changes it to `NewModels.User`. Two
/// names are the *same but for modules* when every type name in them is module-qualified and
/// they are equal once the module — the first dotted component of each type name — is dropped:
/// `OldApp.User` and `NewModels.User`, `OldApp.Outer.Inner` and `Kit.Outer.Inner`,
/// `OldApp.Box<OldApp.User>` and `Kit.Box<Kit.User>`. The rule serves types archived under
/// their default name only: a type that declares `archiveClassName` chose its name, and is read
/// under it and its `archiveLegacyClassNames`. A name without a module (an `@objc` name) never
/// matches, and neither does a type whose own name changed: those need
/// `archiveLegacyClassNames` or `setClass(_:forClassName:)`.
enum ClassNames {
    /// `name` with the module dropped from every type name in it, or nil when a type name in it
    /// has no module (no dot).
    static func withoutModules(_ name: String) -> String? {
        var result = ""
        result.reserveCapacity(name.utf8.count)
        var run = Substring()
        var sawName = false
        func flush() -> Bool {
            defer { run = Substring() }
            guard !run.isEmpty else { return true }
            guard let dot = run.firstIndex(of: ".") else { return false }
            sawName = true
            result += run[run.index(after: dot)...]
            return true
        }
        var start = name.startIndex
        for index in name.indices {
            let character = name[index]
            guard "<>(), :[]".contains(character) else { continue }
            run = name[start..<index]
            guard flush() else { return nil }
            result.append(character)
            start = name.index(after: index)
        }
        run = name[start...]
        guard flush(), sawName else { return nil }
        return result
    }
}
