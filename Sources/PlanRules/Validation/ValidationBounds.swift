/// The bounds of section 1.2, all inclusive (50 and 300 cm, 20 and 500 kg are valid).
public enum ValidationBounds {
    public static let ageYears = 13...120
    public static let heightTenthsCm = 500...3000
    public static let weightTenthsKg = 200...5000
    public static let mealsPerDay = 1...10
    public static let maxDietaryPreferences = 10
    public static let maxAllergies = 20
    /// Code points, as PostgreSQL's `char_length` counts them.
    public static let maxItemLength = 30
}
