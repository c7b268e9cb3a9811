/// RFC 3339 timestamps: how snapshots write `settings_updated_at`, notifications write
/// `created_at`/`deliver_after`, and ops pass `--as-of` (plan-rules.md sections 6, 7).
///
/// Plain integer arithmetic: Foundation's date formatters are slow and carry locale and
/// calendar settings that must not change a timestamp.
extension Instant {
    private var utcSplit: (date: LocalDate, secondOfDay: Int, microsecond: Int) {
        let (seconds, micros) = microsecondsSinceEpoch.quotientAndRemainder(dividingBy: 1_000_000)
        let (wholeSeconds, fraction) = micros < 0 ? (seconds - 1, micros + 1_000_000) : (seconds, micros)
        let date = LocalDate(wallSecondsSinceEpoch: wholeSeconds)
        return (date, Int(wholeSeconds - Int64(date.daysSinceEpoch) * 86_400), Int(fraction))
    }

    /// `2026-11-21T10:00:00.123456Z`: always UTC, always six fractional digits.
    ///
    /// Years outside 0000…9999 (only `distantPast`/`distantFuture` get there) are written
    /// like `LocalDate.description`, with a sign or more digits.
    public var rfc3339: String {
        let (date, secondOfDay, fraction) = utcSplit
        guard hasFourDigitYear else {
            return date.description + "T" + LocalDate.pad(secondOfDay / 3600, 2) + ":"
                + LocalDate.pad(secondOfDay / 60 % 60, 2) + ":" + LocalDate.pad(secondOfDay % 60, 2)
                + "." + LocalDate.pad(fraction, 6) + "Z"
        }
        // Written in place: this runs for every snapshot, notification and state row.
        return String(unsafeUninitializedCapacity: 27) { text in
            text.putRFC3339(date, secondOfDay, fraction, at: 0)
            return 27
        }
    }

    /// Writes `rfc3339`'s 27 bytes at `text[offset]` and returns true; false, writing
    /// nothing, when the year is outside 0000…9999 (PostgreSQL's infinities).
    public func putRFC3339(into text: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Bool {
        guard hasFourDigitYear else { return false }
        let (date, secondOfDay, fraction) = utcSplit
        text.putRFC3339(date, secondOfDay, fraction, at: offset)
        return true
    }

    /// The UTC year is within 0000…9999: `rfc3339` is its 27 bytes, which
    /// `putRFC3339` writes. From 0000-01-01T00:00:00Z up to 10000-01-01T00:00:00Z.
    public var hasFourDigitYear: Bool {
        (-62_167_219_200_000_000 ..< 253_402_300_800_000_000).contains(microsecondsSinceEpoch)
    }

    /// Parses an RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±hh:mm)`.
    ///
    /// `T` and `Z` may be lower case; the fraction has 1 to 9 digits, and digits past the
    /// microsecond are dropped (truncating toward the past). A leap second (`:60`) reads as
    /// the second after `:59`, as PostgreSQL reads it. Anything else, including dates that
    /// do not exist and a space instead of `T`, is rejected.
    public init?(rfc3339 text: String) {
        var text = text
        guard let instant = text.withUTF8({ Instant(rfc3339: $0) }) else { return nil }
        self = instant
    }

    /// `init?(rfc3339:)` over UTF-8 bytes: a stored plan's `settings_updated_at` is read
    /// straight from the JSON text, without a String or an array.
    public init?(rfc3339 b: UnsafeBufferPointer<UInt8>) {
        func digits(_ range: Range<Int>) -> Int? {
            range.upperBound <= b.count ? LocalDate.digits(b[range]) : nil
        }
        func byte(_ index: Int, is allowed: StaticString) -> Bool {
            index < b.count && allowed.withUTF8Buffer { $0.contains(b[index]) }
        }
        guard let year = digits(0..<4), byte(4, is: "-"), let month = digits(5..<7), byte(7, is: "-"),
              let day = digits(8..<10), byte(10, is: "Tt"),
              let hour = digits(11..<13), byte(13, is: ":"), let minute = digits(14..<16), byte(16, is: ":"),
              let second = digits(17..<19),
              let date = LocalDate(validatingYear: year, month: month, day: day),
              hour <= 23, minute <= 59, second <= 60
        else { return nil }

        var index = 19
        var micros: Int64 = 0
        if byte(index, is: ".") {
            index += 1
            let start = index
            while index < b.count, index - start < 10, let digit = digits(index..<index + 1) {
                if index - start < 6 { micros = micros * 10 + Int64(digit) }
                index += 1
            }
            let count = index - start
            guard (1...9).contains(count) else { return nil }
            for _ in count..<max(count, 6) { micros *= 10 }
        }

        var offsetSeconds = 0
        if byte(index, is: "Zz") {
            index += 1
        } else if byte(index, is: "+-") {
            let sign = b[index] == UInt8(ascii: "-") ? -1 : 1
            guard let offsetHours = digits(index + 1..<index + 3), byte(index + 3, is: ":"),
                  let offsetMinutes = digits(index + 4..<index + 6), offsetHours <= 23, offsetMinutes <= 59
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }

        let utcSeconds = Int64(date.daysSinceEpoch) * 86_400
            + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        self.init(microsecondsSinceEpoch: utcSeconds * 1_000_000 + micros)
    }
}

extension UnsafeMutableBufferPointer<UInt8> {
    fileprivate func putRFC3339(_ date: LocalDate, _ secondOfDay: Int, _ fraction: Int, at offset: Int) {
        date.putISO(into: self, at: offset)
        self[offset + 10] = UInt8(ascii: "T")
        putDigits(secondOfDay / 3600, width: 2, at: offset + 11)
        self[offset + 13] = UInt8(ascii: ":")
        putDigits(secondOfDay / 60 % 60, width: 2, at: offset + 14)
        self[offset + 16] = UInt8(ascii: ":")
        putDigits(secondOfDay % 60, width: 2, at: offset + 17)
        self[offset + 19] = UInt8(ascii: ".")
        putDigits(fraction, width: 6, at: offset + 20)
        self[offset + 26] = UInt8(ascii: "Z")
    }
}
