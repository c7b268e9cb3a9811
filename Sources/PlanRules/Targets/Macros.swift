/// Protein, fat and carbs in grams (plan-rules.md section 3), from the rounded calories.
///
/// Carbs take what protein (4 kcal/g) and fat (9 kcal/g) leave. When they leave less
/// than nothing, fat is lowered so carbs are 0, but never below half the body weight in
/// grams; if even that does not fit, fat stays at that minimum and `macro_overflow` is set.
public struct MacroTargets: Hashable, Sendable {
    public let proteinG: Int
    public let fatG: Int
    public let carbsG: Int
    /// Fat was lowered from round(weight × 1.0) so that carbs are 0 and it fits.
    public let fatLowered: Bool
    /// Flag `macro_overflow`: protein and the minimum fat exceed the calories.
    public let macroOverflow: Bool

    public init(calories: Int, weightTenthsKg: Int, goal: PrimaryGoal) {
        proteinG = roundHalfAwayFromZero(weightTenthsKg * goal.proteinRatioTimes10, over: 100)
        let fullFat = Self.fullFatG(weightTenthsKg: weightTenthsKg)
        let remaining = calories - Self.kcalPerGramProtein * proteinG - Self.kcalPerGramFat * fullFat
        if remaining >= 0 {
            fatG = fullFat
            carbsG = roundHalfAwayFromZero(remaining, over: Self.kcalPerGramCarbs)
            fatLowered = false
            macroOverflow = false
            return
        }
        let fittingFat = floorDivision(calories - Self.kcalPerGramProtein * proteinG, by: Self.kcalPerGramFat)
        let minimumFat = Self.minimumFatG(weightTenthsKg: weightTenthsKg)
        carbsG = 0
        fatLowered = true
        if fittingFat >= minimumFat {
            fatG = fittingFat
            macroOverflow = false
        } else {
            fatG = minimumFat
            macroOverflow = true
        }
    }

    public static let kcalPerGramProtein = 4
    public static let kcalPerGramFat = 9
    public static let kcalPerGramCarbs = 4
    /// Fat g per kg × 10: 1.0 in full, never below 0.5.
    public static let fatRatioTimes10 = 10
    public static let minimumFatRatioTimes10 = 5

    /// round(weight × 1.0).
    public static func fullFatG(weightTenthsKg: Int) -> Int {
        roundHalfAwayFromZero(weightTenthsKg * fatRatioTimes10, over: 100)
    }

    /// round(weight × 0.5): the least fat a plan gives.
    public static func minimumFatG(weightTenthsKg: Int) -> Int {
        roundHalfAwayFromZero(weightTenthsKg * minimumFatRatioTimes10, over: 100)
    }
}

extension PrimaryGoal {
    /// Protein g per kg × 10: lose_weight 2.0, gain_muscle 2.2, maintain_weight and
    /// improve_health 1.6.
    public var proteinRatioTimes10: Int {
        switch self {
        case .loseWeight: 20
        case .gainMuscle: 22
        case .maintainWeight, .improveHealth: 16
        }
    }
}
