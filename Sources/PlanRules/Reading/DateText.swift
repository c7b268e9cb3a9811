/// Reading PostgreSQL `date` text (ISO output style) as a `LocalDate` (plan-rules.md
/// section 1 and the date rules of section 1.2).
///
/// PostgreSQL writes `1993-06-15`, years above 9999 with more digits (`10000-01-01`),
/// years before 1 AD with a suffix (`0044-03-15 BC`, where 1 BC is astronomical year 0)
/// and the special values `infinity` and `-infinity`.
///
/// Dates outside 0001-01-01…9999-12-31 are held at those bounds. A snapshot writes dates
/// as `YYYY-MM-DD` (section 6), so a target date must stay within four-digit years to be
/// written and read back; and every comparison the rules make still comes out the same:
/// `infinity` and years above 9999 stay after every plan date (a date of birth "in the
/// future", a target date never passed), `-infinity` and BC dates stay more than 120
/// years ago (an invalid date of birth, a target date long passed).
public enum DateText {
    /// `infinity` and dates after it read as this.
    public static let latestDate = LocalDate(year: 9999, month: 12, day: 31)
    /// `-infinity` and dates before it (BC) read as this.
    public static let earliestDate = LocalDate(year: 1, month: 1, day: 1)

    /// The date, or nil for text PostgreSQL would not write as a date.
    public static func localDate(_ text: String) -> LocalDate? {
        // The common case, `YYYY-MM-DD` with a four-digit year, read without allocating.
        if let date = LocalDate(iso8601: text), date >= earliestDate { return date }
        switch text {
        case "infinity": return latestDate
        case "-infinity": return earliestDate
        default: break
        }
        var body = Substring(text)
        var beforeChrist = false
        if body.hasSuffix(" BC") {
            beforeChrist = true
            body = body.dropLast(3)
        }
        let parts = body.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3,
              parts[0].utf8.count >= 4, parts[0].utf8.count <= 7,
              parts[1].utf8.count == 2, parts[2].utf8.count == 2,
              let yearOfEra = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }),
              yearOfEra >= 1
        else { return nil }
        let year = beforeChrist ? 1 - yearOfEra : yearOfEra
        guard (1...12).contains(month), day >= 1, day <= LocalDate.daysInMonth(year: year, month: month)
        else { return nil }
        return min(max(LocalDate(year: year, month: month, day: day), earliestDate), latestDate)
    }
}
