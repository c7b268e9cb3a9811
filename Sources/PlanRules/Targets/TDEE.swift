/// Total daily energy expenditure (plan-rules.md section 3): TDEE = BMR × m, from the
/// unrounded BMR. Held exactly as TDEE × 3200 = (BMR × 80) × (40·m).
public struct TDEE: Hashable, Sendable {
    /// TDEE × 3200, an exact integer.
    public let times3200: Int

    public init(bmr: BMR, activityLevel: ActivityLevel) {
        times3200 = bmr.times80 * activityLevel.multiplierTimes40
    }

    /// `tdee`: rounded once, half away from zero.
    public var rounded: Int { roundHalfAwayFromZero(times3200, over: 3200) }
}

extension ActivityLevel {
    /// The activity multiplier m × 40, exact: 1.2 → 48, 1.375 → 55, 1.55 → 62,
    /// 1.725 → 69, 1.9 → 76.
    public var multiplierTimes40: Int {
        switch self {
        case .sedentary: 48
        case .lightlyActive: 55
        case .moderatelyActive: 62
        case .veryActive: 69
        case .extremelyActive: 76
        }
    }
}
