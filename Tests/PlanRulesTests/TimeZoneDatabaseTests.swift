import Foundation
import Testing
@testable import PlanRules

/// Shared by the time tests.
enum TimeTestFixtures {
    /// One system database for all time tests (reading `tzdata.zi` once).
    static let database: ZoneDatabase? = try? ZoneDatabase.loadSystem()

    /// Zones with something unusual, plus the common ones; every offset test runs over all.
    static let offbeatZones = [
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

    /// UTC seconds since the epoch of a UTC date and time.
    static func utcSeconds(year: Int, month: Int = 1, day: Int = 1, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Int64 {
        Int64(LocalDate(year: year, month: month, day: day).daysSinceEpoch) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The `Z` and `L` names of the system's tzdata.zi, read independently of `ZoneDatabase`.
    static func knownNames() throws -> [String] {
        let text = try String(contentsOfFile: "/usr/share/zoneinfo/tzdata.zi", encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            if parts.first == "Z", parts.count > 1 { return String(parts[1]) }
            if parts.first == "L", parts.count > 2 { return String(parts[2]) }
            return nil
        }
    }
}
