/// The messages of section 1.2's table, word for word: the app shows them to the user.
/// Counts and ages come from `ValidationBounds`; heights and weights carry their imperial
/// conversions, written out.
public enum ValidationMessage {
    public static let dateOfBirthInvalid = "Please enter a valid date of birth"
    public static let dateOfBirthInFuture = "Date of birth cannot be in the future"
    public static let tooYoung = "You must be at least \(ValidationBounds.ageYears.lowerBound) years old to use GTSD"
    public static let gender = "Please select your gender"
    public static let heightTooSmall = "Height must be at least 50 cm (1'8\")"
    public static let heightTooLarge = "Height must be less than 300 cm (9'10\")"
    public static let weightTooSmall = "Weight must be at least 20 kg (44 lbs)"
    public static let weightTooLarge = "Weight must be less than 500 kg (1102 lbs)"
    public static let targetWeightTooSmall = "Target weight must be at least 20 kg (44 lbs)"
    public static let targetWeightTooLarge = "Target weight must be less than 500 kg (1102 lbs)"
    public static let primaryGoal = "Please select your primary goal"
    public static let activityLevel = "Please select your activity level"
    public static let tooFewMeals = "At least \(ValidationBounds.mealsPerDay.lowerBound) meal per day required"
    public static let tooManyMeals = "Maximum \(ValidationBounds.mealsPerDay.upperBound) meals per day"
    public static let tooManyDietaryPreferences = "Maximum \(ValidationBounds.maxDietaryPreferences) dietary preferences allowed"
    public static let dietaryPreferenceTooLong = "Each dietary preference must be at most \(ValidationBounds.maxItemLength) characters"
    public static let tooManyAllergies = "Maximum \(ValidationBounds.maxAllergies) allergies allowed"
    public static let allergyTooLong = "Each allergy must be at most \(ValidationBounds.maxItemLength) characters"

    public static func unknownTimeZone(_ name: String) -> String {
        "Unknown time zone '\(name)'"
    }
}
