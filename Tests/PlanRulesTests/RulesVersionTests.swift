@testable import PlanRules
import Testing

/// Rules versions order as two numbers, malformed ones oldest (plan-rules.md section 2.1),
/// and a plan of an older version is made again from the first date after E whose local
/// midnight is at or after the rollout start.
@Suite struct RulesVersionTests {
    @Test func versionsOrderAsNumbersAndMalformedOnesAreOldest() {
        #expect(RulesVersionStanding(of: "2026.9", against: "2026.10") == .older)
        #expect(RulesVersionStanding(of: "2026.10", against: "2026.9") == .newer)
        #expect(RulesVersionStanding(of: "2026.010", against: "2026.10") == .same)
        #expect(RulesVersionStanding(of: "2025.99", against: "2026.0") == .older)
        #expect(RulesVersionStanding(of: "10000.1", against: "9999.9") == .newer)
        for malformed in ["", "2026", "2026.", ".1", "2026.1.1", "v2026.1", "2026.-1", "2026.1 ", "２０２６.1"] {
            #expect(RulesVersionStanding(of: malformed, against: "0.0") == .older, "\(malformed)")
            #expect(RulesVersionStanding(of: "0.0", against: malformed) == .newer, "\(malformed)")
        }
        #expect(RulesVersionStanding(of: "2026.1") == .same)
    }

    @Test func anOlderPlanIsMadeAgainAtTheFirstMidnightAtOrAfterTheRolloutStart() throws {
        let berlin = try #require(decisionZones.zone(named: "Europe/Berlin"))
        let march3 = LocalDate(year: 2026, month: 3, day: 3)
        // Worked case 3 of section 2.1: last evaluated 03-01, rollout starts 03-03 14:00 local.
        let start = try #require(Instant(rfc3339: "2026-03-03T13:00:00Z"))
        let rollout = RulesRollout(start: start)
        #expect(rollout.firstDate(after: LocalDate(year: 2026, month: 3, day: 1), in: berlin) == march3.adding(days: 1))
        // Case 4: E = 03-03 (a settings change planned at 03-03 00:00): still 03-04.
        #expect(rollout.firstDate(after: march3, in: berlin) == march3.adding(days: 1))
        // A start exactly at a midnight: that date.
        let atMidnight = RulesRollout(start: try #require(Instant(rfc3339: "2026-03-02T23:00:00Z")))
        #expect(atMidnight.firstDate(after: LocalDate(year: 2026, month: 3, day: 1), in: berlin) == march3)
        #expect(RulesRollout().firstDate(after: march3, in: berlin) == nil)
        #expect(RulesRollout(atOnceForOlder: true).firstDate(after: march3, in: berlin) == march3.adding(days: 1))
    }
}
