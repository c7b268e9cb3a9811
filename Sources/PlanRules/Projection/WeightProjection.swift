/// How fast and by when the target weight is reached (plan-rules.md section 5).
///
/// Only lose_weight and gain_muscle project, and only toward a target on the goal's side
/// with a positive energy gap. Only deficit days lose weight, so a lose_weight gap
/// counts half over the 28-day cycle: weekly rate = (g / 2) × 7 / 7700 = g / 2200 kg;
/// gain_muscle: g × 7 / 7700 = g / 1100 kg.
public struct WeightProjection: Hashable, Sendable {
    /// The daily energy gap g, kcal (0 when there is no projection).
    public private(set) var energyGap = 0
    /// Δ₁₀ = |target w₁₀ − reported w₁₀| (0 without a target).
    public private(set) var remainingTenthsKg = 0
    /// `weekly_rate_kg` × 1000, rounded half away from zero (0 without a projection).
    public private(set) var weeklyRateThousandthsKg = 0
    /// `estimated_weeks`; nil without a projection or beyond the cap.
    public private(set) var estimatedWeeks: Int?
    /// Flag `projection_beyond_10_years`: more than 520 weeks.
    public private(set) var beyondTenYears = false

    /// 10 years, in weeks: longer estimates are not shown.
    public static let maximumWeeks = 520

    /// The energy in one kg of body weight.
    public static let kcalPerKg = 7_700

    /// The daily gap that moves the weight 1 kg a week: lose_weight 7700 × 2 / 7 = 2200
    /// (only deficit days, half the cycle, count), gain_muscle 7700 / 7 = 1100.
    public static func gapPerWeeklyKg(_ goal: PrimaryGoal) -> Int? {
        switch goal {
        case .loseWeight: kcalPerKg * 2 / 7
        case .gainMuscle: kcalPerKg / 7
        case .maintainWeight, .improveHealth: nil
        }
    }

    /// - Parameters:
    ///   - deficitPhaseCalories: lose_weight's calories in the deficit phase, whatever the
    ///     plan's phase today (the gap is an average over the whole cycle).
    ///   - calories: the plan's calories (the gain_muscle gap).
    public init(goal: PrimaryGoal, reportedTenthsKg: Int, targetTenthsKg: Int?,
                tdee: Int, calories: Int, deficitPhaseCalories: Int) {
        let gap: Int
        switch goal {
        case .loseWeight: gap = tdee - deficitPhaseCalories
        case .gainMuscle: gap = calories - tdee
        case .maintainWeight, .improveHealth: gap = 0
        }
        remainingTenthsKg = targetTenthsKg.map { abs($0 - reportedTenthsKg) } ?? 0
        guard let target = targetTenthsKg, goal.isOnGoalSide(target: target, reported: reportedTenthsKg),
              let gapPerWeeklyKg = Self.gapPerWeeklyKg(goal), gap > 0 else { return }
        energyGap = gap
        // g / 2200 kg = g × 1000 / 2200 thousandths; Δ₁₀ / 10 kg at that rate: Δ₁₀ × 2200 / (10 g) weeks.
        weeklyRateThousandthsKg = roundHalfAwayFromZero(gap * 1000, over: gapPerWeeklyKg)
        let weeks = ceilingDivision(remainingTenthsKg * gapPerWeeklyKg, by: gap * 10)
        beyondTenYears = weeks > Self.maximumWeeks
        estimatedWeeks = beyondTenYears ? nil : weeks
    }

    /// `projected_date` = plan date + 7 × estimated_weeks days.
    public func projectedDate(from planDate: LocalDate) -> LocalDate? {
        estimatedWeeks.map { planDate.adding(days: 7 * $0) }
    }
}

extension PrimaryGoal {
    /// The target lies in the goal's direction: below the reported weight for
    /// lose_weight, above it for gain_muscle; never for the other goals.
    public func isOnGoalSide(target: Int, reported: Int) -> Bool {
        switch self {
        case .loseWeight: target < reported
        case .gainMuscle: target > reported
        case .maintainWeight, .improveHealth: false
        }
    }
}
