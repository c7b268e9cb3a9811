import Foundation
import Testing
@testable import PlanRules

/// Zones with something unusual, plus the common ones; every offset test runs over all.
let offbeatZones = [
    "Asia/Kathmandu",        // +05:45
    "Pacific/Chatham",       // +12:45 / +13:45, DST at 02:45 local
    "Pacific/Kiritimati",    // +14, skipped 1994-12-31
    "Etc/GMT+12",            // −12, POSIX sign inverted in the name
    "Etc/GMT-14",            // +14
    "Pacific/Pago_Pago",     // −11
    "Australia/Lord_Howe",   // 30-minute DST
    "Australia/Eucla",       // +08:45
    "America/Santiago",      // DST starts at 24:00 Saturday, skipping midnight
    "America/Havana",        // DST at 00:00, skipping midnight
    "America/St_Johns",      // −03:30; 2010-11-07 fall-back at 00:01
    "America/Asuncion",
    "America/Sao_Paulo",     // DST abolished in 2019
    "America/Caracas",       // −04:30 from 2007 to 2016
    "America/Scoresbysund",  // rule time −1 h (M3.5.0/-1)
    "America/Nuuk",
    "America/Miquelon",
    "America/Mexico_City",
    "Pacific/Apia",          // skipped 2011-12-30
    "Pacific/Easter",
    "Pacific/Norfolk",
    "Pacific/Auckland",
    "Africa/Casablanca",     // Ramadan DST listed out to 2087
    "Africa/Cairo",          // M4.5.5/0, M10.5.4/24
    "Asia/Tehran",           // +03:30
    "Asia/Jerusalem",        // M3.4.4/26
    "Asia/Gaza",
    "Asia/Hebron",           // M3.4.4/50
    "Asia/Beirut",           // DST at 00:00
    "Asia/Kolkata",          // +05:30
    "Asia/Tokyo",
    "Asia/Shanghai",
    "Europe/Dublin",         // negative DST: IST-1GMT0
    "Europe/Berlin",
    "Europe/London",
    "Europe/Moscow",
    "Europe/Chisinau",
    "Atlantic/Azores",       // DST at 00:00 UTC
    "Antarctica/Troll",      // +00 / +02 DST
    "America/New_York",
    "US/Eastern",            // a link
    "America/Chicago",
    "America/Denver",
    "America/Phoenix",
    "America/Los_Angeles",
    "America/Anchorage",
    "Pacific/Honolulu",
    "Australia/Sydney",
    "Australia/Adelaide",    // +09:30 / +10:30
    "UTC",
    "EST",
]

/// Seconds from 1970-01-01T00:00:00Z to `year`-01-01T00:00:00Z.
func utcSeconds(year: Int, month: Int = 1, day: Int = 1, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Int64 {
    Int64(LocalDate(year: year, month: month, day: day).daysSinceEpoch) * 86_400
        + Int64(hour * 3600 + minute * 60 + second)
}

@Suite struct TimeZoneOffsetTests {
    /// Every offset change Foundation (ICU's own copy of the tz data) reports between 1970
    /// and 2100, one second before, at and after it, and a sample every 25 h 0 min 7 s
    /// (the hour drifts through the day), must match ours to the second. After 2037 the
    /// fat TZif files list nothing: those answers come from the footer rule.
    @Test(arguments: offbeatZones)
    func offsetsMatchFoundation(name: String) throws {
        let zones = try #require(TimeTestFixtures.database)
        let zone = try #require(zones.zone(named: name))
        let reference = try #require(TimeZone(identifier: name))
        let start = utcSeconds(year: 1970), end = utcSeconds(year: 2100)

        var instants: [Int64] = Array(stride(from: start, to: end, by: 25 * 3600 + 7))
        var next = reference.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: Double(start)))
        while let transition = next, transition.timeIntervalSince1970 < Double(end) {
            let t = Int64(transition.timeIntervalSince1970)
            instants += [t - 1, t, t + 1]
            next = reference.nextDaylightSavingTimeTransition(after: transition)
        }
        var mismatches: [String] = []
        for t in instants {
            let expected = reference.secondsFromGMT(for: Date(timeIntervalSince1970: Double(t)))
            let actual = zone.utcOffsetSeconds(at: Instant(secondsSinceEpoch: t))
            if expected != actual, mismatches.count < 5 {
                mismatches.append("\(Instant(secondsSinceEpoch: t).rfc3339): Foundation \(expected), ours \(actual)")
            }
        }
        #expect(mismatches.isEmpty, "\(name): \(mismatches)")
        #expect(instants.count > 18_000)  // 130 years of 25-hour samples alone are 45 560
    }
}
