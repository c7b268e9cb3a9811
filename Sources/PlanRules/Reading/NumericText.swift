/// Reading PostgreSQL `numeric` text as tenths (plan-rules.md section 1: "heights and
/// weights are rounded half away from zero to 0.1 on input").
///
/// Decimal string arithmetic only: a `Double` cannot hold `82.25` or `82.35` exactly and
/// would round some of them the wrong way.
public enum NumericText {
    /// Values beyond ±10^15 tenths are held at this bound. Every rule compares against
    /// bounds below 10^4 tenths, so a saturated value still reads as "too large" or
    /// "too small", and integer arithmetic on it cannot overflow.
    public static let saturationTenths = 1_000_000_000_000_000

    /// `"82.25"` → 823, `"82.35"` → 824, `"-0.05"` → −1, `"1000.0000"` → 10000.
    ///
    /// `NaN` reads as +saturation: PostgreSQL orders NaN above every number, so it is
    /// "too large" like `Infinity`; `-Infinity` reads as −saturation. PostgreSQL never
    /// writes anything else for a numeric, so text that is not a plain decimal (which
    /// only a hand-made row could hold) is read like NaN: not a number, too large.
    public static func tenths(_ text: String) -> Int {
        var bytes = Substring(text).utf8[...]
        switch text {
        case "NaN", "Infinity", "+Infinity": return saturationTenths
        case "-Infinity": return -saturationTenths
        default: break
        }
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        let dot = UInt8(ascii: ".")
        let integerDigits = bytes.prefix { $0 != dot }
        let fractionDigits = bytes.dropFirst(integerDigits.count + 1)
        let hasDot = integerDigits.count < bytes.count
        guard !integerDigits.isEmpty || (hasDot && !fractionDigits.isEmpty),
              integerDigits.allSatisfy(isDigit), fractionDigits.allSatisfy(isDigit)
        else { return saturationTenths }

        // Whole units, saturating: 10^14 units is already 10^15 tenths.
        var whole = 0
        for digit in integerDigits {
            whole = whole * 10 + Int(digit - UInt8(ascii: "0"))
            if whole >= saturationTenths / 10 { return negative ? -saturationTenths : saturationTenths }
        }
        // Tenths digit, then round half away from zero on the magnitude: the rest of the
        // fraction is at least half a tenth exactly when the hundredths digit is ≥ 5.
        var fraction = fractionDigits.makeIterator()
        let tenthsDigit = fraction.next().map { Int($0 - UInt8(ascii: "0")) } ?? 0
        let roundsUp = (fraction.next().map { $0 >= UInt8(ascii: "5") }) ?? false
        let magnitude = whole * 10 + tenthsDigit + (roundsUp ? 1 : 0)
        return negative ? -magnitude : magnitude
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
