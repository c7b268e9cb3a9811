import PlanRules
import Testing

/// After an outage the next run brings each user to today's plan date in one step,
/// without backfilling missed dates (plan-rules.md section 2, "Catch-up").
@Suite struct OutageTests {
    /// Creates a MATADOR user whose first plan is for C (the local date at `start`), runs
    /// at every local midnight of days 1…`lastDay`, and returns (C, the driver's view).
    private func userRunDaily(through lastDay: Int, zone: String, start: Instant, driver: RunDriver) throws -> LocalDate {
        try driver.insert(TestUser(userID: 7, timezone: zone, updatedAt: start.adding(seconds: -3600)))
        try driver.run(at: start)
        let cycleStart = try LocalTime.date(at: start, in: zone)
        for day in 1...lastDay {
            try driver.run(at: LocalTime.midnight(of: cycleStart.adding(days: day), in: zone))
        }
        #expect(try driver.history(of: 7).count == 1)
        return cycleStart
    }

    @Test(arguments: ["America/Santiago", "Asia/Kathmandu"])
    func anOutageFromDay5ToDay25CatchesUpInOneRunWithMaintenanceAndOneNotification(zone: String) throws {
        try RunDriver.withFresh { driver in
            let start = try #require(Instant(rfc3339: "2026-03-02T12:00:00Z"))
            let cycleStart = try userRunDaily(through: 5, zone: zone, start: start, driver: driver)
            let day25 = cycleStart.adding(days: 25)
            let backAt = try LocalTime.midnight(of: day25, in: zone).adding(minutes: 15)

            let summary = try driver.run(at: backAt)
            #expect(summary.counts.changed == 1)
            let history = try driver.history(of: 7)
            #expect(history.map(\.planDate) == [cycleStart, day25])
            #expect(history.last?.phase == "maintenance")
            #expect(history.last?.reasons == ["phase_switch"])
            let switches = try driver.emittedNotifications().filter { $0.type == "phase_switch" }
            #expect(switches.map(\.id) == ["7:\(day25):phase_switch:0"])

            // Later runs the same day add nothing.
            try driver.run(at: backAt.adding(minutes: 15))
            #expect(try driver.history(of: 7).count == 2)
        }
    }

    /// Day 30 is in block 2, deficit again, like the current plan: the two boundaries
    /// in between make the user due, the plan is unchanged, nothing is written or sent,
    /// and the next check is day 42's midnight (maintenance).
    @Test(arguments: ["America/Santiago", "Asia/Kathmandu"])
    func anOutageFromDay10ToDay30WritesNothingAndWaitsForDay42(zone: String) throws {
        try RunDriver.withFresh { driver in
            let start = try #require(Instant(rfc3339: "2026-03-02T12:00:00Z"))
            let cycleStart = try userRunDaily(through: 10, zone: zone, start: start, driver: driver)
            let linesBefore = try driver.emittedNotifications().count
            let day30 = cycleStart.adding(days: 30)

            let back = try driver.run(at: LocalTime.midnight(of: day30, in: zone).adding(minutes: 15))
            #expect(back.counts.due == 1 && back.counts.unchanged == 1 && back.counts.changed == 0)
            #expect(try driver.history(of: 7).count == 1)
            #expect(try driver.emittedNotifications().count == linesBefore)
            let day42Midnight = try LocalTime.midnight(of: cycleStart.adding(days: 42), in: zone)
            let state = try #require(try driver.state(of: 7))
            #expect(state.lastEvaluatedDate == day30)
            #expect(state.nextCheckAt == day42Midnight)
            #expect(state.updatedByRun == back.runID)

            // Runs in between neither select nor rewrite the user.
            for instant in [try LocalTime.midnight(of: cycleStart.adding(days: 31), in: zone),
                            try LocalTime.wallTime(cycleStart.adding(days: 35), hour: 12, in: zone),
                            day42Midnight.adding(minutes: -15)] {
                let between = try driver.run(at: instant)
                #expect(between.counts.due == 0)
                #expect(try driver.state(of: 7) == state)
            }

            let switchRun = try driver.run(at: day42Midnight)
            #expect(switchRun.counts.changed == 1)
            let history = try driver.history(of: 7)
            #expect(history.map(\.planDate) == [cycleStart, cycleStart.adding(days: 42)])
            #expect(history.last?.phase == "maintenance")
            #expect(try driver.emittedNotifications().last?.id == "7:\(cycleStart.adding(days: 42)):phase_switch:0")
        }
    }
}
