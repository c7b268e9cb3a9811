/// What the target date says about the plan (plan-rules.md section 5): passed, or too
/// soon for a safe pace, with a date that would be safe.
public struct TargetDateCheck: Hashable, Sendable {
    /// Flag `target_date_passed`: a target date on or before the plan date (any goal).
    public private(set) var targetDatePassed = false
    /// Flag `timeline_unrealistic`: the target needs more than 1.0 kg/week (lose) or
    /// 0.5 kg/week (gain).
    public private(set) var timelineUnrealistic = false
    /// `recommended_target_date`, set with `timelineUnrealistic`.
    public private(set) var recommendedTargetDate: LocalDate?

    /// Safe pace in tenths of a kg per week: 1.0 kg to lose, 0.5 kg to gain.
    public static func safeTenthsKgPerWeek(_ goal: PrimaryGoal) -> Int? {
        switch goal {
        case .loseWeight: safeLossTenthsKgPerWeek
        case .gainMuscle: safeGainTenthsKgPerWeek
        case .maintainWeight, .improveHealth: nil
        }
    }

    public static let safeLossTenthsKgPerWeek = 10
    public static let safeGainTenthsKgPerWeek = 5

    public init(goal: PrimaryGoal, reportedTenthsKg: Int, targetTenthsKg: Int?,
                targetDate: LocalDate?, planDate: LocalDate) {
        guard let targetDate else { return }
        guard targetDate > planDate else {
            targetDatePassed = true
            return
        }
        guard let target = targetTenthsKg, goal.isOnGoalSide(target: target, reported: reportedTenthsKg),
              let pace = Self.safeTenthsKgPerWeek(goal) else { return }
        // Δ₁₀ / 10 kg over days / 7 weeks faster than pace / 10 kg a week:
        // Δ₁₀ × 7 > pace × days (lose: 10 × days; gain: 5 × days, i.e. Δ₁₀ × 14 > 10 × days).
        let remaining = abs(target - reportedTenthsKg)
        guard remaining * 7 > pace * targetDate.days(since: planDate) else { return }
        timelineUnrealistic = true
        recommendedTargetDate = planDate.adding(days: 7 * ceilingDivision(remaining, by: pace))
    }
}
