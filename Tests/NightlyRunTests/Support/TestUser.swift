import PlanRules

/// One `user_settings` row as the app would write it. Defaults: a 180 cm man weighing
/// 90 kg who wants 80 kg, moderately active, far from every calorie floor and bound.
struct TestUser {
    var userID: Int64
    var dateOfBirth: String? = "1990-06-15"
    var gender: String? = "male"
    var heightCm: String? = "180.0"
    var currentWeightKg: String? = "90.0"
    var targetWeightKg: String? = "80.0"
    var primaryGoal: String? = "lose_weight"
    var activityLevel: String? = "moderately_active"
    var mealsPerDay: Int? = 3
    var timezone: String? = "UTC"
    var onboardingCompleted: Bool? = true
    var updatedAt: Instant
}
