/// Section 3's targets for one set of inputs, with the exact intermediate values the
/// explanation shows (unrounded BMR and TDEE, the goal adjustment, the floor).
public struct PlanTargets: Hashable, Sendable {
    public let age: Int
    public let bmr: BMR
    public let tdee: TDEE
    /// The MATADOR cycle (lose_weight only) and the phase it gives at the plan date.
    public let cycle: MatadorCycle?
    public let phase: Phase
    public let calories: CalorieTarget
    /// lose_weight's calories in the deficit phase, for the energy gap of section 5.
    public let deficitPhaseCalories: Int
    public let macros: MacroTargets
    public let waterMl: Int

    /// The targets of `inputs` (basis weight, height, age, gender, activity, goal): for a new
    /// plan, and again for `explain`'s steps.
    public init(_ inputs: Snapshot.Inputs, cycle: MatadorCycle?, planDate: LocalDate) {
        let (weight, gender, goal) = (inputs.weightBasisTenthsKg, inputs.gender, inputs.primaryGoal)
        age = inputs.age
        bmr = BMR(weightTenthsKg: weight, heightTenthsCm: inputs.heightTenthsCm, age: age, gender: gender)
        tdee = TDEE(bmr: bmr, activityLevel: inputs.activityLevel)
        self.cycle = cycle
        phase = cycle?.phase(at: planDate) ?? .none
        calories = CalorieTarget(tdee: tdee.rounded, goal: goal, phase: phase, gender: gender)
        deficitPhaseCalories = phase == .deficit
            ? calories.calories
            : CalorieTarget(tdee: tdee.rounded, goal: goal, phase: .deficit, gender: gender).calories
        macros = MacroTargets(calories: calories.calories, weightTenthsKg: weight, goal: goal)
        waterMl = PlanRules.waterMl(weightTenthsKg: weight)
    }

    /// The `targets` object of a snapshot.
    public var snapshotTargets: Snapshot.Targets {
        Snapshot.Targets(bmr: bmr.rounded, tdee: tdee.rounded, calories: calories.calories,
                         proteinG: macros.proteinG, fatG: macros.fatG, carbsG: macros.carbsG, waterMl: waterMl)
    }
}
