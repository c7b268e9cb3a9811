import PlanRules
import PlanStore
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

    /// A change waiting for its midnight is read by the first run that sees it, not by
    /// every run whose look-back still covers the write (issue 17: at ten million users
    /// those re-reads made a run with nothing due cost 1.2 s); `next_check_at` brings the
    /// user back at midnight, and a newer write is read at once.
    @Test func aChangeWaitingForItsMidnightIsReadOnceNotByEveryRun() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            try driver.insert(TestUser(userID: 81, updatedAt: t0.adding(minutes: -30)))
            try driver.run(at: t0)
            let store = PlanStore(connection: driver.connection)
            func candidates(at asOf: Instant) throws -> [Int64] {
                try store.changedOrDueUsers(asOf: asOf, partitions: Array(0..<UserPartitions.count),
                                            changedSince: t0.adding(minutes: -60)).userIDs.map { $0 }
            }
            #expect(try candidates(at: t0.adding(minutes: 10)) == [])

            try driver.setWeight(of: 81, to: "85.0", at: t0.adding(minutes: 5))
            #expect(try candidates(at: t0.adding(minutes: 15)) == [81])
            let judging = try driver.run(at: t0.adding(minutes: 15))
            #expect(judging.counts.due == 0)
            let midnight = try LocalTime.midnight(of: LocalTime.date(at: t0, in: "UTC").adding(days: 1), in: "UTC")
            #expect(try driver.state(of: 81)?.nextCheckAt == midnight)
            #expect(try candidates(at: t0.adding(minutes: 30)) == [])
            #expect(try candidates(at: midnight) == [81])

            try driver.setWeight(of: 81, to: "84.0", at: t0.adding(minutes: 40))
            #expect(try candidates(at: t0.adding(minutes: 45)) == [81])
            #expect(try driver.run(at: t0.adding(minutes: 45)).counts.due == 0)
            #expect(try candidates(at: t0.adding(minutes: 60)) == [])

            let atMidnight = try driver.run(at: midnight)
            #expect(atMidnight.counts.changed == 1)
            #expect(try driver.history(of: 81).last?.reasons == ["settings_changed"])
            #expect(try driver.history(of: 81).last?.weightReported == "84.0")
            #expect(try candidates(at: midnight.adding(minutes: 15)) == [])
        }
    }

    /// A first run takes every id as a candidate from the tables' primary keys instead of
    /// filtering changed rows (`SelectionStart.isFirstRun`): the same ids and the same
    /// watermark as the exact selection, for every partition share, whatever `updated_at`
    /// holds (NULL, infinite, ahead of the run); and only until someone has a plan under
    /// these rules and the partitions a watermark.
    @Test func aFirstRunSelectsEveryIdWithTheExactSelectionsWatermark() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            for userID in Int64(1)...40 {
                try driver.insert(TestUser(userID: userID * 7, updatedAt: t0.adding(minutes: -Int64(userID * 13 % 97))))
            }
            try driver.connection.execute(
                """
                UPDATE user_settings SET updated_at = CASE user_id WHEN 7 THEN NULL WHEN 14 THEN 'infinity'
                    WHEN 21 THEN '-infinity' ELSE \(t0.adding(minutes: 30))::timestamptz END
                WHERE user_id IN (7, 14, 21, 28)
                """, purpose: "giving four rows a NULL, an infinite and a future updated_at")
            let store = PlanStore(connection: driver.connection)
            let all = Array(0..<UserPartitions.count)
            #expect(try store.selectionStart(of: all).isFirstRun)
            for partitions in [all, all.filter { $0 % 2 == 1 }, [5]] {
                let exact = try store.changedOrDueUsers(asOf: t0, partitions: partitions, changedSince: nil)
                let everyone = try store.everyUserByID(asOf: t0, partitions: partitions)
                #expect(everyone.userIDs.map { $0 } == exact.userIDs.map { $0 }, "partitions \(partitions)")
                #expect(everyone.newestUpdatedAt == exact.newestUpdatedAt, "partitions \(partitions)")
                #expect(everyone.userIDs.map { $0 }.allSatisfy { partitions.contains(UserPartitions.partition(of: $0)) })
            }
            #expect(try store.everyUserByID(asOf: t0, partitions: all)
                .userIDs.count == 40)

            try driver.run(at: t0)
            #expect(try driver.tableCounts()["plan_state"] == 40)
            #expect(try watermarks(driver) == [t0.adding(minutes: -1)])
            #expect(try !store.selectionStart(of: all).isFirstRun)
        }
    }

    /// A first run of every partition takes the range of ids as its candidates when at
    /// least half of it are users (`PlanStore.everyUserByIDRange`): the exact selection's
    /// ids and the gaps between them, its watermark, batches larger by the share of gaps.
    /// An id no user has gets no state. Only some partitions, or ids too sparse: nil, and
    /// the run reads the ids.
    @Test func aFirstRunOfEveryPartitionTakesTheRangeOfIds() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            let store = PlanStore(connection: driver.connection)
            let all = Array(0..<UserPartitions.count)
            #expect(try store.everyUserByIDRange(asOf: t0, partitions: all)?.userIDs.isEmpty == true)

            let gaps: Set<Int64> = [5, 17, 18, 33]
            for userID in Int64(1)...40 where !gaps.contains(userID) {
                try driver.insert(TestUser(userID: userID, updatedAt: t0.adding(minutes: -Int64(userID * 13 % 97))))
            }
            let exact = try store.changedOrDueUsers(asOf: t0, partitions: all, changedSince: nil)
            let range = try #require(try store.everyUserByIDRange(asOf: t0, partitions: all))
            #expect(range.userIDs.map { $0 } == Array(1...40))
            #expect(exact.userIDs.map { $0 } == Array(1...40).filter { !gaps.contains($0) })
            #expect(range.newestUpdatedAt == exact.newestUpdatedAt)
            #expect(range.idsPerUser == 40.0 / 36.0)
            #expect(try store.everyUserByIDRange(asOf: t0, partitions: all.filter { $0 != 3 }) == nil)

            let first = try driver.run(at: t0)
            #expect(first.counts.created == 36)
            #expect(try driver.tableCounts()["plan_state"] == 36)
            #expect(try driver.connection.query("SELECT count(*) AS n FROM plan_state WHERE user_id IN (5, 17, 18, 33)",
                                                purpose: "counting states of ids no user has")
                .singleRow().int64("n") == 0)

            // A state without a settings row widens the range; a user far away makes it sparse.
            try driver.connection.execute("DELETE FROM user_settings WHERE user_id = 40", purpose: "deleting user 40")
            let withState = try #require(try store.everyUserByIDRange(asOf: t0, partitions: all))
            #expect(withState.userIDs.map { $0 } == Array(1...40))
            #expect(withState.idsPerUser == 40.0 / 35.0)
            try driver.insert(TestUser(userID: 1_000, updatedAt: t0))
            #expect(try store.everyUserByIDRange(asOf: t0, partitions: all) == nil)
        }
    }

    private func watermarks(_ driver: RunDriver) throws -> Set<Instant> {
        Set(try driver.connection.query(
            "SELECT (extract(epoch FROM settings_watermark) * 1000000)::int8 FROM plan_watermarks",
            purpose: "reading watermarks").map { Instant(microsecondsSinceEpoch: try $0.int64(0)) })
    }
}
