import Foundation
import Testing
@testable import PlanRules

/// Dates some zone skipped entirely (plan-rules.md section 2: such a date has the next
/// date's midnight), found by the sweep in `unusualDaysAreExactlyTheNamedOnes` over every
/// known zone's offset changes from 1800 to 2100.
private let skippedDates: Set<String> = [
    "Pacific/Apia 2011-12-30",         // −10 → +14 across the date line
    "Pacific/Fakaofo 2011-12-30",      // −11 → +13
    "Pacific/Kiritimati 1994-12-31",   // −10 → +14
    "Pacific/Kanton 1994-12-31",       // −11 → +13
    "Pacific/Enderbury 1994-12-31",    // link to Kanton
    "Pacific/Kwajalein 1993-08-21",    // −12 → +12
    "Kwajalein 1993-08-21",            // link
    // The Spanish Philippines and their Pacific possessions moved from the American to
    // the Asian side of the date line: local mean time +(−)15 h → +(−)9 h.
    "Asia/Manila 1844-12-31", "Pacific/Chuuk 1844-12-31", "Pacific/Guam 1844-12-31",
    "Pacific/Kosrae 1844-12-31", "Pacific/Palau 1844-12-31", "Pacific/Pohnpei 1844-12-31",
    "Pacific/Saipan 1844-12-31",
]

/// Offset changes across which the local date goes *back* (a fall-back that lands on
/// the previous day): zone → (how many, the local date before the first, before the last).
private let datesGoingBack: [String: (count: Int, first: String, last: String)] = [
    // 00:01 NDT → 23:01 NST, every autumn 1987–2010 (1988: double daylight 00:01 → 22:01).
    "America/St_Johns": (24, "1987-10-25", "2010-11-07"),
    "Canada/Newfoundland": (24, "1987-10-25", "2010-11-07"),
    "America/Goose_Bay": (24, "1987-10-25", "2010-11-07"),  // 00:01 ADT → 23:01 AST
    "America/Moncton": (14, "1993-10-31", "2006-10-29"),    // 00:01 ADT → 23:01 AST
    // Alaska became American: local mean time about +14 h → about −10 h, 19 → 18 October.
    "America/Anchorage": (1, "1867-10-19", "1867-10-19"), "US/Alaska": (1, "1867-10-19", "1867-10-19"),
    "America/Adak": (1, "1867-10-19", "1867-10-19"), "US/Aleutian": (1, "1867-10-19", "1867-10-19"),
    "America/Atka": (1, "1867-10-19", "1867-10-19"), "America/Juneau": (1, "1867-10-19", "1867-10-19"),
    "America/Metlakatla": (1, "1867-10-19", "1867-10-19"), "America/Nome": (1, "1867-10-19", "1867-10-19"),
    "America/Sitka": (1, "1867-10-19", "1867-10-19"), "America/Yakutat": (1, "1867-10-19", "1867-10-19"),
    "America/Phoenix": (2, "1944-01-01", "1944-10-01"),     // war time ended at 00:01
    "US/Arizona": (2, "1944-01-01", "1944-10-01"),
    "Pacific/Guam": (1, "1969-01-26", "1969-01-26"),        // 00:01 → 23:01
    "Pacific/Saipan": (1, "1969-01-26", "1969-01-26"),
    "Antarctica/Casey": (1, "2010-03-05", "2010-03-05"),    // 02:00 +11 → 23:00 +08
]

@Suite struct TimeZoneMidnightTests {
    /// Hand-checked midnights. Arithmetic: local midnight − offset = UTC.
    @Test(arguments: [
        // +01:00 in winter: 00:00 − 1 h = 23:00Z the day before.
        ("Europe/Berlin", "2026-01-15", "2026-01-14T23:00:00.000000Z"),
        // DST starts at 02:00 that day, midnight is still +01:00.
        ("Europe/Berlin", "2026-03-29", "2026-03-28T23:00:00.000000Z"),
        // CST5CDT,M3.2.0/0: 2024-03-10 00:00 CST is 01:00 CDT; midnight does not exist,
        // the first instant of the day is 00:00 − (−5 h) = 05:00Z, shown as 01:00.
        ("America/Havana", "2024-03-10", "2024-03-10T05:00:00.000000Z"),
        // <-04>4<-03>,M9.1.6/24: Saturday 7 September 24:00 (−4) jumps to Sunday 01:00
        // (−3); first instant of the 8th = 00:00 + 4 h = 04:00Z.
        ("America/Santiago", "2024-09-08", "2024-09-08T04:00:00.000000Z"),
        // 00:00 NDT (−2:30) = 02:30Z; at 00:01 NDT the clock falls back to 23:01 NST of
        // the 6th, and 00:00 of the 7th comes again at 03:30Z: the first one counts.
        ("America/St_Johns", "2010-11-07", "2010-11-07T02:30:00.000000Z"),
        ("America/St_Johns", "2010-11-08", "2010-11-08T03:30:00.000000Z"),  // −3:30
        // Apia went from −10 to +14 at 2011-12-29 24:00 local = 2011-12-30T10:00Z, which
        // is 2011-12-31 00:00 (+14): the 30th was skipped and has the 31st's midnight.
        ("Pacific/Apia", "2011-12-29", "2011-12-29T10:00:00.000000Z"),
        ("Pacific/Apia", "2011-12-30", "2011-12-30T10:00:00.000000Z"),
        ("Pacific/Apia", "2011-12-31", "2011-12-30T10:00:00.000000Z"),
        // Kiritimati −10 → +14 at 1994-12-31 00:00 (−10) = 10:00Z = 1995-01-01 00:00 (+14).
        ("Pacific/Kiritimati", "1994-12-31", "1994-12-31T10:00:00.000000Z"),
        ("Pacific/Kiritimati", "1995-01-01", "1994-12-31T10:00:00.000000Z"),
        ("Pacific/Kiritimati", "2026-01-01", "2025-12-31T10:00:00.000000Z"),  // +14
        ("Asia/Kathmandu", "2026-01-01", "2025-12-31T18:15:00.000000Z"),      // +5:45
        ("Asia/Kolkata", "2026-01-01", "2025-12-31T18:30:00.000000Z"),        // +5:30
        ("Pacific/Chatham", "2026-01-01", "2025-12-31T10:15:00.000000Z"),     // +13:45 (DST)
        ("Pacific/Chatham", "2026-07-01", "2026-06-30T11:15:00.000000Z"),     // +12:45
        ("Etc/GMT+12", "2026-01-01", "2026-01-01T12:00:00.000000Z"),          // −12
        ("Australia/Lord_Howe", "2026-01-01", "2025-12-31T13:00:00.000000Z"), // +11 (DST)
        ("Australia/Lord_Howe", "2026-07-01", "2026-06-30T13:30:00.000000Z"), // +10:30
        ("Europe/Dublin", "2026-01-15", "2026-01-15T00:00:00.000000Z"),       // GMT, "winter DST"
        ("Europe/Dublin", "2026-07-15", "2026-07-14T23:00:00.000000Z"),       // IST +1
        // After the files' last listed change (2037): EST5EDT,M3.2.0,M11.1.0 → July is
        // EDT −4: 00:00 + 4 h = 04:00Z; January is EST −5.
        ("America/New_York", "2100-07-04", "2100-07-04T04:00:00.000000Z"),
        ("America/New_York", "2100-01-04", "2100-01-04T05:00:00.000000Z"),
        // Year 2500, shifted back one 400-year cycle: same rule, same answers.
        ("America/New_York", "2500-07-04", "2500-07-04T04:00:00.000000Z"),
    ])
    func startOfDayHandChecked(zoneName: String, date: String, expected: String) throws {
        let zones = try #require(TimeTestFixtures.database)
        let zone = try #require(zones.zone(named: zoneName))
        let day = try #require(LocalDate(iso8601: date))
        #expect(zone.startOfDay(day).rfc3339 == expected)
    }

    /// `localWallTime` is the first instant showing at least the wall time.
    @Test(arguments: [
        // 08:00 CDT (−4) on the Havana DST day: 08:00 + 4 h = 12:00Z.
        ("America/Havana", "2024-03-10", 8 * 3600, "2024-03-10T12:00:00.000000Z"),
        // 02:30 does not exist in Berlin on 2026-03-29 (02:00 CET → 03:00 CEST): the first
        // instant at or after it is 03:00 CEST = 01:00Z.
        ("Europe/Berlin", "2026-03-29", 2 * 3600 + 1800, "2026-03-29T01:00:00.000000Z"),
        // 01:30 happens twice in New York on 2026-11-01: the first is EDT, 01:30 + 4 h.
        ("America/New_York", "2026-11-01", 3600 + 1800, "2026-11-01T05:30:00.000000Z"),
        // 08:00 EST after the fall-back: 08:00 + 5 h = 13:00Z.
        ("America/New_York", "2026-11-01", 8 * 3600, "2026-11-01T13:00:00.000000Z"),
        // 08:00 +05:45: 08:00 − 5:45 = 02:15Z.
        ("Asia/Kathmandu", "2026-11-21", 8 * 3600, "2026-11-21T02:15:00.000000Z"),
        // 08:00 on Apia's skipped day: the first instant at or after it is the 31st's 00:00.
        ("Pacific/Apia", "2011-12-30", 8 * 3600, "2011-12-30T10:00:00.000000Z"),
    ])
    func localWallTimeHandChecked(zoneName: String, date: String, secondsIntoDay: Int, expected: String) throws {
        let zones = try #require(TimeTestFixtures.database)
        let zone = try #require(zones.zone(named: zoneName))
        let day = try #require(LocalDate(iso8601: date))
        #expect(zone.localWallTime(day, secondsIntoDay: secondsIntoDay).rfc3339 == expected)
    }

    /// The worked examples (plan-rules.md section 7): `deliver_after` is 08:00 local on the
    /// plan date, or `created_at` if later; the plan date is the local date at `created_at`.
    @Test func workedExamplesDeliverAtEightLocal() throws {
        let zones = try #require(TimeTestFixtures.database)
        let url = try #require(Bundle.module.url(forResource: "examples", withExtension: "jsonl",
                                                 subdirectory: "Fixtures"))
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        var checked = 0
        for line in lines {
            let example = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard let notification = example["notification"] as? [String: Any] else { continue }
            let zoneName = try #require(notification["timezone"] as? String)
            let planDateText = try #require(notification["plan_date"] as? String)
            let createdAtText = try #require(notification["created_at"] as? String)
            let zone = try #require(zones.zone(named: zoneName))
            let planDate = try #require(LocalDate(iso8601: planDateText))
            let createdAt = try #require(Instant(rfc3339: createdAtText))
            let deliverAfter = max(zone.localWallTime(planDate, secondsIntoDay: 8 * 3600), createdAt)
            #expect(zone.localDate(at: createdAt) == planDate)
            #expect(deliverAfter.rfc3339 == notification["deliver_after"] as? String)
            checked += 1
        }
        #expect(checked >= 10)
    }

    /// Dates and times beyond `Instant`'s range (±292 271 years) saturate instead of
    /// overflowing; instants at the ends of the range still have a local date.
    @Test func extremeInputsSaturate() throws {
        let zones = try #require(TimeTestFixtures.database)
        let zone = try #require(zones.zone(named: "America/New_York"))
        #expect(zone.startOfDay(LocalDate(daysSinceEpoch: .max)) == .distantFuture)
        #expect(zone.startOfDay(LocalDate(daysSinceEpoch: .min)) == .distantPast)
        #expect(zone.startOfDay(LocalDate(daysSinceEpoch: 110_000_000)) == .distantFuture)
        #expect(zone.startOfDay(LocalDate(daysSinceEpoch: -110_000_000)) == .distantPast)
        #expect(zone.localWallTime(LocalDate(daysSinceEpoch: 0), secondsIntoDay: .max) == .distantFuture)
        #expect(zone.localWallTime(LocalDate(daysSinceEpoch: 0), secondsIntoDay: .min) == .distantPast)
        // Int64.max µs is 294247-01-10T04:00:54Z; New York is then at −5 h (January):
        // 9 January, 23:00:54.
        #expect(Instant.distantFuture.rfc3339 == "294247-01-10T04:00:54.775807Z")
        #expect(zone.localDate(at: .distantFuture) == LocalDate(year: 294_247, month: 1, day: 10).adding(days: -1))
        // Int64.min µs is −290308-12-21T19:59:05Z; local mean time −4:56:02 keeps the 21st.
        #expect(Instant.distantPast.rfc3339 == "-290308-12-21T19:59:05.224192Z")
        #expect(zone.localDate(at: .distantPast) == LocalDate(year: -290_308, month: 12, day: 21))
    }

    /// Every known zone, every offset change 1800–2100: a date is skipped exactly where
    /// `skippedDates` says, and local dates go back exactly where `datesGoingBack` says.
    /// Around each change (the days before, of and after it) the midnight properties hold.
    @Test func unusualDaysAreExactlyTheNamedOnes() throws {
        let zones = try #require(TimeTestFixtures.database)
        let from = TimeTestFixtures.utcSeconds(year: 1800), to = TimeTestFixtures.utcSeconds(year: 2100)
        var skipped: Set<String> = []
        var goingBack: [String: [LocalDate]] = [:]
        var violations: [String] = []
        for name in try TimeTestFixtures.knownNames() {
            let zone = try #require(zones.zone(named: name))
            for t in zone.table.times where t > from && t < to {
                let before = zone.localDate(at: Instant(secondsSinceEpoch: t - 1))
                let after = zone.localDate(at: Instant(secondsSinceEpoch: t))
                if after.days(since: before) > 1 {
                    for gap in 1..<after.days(since: before) { skipped.insert("\(name) \(before.adding(days: gap))") }
                }
                if after < before { goingBack[name, default: []].append(before) }
                for day in min(before, after).adding(days: -1)...max(before, after).adding(days: 1) {
                    if let violation = midnightViolation(zone, day, skipped: skippedDates.contains("\(name) \(day)")) {
                        violations.append(violation)
                    }
                }
            }
        }
        #expect(violations.isEmpty, "\(violations.prefix(5))")
        #expect(skipped == skippedDates)
        #expect(Set(goingBack.keys) == Set(datesGoingBack.keys))
        for (name, dates) in goingBack {
            let expected = datesGoingBack[name]
            #expect(expected?.count == dates.count, "\(name)")
            #expect(expected?.first == dates.first?.description && expected?.last == dates.last?.description, "\(name)")
        }
    }

    /// Every day from 1900 to 2100 in the offbeat zones.
    @Test(arguments: TimeTestFixtures.offbeatZones)
    func midnightPropertiesHoldEveryDay(zoneName: String) throws {
        let zones = try #require(TimeTestFixtures.database)
        let zone = try #require(zones.zone(named: zoneName))
        let first = LocalDate(year: 1900, month: 1, day: 1), last = LocalDate(year: 2100, month: 12, day: 31)
        let violations = (first...last).compactMap { day in
            midnightViolation(zone, day, skipped: skippedDates.contains("\(zoneName) \(day)"))
        }
        #expect(violations.isEmpty, "\(violations.prefix(5))")
    }

    /// Foundation's `Calendar.startOfDay(for:)` (ICU) agrees, 1970–2100, every 11th day and
    /// the days around each of its DST changes (skipped dates have no noon to ask about).
    /// Where Foundation's data is older than the system's, a day it disagrees on passes
    /// only if Python's reading of the system files puts our midnight on that day and the
    /// second before it on an earlier one (`SystemZoneOracle`).
    @Test(arguments: TimeTestFixtures.offbeatZones.filter { !zonesWhereFoundationFollowsNewerLinks.contains($0) })
    func startOfDayMatchesFoundationCalendar(zoneName: String) throws {
        let zones = try #require(TimeTestFixtures.database)
        let zone = try #require(zones.zone(named: zoneName))
        let timeZone = try #require(TimeZone(identifier: zoneName))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let first = LocalDate(year: 1970, month: 1, day: 1), last = LocalDate(year: 2100, month: 1, day: 1)
        var days = Array(stride(from: first, to: last, by: 11))
        var next = timeZone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: 0))
        while let transition = next, transition.timeIntervalSince1970 < Double(TimeTestFixtures.utcSeconds(year: 2100)) {
            let day = zone.localDate(at: Instant(secondsSinceEpoch: Int64(transition.timeIntervalSince1970)))
            days += [day.adding(days: -1), day, day.adding(days: 1)]
            next = timeZone.nextDaylightSavingTimeTransition(after: transition)
        }
        var mismatches: [(day: LocalDate, ours: Instant, theirs: Date)] = []
        for day in days where !skippedDates.contains("\(zoneName) \(day)") {
            let ours = zone.startOfDay(day)
            let noon = DateComponents(year: day.year, month: day.month, day: day.day, hour: 12)
            let theirs = calendar.startOfDay(for: try #require(calendar.date(from: noon)))
            if Int64(theirs.timeIntervalSince1970) != ours.secondsSinceEpoch {
                mismatches.append((day, ours, theirs))
            }
        }
        if SystemZoneOracle.foundationDataDiffers, !mismatches.isEmpty {
            let instants = mismatches.flatMap { [$0.ours.secondsSinceEpoch, $0.ours.secondsSinceEpoch - 1] }
            let offsets = try SystemZoneOracle.offsets(instants.map { (zoneName, $0) })
            // The local date at an instant with Python's offset there.
            func pythonDate(_ index: Int) -> LocalDate {
                LocalDate(wallSecondsSinceEpoch: instants[index] + Int64(offsets[index]))
            }
            mismatches = mismatches.indices.filter { i in
                !(pythonDate(2 * i) == mismatches[i].day && pythonDate(2 * i + 1) < mismatches[i].day)
            }.map { mismatches[$0] }
        }
        #expect(mismatches.isEmpty,
                "\(zoneName): \(mismatches.prefix(5).map { "\($0.day): ours \($0.ours.rfc3339), Foundation \($0.theirs)" })")
    }

    /// The plan date of startOfDay(D) is D (D + 1 for a skipped D); startOfDay(D) comes
    /// before startOfDay(D + 1) (equal for a skipped D); the second before it is an earlier
    /// date, so no earlier instant is on D. Returns what is wrong, or nil.
    private func midnightViolation(_ zone: Zone, _ day: LocalDate, skipped: Bool) -> String? {
        let midnight = zone.startOfDay(day)
        let nextMidnight = zone.startOfDay(day.adding(days: 1))
        let dateAtMidnight = zone.localDate(at: midnight)
        let dateJustBefore = zone.localDate(at: midnight.adding(seconds: -1))
        let expectedDate = skipped ? day.adding(days: 1) : day
        let orderHolds = skipped ? midnight == nextMidnight : midnight < nextMidnight
        guard dateAtMidnight == expectedDate, orderHolds, dateJustBefore < day else {
            return "\(zone.name) \(day): midnight \(midnight.rfc3339) is on \(dateAtMidnight), "
                + "next midnight \(nextMidnight.rfc3339), a second earlier is \(dateJustBefore)"
        }
        return nil
    }
}
