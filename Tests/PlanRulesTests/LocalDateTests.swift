import Testing
@testable import PlanRules

@Suite struct LocalDateTests {
    @Test func leapDayRoundTrips() {
        let d = LocalDate(year: 2024, month: 2, day: 29)
        #expect(d.description == "2024-02-29")
        #expect(LocalDate(iso8601: "2024-02-29") == d)
    }

    /// Anchors counted by hand from 1970-01-01 (day 0).
    @Test(arguments: [
        ("1970-01-01", 0), ("1969-12-31", -1),
        // 30 years with 7 leap days (72, 76, …, 96) + Jan (31) + Feb 2000 (29):
        // 30 × 365 + 7 + 60 = 11 017.
        ("2000-03-01", 11_017),
        // 1969 years back: 1969 × 365 + 477 leap days (492 − 19 + 4 in 1…1969) = 719 162.
        ("0001-01-01", -719_162),
        ("9999-12-31", 2_932_896),
        ("2026-11-21", 20_778),
    ])
    func daysSinceEpoch(text: String, days: Int) throws {
        let date = try #require(LocalDate(iso8601: text))
        #expect(date.daysSinceEpoch == days)
        #expect(LocalDate(daysSinceEpoch: days).description == text)
    }

    /// `hasFourDigitYear` (told from the day number) agrees with the year, at both ends of
    /// 0000…9999 and beyond them.
    @Test func fourDigitYearsEndWhereTheYearSays() {
        let ends = [LocalDate(year: -1, month: 12, day: 31), LocalDate(year: 0, month: 1, day: 1),
                    LocalDate(year: 9999, month: 12, day: 31), LocalDate(year: 10_000, month: 1, day: 1)]
        for date in ends + [LocalDate(daysSinceEpoch: -100_000_000), LocalDate(daysSinceEpoch: 100_000_000)] {
            #expect(date.hasFourDigitYear == (0...9999).contains(date.year), "\(date.daysSinceEpoch)")
        }
        #expect(ends.map(\.hasFourDigitYear) == [false, true, true, false])
    }

    /// Every day of years 1 to 9999: components and text round-trip, and each day follows
    /// the previous one on the calendar (day + 1, or the 1st of the next month or year).
    @Test func everyDayOfYears1To9999RoundTrips() {
        let first = LocalDate(year: 1, month: 1, day: 1), last = LocalDate(year: 9999, month: 12, day: 31)
        var previous = (year: 0, month: 12, day: 31)
        var failures: [String] = []
        for date in first...last {
            let (y, m, d) = date.components
            let follows = (y, m, d) == (previous.year, previous.month, previous.day + 1)
                || (y, m, d) == (previous.year, previous.month + 1, 1)
                || (y, m, d) == (previous.year + 1, 1, 1) && previous.month == 12
            let backAgain = LocalDate(year: y, month: m, day: d) == date
            if !follows || !backAgain || d > LocalDate.daysInMonth(year: y, month: m) {
                failures.append("\(date.daysSinceEpoch)")
            }
            previous = (y, m, d)
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(previous == (9999, 12, 31))
    }

    /// Text round trip on a sample of every year (1 March and 28/29 February of each).
    @Test func textRoundTripsEveryYear() {
        var failures: [String] = []
        for year in 1...9999 {
            let dates = [LocalDate(year: year, month: 3, day: 1),
                         LocalDate(year: year, month: 2, day: LocalDate.isLeapYear(year) ? 29 : 28)]
            for date in dates where LocalDate(iso8601: date.description) != date {
                failures.append(date.description)
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test(arguments: [(2000, true), (2024, true), (1600, true), (4, true),
                      (1900, false), (2100, false), (2023, false), (1, false)])
    func leapYears(year: Int, leap: Bool) {
        #expect(LocalDate.isLeapYear(year) == leap)
        #expect((LocalDate(iso8601: LocalDate.pad(year, 4) + "-02-29") != nil) == leap)
    }

    @Test(arguments: [
        "2023-02-29", "1900-02-29", "2024-02-30", "2026-04-31", "2026-06-31", "2026-00-10",
        "2026-13-01", "2026-01-00", "2026-01-32", "26-01-01", "2026/01/01", "2026-1-01",
        "2026-01-1", "+026-01-01", "2026-01-01T", " 2026-01-01", "2026-01-01 ", "", "２０２６-01-01",
        "2026-0a-01", "-2026-01-01",
    ])
    func invalidDatesAreRejected(text: String) {
        #expect(LocalDate(iso8601: text) == nil)
    }

    @Test func validatingInitializerRejectsNonexistentDays() {
        #expect(LocalDate(validatingYear: 2023, month: 2, day: 29) == nil)
        #expect(LocalDate(validatingYear: 2024, month: 2, day: 29) == LocalDate(year: 2024, month: 2, day: 29))
        #expect(LocalDate(validatingYear: 2026, month: 13, day: 1) == nil)
        #expect(LocalDate(validatingYear: 2026, month: 1, day: 0) == nil)
    }

    /// 1970-01-01 was a Thursday (4), 2000-01-01 a Saturday (6), 1969-12-31 a Wednesday
    /// (3), 0001-01-01 a Monday (1); consecutive days count 0…6 round.
    @Test func dayOfWeek() {
        #expect(LocalDate(year: 1970, month: 1, day: 1).dayOfWeek == 4)
        #expect(LocalDate(year: 2000, month: 1, day: 1).dayOfWeek == 6)
        #expect(LocalDate(year: 1969, month: 12, day: 31).dayOfWeek == 3)
        #expect(LocalDate(year: 1, month: 1, day: 1).dayOfWeek == 1)
        #expect(LocalDate(year: 2026, month: 11, day: 21).dayOfWeek == 6)
        let days = LocalDate(year: 1969, month: 12, day: 20)...LocalDate(year: 1970, month: 1, day: 20)
        #expect(zip(days, days.dropFirst()).allSatisfy { ($0.dayOfWeek + 1) % 7 == $1.dayOfWeek })
    }

    @Test func arithmetic() {
        let d = LocalDate(year: 2024, month: 2, day: 28)
        #expect(d.adding(days: 1).description == "2024-02-29")
        #expect(d.adding(days: 2).description == "2024-03-01")
        #expect(LocalDate(year: 2025, month: 1, day: 1).days(since: LocalDate(year: 2024, month: 1, day: 1)) == 366)
        #expect(Array(d...d.adding(days: 2)).count == 3)
    }
}
