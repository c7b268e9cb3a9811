/// What the target date says about the plan (plan-rules.md section 5): passed, or too
/// soon for a safe pace, with a date that would be safe.
public struct TargetDateCheck: Hashable, Sendable {
    /// Flag `target_date_passed`: a target date on or before the plan date (any goal).
    public let targetDatePassed: Bool
    /// Flag `timeline_unrealistic`: the target needs more than 1.0 kg/week (lose) or
    /// 0.5 kg/week (gain).
    public let timelineUnrealistic: Bool
    /// `recommended_target_date`, set with `timelineUnrealistic`.
    public let recommendedTargetDate: LocalDate?

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
        guard let targetDate else {
            self.init(passed: false, unrealistic: false, recommended: nil)
            return
        }
        guard targetDate > planDate else {
            self.init(passed: true, unrealistic: false, recommended: nil)
            return
        }
        guard let target = targetTenthsKg, goal.isOnGoalSide(target: target, reported: reportedTenthsKg),
              let pace = Self.safeTenthsKgPerWeek(goal) else {
            self.init(passed: false, unrealistic: false, recommended: nil)
            return
        }
        // Δ₁₀ / 10 kg over days / 7 weeks faster than pace / 10 kg a week:
        // Δ₁₀ × 7 > pace × days (lose: 10 × days; gain: 5 × days, i.e. Δ₁₀ × 14 > 10 × days).
        let remaining = abs(target - reportedTenthsKg)
        let days = targetDate.days(since: planDate)
        guard remaining * 7 > pace * days else {
            self.init(passed: false, unrealistic: false, recommended: nil)
            return
        }
        let weeks = ceilingDivision(remaining, by: pace)
        self.init(passed: false, unrealistic: true, recommended: planDate.adding(days: 7 * weeks))
    }

    private init(passed: Bool, unrealistic: Bool, recommended: LocalDate?) {
        targetDatePassed = passed
        timelineUnrealistic = unrealistic
        recommendedTargetDate = recommended
    }
}
