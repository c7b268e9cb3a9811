// Exact integer division with the roundings plan-rules.md names (section 3.0: "every
// target is an exact rational number rounded once, half away from zero").

/// `numerator / denominator` rounded half away from zero (`denominator > 0`):
/// 1777.5 → 1778, −248.5 → −249.
func roundHalfAwayFromZero(_ numerator: Int, over denominator: Int) -> Int {
    let magnitude = (2 * numerator.magnitude + denominator.magnitude) / (2 * denominator.magnitude)
    return numerator < 0 ? -Int(magnitude) : Int(magnitude)
}

/// ⌈numerator / denominator⌉ (`denominator > 0`).
func ceilingDivision(_ numerator: Int, by denominator: Int) -> Int {
    let (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
    return remainder > 0 ? quotient + 1 : quotient
}

/// ⌊numerator / denominator⌋ (`denominator > 0`).
func floorDivision(_ numerator: Int, by denominator: Int) -> Int {
    let (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
    return remainder < 0 ? quotient - 1 : quotient
}
