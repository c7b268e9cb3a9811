// What reading and validation hand to the rest of PlanRules.

/// A complete, valid settings row, read per section 1 (heights and weights in tenths,
/// NULL defaults applied, NULL array elements dropped). The inputs a plan is computed from;
/// fields named as a snapshot's `inputs` name them (section 6).
public struct ValidSettings: Hashable, Sendable {
    public var dateOfBirth: LocalDate
    public var gender: Gender
    public var heightTenthsCm: Int
    public var weightReportedTenthsKg: Int
    public var primaryGoal: PrimaryGoal
    public var activityLevel: ActivityLevel
    public var targetWeightTenthsKg: Int?
    public var targetDate: LocalDate?
    public var dietaryPreferences: [String]
    public var allergies: [String]
    public var mealsPerDay: Int
    /// The row's string as written (`US/Eastern` stays `US/Eastern`; NULL is `UTC`).
    public var timezone: String
    /// The row's `updated_at`; NULL reads as nil and is written as JSON null.
    public var settingsUpdatedAt: Instant?
}

/// The field names of section 1.2's table, in its order.
public enum SettingsField: String, Hashable, Sendable, CaseIterable {
    case dateOfBirth = "date_of_birth"
    case gender
    case heightCm = "height_cm"
    case currentWeightKg = "current_weight_kg"
    case targetWeightKg = "target_weight_kg"
    case primaryGoal = "primary_goal"
    case activityLevel = "activity_level"
    case timezone
    case mealsPerDay = "meals_per_day"
    case dietaryPreferences = "dietary_preferences"
    case allergies
}

/// One failing field of a rejected row, with the spec's message (section 1.2).
public struct FieldRejection: Hashable, Sendable {
    public var field: SettingsField
    public var message: String
}

/// The verdict on a settings row at a plan date (sections 1.1 and 1.2).
public enum RowJudgement: Hashable, Sendable {
    case incomplete
    /// One rejection per failing field, in the table's order.
    case rejected([FieldRejection])
    case valid(ValidSettings)
}
