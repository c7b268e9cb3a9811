import PlanRules
import Testing

/// Midnights where the clock jumps, and a user who moves to another zone (plan-rules.md
/// section 2, "Plan date" and "Which zone"), with runs every 15 minutes around them.
@Suite struct ZoneEdgeTests {
    /// Runs every 15 minutes from two hours before `midnight` to one hour after it.
    private func runsAround(_ midnight: Instant, driver: RunDriver) throws {
        for quarter in Int64(-8)...4 { try driver.run(at: midnight.adding(minutes: 15 * quarter)) }
    }

    /// Santiago skips 00:00 on 2026-09-06 (the day starts at 01:00, 04:00Z) and repeats
    /// 23:00–24:00 on 2026-04-04 (2026-04-05 starts at 04:00Z, after the repeat). A switch
    /// on each date is written at that first instant, not in the repeated hour.
    @Test(arguments: [("2026-03-22", "2026-04-05T04:00:00Z"), ("2026-08-23", "2026-09-06T04:00:00Z")])
    func aPhaseSwitchOnADSTDateIsWrittenAtTheFirstInstantOfTheDate(cycleStart: String, expected: String) throws {
        try RunDriver.withFresh { driver in
            let zone = "America/Santiago"
            let start = try LocalTime.wallTime(try #require(LocalDate(iso8601: cycleStart)), hour: 12, in: zone)
            try driver.insert(TestUser(userID: 11, timezone: zone, updatedAt: start.adding(minutes: -5)))
            try driver.run(at: start)
            let switchDate = try #require(LocalDate(iso8601: cycleStart)).adding(days: 14)
            let midnight = try LocalTime.midnight(of: switchDate, in: zone)
            #expect(midnight == Instant(rfc3339: expected), "Foundation's midnight")
            #expect(try driver.state(of: 11)?.nextCheckAt == midnight)

            try runsAround(midnight, driver: driver)
            let history = try driver.history(of: 11)
            #expect(history.map(\.planDate) == [switchDate.adding(days: -14), switchDate])
            #expect(history.last?.generatedAt == midnight)
            #expect(history.last?.phase == "maintenance")
        }
    }

    /// Tokyo → Los Angeles at 10:00 Tokyo time on D: the live zone (LA) decides at once.
    /// LA's next midnight starts D there, which was already evaluated in Tokyo, so the
    /// change shows at LA's midnight of D + 1 and nothing is written at LA's midnight of D.
    @Test func aUserWhoMovesWestGetsTheChangeAtTheNewZonesFirstUnevaluatedMidnight() throws {
        try RunDriver.withFresh { driver in
            let day = try #require(LocalDate(iso8601: "2026-06-10"))
            let start = try LocalTime.wallTime(day, hour: 8, in: "Asia/Tokyo")
            try driver.insert(TestUser(userID: 12, primaryGoal: "maintain_weight", timezone: "Asia/Tokyo",
                                       updatedAt: start.adding(minutes: -5)))
            try driver.run(at: start)
            try driver.update(12, column: "timezone", to: "America/Los_Angeles",
                              at: try LocalTime.wallTime(day, hour: 10, in: "Asia/Tokyo"))
            let laMidnightOfD = try LocalTime.midnight(of: day, in: "America/Los_Angeles")
            let laMidnightAfter = try LocalTime.midnight(of: day.adding(days: 1), in: "America/Los_Angeles")

            try runsAround(laMidnightOfD, driver: driver)
            #expect(try driver.history(of: 12).count == 1)
            #expect(try driver.state(of: 12)?.nextCheckAt == laMidnightAfter)
            try runsAround(laMidnightAfter, driver: driver)
            let history = try driver.history(of: 12)
            #expect(history.map(\.planDate) == [day, day.adding(days: 1)])
            #expect(history.last?.generatedAt == laMidnightAfter)
            #expect(history.last?.diffPaths == ["inputs.settings_updated_at", "inputs.timezone"])
        }
    }

    /// Plans made under an older rules version are regenerated at each user's next
    /// local midnight (never for a date already evaluated), once, without a notification
    /// when no target changed.
    @Test func aNewRulesVersionRegeneratesEachPlanOnceAtTheNextLocalMidnight() throws {
        try RunDriver.withFresh { driver in
            let zone = "Asia/Kathmandu"
            let start = try #require(Instant(rfc3339: "2026-06-10T04:00:00Z"))
            try driver.insert(TestUser(userID: 13, primaryGoal: "improve_health", timezone: zone,
                                       updatedAt: start.adding(minutes: -5)))
            try driver.run(at: start)
            // As if the plan had been made by the previous release.
            try driver.connection.executeScript(
                """
                UPDATE plan_state SET rules_version = '2025.9', next_check_at = NULL;
                UPDATE plan_history SET rules_version = '2025.9',
                       snapshot = jsonb_set(snapshot, '{rules_version}', '"2025.9"');
                """, purpose: "aging the stored plan's rules")

            let sameDay = try driver.run(at: start.adding(minutes: 15))
            #expect(sameDay.counts.due == 0)
            let midnight = try LocalTime.midnight(of: LocalTime.date(at: start, in: zone).adding(days: 1), in: zone)
            #expect(try driver.state(of: 13)?.nextCheckAt == midnight)
            let linesBefore = try driver.emittedNotifications().count
            try runsAround(midnight, driver: driver)
            let history = try driver.history(of: 13)
            #expect(history.count == 2)
            #expect(history.last?.reasons == ["rules_changed"])
            #expect(history.last?.generatedAt == midnight)
            #expect(history.last?.diffPaths == ["rules_version"])
            #expect(try driver.emittedNotifications().count == linesBefore)
        }
    }
}
