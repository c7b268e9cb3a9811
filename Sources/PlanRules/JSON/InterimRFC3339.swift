/// RFC 3339 for snapshot timestamps until the `time` branch's `Instant.rfc3339` /
/// `Instant(rfc3339:)` are merged (then this file goes).
enum InterimRFC3339 {
    /// `2026-11-21T10:00:00.123456Z`: always UTC, always six fractional digits.
    static func format(_ instant: Instant) -> String {
        let (seconds, micros) = floorDivide(instant.microsecondsSinceEpoch, 1_000_000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let date = LocalDate(daysSinceEpoch: Int(days))
        let time = LocalDate.pad(Int(secondOfDay / 3600), 2) + ":" + LocalDate.pad(Int(secondOfDay / 60 % 60), 2)
            + ":" + LocalDate.pad(Int(secondOfDay % 60), 2)
        return date.description + "T" + time + "." + LocalDate.pad(Int(micros), 6) + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)`; digits after the sixth are
    /// truncated toward the past.
    static func parse(_ text: String) -> Instant? {
        let b = Array(text.utf8)
        guard b.count >= 20, b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"),
              let date = LocalDate(iso8601: text.prefix(10)),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let hour = number(b[11..<13]), let minute = number(b[14..<16]), let second = number(b[17..<19]),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var micros: Int64 = 0
        if b[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < b.count, let digit = number(b[index..<index + 1]) {
                if digits < 6 { micros = micros * 10 + Int64(digit) }
                digits += 1
                index += 1
            }
            guard (1...9).contains(digits) else { return nil }
            for _ in min(digits, 6)..<6 { micros *= 10 }
        }
        var offsetSeconds: Int64 = 0
        let rest = b[index...]
        if rest.elementsEqual([UInt8(ascii: "Z")]) || rest.elementsEqual([UInt8(ascii: "z")]) {
            offsetSeconds = 0
        } else if rest.count == 6, rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-"),
                  b[index + 3] == UInt8(ascii: ":"),
                  let oh = number(b[index + 1..<index + 3]), let om = number(b[index + 4..<index + 6]),
                  oh < 24, om < 60 {
            offsetSeconds = Int64(oh * 3600 + om * 60) * (rest.first == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        let local = Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Instant(microsecondsSinceEpoch: (local - offsetSeconds) * 1_000_000 + micros)
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let (q, r) = a.quotientAndRemainder(dividingBy: b)
        return r < 0 ? (q - 1, r + b) : (q, r)
    }
}
