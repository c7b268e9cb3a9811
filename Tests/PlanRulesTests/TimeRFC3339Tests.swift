import Foundation
import Testing
@testable import PlanRules

@Suite struct TimeRFC3339Tests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000000Z"),
        // 2026-11-21 is day 20 778 since the epoch: 20 778 × 86 400 + 10 × 3 600
        // = 1 795 255 200 s, plus 0.123456 s.
        (1_795_255_200_123_456, "2026-11-21T10:00:00.123456Z"),
        // One microsecond before the epoch: the previous day, all nines.
        (-1, "1969-12-31T23:59:59.999999Z"),
        // 0001-01-01 is day −719 162: × 86 400 = −62 135 596 800 s.
        (-62_135_596_800_000_000, "0001-01-01T00:00:00.000000Z"),
        // 9999-12-31 is day 2 932 896: × 86 400 + 86 399 = 253 402 300 799 s.
        (253_402_300_799_999_999, "9999-12-31T23:59:59.999999Z"),
        // 2024-02-29 (leap day) is day 19 782: × 86 400 + 12 h = 1 709 208 000 s.
        (1_709_208_000_000_001, "2024-02-29T12:00:00.000001Z"),
    ])
    func formatsUTCWithSixFractionDigits(microseconds: Int64, expected: String) {
        #expect(Instant(microsecondsSinceEpoch: microseconds).rfc3339 == expected)
    }

    /// PostgreSQL's ±infinity map to these; they are written, not trapped on.
    @Test func formatsTheDistantInstants() {
        #expect(Instant.distantFuture.rfc3339.hasSuffix(".775807Z"))  // Int64.max ends …775807
        #expect(Instant.distantPast.rfc3339.hasPrefix("-"))
        #expect(Instant.distantPast.rfc3339.hasSuffix(".224192Z"))    // 1 000 000 − 775 808
    }

    @Test(arguments: [
        ("2026-11-21T10:00:00Z", Int64(1_795_255_200_000_000)),
        ("2026-11-21t10:00:00z", 1_795_255_200_000_000),
        ("2026-11-21T10:00:00.123456Z", 1_795_255_200_123_456),
        ("2026-11-21T10:00:00.1Z", 1_795_255_200_100_000),
        ("2026-11-21T10:00:00.12345Z", 1_795_255_200_123_450),
        // Digits past the microsecond are dropped, toward the past.
        ("2026-11-21T10:00:00.123456789Z", 1_795_255_200_123_456),
        ("1969-12-31T23:59:59.9999999Z", -1),
        // Offsets: local − offset = UTC. 15:45+05:45 = 10:00Z; 06:30−03:30 = 10:00Z.
        ("2026-11-21T15:45:00+05:45", 1_795_255_200_000_000),
        ("2026-11-21T06:30:00-03:30", 1_795_255_200_000_000),
        ("2026-11-21T10:00:00+00:00", 1_795_255_200_000_000),
        ("2026-11-21T10:00:00-00:00", 1_795_255_200_000_000),
        // Across a date: 2026-11-22 01:00+14:00 = 2026-11-21 11:00Z.
        ("2026-11-22T01:00:00+14:00", 1_795_258_800_000_000),
        // A leap second reads as the next second (PostgreSQL does the same).
        ("2016-12-31T23:59:60Z", 1_483_228_800_000_000),
        ("0001-01-01T00:00:00Z", -62_135_596_800_000_000),
        ("9999-12-31T23:59:59.999999Z", 253_402_300_799_999_999),
    ])
    func parses(text: String, microseconds: Int64) {
        #expect(Instant(rfc3339: text)?.microsecondsSinceEpoch == microseconds)
    }

    @Test(arguments: [
        "", "2026-11-21", "2026-11-21T10:00:00", "2026-11-21T10:00Z", "2026-11-21 10:00:00Z",
        "2026-11-21T10:00:00.Z", "2026-11-21T10:00:00.1234567890Z", "2026-11-21T10:00:00,5Z",
        "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-11-21T24:00:00Z", "2026-11-21T10:60:00Z", "2026-11-21T10:00:61Z",
        "2026-11-21T10:00:00+5:00", "2026-11-21T10:00:00+05", "2026-11-21T10:00:00+0500",
        "2026-11-21T10:00:00+05:00:00", "2026-11-21T10:00:00+24:00", "2026-11-21T10:00:00+05:60",
        "2026-11-21T10:00:00Zjunk", " 2026-11-21T10:00:00Z", "2026-11-21T10:00:00Z\n",
        "+2026-11-21T10:00:00Z", "02026-11-21T10:00:00Z", "2026-1-21T10:00:00Z", "2026-11-21X10:00:00Z",
        "２０２６-11-21T10:00:00Z", "2026-11-21T10:00:00\u{0}Z", "now", "2026-11-21T10:00:00UTC",
    ])
    func rejectsMalformed(text: String) {
        #expect(Instant(rfc3339: text) == nil)
    }

    /// Every timestamp in the worked examples reads and writes back unchanged.
    @Test func workedExampleTimestampsRoundTrip() throws {
        let url = try #require(Bundle.module.url(forResource: "examples", withExtension: "jsonl",
                                                 subdirectory: "Fixtures"))
        var timestamps: [String] = []
        func collect(_ value: Any) {
            if let text = value as? String, text.count == 27, text.hasSuffix("Z") { timestamps.append(text) }
            if let object = value as? [String: Any] { object.values.forEach(collect) }
            if let array = value as? [Any] { array.forEach(collect) }
        }
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            collect(try JSONSerialization.jsonObject(with: Data(line.utf8)))
        }
        #expect(timestamps.count >= 30)
        #expect(timestamps.allSatisfy { Instant(rfc3339: $0)?.rfc3339 == $0 })
    }

    /// Formatting then parsing gives back the instant, over years 1 to 9999 in uneven steps.
    @Test func roundTrips() throws {
        let first: Int64 = -62_135_596_800_000_000, last: Int64 = 253_402_300_799_999_999
        var failures: [String] = []
        for t in stride(from: first, through: last, by: 3_155_692_597_123) {  // ≈ 36.5 days + odd µs
            let instant = Instant(microsecondsSinceEpoch: t)
            if Instant(rfc3339: instant.rfc3339) != instant { failures.append(instant.rfc3339) }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    /// `hasFourDigitYear` says exactly when `rfc3339` is 27 bytes, which `putRFC3339`
    /// writes: one microsecond either side of year 0000's start and year 9999's end.
    @Test func fourDigitYearsAreExactlyThe27ByteTimestamps() {
        let start = Instant(rfc3339: "0000-01-01T00:00:00Z")!, end = Instant(rfc3339: "9999-12-31T23:59:59.999999Z")!
        let instants = [Instant(microsecondsSinceEpoch: start.microsecondsSinceEpoch - 1), start, end,
                        Instant(microsecondsSinceEpoch: end.microsecondsSinceEpoch + 1),
                        Instant.distantPast, Instant.distantFuture]
        var buffer = [UInt8](repeating: 0, count: 27)
        for instant in instants {
            let written = buffer.withUnsafeMutableBufferPointer { instant.putRFC3339(into: $0, at: 0) }
            #expect(instant.hasFourDigitYear == (instant.rfc3339.utf8.count == 27), "\(instant.rfc3339)")
            #expect(written == instant.hasFourDigitYear, "\(instant.rfc3339)")
            if written { #expect(String(decoding: buffer, as: UTF8.self) == instant.rfc3339) }
        }
        #expect(instants.map(\.hasFourDigitYear) == [false, true, true, false, false, false])
    }
}
