/// A MATADOR cycle (plan-rules.md section 4): 14 days of deficit, 14 days at
/// maintenance, repeating from the cycle start.
///
/// Day n = (date − cycle start); block k = ⌊n / 14⌋; even blocks are deficit, odd blocks
/// maintenance. The boundaries are the days with n > 0 and n mod 14 = 0.
public struct MatadorCycle: Hashable, Sendable {
    /// The length of each phase, in days.
    public static let phaseLength = 14

    public let start: LocalDate

    /// Day n of the cycle at `date` (not before `start`).
    public func day(at date: LocalDate) -> Int {
        date.days(since: start)
    }

    /// `phase` at `date`: deficit in even blocks, maintenance in odd blocks.
    public func phase(at date: LocalDate) -> Phase {
        (day(at: date) / Self.phaseLength) % 2 == 0 ? .deficit : .maintenance
    }

    /// `phase_day`: n mod 14.
    public func phaseDay(at date: LocalDate) -> Int {
        day(at: date) % Self.phaseLength
    }

    /// `next_phase_switch_date`: the first boundary after `date`.
    public func nextPhaseSwitchDate(after date: LocalDate) -> LocalDate {
        let block = floorDivision(day(at: date), by: Self.phaseLength)
        return start.adding(days: Self.phaseLength * max(1, block + 1))
    }

    /// Whether a boundary falls after `lastEvaluated` and on or before `planDate`: the
    /// `phase_switch` reason of section 2 ("one of its boundaries falls after E and on
    /// or before D").
    public func hasBoundary(after lastEvaluated: LocalDate, through planDate: LocalDate) -> Bool {
        nextPhaseSwitchDate(after: lastEvaluated) <= planDate
    }

    /// The phase fields of a snapshot at `planDate`.
    public func phaseInfo(at planDate: LocalDate) -> Snapshot.PhaseInfo {
        Snapshot.PhaseInfo(phase: phase(at: planDate), cycleStartDate: start,
                           phaseDay: phaseDay(at: planDate),
                           nextPhaseSwitchDate: nextPhaseSwitchDate(after: planDate))
    }
}
