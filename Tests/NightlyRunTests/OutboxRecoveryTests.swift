import NightlyRun
import PlanRules
import Testing

/// A notification committed with its plan but never emitted (a crash, a broken pipe, a
/// full disk) is emitted by the next run, with the same id (plan-rules.md section 7).
@Suite struct OutboxRecoveryTests {
    @Test func notificationsTheSinkCouldNotTakeAreEmittedByTheNextRunWithTheSameIDs() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            for userID in Int64(61)...63 {
                try driver.insert(TestUser(userID: userID, updatedAt: t0.adding(seconds: -60)))
            }
            // Every write to /dev/full fails with ENOSPC.
            let full = try NotificationSink.appending(toFile: "/dev/full")
            #expect(throws: RunError.self) { try driver.run(at: t0, notifications: full) }

            let committed = try driver.outbox()
            #expect(committed.count == 3)
            #expect(committed.allSatisfy { !$0.emitted })
            #expect(try driver.history().count == 3)
            let failedRun = try driver.connection.query(
                "SELECT status, error IS NOT NULL FROM plan_runs", purpose: "reading the failed run").singleRow()
            #expect(try failedRun.string(0) == "failed" && failedRun.bool(1))

            let next = try driver.run(at: t0.adding(minutes: 15))
            #expect(next.counts.due == 0)
            let emitted = try driver.emittedNotifications()
            #expect(emitted.map(\.id).sorted() == committed.map(\.id))
            #expect(emitted.map(\.raw).sorted() == committed.map(\.payload).sorted())
            #expect(emitted.allSatisfy { $0.id.hasSuffix(":plan_created:0") })
            #expect(try driver.outbox().allSatisfy { $0.emitted })

            // Emitted once: a third run emits nothing more.
            try driver.run(at: t0.adding(minutes: 30))
            #expect(try driver.emittedNotifications().count == 3)
        }
    }
}
