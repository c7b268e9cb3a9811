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
        // One pass over the UTF-8 bytes in place: three numbers of every row are read,
        // and slicing the string cost a tenth of a full plan.
        var text = text
        return text.withUTF8(tenths(utf8:))
    }

    private static func tenths(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var index = 0
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            index = 1
        }
        // Whole units, saturating: 10^14 units is already 10^15 tenths.
        var whole = 0
        var saturated = false
        let integerStart = index
        while index < bytes.count, isDigit(bytes[index]) {
            if !saturated {
                whole = whole * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                saturated = whole >= saturationTenths / 10
            }
            index += 1
        }
        let integerDigits = index - integerStart
        // The tenths digit, and whether the rest of the fraction is at least half a tenth:
        // exactly when the hundredths digit is ≥ 5.
        var fractionDigits = 0
        var tenthsDigit = 0
        var roundsUp = false
        let hasDot = index < bytes.count && bytes[index] == UInt8(ascii: ".")
        if hasDot {
            index += 1
            while index < bytes.count, isDigit(bytes[index]) {
                if fractionDigits == 0 {
                    tenthsDigit = Int(bytes[index] - UInt8(ascii: "0"))
                } else if fractionDigits == 1 {
                    roundsUp = bytes[index] >= UInt8(ascii: "5")
                }
                fractionDigits += 1
                index += 1
            }
        }
        guard index == bytes.count, integerDigits > 0 || (hasDot && fractionDigits > 0) else {
            // Not a plain decimal: NaN, ±Infinity, or text only a hand-made row holds.
            return bytes.elementsEqual("-Infinity".utf8) ? -saturationTenths : saturationTenths
        }
        if saturated { return negative ? -saturationTenths : saturationTenths }
        // Round half away from zero on the magnitude.
        let magnitude = whole * 10 + tenthsDigit + (roundsUp ? 1 : 0)
        return negative ? -magnitude : magnitude
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
