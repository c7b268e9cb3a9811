import Foundation
import NightlyRun
import PlanRules
import PlanStore
import Postgres
import Testing

/// Rows that become visible long after their `updated_at` (plan-rules.md section 2, "Late
/// rows"): a bulk import, an offline edit synced late, a long transaction, a restore. The
/// change watermark never sees them; the late-row sweep (`LateRowSweep`) plans them within
/// its bound: the sweep period (4 hours) plus the time between runs (15 minutes).
@Suite struct LateRowTests {
    static let period: Int64 = LateRowSweep.defaultPeriodSeconds
    static let bound = period + 15 * 60

    /// Users whose weight the app writes just before every run, so the watermarks move on.
    static let busyUsers: [Int64] = Array(1...20)

    static func runEvery15Minutes(_ driver: RunDriver, from start: Instant, through end: Instant,
                                  editing busy: [Int64] = busyUsers, _ body: (Instant, RunSummary) throws -> Void = { _, _ in })
        throws {
        var asOf = start
        var step = 0
        while asOf <= end {
            for user in busy {
                try driver.setWeight(of: user, to: step % 2 == 0 ? "90.5" : "91.0", at: asOf.adding(minutes: -1))
            }
            try body(asOf, try driver.run(at: asOf))
            asOf = asOf.adding(minutes: 15)
            step += 1
        }
    }

    /// After weeks of runs, 50,000 users arrive by a bulk copy that kept their `updated_at`
    /// of 30 days before. Each gets its first plan (and one notification) within the bound,
    /// the runs count all 50,000 as found late, and none of them counts as a plan written
    /// late (the "plans late" alert reads the lateness histogram).
    @Test func importedRowsWithOldUpdatedAtArePlannedWithinTheBound() throws {
        try RunDriver.withFresh { driver in
            let weeksAgo = try #require(Instant(rfc3339: "2026-02-01T00:15:00Z"))
            for user in Self.busyUsers + Array(21...300) {
                try driver.insert(TestUser(userID: user, timezone: user % 2 == 0 ? "Europe/Berlin" : "America/Chicago",
                                           updatedAt: weeksAgo.adding(minutes: -60)))
            }
            for day in 0..<28 {
                let asOf = weeksAgo.adding(seconds: Int64(day) * 86_400)
                for user in Self.busyUsers { try driver.setWeight(of: user, to: "\(80 + day % 5).0", at: asOf.adding(minutes: -30)) }
                try driver.run(at: asOf)
            }
            let importedAt = try #require(Instant(rfc3339: "2026-03-01T12:00:00Z"))
            try driver.run(at: importedAt)
            let imported: ClosedRange<Int64> = 100_001...150_000
            try driver.connection.execute(
                """
                INSERT INTO user_settings (user_id, date_of_birth, gender, height_cm, current_weight_kg, target_weight_kg,
                                           primary_goal, activity_level, meals_per_day, timezone, onboarding_completed,
                                           updated_at)
                SELECT id, '1988-04-02', 'female', 165, 70, 62, 'lose_weight', 'lightly_active', 3,
                       (ARRAY['Asia/Kathmandu', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/Sao_Paulo'])[id % 4 + 1],
                       true, \(importedAt.adding(seconds: -30 * 86_400))::timestamptz + id * interval '1 ms'
                FROM generate_series(\(imported.lowerBound)::int8, \(imported.upperBound)::int8) AS id
                """, purpose: "importing 50,000 users with old updated_at")

            var foundLate = 0
            var created = 0
            try Self.runEvery15Minutes(driver, from: importedAt.adding(minutes: 15),
                                       through: importedAt.adding(seconds: Self.bound)) { _, summary in
                foundLate += summary.counts.foundLate
                created += summary.counts.created
                #expect(summary.counts.lateness.count == 0, "no plan of these runs is due at a midnight")
            }
            #expect(foundLate == imported.count)
            #expect(created == imported.count)
            let row = try driver.connection.query(
                """
                SELECT count(DISTINCT h.user_id) AS planned, count(*) AS rows,
                       count(*) FILTER (WHERE h.reasons = ARRAY['created']) AS created,
                       (SELECT count(*) FROM notification_outbox_lines o
                        WHERE o.user_id BETWEEN \(imported.lowerBound) AND \(imported.upperBound)
                          AND o.emitted_at IS NOT NULL) AS emitted
                FROM plan_history h WHERE h.user_id BETWEEN \(imported.lowerBound) AND \(imported.upperBound)
                """, purpose: "counting the imported users' plans").singleRow()
            #expect(try row.int("planned") == imported.count)
            #expect(try row.int("rows") == imported.count)
            #expect(try row.int("created") == imported.count)
            #expect(try row.int("emitted") == imported.count)
            let lines = try driver.emittedNotifications().filter { imported.contains($0.userID) }
            #expect(lines.count == imported.count, "each imported user's notification emitted once")
            #expect(Set(lines.map(\.id)).count == imported.count)
        }
    }

    /// Edits made offline and synced when the device reconnects keep the instant they were
    /// made. Synced at V = 2026-03-10T18:00Z, 2 h, 26 h and 3 days after they were made, by
    /// users on both sides of the date line, while other users keep editing. Each applies
    /// on the date section 2 gives: the plan date of the run that finds it when its midnight
    /// has passed, else its midnight.
    @Test func offlineEditsSyncedLateApplyOnTheDatesTheRulesGive() throws {
        try RunDriver.withFresh { driver in
            let created = try #require(Instant(rfc3339: "2026-03-01T00:00:00Z"))
            let synced = try #require(Instant(rfc3339: "2026-03-10T18:00:00Z"))
            // Kiritimati is UTC+14, Pago Pago UTC−11: 25 hours apart, the same wall clock on
            // different dates.
            struct LateEdit { var user: Int64; var zone: String; var madeHoursBefore: Int64; var planDate: String }
            let edits = [
                // Made 16:00Z 03-10 = 06:00 03-11 in Kiritimati: its midnight is 03-12 00:00
                // local = 03-11T10:00Z, still ahead when found: it waits, and the run at that
                // midnight plans 03-12.
                LateEdit(user: 101, zone: "Pacific/Kiritimati", madeHoursBefore: 2, planDate: "2026-03-12"),
                // Made 16:00Z 03-09 = 06:00 03-10 local: midnight 03-11 local = 03-10T10:00Z,
                // passed when found (local 03-11 morning): the run that finds it plans 03-11.
                LateEdit(user: 102, zone: "Pacific/Kiritimati", madeHoursBefore: 26, planDate: "2026-03-11"),
                // Made 18:00Z 03-07 = 08:00 03-08 local: midnight 03-09 local passed; 03-11.
                LateEdit(user: 103, zone: "Pacific/Kiritimati", madeHoursBefore: 72, planDate: "2026-03-11"),
                // Made 16:00Z 03-10 = 05:00 03-10 in Pago Pago: midnight 03-11 00:00 local =
                // 03-11T11:00Z, ahead when found: the run at that midnight plans 03-11.
                LateEdit(user: 201, zone: "Pacific/Pago_Pago", madeHoursBefore: 2, planDate: "2026-03-11"),
                // Made 16:00Z 03-09 = 05:00 03-09 local: midnight 03-10 local = 03-10T11:00Z,
                // passed when found (local 03-10 morning): the run that finds it plans 03-10.
                LateEdit(user: 202, zone: "Pacific/Pago_Pago", madeHoursBefore: 26, planDate: "2026-03-10"),
                // Made 18:00Z 03-07 = 07:00 03-07 local: midnight 03-08 local passed; 03-10.
                LateEdit(user: 203, zone: "Pacific/Pago_Pago", madeHoursBefore: 72, planDate: "2026-03-10"),
            ]
            for user in Self.busyUsers {
                try driver.insert(TestUser(userID: user, updatedAt: created.adding(minutes: -60)))
            }
            for edit in edits {
                try driver.insert(TestUser(userID: edit.user, timezone: edit.zone, updatedAt: created.adding(minutes: -60)))
            }
            // A thousand more users, so that a slice is a share of many ids.
            for user in Int64(1000)...Int64(2000) {
                try driver.insert(TestUser(userID: user, updatedAt: created.adding(minutes: -60)))
            }
            try driver.run(at: created)

            var found: [Instant] = []
            try Self.runEvery15Minutes(driver, from: synced.adding(minutes: -360),
                                       through: synced.adding(seconds: 18 * 3600)) { asOf, summary in
                if asOf == synced.adding(minutes: -15) {
                    for edit in edits {
                        try driver.setWeight(of: edit.user, to: "84.0", at: synced.adding(seconds: -edit.madeHoursBefore * 3600))
                    }
                }
                if summary.counts.foundLate > 0 { found += Array(repeating: asOf, count: summary.counts.foundLate) }
            }
            #expect(found.count == edits.count, "each late edit found once")
            #expect(found.allSatisfy { $0 <= synced.adding(seconds: Self.bound) })
            for edit in edits {
                let plan = try #require(try driver.history(of: edit.user).last)
                #expect(plan.planDate == LocalDate(iso8601: edit.planDate), "user \(edit.user) in \(edit.zone)")
                #expect(plan.reasons == ["settings_changed"], "user \(edit.user)")
                #expect(plan.weightReported == "84.0", "user \(edit.user)")
                let midnight = try LocalTime.midnight(of: plan.planDate, in: edit.zone)
                if midnight > synced {
                    #expect(plan.generatedAt == midnight, "user \(edit.user): planned at its midnight")
                } else {
                    #expect(found.contains(plan.generatedAt), "user \(edit.user): planned by the run that found it")
                }
            }
        }
    }

    /// A transaction stamps `updated_at = now()` and commits after runs have moved the
    /// watermark (and its look-back) past that instant: the sweep finds the row, which
    /// then takes effect at its midnight.
    @Test func aRowCommittedAfterTheWatermarkPassedItsUpdatedAtIsApplied() throws {
        try RunDriver.withFresh { driver in
            let user: Int64 = 500
            for id in Self.busyUsers + [user] {
                try driver.insert(TestUser(userID: id, updatedAt: Instant(secondsSinceEpoch: 1_767_225_600)))  // 2026-01-01
            }
            let writer = try driver.database.connect()
            try writer.execute("BEGIN", purpose: "opening the app's long transaction")
            let stamped = try writer.query(
                """
                UPDATE user_settings SET current_weight_kg = 84.0, updated_at = now() WHERE user_id = \(user)
                RETURNING (extract(epoch FROM updated_at) * 1000000)::int8 AS stamped
                """, purpose: "writing the row in the open transaction").singleRow().int64("stamped")
            let writtenAt = Instant(microsecondsSinceEpoch: stamped)
            try driver.run(at: writtenAt.adding(minutes: -60))
            try Self.runEvery15Minutes(driver, from: writtenAt.adding(minutes: 15), through: writtenAt.adding(minutes: 120))
            let watermark = try driver.connection.query(
                "SELECT (extract(epoch FROM min(settings_watermark)) * 1000000)::int8 AS oldest FROM plan_watermarks",
                purpose: "reading the watermarks").singleRow().int64("oldest")
            #expect(Instant(microsecondsSinceEpoch: watermark).adding(seconds: -3600) > writtenAt,
                    "the look-back no longer reaches the row's updated_at")
            try writer.execute("COMMIT", purpose: "committing the app's long transaction")

            let committed = writtenAt.adding(minutes: 121)
            var foundAt: Instant?
            try Self.runEvery15Minutes(driver, from: writtenAt.adding(minutes: 135),
                                       through: committed.adding(seconds: Self.bound)) { asOf, summary in
                if summary.counts.foundLate > 0, foundAt == nil { foundAt = asOf }
            }
            #expect(foundAt != nil, "the sweep found the row within its bound")
            // UTC: the change takes effect at the first midnight after it was written.
            let effective = try LocalTime.date(at: writtenAt, in: "UTC").adding(days: 1)
            let midnight = try LocalTime.midnight(of: effective, in: "UTC")
            try driver.run(at: max(midnight, committed.adding(seconds: Self.bound + 900)))
            let plan = try #require(try driver.history(of: user).last)
            #expect(plan.reasons.contains("settings_changed"))
            #expect(plan.weightReported == "84.0")
            #expect(plan.planDate >= effective)
        }
    }

    /// A restored row is judged by its `updated_at` against what the job saw: the same
    /// version again is no change; a user the job forgot and whose row comes back is new.
    @Test func restoredRowsAreNoChangeAndForgottenUsersComingBackAreCreated() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-03-10T12:00:00Z"))
            let restored: Int64 = 600, forgotten: Int64 = 601
            for id in Self.busyUsers + [restored, forgotten] {
                try driver.insert(TestUser(userID: id, updatedAt: t0.adding(minutes: -600)))
            }
            try driver.run(at: t0)
            // Other users' writes move the watermark on.
            try Self.runEvery15Minutes(driver, from: t0.adding(minutes: 15), through: t0.adding(minutes: 75))
            let restoredPlans = try driver.history(of: restored).count

            // Both rows deleted and restored from a backup with their old updated_at; the job
            // erased what it held of `forgotten` meanwhile (plan-regen forget).
            try driver.connection.execute(
                "DELETE FROM user_settings WHERE user_id = ANY(\([restored, forgotten])::bigint[])",
                purpose: "deleting the rows")
            _ = try PlanStore(connection: driver.connection).forget([forgotten])
            for id in [restored, forgotten] {
                try driver.insert(TestUser(userID: id, updatedAt: t0.adding(minutes: -600)))
            }
            var foundLate = 0
            try Self.runEvery15Minutes(driver, from: t0.adding(minutes: 90),
                                       through: t0.adding(minutes: 75).adding(seconds: Self.bound)) { _, summary in
                foundLate += summary.counts.foundLate
            }
            #expect(try driver.history(of: restored).count == restoredPlans, "the same version again is no change")
            #expect(try driver.history(of: forgotten).map(\.reasons) == [["created"]])
            #expect(foundLate == 1)
        }
    }

    /// Two shards, each with the sweep positions of its own partitions, and a run of all
    /// partitions between them: imported rows are each planned once, within the bound.
    @Test func shardsSweepTheirOwnPartitionsAndFindEachLateRowOnce() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-03-10T12:00:00Z"))
            for id in Self.busyUsers + Array(Int64(1000)...Int64(1400)) {
                try driver.insert(TestUser(userID: id, updatedAt: t0.adding(minutes: -600)))
            }
            try driver.run(at: t0)
            try Self.runEvery15Minutes(driver, from: t0.adding(minutes: 15), through: t0.adding(minutes: 75))
            let imported = Array(Int64(5000)...Int64(5199))
            for id in imported {
                try driver.insert(TestUser(userID: id, timezone: "Asia/Kolkata", updatedAt: t0.adding(seconds: -5 * 86_400)))
            }
            var foundLate = 0
            var asOf = t0.adding(minutes: 90)
            var tick = 0
            while asOf <= t0.adding(minutes: 75).adding(seconds: Self.bound) {
                for user in Self.busyUsers { try driver.setWeight(of: user, to: tick % 2 == 0 ? "90.5" : "91.0", at: asOf.adding(minutes: -1)) }
                let shards: [Shard?] = tick % 3 == 2 ? [nil] : [Shard("0/2"), Shard("1/2")]
                for shard in shards { foundLate += try driver.run(at: asOf, shard: shard).counts.foundLate }
                asOf = asOf.adding(minutes: 15)
                tick += 1
            }
            #expect(foundLate == imported.count)
            let plans = try driver.history().filter { imported.contains($0.userID) }
            #expect(plans.count == imported.count)
            #expect(plans.allSatisfy { $0.reasons == ["created"] })
            #expect(Set(try driver.emittedNotifications().filter { imported.contains($0.userID) }.map(\.id)).count
                    == imported.count)
        }
    }

    /// A run with nothing due compares only its slice: a sixteenth of the ids 15 minutes after
    /// the last sweep, never the whole table (counted by PostgreSQL's statistics).
    @Test func aRunWithNothingDueReadsNoMoreThanItsSlice() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-03-10T12:00:00Z"))
            let users = 4000
            try driver.connection.execute(
                """
                INSERT INTO user_settings (user_id, date_of_birth, gender, height_cm, current_weight_kg, target_weight_kg,
                                           primary_goal, activity_level, meals_per_day, timezone, onboarding_completed,
                                           updated_at)
                SELECT id, '1990-01-01', 'male', 180, 90, 80, 'lose_weight', 'moderately_active', 3, 'UTC', true,
                       \(t0.adding(minutes: -600))::timestamptz
                FROM generate_series(1, \(users - 1)) AS id
                """, purpose: "inserting users")
            // One recent write: the watermark's look-back covers it alone.
            try driver.insert(TestUser(userID: Int64(users), updatedAt: t0.adding(minutes: -10)))
            try driver.connection.execute("ANALYZE user_settings", purpose: "analyzing")
            try driver.run(at: t0)
            try driver.connection.execute("VACUUM ANALYZE plan_state", purpose: "vacuuming")
            try driver.connection.execute("VACUUM ANALYZE user_settings", purpose: "vacuuming")
            try driver.connection.execute("SELECT pg_stat_reset()", purpose: "resetting the statistics")
            let summary = try driver.run(at: t0.adding(minutes: 15))
            #expect(summary.counts.due == 0)
            let read = try Self.tuplesRead(of: "user_settings", driver.connection)
            let slice = users / 16
            #expect(read.sequentialScans == 0)
            #expect(read.indexTuples >= slice, "the slice was compared")
            #expect(read.indexTuples <= slice + 10, "only the slice was compared")
        }
    }

    /// Index tuples read from `table`'s indexes and its sequential scans, once every other
    /// connection to the database has ended (a backend reports its counts as it exits).
    static func tuplesRead(of table: String, _ connection: PostgresConnection) throws
        -> (indexTuples: Int, sequentialScans: Int) {
        for _ in 0..<500 {
            let others = try connection.query(
                "SELECT count(*) AS others FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
                purpose: "waiting for the run's connections to end").singleRow().int("others")
            if others == 0 { break }
            usleep(10_000)
        }
        let row = try connection.query(
            """
            SELECT coalesce(sum(i.idx_tup_read), 0)::int8 AS index_tuples, max(t.seq_scan)::int8 AS sequential_scans
            FROM pg_stat_user_tables t LEFT JOIN pg_stat_user_indexes i ON i.relid = t.relid
            WHERE t.relname = \(bind: table)
            """, purpose: "reading the statistics of \(table)").singleRow()
        return (try row.int("index_tuples"), try row.int("sequential_scans"))
    }
}
