import PlanRules
import Postgres
import Testing

/// `plan-regen forget --user ID` erases what the job holds about a user, in one
/// transaction, under the user's partition lock.
@Suite struct ErasureTests {
    static let tables = ["plan_state", "plan_history", "notification_outbox", "plan_rejections"]

    private func rows(of users: [Int64], _ tables: PlanTables) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in Self.tables {
            // table names are the constants above
            counts[table] = try tables.count(
                "SELECT count(*) FROM \(identifier: table) WHERE user_id = ANY(\(users.map(String.init))::bigint[])")
        }
        return counts
    }

    @Test func forgetDeletesEverythingTheJobHoldsAboutTheUsersAndNothingElse() throws {
        try JobDatabase.withFresh { db in
            let owner = try db.owner()
            let tables = PlanTables(connection: owner)
            try db.seed(users: 200, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!)
            #expect(try db.run(["--as-of", "2026-03-01T00:00:00Z"]).status == 0)
            #expect(try db.run(["--as-of", "2026-03-15T12:00:00Z"]).status == 0)
            // User 13 is one of the demo's rejected rows (height 320); 1 and 2 have plans, and
            // 2 has a notification still pending; 999999 never existed.
            let lossWeightUser = try tables.count(
                "SELECT min(user_id)::int FROM plan_history WHERE reasons @> '{phase_switch}' AND user_id > 13")
            let users: [Int64] = [1, 2, 13, Int64(lossWeightUser), 999_999]
            try owner.execute(
                """
                WITH pending AS (INSERT INTO notification_batches (run_id) SELECT max(run_id) FROM plan_runs
                                 RETURNING batch_id)
                UPDATE notification_outbox SET batch_id = (SELECT batch_id FROM pending) WHERE user_id = 2
                """, purpose: "pending")
            let before = try rows(of: users, tables)
            let beforeByUser = try users.map { try rows(of: [$0], tables) }
            #expect(before["plan_history"]! >= 4)
            #expect(before["plan_rejections"]! >= 1)
            #expect(before["notification_outbox"]! >= 3)
            let othersBefore = try rows(of: Array(1...200).filter { !users.contains($0) }, tables)
            let healthValues = try owner.query(
                """
                SELECT date_of_birth::text, current_weight_kg::text FROM user_settings
                WHERE user_id = ANY(\(users.map(String.init))::bigint[])
                """,
                purpose: "reading health values"
            ).flatMap { [try $0.string(0), try $0.string(1)] }
            // The app deletes its rows first — except user 2's, to see the warning.
            try owner.execute(
                "DELETE FROM user_settings WHERE user_id = ANY(\(users.map(String.init))::bigint[]) AND user_id <> 2",
                purpose: "the app deleting its rows")

            let result = try JobProcess.run(["forget", "--database-url", db.jobConninfo]
                                            + users.flatMap { ["--user", String($0)] })
            #expect(result.status == 0, "\(result.stderr)")
            // One line per user (in id order), whether anything was stored, then the totals.
            func counts(_ rows: [String: Int]) -> String {
                "\(rows["plan_state"]!) plan_state, \(rows["plan_history"]!) plan_history, "
                    + "\(rows["notification_outbox"]!) notification_outbox, \(rows["plan_rejections"]!) plan_rejections rows"
            }
            let perUser = zip(users, beforeByUser).sorted { $0.0 < $1.0 }.map { user, rows in
                rows.values.allSatisfy { $0 == 0 } ? "user \(user): nothing stored (never planned, or already erased)"
                    : "user \(user): erased \(counts(rows))"
            }
            #expect(perUser.last == "user 999999: nothing stored (never planned, or already erased)")
            #expect(result.stdoutLines == perUser + ["erased 4 of 5 users: \(counts(before))"])
            #expect(try rows(of: users, tables).values.allSatisfy { $0 == 0 })
            #expect(try rows(of: Array(1...200).filter { !users.contains($0) }, tables) == othersBefore)
            let warnings = result.stderrLines.filter { $0.contains(" warning ") }
            #expect(warnings.count == 1)
            #expect(warnings.first?.contains("user_id=2") == true)
            for value in healthValues { #expect(!result.stderr.contains(value)) }

            // A run recreates a plan for the user whose app row is still there once it changes.
            try owner.execute("UPDATE user_settings SET updated_at = '2026-03-16T00:00:00Z' WHERE user_id = 2",
                              purpose: "the app writing user 2's row")
            let next = try db.run(["--as-of", "2026-03-16T12:00:00Z"])
            #expect(next.status == 0)
            #expect(try rows(of: [2], tables)["plan_history"] == 1)
            #expect(try rows(of: users.filter { $0 != 2 }, tables).values.allSatisfy { $0 == 0 })
        }
    }

    /// A repeated erasure (a retried GDPR request) is not an error: it says, per id, that
    /// nothing was stored, and exits 0.
    @Test func forgettingTwiceSaysNothingWasStoredAndSucceeds() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 10, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!)
            #expect(try db.run(["--as-of", "2026-03-01T00:00:00Z"]).status == 0)
            let forget = ["forget", "--database-url", db.jobConninfo, "--user", "3", "--user", "424242"]
            let first = try JobProcess.run(forget)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdoutLines.first?.hasPrefix("user 3: erased 1 plan_state, 1 plan_history, ") == true,
                    "\(first.stdout)")
            #expect(first.stdoutLines.last?.hasPrefix("erased 1 of 2 users: 1 plan_state, ") == true)

            let again = try JobProcess.run(forget)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdoutLines == [
                "user 3: nothing stored (never planned, or already erased)",
                "user 424242: nothing stored (never planned, or already erased)",
                "erased 0 of 2 users: nothing was stored",
            ])
        }
    }

    /// While a run's batch transaction for a user's partition is in flight, forget waits;
    /// after lock_timeout it gives up with a clear line and has deleted nothing.
    @Test func forgetWaitsForTheRunHoldingTheUsersPartition() throws {
        try JobDatabase.withFresh { db in
            let owner = try db.owner()
            let tables = PlanTables(connection: owner)
            try db.seed(users: 20, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!)
            #expect(try db.run(["--as-of", "2026-03-01T00:00:00Z"]).status == 0)
            // A run's batch transaction in flight on partition 5 (user 5): the fence it takes.
            let run = try db.asJob()
            try run.executeScript("BEGIN", purpose: "a batch transaction")
            try run.execute("SELECT 1 FROM plan_partition_claims WHERE partition = 5 FOR KEY SHARE",
                            purpose: "fencing partition 5")
            let blocked = try JobProcess.run(["forget", "--database-url", db.jobConninfo, "--user", "5",
                                              "--lock-timeout", "1"])
            #expect(blocked.status == 1)
            #expect(blocked.criticalLines.count == 1)
            #expect(blocked.stderr.contains("lock timeout"))
            #expect(blocked.stderr.contains("SQLSTATE 55P03"))
            #expect(try rows(of: [5], tables)["plan_state"] == 1)

            try run.executeScript("COMMIT", purpose: "the batch commits")
            let done = try JobProcess.run(["forget", "--database-url", db.jobConninfo, "--user", "5"])
            #expect(done.status == 0)
            #expect(try rows(of: [5], tables)["plan_state"] == 0)
        }
    }
}
