/// A leaf of a snapshot that a diff can name (plan-rules.md section 6), by its dotted path:
/// every input, target, phase and projection field, and `flags` and `rules_version` whole.
public enum PlanField: String, Hashable, Sendable, CaseIterable {
    case flags
    case rulesVersion = "rules_version"
    case dateOfBirth = "inputs.date_of_birth"
    case age = "inputs.age"
    case gender = "inputs.gender"
    case heightCm = "inputs.height_cm"
    case weightKgReported = "inputs.weight_kg_reported"
    case weightKgBasis = "inputs.weight_kg_basis"
    case primaryGoal = "inputs.primary_goal"
    case activityLevel = "inputs.activity_level"
    case targetWeightKg = "inputs.target_weight_kg"
    case targetDate = "inputs.target_date"
    case dietaryPreferences = "inputs.dietary_preferences"
    case allergies = "inputs.allergies"
    case mealsPerDay = "inputs.meals_per_day"
    case timezone = "inputs.timezone"
    case settingsUpdatedAt = "inputs.settings_updated_at"
    case bmr = "targets.bmr"
    case tdee = "targets.tdee"
    case calories = "targets.calories"
    case proteinG = "targets.protein_g"
    case fatG = "targets.fat_g"
    case carbsG = "targets.carbs_g"
    case waterMl = "targets.water_ml"
    case phase = "phase.phase"
    case cycleStartDate = "phase.cycle_start_date"
    case phaseDay = "phase.phase_day"
    case nextPhaseSwitchDate = "phase.next_phase_switch_date"
    case weeklyRateKg = "projection.weekly_rate_kg"
    case estimatedWeeks = "projection.estimated_weeks"
    case projectedDate = "projection.projected_date"
    case recommendedTargetDate = "projection.recommended_target_date"

    /// A field of `targets`.
    public var isTarget: Bool { rawValue.hasPrefix("targets.") }
    /// A field of `inputs`.
    public var isInput: Bool { rawValue.hasPrefix("inputs.") }

    /// The name without its section: `calories` for `targets.calories` (a key of a
    /// notification's `data`).
    public var name: Substring {
        let path = rawValue
        return path.lastIndex(of: ".").map { path[path.index(after: $0)...] } ?? path[...]
    }
}
