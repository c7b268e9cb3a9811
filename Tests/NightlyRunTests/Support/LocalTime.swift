import Foundation
import PlanRules
import Testing

/// Local dates and midnights computed with Foundation's calendar, independently of the
/// job's own zone code, so tests check the job against a second implementation.
enum LocalTime {
    /// The first instant of `date` in `zone` (where DST skips 00:00, the first instant that
    /// exists: Foundation's `startOfDay` handles that).
    static func midnight(of date: LocalDate, in zone: String) throws -> Instant {
        let calendar = try self.calendar(zone)
        let noon = try #require(calendar.date(from: DateComponents(
            year: date.year, month: date.month, day: date.day, hour: 12)))
        return instant(calendar.startOfDay(for: noon))
    }

    /// `hour:minute` local time on `date` in `zone`.
    static func wallTime(_ date: LocalDate, hour: Int, minute: Int = 0, in zone: String) throws -> Instant {
        let calendar = try self.calendar(zone)
        let moment = try #require(calendar.date(from: DateComponents(
            year: date.year, month: date.month, day: date.day, hour: hour, minute: minute)))
        return instant(moment)
    }

    /// The local calendar date at `instant` in `zone`.
    static func date(at instant: Instant, in zone: String) throws -> LocalDate {
        let calendar = try self.calendar(zone)
        let moment = Date(timeIntervalSince1970: TimeInterval(instant.secondsSinceEpoch))
        let parts = calendar.dateComponents([.year, .month, .day], from: moment)
        return LocalDate(year: try #require(parts.year), month: try #require(parts.month), day: try #require(parts.day))
    }

    private static func calendar(_ zone: String) throws -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone), "Foundation does not know \(zone)")
        return calendar
    }

    private static func instant(_ date: Date) -> Instant {
        Instant(secondsSinceEpoch: Int64(date.timeIntervalSince1970.rounded()))
    }
}

extension Instant {
    /// This instant plus `minutes` (negative: earlier).
    func adding(minutes: Int64) -> Instant { adding(seconds: minutes * 60) }
}
