import PropertyList

/// ISO 8601 text for property-list dates, computed by hand (no Foundation formatter, no time zone data).
enum ISO8601 {
    /// Seconds from 1970-01-01 to 2001-01-01, the property-list reference date.
    static let referenceDateUnixSeconds: Int64 = 978_307_200

    /// `2001-01-01T00:00:00Z` for `0`; fractional seconds to the microsecond, trailing zeros trimmed
    /// (`…T00:00:00.5Z`).
    ///
    /// - Parameter seconds: Seconds since 2001-01-01T00:00:00Z, as a property-list date holds them.
    /// - Returns: The UTC date and time, or `nil` if it is not finite or outside the years 0000–9999.
    static func string(secondsSinceReferenceDate seconds: Double) -> String? {
        // Years 0000–9999 lie within ±320,000,000,000 seconds of 2001; this also keeps the
        // microsecond count far inside Int64.
        guard seconds.isFinite, abs(seconds) < 320_000_000_000 else { return nil }
        let micros = Int64((seconds * 1_000_000).rounded()) + referenceDateUnixSeconds * 1_000_000
        let (unixSeconds, fraction) = floorDivision(micros, 1_000_000)
        let (days, secondOfDay) = floorDivision(unixSeconds, 86_400)
        let (year, month, day) = civilDate(daysSinceUnixEpoch: days)
        guard (0...9999).contains(year) else { return nil }

        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if fraction != 0 {
            var digits = pad(fraction, 6)
            while digits.last == "0" { digits.removeLast() }
            text += "." + digits
        }
        return text + "Z"
    }

    /// Quotient rounded toward negative infinity, and the non-negative remainder.
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (q, r) = value.quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01.
    private static func civilDate(daysSinceUnixEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let (year, month, day) = CivilDate.date(daysSince1970: Int(days))
        return (Int64(year), Int64(month), Int64(day))
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
