import PlanRules
import Testing

/// A run reads changed rows from the last watermark minus a look-back, so a write whose
/// `updated_at` is older than what the last run saw, committed after that run read, is
/// never lost (plan-rules.md section 2, "Concurrency").
@Suite struct WatermarkTests {
    @Test func rowsCommittedAfterTheLastRunWithAnOlderUpdatedAtAreStillPickedUp() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            try driver.insert(TestUser(userID: 71, updatedAt: t0.adding(minutes: -30)))
            try driver.insert(TestUser(userID: 74, updatedAt: t0.adding(minutes: -5)))
            try driver.run(at: t0)
            #expect(try watermarks(driver) == [t0.adding(minutes: -5)])

            // Transactions that set updated_at at t0 − 20 min (a new user) and t0 − 10 min
            // (a change of user 71) commit only after the next run read rows up to t0 + 10.
            try driver.insert(TestUser(userID: 75, updatedAt: t0.adding(minutes: 10)))
            try driver.run(at: t0.adding(minutes: 15))
            #expect(try watermarks(driver) == [t0.adding(minutes: 10)])
            try driver.insert(TestUser(userID: 72, updatedAt: t0.adding(minutes: -20)))
            try driver.setWeight(of: 71, to: "85.0", at: t0.adding(minutes: -10))

            let next = try driver.run(at: t0.adding(minutes: 30))
            #expect(next.counts.created == 1)
            #expect(try driver.history(of: 72).first?.reasons == ["created"])
            let midnight = try LocalTime.midnight(of: LocalTime.date(at: t0, in: "UTC").adding(days: 1), in: "UTC")
            #expect(try driver.state(of: 71)?.nextCheckAt == midnight)

            let atMidnight = try driver.run(at: midnight)
            #expect(atMidnight.counts.changed == 1)
            #expect(try driver.history(of: 71).last?.reasons == ["settings_changed"])
            #expect(try driver.history(of: 71).last?.weightReported == "85.0")
        }
    }

    private func watermarks(_ driver: RunDriver) throws -> Set<Instant> {
        Set(try driver.connection.query(
            "SELECT (extract(epoch FROM settings_watermark) * 1000000)::int8 FROM plan_watermarks",
            purpose: "reading watermarks").map { Instant(microsecondsSinceEpoch: try $0.int64(0)) })
    }
}
