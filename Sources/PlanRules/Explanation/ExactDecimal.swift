/// An exact rational written in decimals with no trailing zeros and grouped thousands:
/// `exactDecimal(142_200, over: 80)` → `"1,777.5"`, `exactDecimal(820, over: 10)` → `"82"`.
///
/// Every value the rules divide has a denominator of the form 2^a·5^b (80, 3200, 2200 ×
/// 1000, …), so its decimal expansion ends; up to 9 places are written, enough for all
/// of them (1/3200 = 0.0003125). A denominator with another factor is cut after 9 places.
func exactDecimal(_ numerator: Int, over denominator: Int, format: ReadableFormat = .standard) -> String {
    var scaled = numerator
    var places = 0
    while scaled % denominator != 0, places < 9 {
        scaled *= 10
        places += 1
    }
    return format.fixedPoint(scaled / denominator, decimals: places)
}
