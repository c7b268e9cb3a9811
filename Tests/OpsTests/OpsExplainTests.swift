import Foundation
import PlanJSON
import PlanRules
import Postgres
import Testing

/// `plan-regen explain`: the derivation of the stored plan, and what happens next.
@Suite struct OpsExplainTests {
    /// A lose_weight user with a plan from the first run and no birthday in the next
    /// three weeks (so the next event is the phase switch or the pending change).
    private func loseWeightUser(_ connection: PostgresConnection) throws -> (id: Int64, plan: Snapshot) {
        let row = try connection.query(
            """
            SELECT s.user_id, h.snapshot::text FROM plan_state s
            JOIN plan_history h ON h.user_id = s.user_id AND h.plan_date = s.plan_date
                               AND h.seq = s.history_rows_on_plan_date - 1
            WHERE h.snapshot->'inputs'->>'primary_goal' = 'lose_weight'
              AND substr(h.snapshot->'inputs'->>'date_of_birth', 6) NOT BETWEEN '02-28' AND '03-21'
            ORDER BY s.user_id LIMIT 1
            """, purpose: "test").singleRow()
        return (try row.int64(0), try Snapshot(json: Array(row.string(1).utf8)))
    }

    @Test func explainShowsTheStoredPlansDerivationAndTheNextPhaseSwitch() throws {
        try withDemoDatabase(users: 60) { database, connection in
            try withTemporaryDirectory { folder in
                let run = try PlanRegenProcess.run(["run", "--as-of", firstRunAt, "--notifications", folder + "/n"],
                                                   databaseURL: database.conninfo, folder: folder)
                #expect(run.exitCode == 0, "\(run.stderr)")
                let (user, plan) = try loseWeightUser(connection)
                let explained = try PlanRegenProcess.run(
                    ["explain", "--user", "\(user)", "--as-of", firstRunAt], databaseURL: database.conninfo, folder: folder)
                #expect(explained.exitCode == 0, "\(explained.stderr)")
                #expect(explained.stdout.contains("BMR = "))
                #expect(explained.stdout.contains("rounded to \(groupedThousands(plan.targets.bmr)) kcal"))
                #expect(explained.stdout.contains("Written by run 1"))
                // Nothing pending: the next event is the day-14 switch stored in the plan.
                let switchDate = try #require(plan.phase.nextPhaseSwitchDate)
                #expect(explained.stdout.contains("local midnight of \(switchDate)): phase_switch → Maintenance phase started"))
                #expect(!explained.stdout.contains("Pending settings change"))
            }
        }
    }

    @Test func explainNamesAPendingSettingsChangeAndWhatItWillDo() throws {
        try withDemoDatabase(users: 60) { database, connection in
            try withTemporaryDirectory { folder in
                let run = try PlanRegenProcess.run(["run", "--as-of", firstRunAt, "--notifications", folder + "/n"],
                                                   databaseURL: database.conninfo, folder: folder)
                #expect(run.exitCode == 0, "\(run.stderr)")
                let (user, plan) = try loseWeightUser(connection)
                // 5 kg lighter, written an hour after the run: applies at the next local midnight.
                try connection.execute(
                    """
                    UPDATE user_settings SET current_weight_kg = current_weight_kg - 5,
                           updated_at = timestamptz '2026-03-01T13:00:00Z' WHERE user_id = \(user)
                    """, purpose: "test: change the weight")
                let explained = try PlanRegenProcess.run(
                    ["explain", "--user", "\(user)", "--as-of", "2026-03-01T13:30:00Z"],
                    databaseURL: database.conninfo, folder: folder)
                #expect(explained.exitCode == 0, "\(explained.stderr)")
                #expect(explained.stdout.contains("Pending settings change: the row written at 2026-03-01T13:00:00.000000Z"))
                let reported = plan.inputs.weightReportedTenthsKg
                let weight = "Weight \(fixedPoint(reported, decimals: 1)) → \(fixedPoint(reported - 50, decimals: 1)) kg"
                #expect(explained.stdout.contains("settings_changed → Plan recalculated"))
                #expect(explained.stdout.contains(weight))
            }
        }
    }

    @Test func explainingAnUnknownUserExitsWithThree() throws {
        try withDemoDatabase(users: 1) { database, _ in
            try withTemporaryDirectory { folder in
                let explained = try PlanRegenProcess.run(["explain", "--user", "999999"],
                                                         databaseURL: database.conninfo, folder: folder)
                #expect(explained.exitCode == 3)
                #expect(explained.stderr.contains("user_id=999999"))
            }
        }
    }
}
