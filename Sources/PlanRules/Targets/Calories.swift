/// Daily calories (plan-rules.md section 3): max(floor, `tdee` + adjustment).
public struct CalorieTarget: Hashable, Sendable {
    /// The goal's adjustment in this phase: −500, 0 or +250.
    public let adjustment: Int
    /// 1500 male, 1200 female, 1350 other.
    public let floor: Int
    public let calories: Int
    /// The floor raised the value: flag `calorie_floor_applied`.
    public let floorApplied: Bool

    public init(tdee: Int, goal: PrimaryGoal, phase: Phase, gender: Gender) {
        adjustment = goal.calorieAdjustment(in: phase)
        floor = gender.calorieFloor
        let adjusted = tdee + adjustment
        floorApplied = floor > adjusted
        calories = max(floor, adjusted)
    }
}

extension PrimaryGoal {
    /// lose_weight −500 in the deficit phase and 0 in maintenance; gain_muscle +250 (the
    /// profile spec's "~0.25 kg/week", not the onboarding documents' +400/+500);
    /// maintain_weight and improve_health 0.
    public func calorieAdjustment(in phase: Phase) -> Int {
        switch self {
        case .loseWeight: phase == .deficit ? -500 : 0
        case .gainMuscle: 250
        case .maintainWeight, .improveHealth: 0
        }
    }
}

extension Gender {
    /// The lowest daily calories a plan may give.
    public var calorieFloor: Int {
        switch self {
        case .male: 1500
        case .female: 1200
        case .other: 1350
        }
    }
}
