import Testing
@testable import PlanRules

@Suite struct TimePosixRuleTests {
    @Test func parsesEuropeanRule() throws {
        let rule = try #require(PosixTZRule("CET-1CEST,M3.5.0,M10.5.0/3"))
        // POSIX counts west: CET-1 is +1 h = 3 600 s east; CEST defaults to one hour more.
        #expect(rule.standardOffset == 3_600)
        #expect(rule.daylight?.offset == 7_200)
        #expect(rule.daylight?.start == .init(day: .monthWeekDay(month: 3, week: 5, weekday: 0), secondsIntoDay: 7_200))
        #expect(rule.daylight?.end == .init(day: .monthWeekDay(month: 10, week: 5, weekday: 0), secondsIntoDay: 10_800))
    }

    @Test(arguments: [
        ("<+0545>-5:45", 20_700),       // 5 × 3600 + 45 × 60
        ("<-0930>9:30", -34_200),       // −(9 × 3600 + 30 × 60)
        ("<+14>-14", 50_400),
        ("<-12>12", -43_200),
        ("UTC0", 0),
        ("<-00>0", 0),
        ("XXX+3:25:45", -12_345),       // seconds too: 3 × 3600 + 25 × 60 + 45
    ])
    func parsesFixedOffsets(text: String, offset: Int) throws {
        let rule = try #require(PosixTZRule(text))
        #expect(rule.standardOffset == offset)
        #expect(rule.daylight == nil)
    }

    /// Europe/Dublin: standard time is IST (+1) and "daylight" time is GMT (+0) in winter.
    @Test func parsesNegativeDaylightSaving() throws {
        let rule = try #require(PosixTZRule("IST-1GMT0,M10.5.0,M3.5.0/1"))
        #expect(rule.standardOffset == 3_600)
        #expect(rule.daylight?.offset == 0)
    }

    /// NST3:30NDT: −3:30 = −12 600 s; NDT defaults to an hour more, −2:30 = −9 000 s.
    @Test func daylightOffsetDefaultsToOneHourMore() throws {
        let rule = try #require(PosixTZRule("NST3:30NDT,M3.2.0,M11.1.0"))
        #expect(rule.standardOffset == -12_600)
        #expect(rule.daylight?.offset == -9_000)
    }

    /// RFC 8536's extensions: negative rule times and hours past 24 (up to 167).
    @Test(arguments: [
        ("<-02>2<-01>,M3.5.0/-1,M10.5.0/0", -3_600, 0),
        ("EET-2EEST,M3.4.4/50,M10.4.4/50", 180_000, 180_000),  // 50 h
        ("IST-2IDT,M3.4.4/26,M10.5.0", 93_600, 7_200),         // 26 h; default 02:00
        ("XXX3YYY,M3.2.0/-167,M11.1.0/167:59:59", -601_200, 604_799),
    ])
    func parsesExtendedRuleTimes(text: String, start: Int, end: Int) throws {
        let rule = try #require(PosixTZRule(text))
        #expect(rule.daylight?.start.secondsIntoDay == start)
        #expect(rule.daylight?.end.secondsIntoDay == end)
    }

    @Test func parsesJulianAndZeroBasedDays() throws {
        let rule = try #require(PosixTZRule("XXX3YYY2,J60/0,300"))
        #expect(rule.standardOffset == -10_800)
        #expect(rule.daylight?.offset == -7_200)
        #expect(rule.daylight?.start.day == .julianIgnoringLeapDay(60))
        #expect(rule.daylight?.end.day == .zeroBasedDayOfYear(300))
    }

    @Test(arguments: [
        "", "EST", "EST5EDT",                          // no offset; daylight without a rule
        "ES5", "<+05", "<+5>-5", "<+05>", "5",         // names: short, unterminated, missing
        "EST25", "EST-25", "EST5:60", "EST5:00:60", "EST:5",
        "EST5EDT,M13.1.0,M11.1.0", "EST5EDT,M0.1.0,M11.1.0", "EST5EDT,M3.6.0,M11.1.0",
        "EST5EDT,M3.0.0,M11.1.0", "EST5EDT,M3.2.7,M11.1.0", "EST5EDT,M3.2,M11.1.0",
        "EST5EDT,J0,J365", "EST5EDT,J1,J366", "EST5EDT,0,366",
        "EST5EDT,M3.2.0/168,M11.1.0", "EST5EDT,M3.2.0", "EST5EDT,M3.2.0,M11.1.0,",
        "EST5EDT,M3.2.0,M11.1.0 ", "EST5EDT-,M3.2.0,M11.1.0", "EST5EDT,M3.2.0/,M11.1.0",
    ])
    func rejectsMalformedStrings(text: String) {
        #expect(PosixTZRule(text) == nil)
    }

    /// Dates of the day rules, worked out on a calendar.
    @Test(arguments: [
        // 2026-03-01 is a Sunday: the second Sunday is the 8th, the last (5th) the 29th.
        (PosixTZRule.DayRule.monthWeekDay(month: 3, week: 2, weekday: 0), 2026, "2026-03-08"),
        (.monthWeekDay(month: 3, week: 5, weekday: 0), 2026, "2026-03-29"),
        // 2026-11-01 is a Sunday: the first Sunday is the 1st.
        (.monthWeekDay(month: 11, week: 1, weekday: 0), 2026, "2026-11-01"),
        // Fourth Thursday of March 2026: Thursdays are 5, 12, 19, 26.
        (.monthWeekDay(month: 3, week: 4, weekday: 4), 2026, "2026-03-26"),
        // "Week 5" of February 2024 (29 days, starts Thursday): the last Thursday is the 29th.
        (.monthWeekDay(month: 2, week: 5, weekday: 4), 2024, "2024-02-29"),
        // J60 is 1 March whether or not the year is leap; J59 is 28 February.
        (.julianIgnoringLeapDay(60), 2024, "2024-03-01"),
        (.julianIgnoringLeapDay(60), 2023, "2023-03-01"),
        (.julianIgnoringLeapDay(59), 2024, "2024-02-28"),
        (.julianIgnoringLeapDay(365), 2024, "2024-12-31"),
        // n counts from 0 and counts 29 February: 59 is 29 Feb 2024 but 1 Mar 2023.
        (.zeroBasedDayOfYear(59), 2024, "2024-02-29"),
        (.zeroBasedDayOfYear(59), 2023, "2023-03-01"),
        (.zeroBasedDayOfYear(0), 2023, "2023-01-01"),
        (.zeroBasedDayOfYear(365), 2024, "2024-12-31"),
    ])
    func dayRuleDates(rule: PosixTZRule.DayRule, year: Int, expected: String) {
        #expect(rule.date(inYear: year).description == expected)
    }

    /// New York 2026: DST starts 8 March 02:00 EST = 07:00Z, ends 1 November 02:00 EDT = 06:00Z.
    @Test func transitionsOfAYear() throws {
        let rule = try #require(PosixTZRule("EST5EDT,M3.2.0,M11.1.0"))
        let changes = try #require(rule.transitions(inYear: 2026))
        #expect([changes.start.at, changes.end.at] == [TimeTestFixtures.utcSeconds(year: 2026, month: 3, day: 8, hour: 7),
                                                       TimeTestFixtures.utcSeconds(year: 2026, month: 11, day: 1, hour: 6)])
        #expect([changes.start.offset, changes.end.offset] == [-14_400, -18_000])
        #expect(try #require(PosixTZRule("<+0545>-5:45")).transitions(inYear: 2026) == nil)
    }

    /// Hebron 2026, M3.4.4/50: Thursday 26 March + 50 h = Saturday 28 March 02:00 (+2)
    /// = 00:00Z.
    @Test func transitionHoursPastMidnightRollIntoLaterDays() throws {
        let rule = try #require(PosixTZRule("EET-2EEST,M3.4.4/50,M10.4.4/50"))
        #expect(rule.transitions(inYear: 2026)?.start.at == TimeTestFixtures.utcSeconds(year: 2026, month: 3, day: 28))
    }
}
