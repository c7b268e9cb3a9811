/// Basal metabolic rate, Mifflin–St Jeor (plan-rules.md section 3):
/// BMR = 10 × weight + 6.25 × height − 5 × age + s.
///
/// Held exactly as BMR × 80 = 80·w₁₀ + 50·h₁₀ − 400·age + 80·s, because TDEE multiplies
/// the UNROUNDED BMR and 6.25 × height often ends in .5 (178 cm → 1,112.5).
public struct BMR: Hashable, Sendable {
    /// BMR × 80, an exact integer.
    public let times80: Int

    public init(weightTenthsKg: Int, heightTenthsCm: Int, age: Int, gender: Gender) {
        // 80 × (10 × w₁₀ / 10) = 80·w₁₀; 80 × (6.25 × h₁₀ / 10) = 50·h₁₀; 80 × 5 × age = 400·age.
        times80 = 8 * Self.perKg * weightTenthsKg + 8 * Self.perCmTimes100 * heightTenthsCm / 100
            - 80 * Self.perYear * age + 80 * gender.bmrConstant
    }

    /// The coefficients: 10 per kg, 6.25 per cm, −5 per year of age.
    public static let perKg = 10
    public static let perCmTimes100 = 625
    public static let perYear = 5

    /// `bmr`: rounded once, half away from zero.
    public var rounded: Int { roundHalfAwayFromZero(times80, over: 80) }
}

extension Gender {
    /// The s of Mifflin–St Jeor: +5 male, −161 female, −78 for other (the midpoint).
    public var bmrConstant: Int {
        switch self {
        case .male: 5
        case .female: -161
        case .other: -78
        }
    }
}
