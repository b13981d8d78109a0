@_spi(Reader) import PropertyList

extension UnarchiverCore {
    /// What a failed field decode must take back when its field keeps its value
    /// (``KeyedUnarchiver/Options/keepsDefaultForInvalidFields``): the instances and value cores
    /// registered, and the report entries added, from here on.
    struct FieldMark {
        let registrations: Int
        let valueCores: Int
        let report: (Int, Int, Int, Int)?
    }

    /// Whether invalid fields keep their values: the mark to take before each field, or nil.
    @inline(__always)
    var fieldMark: FieldMark? {
        options.keepsDefaultForInvalidFields ? FieldMark(registrations: registrations.count, valueCores: valueCores.count, report: reporter?.report.mark)
            : nil
    }

    /// Handles `error`, thrown decoding the field `key` of the coded object `uid`: with a mark
    /// and an error that says the value is of the wrong kind, takes back what the field's decode
    /// registered and reports the field (its value is left as it was); otherwise throws the error
    /// with the field's key in its path.
    func fieldFailed(_ error: any Error, key: String, of uid: Int, mark: FieldMark?) throws {
        guard let error = error as? ArchiveError else { throw error }
        guard let mark, error.code == .typeMismatch || error.code == .unknownClass else {
            throw error.prependingKeyPath(key)
        }
        // Instances the field's decode made are not handed out: they may be part-filled, and
        // are decoded again, whole, where the archive refers to them next.
        decodedValues.removeAll()
        abandonInstances(from: mark.registrations)
        abandonValueCores(from: mark.valueCores)
        guard let reporter else { return }
        // What the report says of the values inside the field went with them.
        if let reportMark = mark.report { reporter.report.truncate(to: reportMark) }
        reporter.report.invalidFields.append(.init(keyPath: reportPath(of: uid) + "." + key, error: graph.placed(error)))
    }
}
