import Foundation
import PlanRules
import Postgres
import Testing

/// What ops see of the late-row sweep (plan-rules.md section 2, "Late rows"): `explain`
/// says when the sweep reaches a row the watermark missed, the run's metrics and `status`
/// count the users found late and say when the last whole sweep ended.
@Suite struct OpsLateRowTests {
    @Test func explainStatusAndMetricsSayWhereTheSweepStands() throws {
        try withDemoDatabase(users: 200) { database, connection in
            try withTemporaryDirectory { folder in
                let metrics = folder + "/plan-regen.prom"
                func run(at instant: String, _ extra: [String] = []) throws -> PlanRegenProcess.Finished {
                    let finished = try PlanRegenProcess.run(
                        ["run", "--as-of", instant, "--notifications", folder + "/n.jsonl", "--metrics-file", metrics]
                            + extra, databaseURL: database.conninfo, folder: folder)
                    #expect(finished.exitCode == 0, "\(finished.stderr)")
                    return finished
                }
                _ = try run(at: firstRunAt)
                // A newer write moves the watermark on; then a user arrives with a row three
                // days old, as an import would bring it: the watermark's range misses it.
                let lateUser: Int64 = 100_000
                try connection.execute(
                    "UPDATE user_settings SET updated_at = timestamptz '2026-03-01T12:20:00Z' WHERE user_id = 1",
                    purpose: "test: a newer write")
                try connection.execute(
                    """
                    INSERT INTO user_settings (user_id, date_of_birth, gender, height_cm, current_weight_kg,
                        target_weight_kg, primary_goal, activity_level, meals_per_day, timezone, onboarding_completed,
                        updated_at)
                    SELECT \(lateUser), '1985-05-05', 'female', 168, 72, 64, 'lose_weight', 'sedentary', 3, 'Asia/Tokyo',
                           true, timestamptz '2026-02-26T09:00:00Z'
                    """, purpose: "test: an imported row")
                _ = try run(at: "2026-03-01T12:30:00Z")

                let explained = try PlanRegenProcess.run(
                    ["explain", "--user", "\(lateUser)", "--as-of", "2026-03-01T12:40:00Z"],
                    databaseURL: database.conninfo, folder: folder)
                #expect(explained.exitCode == 0, "\(explained.stderr)")
                #expect(explained.stdout.contains("is older than the change watermark"), "\(explained.stdout)")
                #expect(explained.stdout.contains("the late-row sweep reaches it by 2026-03-01T"), "\(explained.stdout)")

                // Runs every 15 minutes for the sweep's period: one of them finds the user.
                var foundLate = 0
                var instant = try #require(Instant(rfc3339: "2026-03-01T12:45:00Z"))
                while instant <= Instant(rfc3339: "2026-03-01T16:45:00Z")! {
                    _ = try run(at: instant.rfc3339)
                    let text = try String(contentsOfFile: metrics, encoding: .utf8)
                    foundLate += Int(try #require(sample("plan_regen_last_run_users_found_late", in: text))) ?? 0
                    #expect(sample("plan_regen_late_row_sweep_period_seconds", in: text) == "14400")
                    let age = try #require(sample("plan_regen_late_row_sweep_age_seconds", in: text).flatMap { Int($0) })
                    #expect(age < 14_400 + 900, "every row compared within the period and one run")
                    instant = instant.adding(seconds: 900)
                }
                #expect(foundLate == 1)
                #expect(try connection.query("SELECT sum(found_late)::int8 AS late FROM plan_runs",
                                             purpose: "test").singleRow().int64("late") == 1)
                let planned = try connection.query(
                    "SELECT array_to_string(reasons, ',') AS reasons FROM plan_history WHERE user_id = \(lateUser)",
                    purpose: "test").map { try $0.string("reasons") }
                #expect(planned == ["created"])

                let status = try PlanRegenProcess.run(["status", "--as-of", "2026-03-01T15:00:00Z"],
                                                      databaseURL: database.conninfo, folder: folder)
                #expect(status.exitCode == 0, "\(status.stderr)")
                #expect(status.stdout.contains("late rows     every row compared once per 4 h; the last whole sweep ended 2026-03-01T"),
                        "\(status.stdout)")
            }
        }
    }

    /// The value of the unlabelled sample `name` in Prometheus text.
    func sample(_ name: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) }
    }
}
