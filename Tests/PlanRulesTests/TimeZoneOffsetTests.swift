import Foundation
import Testing
@testable import PlanRules

/// Foundation on Linux answers from ICU's own copy of the tz data (and where that copy is an
/// older release than the system's, `SystemZoneOracle` judges), in which tzdata 2024b's
/// links `EET` → Europe/Athens, `WET` → Europe/Lisbon and `EST` → America/Panama are
/// made; this system's `tzdata.zi` still has them as zones of their own (`Z EET 2 E
/// EE%sT`, `Z WET 0 E WE%sT`, `Z EST -5 - EST`). The system data is the contract
/// (plan-rules.md section 1), so these differ from Foundation on purpose.
let zonesWhereFoundationFollowsNewerLinks: Set = ["EET", "WET", "EST"]

@Suite struct TimeZoneOffsetTests {
    /// Every offset change Foundation reports between 1970 and 2100, one second before, at
    /// and after it, and a sample every 25 h 0 min 7 s (the hour drifts through the day),
    /// must match ours to the second. After 2037 the fat TZif files list nothing: those
    /// answers come from the footer rule.
    @Test(arguments: TimeTestFixtures.offbeatZones)
    func offsetsMatchFoundation(name: String) throws {
        let mismatches = try offsetMismatches(name, from: TimeTestFixtures.utcSeconds(year: 1970), to: TimeTestFixtures.utcSeconds(year: 2100))
        #expect(mismatches.isEmpty, "\(name): \(mismatches)")
    }

    /// The footer rule is unrolled for 400 years after the year of the last listed change
    /// (2037 in these files), so the table ends in 2439 and later instants are shifted back
    /// whole 400-year cycles: the seam and far beyond must still agree.
    @Test(arguments: TimeTestFixtures.offbeatZones)
    func offsetsAcrossThe400YearCycleMatchFoundation(name: String) throws {
        let atSeam = try offsetMismatches(name, from: TimeTestFixtures.utcSeconds(year: 2436), to: TimeTestFixtures.utcSeconds(year: 2442))
        let farAway = try offsetMismatches(name, from: TimeTestFixtures.utcSeconds(year: 9990), to: TimeTestFixtures.utcSeconds(year: 9999))
        #expect(atSeam.isEmpty && farAway.isEmpty, "\(name): \(atSeam + farAway)")
    }

    /// Local mean time and early history come from the same files.
    @Test(arguments: TimeTestFixtures.offbeatZones.filter { !zonesWhereFoundationFollowsNewerLinks.contains($0) })
    func offsetsBefore1970MatchFoundation(name: String) throws {
        let mismatches = try offsetMismatches(name, from: TimeTestFixtures.utcSeconds(year: 1900), to: TimeTestFixtures.utcSeconds(year: 1970))
        #expect(mismatches.isEmpty, "\(name): \(mismatches)")
    }

    /// All 598 known names, every change (one second before, at, after) plus a sample
    /// every 29 days and 1 h 7 s, 1970–2100.
    /// With Foundation's data older than the system's, Python's reading of the system files
    /// judges every disagreement, the relinked names' too: then none may remain.
    @Test func everyKnownZoneMatchesFoundationExceptTheRelinkedOnes() throws {
        var mismatches: [SystemZoneOracle.Mismatch] = []
        for name in try TimeTestFixtures.knownNames() {
            mismatches += try foundationMismatches(name, from: TimeTestFixtures.utcSeconds(year: 1970),
                                                   to: TimeTestFixtures.utcSeconds(year: 2100),
                                                   sampleEvery: 29 * 86_400 + 3607)
        }
        let disagreeing = Set(try SystemZoneOracle.unexplained(mismatches).map(\.zone))
        // EST differs only before 1970 (Panama's LMT).
        #expect(disagreeing == (SystemZoneOracle.foundationDataDiffers ? [] : ["EET", "WET"]))
    }

    /// What the system data says for the relinked names, checked by hand against tzdata.zi.
    @Test func relinkedNamesFollowTheSystemData() throws {
        let zones = try #require(TimeTestFixtures.database)
        let est = try #require(zones.zone(named: "EST"))
        let eet = try #require(zones.zone(named: "EET"))
        // `Z EST -5 - EST`: −5 h = −18 000 s at all times, 1900 included.
        #expect(est.utcOffsetSeconds(at: Instant(secondsSinceEpoch: TimeTestFixtures.utcSeconds(year: 1900))) == -18_000)
        // `Z EET 2 E EE%sT`: EU rules start in 1977, so mid-1975 is plain +2 h = 7 200 s
        // (Athens, which ICU uses, had DST then: +3 h).
        #expect(eet.utcOffsetSeconds(at: Instant(secondsSinceEpoch: TimeTestFixtures.utcSeconds(year: 1975, month: 7))) == 7_200)
        // and from 1977 EET follows the EU: summer +3 h = 10 800 s.
        #expect(eet.utcOffsetSeconds(at: Instant(secondsSinceEpoch: TimeTestFixtures.utcSeconds(year: 1977, month: 7))) == 10_800)
    }

    /// Up to five disagreements with Foundation (as text) over [start, end) that the
    /// system's own files do not explain (`SystemZoneOracle`).
    private func offsetMismatches(_ name: String, from start: Int64, to end: Int64,
                                  sampleEvery step: Int = 25 * 3600 + 7) throws -> [String] {
        try SystemZoneOracle.unexplained(foundationMismatches(name, from: start, to: end, sampleEvery: step))
            .prefix(5).map(\.description)
    }

    /// Every instant over [start, end) where Foundation's offset is not ours.
    private func foundationMismatches(_ name: String, from start: Int64, to end: Int64,
                                      sampleEvery step: Int) throws -> [SystemZoneOracle.Mismatch] {
        let zones = try #require(TimeTestFixtures.database)
        let zone = try #require(zones.zone(named: name))
        let reference = try #require(TimeZone(identifier: name), "\(name)")

        var instants = Array(stride(from: start, to: end, by: step))
        var next = reference.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: Double(start)))
        while let transition = next, transition.timeIntervalSince1970 < Double(end) {
            let t = Int64(transition.timeIntervalSince1970)
            instants += [t - 1, t, t + 1]
            next = reference.nextDaylightSavingTimeTransition(after: transition)
        }
        var mismatches: [SystemZoneOracle.Mismatch] = []
        for t in instants {
            let expected = reference.secondsFromGMT(for: Date(timeIntervalSince1970: Double(t)))
            let actual = zone.utcOffsetSeconds(at: Instant(secondsSinceEpoch: t))
            if expected != actual {
                mismatches.append(SystemZoneOracle.Mismatch(zone: name, seconds: t, ours: actual, foundation: expected))
            }
        }
        return mismatches
    }
}

extension Zone {
    /// Seconds east of UTC in effect at `instant`.
    func utcOffsetSeconds(at instant: Instant) -> Int { table.offset(at: instant.secondsSinceEpoch) }
}
