/// Text from an input, as error messages quote it: at most ``ArchiveError/quotedLength``
/// characters, so a hostile megabyte-long name never makes a megabyte-long message.
extension ArchiveError {
    /// The most characters of one string from an input that a message quotes: 100.
    public static let quotedLength = 100

    /// The first ``quotedLength`` characters of `text`, and its length in characters if it
    /// has more (nil if it was taken whole).
    static func prefix(of text: some StringProtocol) -> (prefix: Substring, count: Int?) {
        guard let end = text.index(text.startIndex, offsetBy: quotedLength, limitedBy: text.endIndex), end != text.endIndex else {
            return (Substring(text), nil)
        }
        return (Substring(text[..<end]), text.count)
    }

    /// `text`, from an input, as a message quotes it: whole if it has at most ``quotedLength``
    /// characters, else its first ones, "…" and its length.
    package static func bounded(_ text: some StringProtocol) -> String {
        let (prefix, count) = prefix(of: text)
        guard let count else { return String(prefix) }
        return "\(prefix)… (\(count) characters)"
    }
}

extension DefaultStringInterpolation {
    /// Appends `text`, from an input, in quotes: whole if it has at most
    /// ``ArchiveError/quotedLength`` characters, else its first ones, "…" and its length.
    package mutating func appendInterpolation(quoted text: some StringProtocol) {
        let (prefix, count) = ArchiveError.prefix(of: text)
        appendLiteral("\"\(prefix)\(count == nil ? "" : "…")\"")
        if let count { appendLiteral(" (\(count) characters)") }
    }

    /// Appends `text`, from an input (a class name, a key), as ``ArchiveError/bounded(_:)`` gives it.
    package mutating func appendInterpolation(input text: some StringProtocol) {
        appendLiteral(ArchiveError.bounded(text))
    }
}
