/// Reading PostgreSQL `date` text (ISO output style) as a `LocalDate` (plan-rules.md
/// section 1 and the date rules of section 1.2).
///
/// PostgreSQL writes `1993-06-15`, years above 9999 with more digits (`10000-01-01`),
/// years before 1 AD with a suffix (`0044-03-15 BC`, where 1 BC is astronomical year 0)
/// and the special values `infinity` and `-infinity`. All of them must compare correctly
/// with a plan date: `infinity` is after every date, `-infinity` before every date.
public enum DateText {
    /// Stands for `infinity`: one day after PostgreSQL's latest date (5874897-12-31 AD).
    public static let afterEveryDate = LocalDate(year: 5_874_898, month: 1, day: 1)
    /// Stands for `-infinity`: one day before PostgreSQL's earliest date (4714-11-24 BC).
    public static let beforeEveryDate = LocalDate(year: -4_713, month: 11, day: 23)

    /// The date, or nil for text PostgreSQL would not write as a date.
    public static func localDate(_ text: String) -> LocalDate? {
        switch text {
        case "infinity": return afterEveryDate
        case "-infinity": return beforeEveryDate
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
        return LocalDate(year: year, month: month, day: day)
    }
}
