import Foundation

// PLACEHOLDER implementation over Foundation.TimeZone so the rest of PlanRules can be
// written against this API today. The time-zone work replaces the internals (exact,
// fast, table driven) but keeps these public signatures.

/// The rules of one IANA time zone: UTC offsets over time, local dates, local midnights.
public final class Zone: Sendable {
    /// The name as the user's row wrote it (`US/Eastern` stays `US/Eastern`).
    public let name: String
    private let timeZone: TimeZone

    init?(name: String) {
        guard let tz = TimeZone(identifier: name) else { return nil }
        self.name = name
        self.timeZone = tz
    }

    /// Seconds east of UTC in effect at `instant`.
    public func utcOffsetSeconds(at instant: Instant) -> Int {
        timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant.secondsSinceEpoch)))
    }

    /// The local calendar date at `instant` (plan-rules.md section 2, "Plan date").
    public func localDate(at instant: Instant) -> LocalDate {
        let local = instant.secondsSinceEpoch + Int64(utcOffsetSeconds(at: instant))
        return LocalDate(daysSinceEpoch: Int(local >= 0 ? local / 86_400 : (local - 86_399) / 86_400))
    }

    /// Local midnight of `date`: the first instant whose local date is `date`; where a
    /// DST jump skips 00:00, the first instant that exists; for a date the zone skips
    /// entirely, the next date's midnight.
    public func startOfDay(_ date: LocalDate) -> Instant {
        localWallTime(date, secondsIntoDay: 0)
    }

    /// The first instant whose local wall time is at or after `secondsIntoDay` on `date`
    /// (e.g. 08:00 local for a notification's `deliver_after`).
    public func localWallTime(_ date: LocalDate, secondsIntoDay: Int) -> Instant {
        let wall = Int64(date.daysSinceEpoch) * 86_400 + Int64(secondsIntoDay)
        // Offsets lie within ±26 h; scan candidates from the earliest possible instant.
        var best: Int64? = nil
        for offset in stride(from: -26 * 3600, through: 26 * 3600, by: 900) {
            let t = wall - Int64(offset)
            let o = Int64(utcOffsetSeconds(at: Instant(secondsSinceEpoch: t)))
            if t + o >= wall, best == nil || t < best! { best = t }
        }
        var t = best!
        // Step back to the earliest second whose local wall time is still >= wall.
        var step: Int64 = 900
        while step >= 1 {
            let c = t - step
            if c + Int64(utcOffsetSeconds(at: Instant(secondsSinceEpoch: c))) >= wall { t = c } else { step /= 2 }
        }
        return Instant(secondsSinceEpoch: t)
    }
}

/// The system's time zone database: which names are known zones (the `Z` and `L` lines
/// of `/usr/share/zoneinfo/tzdata.zi`, plan-rules.md section 1) and their rules.
public final class ZoneDatabase: Sendable {
    public let version: String
    private let knownNames: Set<String>

    public init(knownNames: Set<String>, version: String) {
        self.knownNames = knownNames
        self.version = version
    }

    /// Reads `tzdata.zi` (default `/usr/share/zoneinfo/tzdata.zi`).
    public static func loadSystem(path: String = "/usr/share/zoneinfo/tzdata.zi") throws -> ZoneDatabase {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var names = Set<String>()
        var version = "unknown"
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# version ") { version = String(line.dropFirst(10)) }
            let parts = line.split(separator: " ")
            if parts.first == "Z", parts.count > 1 { names.insert(String(parts[1])) }
            if parts.first == "L", parts.count > 2 { names.insert(String(parts[2])) }
        }
        return ZoneDatabase(knownNames: names, version: version)
    }

    public func isKnown(_ name: String) -> Bool { knownNames.contains(name) }

    /// The zone, or nil when `name` is not a known zone (a validation error, never a crash).
    public func zone(named name: String) -> Zone? {
        guard isKnown(name) else { return nil }
        return Zone(name: name)
    }
}
