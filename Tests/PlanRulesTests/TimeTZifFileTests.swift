import Foundation
import Testing
@testable import PlanRules

@Suite struct TimeTZifFileTests {
    /// Europe/Berlin as compiled here: the 64-bit data and the footer are read.
    @Test func readsASystemFile() throws {
        let bytes = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/Europe/Berlin"))
        let file = try TZifFile(bytes: [UInt8](bytes))
        #expect(file.initialOffset == 3_208)  // LMT +0:53:28
        #expect(file.footer == PosixTZRule("CET-1CEST,M3.5.0,M10.5.0/3"))
        #expect(file.transitionTimes.count == file.offsetsAfter.count)
        // 2026-03-29 01:00Z: CET → CEST, +3 600 → +7 200.
        let march2026 = TimeTestFixtures.utcSeconds(year: 2026, month: 3, day: 29, hour: 1)
        let index = try #require(file.transitionTimes.firstIndex(of: march2026))
        #expect(file.offsetsAfter[index] == 7_200)
        #expect(file.offsetsAfter[index - 1] == 3_600)
    }

    /// A version 1 file has only 32-bit data and no footer.
    @Test func readsVersion1() throws {
        let bytes = syntheticTZif(version: 1, types: [-18_000, -14_400], transitions: [(1_000, 1), (2_000, 0)])
        let file = try TZifFile(bytes: bytes)
        #expect(file.initialOffset == -18_000)
        #expect(file.transitionTimes == [1_000, 2_000])
        #expect(file.offsetsAfter == [-14_400, -18_000])
        #expect(file.footer == nil)
    }

    /// Version 2+: the 64-bit block wins over the 32-bit one (which zic may truncate).
    @Test func readsThe64BitBlockOfVersion2() throws {
        let far: Int64 = 10_000_000_000  // past 2038, does not fit 32 bits
        let bytes = syntheticTZif(version: 2, types: [0, 3_600], transitions: [(far, 1)], footer: "<+01>-1")
        let file = try TZifFile(bytes: bytes)
        #expect(file.transitionTimes == [far])
        #expect(file.footer == PosixTZRule("<+01>-1"))
    }

    @Test func emptyFooterMeansNoRule() throws {
        let file = try TZifFile(bytes: syntheticTZif(version: 3, types: [0], transitions: [], footer: ""))
        #expect(file.footer == nil)
    }

    @Test(arguments: [
        ([UInt8](), TZifError.notTZif),
        (Array("TZjf".utf8) + [UInt8](repeating: 0, count: 60), .notTZif),
        (Array(syntheticTZif(version: 2, types: [0, 3_600], transitions: [(5, 1)], footer: "UTC0").dropLast(3)), .truncated),
        (Array(syntheticTZif(version: 2, types: [0], transitions: [], footer: "UTC0").prefix(60)), .truncated),
        (syntheticTZif(version: 2, types: [0], transitions: [], footer: "UTC0", leapCount: 1), .leapSeconds),
        (syntheticTZif(version: 2, types: [], transitions: [], footer: "UTC0"), .malformed("no local time types")),
        (syntheticTZif(version: 2, types: [0], transitions: [(5, 1)], footer: "UTC0"), .malformed("time type index out of range")),
        (syntheticTZif(version: 2, types: [0, 0], transitions: [(5, 1), (5, 0)], footer: "UTC0"), .malformed("transition times not increasing")),
        (syntheticTZif(version: 2, types: [100_000], transitions: [], footer: "UTC0"), .malformed("UT offset 100000 out of range")),
        (syntheticTZif(version: 2, types: [0], transitions: [], footer: "EST5EDT"), .malformed("unsupported footer TZ string 'EST5EDT'")),
    ])
    func rejectsBrokenFiles(bytes: [UInt8], expected: TZifError) {
        #expect(throws: expected) { try TZifFile(bytes: bytes) }
    }

    /// The leap-second variants under right/ are refused even though they are TZif.
    @Test func refusesRightZones() throws {
        let bytes = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/right/UTC"))
        #expect(throws: TZifError.leapSeconds) { try TZifFile(bytes: [UInt8](bytes)) }
    }

    /// `J365/25` after `0/0`: daylight time never ends (zic's spelling of all-year DST).
    /// With no listed transitions the rule holds for all time: −4 h in January and July,
    /// in 2026 and, shifted back 400-year cycles, in 3026.
    @Test func allYearDaylightTimeFromAFooterAlone() throws {
        let bytes = syntheticTZif(version: 2, types: [-18_000], transitions: [], footer: "EST5EDT,0/0,J365/25")
        let table = OffsetTable(try TZifFile(bytes: bytes))
        for year in [2026, 3026] {
            for (month, day, hour) in [(1, 1, 0), (1, 1, 5), (7, 1, 12), (12, 31, 23)] {
                let t = TimeTestFixtures.utcSeconds(year: year, month: month, day: day, hour: hour)
                #expect(table.offset(at: t) == -14_400, "\(year)-\(month)-\(day) \(hour)h")
            }
        }
    }

    /// A southern-hemisphere rule in J and n forms, unrolled: in 2026 daylight time
    /// (−2 h) runs from J300 (27 October) 02:00 local to day 59 (1 March, 2026 is not leap)
    /// 02:00 local.
    @Test func southernRuleInJulianForms() throws {
        let bytes = syntheticTZif(version: 2, types: [-10_800], transitions: [], footer: "XXX3YYY,J300,59")
        let table = OffsetTable(try TZifFile(bytes: bytes))
        // 1 March 02:00 daylight (−2) = 04:00Z: the second before is −2 h, then −3 h.
        let end = TimeTestFixtures.utcSeconds(year: 2026, month: 3, day: 1, hour: 4)
        #expect(table.offset(at: end - 1) == -7_200)
        #expect(table.offset(at: end) == -10_800)
        // J300 = 27 October (day 300 of a 365-day count); 02:00 standard (−3) = 05:00Z.
        let start = TimeTestFixtures.utcSeconds(year: 2026, month: 10, day: 27, hour: 5)
        #expect(table.offset(at: start - 1) == -10_800)
        #expect(table.offset(at: start) == -7_200)
        // 2028 is leap: day 59 is 29 February; 02:00 (−2) = 04:00Z.
        let leapEnd = TimeTestFixtures.utcSeconds(year: 2028, month: 2, day: 29, hour: 4)
        #expect(table.offset(at: leapEnd - 1) == -7_200)
        #expect(table.offset(at: leapEnd) == -10_800)
    }
}

/// A TZif file with the given offsets (time types) and transitions (time, type index):
/// version 1 writes the 32-bit block only; version 2+ writes an empty 32-bit block, the
/// 64-bit block and the footer, as zic -b slim does.
private func syntheticTZif(version: Int, types: [Int32], transitions: [(Int64, UInt8)],
                           footer: String? = nil, leapCount: Int = 0) -> [UInt8] {
    func header(timeCount: Int, typeCount: Int, charCount: Int, leapCount: Int) -> [UInt8] {
        var bytes = Array("TZif".utf8) + [version == 1 ? 0 : UInt8(ascii: "0") + UInt8(version)]
        bytes += [UInt8](repeating: 0, count: 15)
        for count in [0, 0, leapCount, timeCount, typeCount, charCount] { bytes += bigEndian(UInt32(count)) }
        return bytes
    }
    func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
    func block(timeSize: Int) -> [UInt8] {
        var bytes = header(timeCount: transitions.count, typeCount: types.count, charCount: 4, leapCount: leapCount)
        for (time, _) in transitions { bytes += timeSize == 8 ? bigEndian(time) : bigEndian(Int32(time)) }
        bytes += transitions.map(\.1)
        for offset in types { bytes += bigEndian(offset) + [0, 0] }
        bytes += Array("XYZ\0".utf8)
        bytes += [UInt8](repeating: 0, count: leapCount * (timeSize + 4))
        return bytes
    }
    if version == 1 { return block(timeSize: 4) }
    var bytes = header(timeCount: 0, typeCount: 1, charCount: 0, leapCount: 0) + [0, 0, 0, 0, 0, 0]
    bytes += block(timeSize: 8)
    if let footer { bytes += Array("\n\(footer)\n".utf8) }
    return bytes
}
