/// The rules of one IANA time zone: UTC offsets over time, local dates, local midnights
/// (plan-rules.md section 2). Obtain one from `ZoneDatabase.zone(named:)`.
public final class Zone: Sendable {
    /// The name as the user's row wrote it (`US/Eastern` stays `US/Eastern`).
    public let name: String
    /// Internal so tests can walk the offset changes when they look for unusual days.
    let table: OffsetTable

    init(name: String, table: OffsetTable) {
        self.name = name
        self.table = table
    }

    /// The zone `name` from the bytes of its compiled TZif file (RFC 8536).
    public convenience init(name: String, tzif bytes: [UInt8]) throws(TZifError) {
        self.init(name: name, table: OffsetTable(try TZifFile(bytes: bytes)))
    }

    /// The local calendar date at `instant` (plan-rules.md section 2, "Plan date").
    public func localDate(at instant: Instant) -> LocalDate {
        let second = instant.secondsSinceEpoch
        return LocalDate(wallSecondsSinceEpoch: second + Int64(table.offset(at: second)))
    }

    /// Local midnight of `date`: the first instant whose local date is `date`; where a
    /// DST jump skips 00:00, the first instant that exists; for a date the zone skips
    /// entirely, the next date's midnight.
    ///
    /// Where a fall-back just after midnight repeats the end of the previous day
    /// (America/St_Johns, 2010-11-07), this is still the first midnight, not the second.
    public func startOfDay(_ date: LocalDate) -> Instant {
        localWallTime(date, secondsIntoDay: 0)
    }

    /// The first instant whose local wall time is at or after `secondsIntoDay` on `date`
    /// (e.g. 08:00 local for a notification's `deliver_after`).
    ///
    /// Dates so far away that the answer lies outside `Instant`'s range give
    /// `Instant.distantPast` or `Instant.distantFuture`.
    public func localWallTime(_ date: LocalDate, secondsIntoDay: Int) -> Instant {
        let (dayStart, overflowed) = Int64(date.daysSinceEpoch).multipliedReportingOverflow(by: 86_400)
        let (wall, overflowedAgain) = dayStart.addingReportingOverflow(Int64(secondsIntoDay))
        guard !overflowed, !overflowedAgain, wall.magnitude <= Self.maxWallSeconds else {
            let direction = Double(date.daysSinceEpoch) * 86_400 + Double(secondsIntoDay)
            return direction < 0 ? .distantPast : .distantFuture
        }
        let second = table.firstSecond(atOrAfterWall: wall)
        if second < Self.instantSeconds.lowerBound { return .distantPast }
        if second > Self.instantSeconds.upperBound { return .distantFuture }
        return Instant(secondsSinceEpoch: second)
    }

    /// Whole seconds that an `Instant` (microseconds in an `Int64`) can hold.
    private static let instantSeconds = (Int64.min / 1_000_000)...(Int64.max / 1_000_000)

    /// Wall-clock seconds comfortably beyond `Instant`'s ±9.2 × 10¹² s, small enough that
    /// the table search cannot overflow.
    private static let maxWallSeconds: UInt64 = 100_000_000_000_000
}
