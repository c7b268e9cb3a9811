// Number formatting for copy people read: notification bodies and the `explain` output.
// Hand-written rather than NumberFormatter so the text never depends on the machine's
// locale and two runs give the same bytes.

/// The minus sign of the product copy (U+2212 MINUS SIGN), e.g. "(−150)".
public let minusSign = "\u{2212}"

/// `1975` → `"1,975"`, `-1500` → `"−1,500"`: comma-separated groups of three digits, the
/// sign (when negative) written with U+2212 as the spec's copy does.
public func groupedThousands(_ value: Int) -> String {
    var text = ""
    ThousandsGrouping.comma.append(value, to: &text)
    return text
}

/// Digits in groups of three from the right, as CLDR writes integers for most locales:
/// a separator between the groups once a number has `fewestDigits` digits (4, or 5 where
/// a 4-digit number stays whole, as in Spanish). Negative numbers take U+2212.
struct ThousandsGrouping: Hashable, Sendable {
    var separator: String
    var fewestDigits: Int

    /// Section 7's English copy: `1,975`.
    static let comma = ThousandsGrouping(separator: ",", fewestDigits: 4)

    /// Appends `value` to `text`.
    func append(_ value: Int, to text: inout String) {
        withDigits(of: value) { text.append(String(decoding: $0, as: UTF8.self)) }
    }

    /// Appends `value`'s UTF-8 bytes: how the notification copy is filled (`LocalizedCopy`).
    func append(_ value: Int, toUTF8 bytes: inout [UInt8]) {
        withDigits(of: value) { bytes.append(contentsOf: $0) }
    }

    /// `value` written from the end of a stack buffer, no allocation: a notification
    /// writes up to a dozen numbers.
    private func withDigits(of value: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        let separator = separator.utf8
        let capacity = 3 + 20 + 6 * separator.count  // U+2212, UInt64.max's digits and groups
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var rest = value.magnitude
            var smallestGrouped: UInt = 1
            for _ in 1..<fewestDigits { smallestGrouped &*= 10 }
            let grouped = rest >= smallestGrouped
            var start = capacity
            var digits = 0
            repeat {
                if grouped, digits > 0, digits % 3 == 0 {
                    start -= separator.count
                    var at = start
                    for byte in separator {
                        buffer[at] = byte
                        at += 1
                    }
                }
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
                digits += 1
            } while rest > 0
            if value < 0 {
                start -= 3
                (buffer[start], buffer[start + 1], buffer[start + 2]) = (0xE2, 0x88, 0x92)  // U+2212 in UTF-8
            }
            body(UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }
}

/// A fixed-point value held as an integer count of 10^-`decimals` units, written with
/// exactly `decimals` digits after the point and grouped thousands before it:
/// `fixedPoint(823, decimals: 1)` → `"82.3"`, `fixedPoint(-5, decimals: 1)` → `"−0.5"`,
/// `fixedPoint(227, decimals: 3)` → `"0.227"`.
public func fixedPoint(_ scaled: Int, decimals: Int) -> String {
    ReadableFormat.standard.fixedPoint(scaled, decimals: decimals)
}
