/// A `user_settings` row after reading (plan-rules.md section 1) and before any rule:
/// heights and weights in tenths, dates comparable, NULL defaults applied, NULL array
/// elements dropped. Every check of sections 1.1 and 1.2 applies to these values.
public struct ReadSettings: Hashable, Sendable {
    /// nil for NULL (or text PostgreSQL would not write as a date).
    public var dateOfBirth: LocalDate?
    public var gender: String?
    public var heightTenthsCm: Int?
    public var currentWeightTenthsKg: Int?
    public var targetWeightTenthsKg: Int?
    public var primaryGoal: String?
    public var targetDate: LocalDate?
    public var activityLevel: String?
    /// In the row's order (a reordered list is a change), NULL elements dropped.
    public var dietaryPreferences: [String]
    public var allergies: [String]
    /// NULL reads as 3.
    public var mealsPerDay: Int
    /// NULL reads as `UTC`; otherwise exactly as written (names are case-sensitive).
    public var timezone: String
    /// NULL reads as false: only `true` completes onboarding.
    public var onboardingCompleted: Bool
    public var updatedAt: Instant?

    public static let defaultMealsPerDay = 3
    public static let defaultTimezone = "UTC"

    /// Borrowing: an initializer would otherwise take the whole row owned, a copy of
    /// every string and array in it, to keep a few.
    public init(row: borrowing UserSettingsRow) {
        dateOfBirth = row.dateOfBirth.flatMap(DateText.localDate)
        gender = row.gender
        heightTenthsCm = row.heightCm.map(NumericText.tenths)
        currentWeightTenthsKg = row.currentWeightKg.map(NumericText.tenths)
        targetWeightTenthsKg = row.targetWeightKg.map(NumericText.tenths)
        primaryGoal = row.primaryGoal
        targetDate = row.targetDate.flatMap(DateText.localDate)
        activityLevel = row.activityLevel
        dietaryPreferences = row.dietaryPreferences?.compactMap { $0 } ?? []
        allergies = row.allergies?.compactMap { $0 } ?? []
        mealsPerDay = row.mealsPerDay ?? Self.defaultMealsPerDay
        timezone = row.timezone ?? Self.defaultTimezone
        onboardingCompleted = row.onboardingCompleted == true
        updatedAt = row.updatedAt
    }
}

extension String {
    /// Length as PostgreSQL's `char_length` counts it: Unicode code points, not
    /// grapheme clusters (`"é"` written as e + U+0301 is 2).
    var codePointCount: Int { unicodeScalars.count }
}
