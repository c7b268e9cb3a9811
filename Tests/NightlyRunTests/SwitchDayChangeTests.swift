import PlanRules
import Testing

/// Settings take effect at the first local midnight after `updated_at`, while scheduled
/// events regenerate from the current plan's inputs (plan-rules.md section 2).
@Suite struct SwitchDayChangeTests {
    /// The app writes at 00:05 local on day 14, before the day's first run (00:15): the
    /// switch to maintenance happens at 00:15 from the old inputs; the new weight waits
    /// for day 15's midnight.
    @Test(arguments: ["Europe/Berlin", "Australia/Lord_Howe"])
    func aChangeAt0005OnASwitchDayWaitsForTheNextDayWhileTheSwitchHappensOnTime(zone: String) throws {
        try RunDriver.withFresh { driver in
            let start = try #require(Instant(rfc3339: "2026-03-02T12:00:00Z"))
            try driver.insert(TestUser(userID: 9, timezone: zone, updatedAt: start.adding(seconds: -3600)))
            try driver.run(at: start)
            let cycleStart = try LocalTime.date(at: start, in: zone)
            let day14 = cycleStart.adding(days: 14), day15 = cycleStart.adding(days: 15)
            let midnight14 = try LocalTime.midnight(of: day14, in: zone)
            let midnight15 = try LocalTime.midnight(of: day15, in: zone)

            try driver.run(at: midnight14.adding(minutes: -15))
            try driver.setWeight(of: 9, to: "86.0", at: midnight14.adding(minutes: 5))
            try driver.run(at: midnight14.adding(minutes: 15))
            var history = try driver.history(of: 9)
            #expect(history.map(\.planDate) == [cycleStart, day14])
            #expect(history.last?.reasons == ["phase_switch"])
            #expect(history.last?.phase == "maintenance")
            #expect(history.last?.weightReported == "90.0")
            #expect(try driver.state(of: 9)?.nextCheckAt == midnight15)

            try driver.run(at: midnight14.adding(minutes: 30))
            try driver.run(at: midnight15.adding(minutes: -15))
            #expect(try driver.history(of: 9).count == 2)

            try driver.run(at: midnight15)
            history = try driver.history(of: 9)
            #expect(history.map(\.planDate) == [cycleStart, day14, day15])
            #expect(history.last?.reasons == ["settings_changed"])
            #expect(history.last?.phase == "maintenance")
            #expect(history.last?.weightReported == "86.0" && history.last?.weightBasis == "86.0")
            #expect(try driver.emittedNotifications().map(\.type)
                    == ["plan_created", "phase_switch", "targets_updated"])
        }
    }

    /// A change written at 23:59 local shows in the next day's plan, not the same day's.
    @Test func aChangeLateInTheDayShowsUpTheNextLocalDay() throws {
        try RunDriver.withFresh { driver in
            let zone = "Asia/Kathmandu"
            let start = try #require(Instant(rfc3339: "2026-05-04T03:00:00Z"))
            try driver.insert(TestUser(userID: 3, primaryGoal: "maintain_weight", timezone: zone,
                                       updatedAt: start.adding(seconds: -3600)))
            try driver.run(at: start)
            let day0 = try LocalTime.date(at: start, in: zone)
            let nextMidnight = try LocalTime.midnight(of: day0.adding(days: 1), in: zone)
            try driver.update(3, column: "activity_level", to: "very_active", at: nextMidnight.adding(minutes: -1))

            try driver.run(at: nextMidnight.adding(minutes: -1))
            #expect(try driver.history(of: 3).count == 1)
            try driver.run(at: nextMidnight)
            let history = try driver.history(of: 3)
            #expect(history.map(\.planDate) == [day0, day0.adding(days: 1)])
            #expect(history.last?.diffPaths.contains("inputs.activity_level") == true)
        }
    }
}
