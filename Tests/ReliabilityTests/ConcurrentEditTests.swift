import Foundation
import PlanRules
import Postgres
import Testing

/// The app writes user_settings while a run is in progress; every write reaches a plan
/// in a later run (plan-rules.md §2 "Concurrency"), including a write whose updated_at
/// is older than the run's watermark but which committed after the run read.
@Suite struct ConcurrentEditTests {
    @Test func writesMadeDuringARunAreAllPickedUpByALaterRun() throws {
        try JobDatabase.withFresh { db in
            let owner = try db.owner()
            let tables = PlanTables(connection: owner)
            try db.seed(users: 300, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!)
            #expect(try db.run(["--as-of", "2026-03-01T00:00:00Z"]).status == 0)
            // The app changes users 1–60 an hour later: the next run's watermark is 01:00.
            try owner.execute(
                """
                UPDATE user_settings SET current_weight_kg = current_weight_kg + 2,
                       updated_at = '2026-03-01T01:00:00Z' WHERE user_id <= 60
                """, purpose: "the app changing users 1-60")
            func userWithPlan(_ range: ClosedRange<Int>) throws -> Int64 {
                Int64(try tables.count(
                    """
                    SELECT min(user_id)::int FROM plan_state
                    WHERE plan_date IS NOT NULL AND user_id BETWEEN \(range.lowerBound) AND \(range.upperBound)
                    """))
            }
            // A: read by the run before the app writes it again. B: not a candidate of the run,
            // written with an updated_at older than the watermark, committed mid-run.
            // C: written mid-run, before the run reaches it.
            let a = try userWithPlan(1...10), b = try userWithPlan(61...300), c = try userWithPlan(51...60)
            let writes: [(Int64, String, String)] = [
                (a, "81.1", "2026-03-02T23:00:00Z"),
                (b, "82.2", "2026-03-01T00:30:00Z"),
                (c, "83.3", "2026-03-02T23:30:00Z"),
            ]
            let conninfo = db.database.conninfo
            let errors = HookErrors()
            _ = try InProcessRun(database: db, asOf: Instant(rfc3339: "2026-03-03T00:00:00Z")!).run { batch in
                guard batch == 3 else { return }
                errors.capture {
                    let app = try PostgresConnection(conninfo: conninfo)
                    for (user, weight, updatedAt) in writes {
                        try app.execute(
                            """
                            UPDATE user_settings SET current_weight_kg = \(bind: weight)::numeric, updated_at = \(bind: updatedAt)
                            WHERE user_id = \(user)
                            """, purpose: "the app writing during the run")
                    }
                }
            }
            try errors.check()
            func seen(_ user: Int64) throws -> String? {
                try owner.query("SELECT seen_updated_at::text FROM plan_state WHERE user_id = \(user)",
                                purpose: "reading seen_updated_at").singleRow().optionalString(0)
            }
            func written(_ user: Int64) throws -> String {
                try owner.query("SELECT updated_at::text FROM user_settings WHERE user_id = \(user)",
                                purpose: "reading updated_at").singleRow().string(0)
            }
            // The run in progress did not see A's and B's writes, and B's is older than its watermark.
            #expect(try seen(a) != written(a))
            #expect(try seen(b) != written(b))
            #expect(try tables.count(
                "SELECT count(*) FROM plan_watermarks WHERE settings_watermark > '2026-03-01T00:30:00Z'") == 64)

            let later = try db.run(["--as-of", "2026-03-06T00:00:00Z"])
            #expect(later.status == 0, "\(later.stderr)")
            for (user, weight, _) in writes {
                #expect(try seen(user) == written(user), "user \(user)")
                let reported = try owner.query(
                    """
                    SELECT snapshot -> 'inputs' ->> 'weight_kg_reported' FROM plan_history WHERE user_id = \(user)
                    ORDER BY plan_date DESC, seq DESC LIMIT 1
                    """, purpose: "reading the current plan").singleRow().string(0)
                #expect(reported == weight, "user \(user)")
            }
            #expect(try tables.consistency().isConsistent)
        }
    }
}
