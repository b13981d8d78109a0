/// What decoding did not map one to one, collected when
/// ``KeyedUnarchiver/Options/collectsReport`` is set and read from ``KeyedUnarchiver/report``.
///
/// Every entry is named by its key path, as errors are (`root.members[2].email`). An empty report
/// means every archived key went to a field, every field found its key and no migration ran.
///
/// ```swift
/// var options = KeyedUnarchiver.Options()
/// options.collectsReport = true
/// let unarchiver = try KeyedUnarchiver(forReadingFrom: data, options: options)
/// let team = try unarchiver.decode(Team.self, forKey: "root")
/// for path in unarchiver.report.unusedKeys { log("dropped \(path)") }
/// ```
public struct DecodeReport: Sendable, Hashable, CustomStringConvertible {
    /// One object brought forward by its type's ``ArchiveVersioned/migrate(_:from:)``.
    public struct Migration: Sendable, Hashable, CustomStringConvertible {
        /// The object's key path.
        public let keyPath: String
        /// Its `$classname` in the archive.
        public let className: String
        /// The version it was archived at.
        public let fromVersion: Int
        /// The version it was decoded at (its type's `archiveVersion`).
        public let toVersion: Int

        /// An entry, as the unarchiver makes them (and tests compare them).
        public init(keyPath: String, className: String, fromVersion: Int, toVersion: Int) {
            self.keyPath = keyPath
            self.className = className
            self.fromVersion = fromVersion
            self.toVersion = toVersion
        }

        /// `root.owner: MyApp.Person 0 → 2`.
        public var description: String { "\(keyPath): \(className) \(fromVersion) → \(toVersion)" }
    }

    /// A field whose archived value could not be read as the field's type (`$null` in a
    /// non-optional field, a value of another kind), which kept its `init()` value because
    /// ``KeyedUnarchiver/Options/keepsDefaultForInvalidFields`` is set.
    public struct InvalidField: Sendable, Hashable, CustomStringConvertible {
        /// The field's key path.
        public let keyPath: String
        /// Why its value was refused (its key path is the part inside the field, if any).
        public let error: ArchiveError

        /// An entry, as the unarchiver makes them (and tests compare them).
        public init(keyPath: String, error: ArchiveError) {
            self.keyPath = keyPath
            self.error = error
        }

        /// `root.age: typeMismatch: expected an integer, found a string`.
        public var description: String { "\(keyPath): \(error.code): \(error.reason)" }
    }

    /// Archived keys no field took, in decode order: keys of fields the type no longer has (and
    /// that no migration removed), or of fields this version does not know yet.
    public internal(set) var unusedKeys: [String] = []
    /// Fields the archive had no value for, in decode order: they kept the value `init()` gave
    /// them (or, for hand-written and `Codable` types, whatever their code chose).
    public internal(set) var missingFields: [String] = []
    /// The objects migrated, in decode order.
    public internal(set) var migrations: [Migration] = []
    /// Fields that kept their `init()` value because their archived value was invalid, in
    /// decode order (only with ``KeyedUnarchiver/Options/keepsDefaultForInvalidFields``).
    public internal(set) var invalidFields: [InvalidField] = []

    /// An empty report.
    public init() {}

    /// Whether nothing was reported.
    public var isEmpty: Bool { unusedKeys.isEmpty && missingFields.isEmpty && migrations.isEmpty && invalidFields.isEmpty }

    /// One line per entry: `unused root.nickname`, `missing root.email`, `migrated root: MyApp.Person 0 → 2`,
    /// `invalid root.age: typeMismatch: …`.
    public var description: String {
        let lines =
            migrations.map { "migrated \($0)" } + unusedKeys.map { "unused \($0)" } + missingFields.map { "missing \($0)" }
            + invalidFields.map { "invalid \($0)" }
        return lines.isEmpty ? "nothing to report" : lines.joined(separator: "\n")
    }

    /// The counts of the lists, to take back what a failed top-level decode added.
    var mark: (Int, Int, Int, Int) { (unusedKeys.count, missingFields.count, migrations.count, invalidFields.count) }

    mutating func truncate(to mark: (Int, Int, Int, Int)) {
        unusedKeys.removeSubrange(mark.0...)
        missingFields.removeSubrange(mark.1...)
        migrations.removeSubrange(mark.2...)
        invalidFields.removeSubrange(mark.3...)
    }
}
