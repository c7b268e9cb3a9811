/// The POSIX TZ string at the end of a TZif file (RFC 8536 section 3.3), such as
/// `CET-1CEST,M3.5.0,M10.5.0/3`: the rule a zone follows after its last listed transition.
///
/// Fat TZif files list transitions up to 2037 only, so every instant after that (a
/// projected date, a far target date) depends on this rule.
///
/// POSIX counts offsets west of UTC (`CET-1` is one hour east); this type stores them
/// east of UTC, like TZif and `OffsetTable`.
struct PosixTZRule: Equatable, Sendable {
    /// Seconds east of UTC outside daylight saving time.
    var standardOffset: Int
    /// Absent for zones without daylight saving time (`<+0545>-5:45`).
    var daylight: Daylight?

    struct Daylight: Equatable, Sendable {
        /// Seconds east of UTC during daylight saving time. Not always one hour more
        /// than standard time: `Europe/Dublin` is `IST-1GMT0`, an hour *less* in winter.
        var offset: Int
        /// When daylight time begins, on the standard-time wall clock.
        var start: Moment
        /// When daylight time ends, on the daylight-time wall clock.
        var end: Moment
    }

    /// A day of the year and a wall time on it, like `M3.5.0/3` or `J60/-1`.
    struct Moment: Equatable, Sendable {
        var day: DayRule
        /// RFC 8536's extension: −167 h through +167 h (`M3.4.4/50` is Thursday 50:00,
        /// i.e. Saturday 02:00). POSIX's default is 02:00.
        var secondsIntoDay: Int
    }

    enum DayRule: Equatable, Sendable {
        /// `Jn`: day n in 1...365, where 29 February is never counted (J60 is always 1 March).
        case julianIgnoringLeapDay(Int)
        /// `n`: day n in 0...365, counting 29 February (59 is 1 March in leap years).
        case zeroBasedDayOfYear(Int)
        /// `Mm.w.d`: weekday d (0 = Sunday) of week w (1...5; 5 = the last) of month m.
        case monthWeekDay(month: Int, week: Int, weekday: Int)

        func date(inYear year: Int) -> LocalDate {
            let january1 = LocalDate(year: year, month: 1, day: 1)
            switch self {
            case .julianIgnoringLeapDay(let n):
                let skipsLeapDay = LocalDate.isLeapYear(year) && n >= 60
                return january1.adding(days: n - 1 + (skipsLeapDay ? 1 : 0))
            case .zeroBasedDayOfYear(let n):
                return january1.adding(days: n)
            case .monthWeekDay(let month, let week, let weekday):
                let first = LocalDate(year: year, month: month, day: 1)
                var day = 1 + (weekday - first.dayOfWeek + 7) % 7 + 7 * (week - 1)
                let length = LocalDate.daysInMonth(year: year, month: month)
                while day > length { day -= 7 }
                return first.adding(days: day - 1)
            }
        }
    }

    /// The two changes of offset in `year` (UTC seconds since the epoch, and the offset
    /// from then on): daylight time starts, then ends; nil without daylight time. In the
    /// southern hemisphere the end comes first in the calendar; callers sort. A pair, not
    /// an array: `OffsetTable` asks for 403 years of every daylight zone at startup.
    func transitions(inYear year: Int) -> (start: (at: Int64, offset: Int), end: (at: Int64, offset: Int))? {
        guard let daylight else { return nil }
        func wallSeconds(_ moment: Moment) -> Int64 {
            Int64(moment.day.date(inYear: year).daysSinceEpoch) * 86_400 + Int64(moment.secondsIntoDay)
        }
        return ((wallSeconds(daylight.start) - Int64(standardOffset), daylight.offset),
                (wallSeconds(daylight.end) - Int64(daylight.offset), standardOffset))
    }
}

extension PosixTZRule {
    /// Parses `std offset [dst [offset] [,start[/time],end[/time]]]`. A daylight name
    /// without a rule is rejected: POSIX leaves its dates to the implementation, and zic
    /// never writes one.
    init?(_ text: String) {
        var parser = Parser(bytes: Array(text.utf8))
        guard parser.name(), let std = parser.offset(maxHours: 24) else { return nil }
        standardOffset = -std
        if parser.atEnd {
            daylight = nil
            return
        }
        guard parser.name() else { return nil }
        var dstOffset = standardOffset + 3600
        if !parser.peek(",") {
            guard let offset = parser.offset(maxHours: 24) else { return nil }
            dstOffset = -offset
        }
        guard parser.take(","), let start = parser.moment(),
              parser.take(","), let end = parser.moment(), parser.atEnd
        else { return nil }
        daylight = Daylight(offset: dstOffset, start: start, end: end)
    }

    /// A cursor over the TZ string's bytes; each method consumes what it reads.
    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        func peek(_ character: Unicode.Scalar) -> Bool {
            index < bytes.count && bytes[index] == UInt8(ascii: character)
        }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard peek(character) else { return false }
            index += 1
            return true
        }

        /// `EST` (three or more letters) or `<+0545>` (three or more of A–Z, a–z, 0–9, +, -).
        mutating func name() -> Bool {
            if take("<") {
                let start = index
                while index < bytes.count, isLetter(bytes[index]) || isDigit(bytes[index])
                        || bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                return index - start >= 3 && take(">")
            }
            let start = index
            while index < bytes.count, isLetter(bytes[index]) { index += 1 }
            return index - start >= 3
        }

        /// `[+-]hh[:mm[:ss]]` in seconds, the sign applied.
        mutating func offset(maxHours: Int) -> Int? {
            var sign = 1
            if take("-") { sign = -1 } else { _ = take("+") }
            guard let hours = number(maxDigits: 3), hours <= maxHours else { return nil }
            var seconds = hours * 3600
            if take(":") {
                guard let minutes = number(maxDigits: 2), minutes < 60 else { return nil }
                seconds += minutes * 60
                if take(":") {
                    guard let secs = number(maxDigits: 2), secs < 60 else { return nil }
                    seconds += secs
                }
            }
            return sign * seconds
        }

        /// `Jn`, `n` or `Mm.w.d`, then an optional `/time` (default 02:00).
        mutating func moment() -> Moment? {
            let day: DayRule
            if take("J") {
                guard let n = number(maxDigits: 3), (1...365).contains(n) else { return nil }
                day = .julianIgnoringLeapDay(n)
            } else if take("M") {
                guard let m = number(maxDigits: 2), (1...12).contains(m), take("."),
                      let w = number(maxDigits: 1), (1...5).contains(w), take("."),
                      let d = number(maxDigits: 1), (0...6).contains(d)
                else { return nil }
                day = .monthWeekDay(month: m, week: w, weekday: d)
            } else {
                guard let n = number(maxDigits: 3), (0...365).contains(n) else { return nil }
                day = .zeroBasedDayOfYear(n)
            }
            var time = 2 * 3600
            if take("/") {
                guard let t = offset(maxHours: 167) else { return nil }
                time = t
            }
            return Moment(day: day, secondsIntoDay: time)
        }

        private mutating func number(maxDigits: Int) -> Int? {
            var value = 0
            let start = index
            while index < bytes.count, index - start < maxDigits, isDigit(bytes[index]) {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            return index > start ? value : nil
        }

        private func isDigit(_ b: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }

        private func isLetter(_ b: UInt8) -> Bool {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b)
        }
    }
}
