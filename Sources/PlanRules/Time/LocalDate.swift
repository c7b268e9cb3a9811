/// A calendar date with no time zone: a plan date, a date of birth, a target date.
///
/// Stored as days since 1970-01-01 (proleptic Gregorian) so that date arithmetic
/// (MATADOR day numbers, projected dates) is plain integer arithmetic.
public struct LocalDate: Hashable, Strideable, Sendable, CustomStringConvertible {
    public let daysSinceEpoch: Int

    public init(daysSinceEpoch: Int) {
        self.daysSinceEpoch = daysSinceEpoch
    }

    /// Howard Hinnant's `days_from_civil`; valid for every proleptic Gregorian date.
    public init(year: Int, month: Int, day: Int) {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        self.daysSinceEpoch = era * 146_097 + doe - 719_468
    }

    /// The date of a second counted on a local (or UTC) wall clock since 1970-01-01T00:00.
    init(wallSecondsSinceEpoch seconds: Int64) {
        let (q, r) = seconds.quotientAndRemainder(dividingBy: 86_400)
        self.daysSinceEpoch = Int(r < 0 ? q - 1 : q)
    }

    /// Hinnant's `civil_from_days`.
    ///
    /// Past the first line every value is bounded by the day number (`doe` < 146,097,
    /// `yoe` < 400, `era * 146_097` ≤ `z`), so the arithmetic is unchecked: each date a run
    /// writes (a dozen a user) asks for its components.
    public var components: (year: Int, month: Int, day: Int) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z &- 146_096) / 146_097
        let doe = z &- era &* 146_097
        let yoe = (doe &- doe / 1460 &+ doe / 36_524 &- doe / 146_096) / 365
        let doy = doe &- (365 &* yoe &+ yoe / 4 &- yoe / 100)
        let mp = (5 &* doy &+ 2) / 153
        let day = doy &- (153 &* mp &+ 2) / 5 &+ 1
        let month = mp < 10 ? mp &+ 3 : mp &- 9
        return (yoe &+ era &* 400 &+ (month <= 2 ? 1 : 0), month, day)
    }

    /// The year is within 0000…9999, so `putISO` can write it: told from the day number,
    /// without `components` (every date and timestamp written asks).
    public var hasFourDigitYear: Bool { (-719_528...2_932_896).contains(daysSinceEpoch) }

    public var year: Int { components.year }
    public var month: Int { components.month }
    public var day: Int { components.day }

    /// Day of the week, 0 = Sunday … 6 = Saturday (the numbering of POSIX TZ rules'
    /// `Mm.w.d`). 1970-01-01, day 0, was a Thursday.
    public var dayOfWeek: Int {
        let r = (daysSinceEpoch + 4) % 7
        return r < 0 ? r + 7 : r
    }

    /// The date, or nil when the day does not exist (`2023-02-29`, month 13, day 0).
    public init?(validatingYear year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= Self.daysInMonth(year: year, month: month)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public func adding(days: Int) -> LocalDate {
        LocalDate(daysSinceEpoch: daysSinceEpoch + days)
    }

    /// `self − other` in days.
    public func days(since other: LocalDate) -> Int {
        daysSinceEpoch - other.daysSinceEpoch
    }

    public static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// `YYYY-MM-DD`, the spec's date format. Years outside 0...9999 are not dates the
    /// job writes (validation rejects them first); they are printed with a sign.
    public var description: String {
        guard hasFourDigitYear else {
            let (y, m, d) = components
            return Self.pad(y, 4) + "-" + Self.pad(m, 2) + "-" + Self.pad(d, 2)
        }
        // Ten ASCII bytes written in place: dates are printed for every plan, notification
        // id and COPY row.
        return String(unsafeUninitializedCapacity: 10) { text in
            putISO(into: text, at: 0)
            return 10
        }
    }

    /// Writes `YYYY-MM-DD` (a year in 0…9999) at `offset` of `text`: ten bytes.
    public func putISO(into text: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        let (y, m, d) = components
        text.putDigits(y, width: 4, at: offset)
        text[offset + 4] = UInt8(ascii: "-")
        text.putDigits(m, width: 2, at: offset + 5)
        text[offset + 7] = UInt8(ascii: "-")
        text.putDigits(d, width: 2, at: offset + 8)
    }

    /// Parses `YYYY-MM-DD` (four-digit year), checking that the day exists. Reads the
    /// bytes in place: every date of every settings row and stored plan comes here.
    public init?(iso8601 text: String) {
        var text = text
        guard let date = text.withUTF8({ LocalDate(iso8601: $0) }) else { return nil }
        self = date
    }

    /// `init?(iso8601:)` over UTF-8 bytes: a stored plan's dates are read straight from
    /// the JSON text, without a String each.
    public init?(iso8601 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let y = Self.digits(bytes[0..<4]), let m = Self.digits(bytes[5..<7]),
              let d = Self.digits(bytes[8..<10]) else { return nil }
        self.init(validatingYear: y, month: m, day: d)
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func digits<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int? {
        var value = 0
        for b in bytes {
            guard b >= 48, b <= 57 else { return nil }
            value = value * 10 + Int(b - 48)
        }
        return value
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(abs(value))
        let padded = s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        return value < 0 ? "-" + padded : padded
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        lhs.daysSinceEpoch < rhs.daysSinceEpoch
    }

    /// Strideable, so that `first...last` is a sequence of days.
    public func distance(to other: LocalDate) -> Int { other.daysSinceEpoch - daysSinceEpoch }

    public func advanced(by days: Int) -> LocalDate { adding(days: days) }
}

extension UnsafeMutableBufferPointer<UInt8> {
    /// Writes `value` (≥ 0) as `width` zero-padded decimal digits starting at `offset`:
    /// the last `width` digits when the value has more.
    ///
    /// Two digits per step, unrolled for the widths dates and timestamps use: every date
    /// and timestamp a run writes (a dozen a user) comes here, and the loop of one digit
    /// at a time, checked arithmetic and all, was 4% of the job's instructions.
    @inline(__always)
    func putDigits(_ value: Int, width: Int, at offset: Int) {
        switch width {
        case 2: putTwoDigits(value, at: offset)
        case 4:
            putTwoDigits(value / 100, at: offset)
            putTwoDigits(value, at: offset + 2)
        case 6:
            putTwoDigits(value / 10_000, at: offset)
            putTwoDigits(value / 100, at: offset + 2)
            putTwoDigits(value, at: offset + 4)
        default:
            var rest = value
            for position in stride(from: offset + width - 1, through: offset, by: -1) {
                self[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
        }
    }

    /// Writes `value` in decimal at `offset`, left-padded with zeros to `minimumWidth`, and
    /// returns the offset past it (at most 20 digits, or `minimumWidth`). The digits are
    /// counted first, then written from the last back; the JSON numbers and the
    /// notification ids are written with it.
    @inlinable @inline(__always)
    public func putDecimal(_ value: UInt64, minimumWidth: Int = 1, at offset: Int) -> Int {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits &+= 1
            rest /= 10
        }
        let end = offset + Swift.max(digits, minimumWidth)
        rest = value
        var position = end
        repeat {
            position -= 1
            self[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while position > offset
        return end
    }

    /// The last two decimal digits of `value` (≥ 0) at `offset`.
    @inline(__always)
    private func putTwoDigits(_ value: Int, at offset: Int) {
        let pair = value % 100
        let tens = pair / 10
        self[offset] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: tens)
        self[offset + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: pair &- tens &* 10)
    }
}
