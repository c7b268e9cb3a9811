// Number formatting for copy people read: notification bodies and the `explain` output.
// Hand-written rather than NumberFormatter so the text never depends on the machine's
// locale and two runs give the same bytes.

/// The minus sign of the product copy (U+2212 MINUS SIGN), e.g. "(−150)".
public let minusSign = "\u{2212}"

/// `1975` → `"1,975"`, `-1500` → `"−1,500"`: comma-separated groups of three digits, the
/// sign (when negative) written with U+2212 as the spec's copy does.
public func groupedThousands(_ value: Int) -> String {
    // Digits written from the end of a buffer, then moved to its start: every
    // notification body formats a few of these.
    let capacity = 26  // UInt64.max: 20 digits and 6 separators
    let grouped = String(unsafeUninitializedCapacity: capacity) { buffer in
        var rest = value.magnitude
        var start = capacity
        var digits = 0
        repeat {
            if digits > 0, digits % 3 == 0 {
                start -= 1
                buffer[start] = UInt8(ascii: ",")
            }
            start -= 1
            buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            digits += 1
        } while rest > 0
        let length = capacity - start
        for offset in 0..<length { buffer[offset] = buffer[start + offset] }
        return length
    }
    return value < 0 ? minusSign + grouped : grouped
}

/// A fixed-point value held as an integer count of 10^-`decimals` units, written with
/// exactly `decimals` digits after the point and grouped thousands before it:
/// `fixedPoint(823, decimals: 1)` → `"82.3"`, `fixedPoint(-5, decimals: 1)` → `"−0.5"`,
/// `fixedPoint(227, decimals: 3)` → `"0.227"`.
public func fixedPoint(_ scaled: Int, decimals: Int) -> String {
    ReadableFormat.standard.fixedPoint(scaled, decimals: decimals)
}
