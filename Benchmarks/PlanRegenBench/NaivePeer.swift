import Foundation
import PlanJSON
import PlanRules
import PlanStore
import Postgres

/// What a quick script would do: one user at a time, one transaction per user, a
/// single-row INSERT per row, the notification line written and marked after each
/// commit. Same rules, same tables, same rows as the job; only the database traffic
/// differs. It is the benchmark's second reference point (issue 5: ≥ 10× its rate).
enum NaivePeer {
    /// Makes every user's first plan at `asOf`; returns the wall seconds.
    static func firstRun(database: BenchDatabase, users: Int, asOf: Instant, zones: ZoneDatabase) throws -> Double {
        try PeerRun.measure(database: database, asOf: asOf, zones: zones, name: "naive-peer") { store, runID, out in
            let connection = store.connection
            for userID in Int64(1)...Int64(users) {
                guard let user = try store.loadUsers([userID]).first else { continue }
                let evaluation = evaluate(row: user.row, state: user.state, at: asOf, manualRerun: false, zones: zones)
                var batchID: Int64?
                if let history = evaluation.history { try store.ensureHistoryPartitions(for: [history.planDate]) }
                try connection.withTransaction { conn in
                    for rejection in evaluation.rejections {
                        try conn.execute(
                            """
                            INSERT INTO plan_rejections (user_id, run_id, field, message, row_updated_at, rules_version)
                            VALUES (\(userID), \(runID), \(bind: rejection.field.rawValue), \(bind: rejection.message),
                                    \(user.row?.updatedAt), \(bind: rulesVersion))
                            """, purpose: "naive: rejection")
                    }
                    if let history = evaluation.history {
                        try conn.execute(
                            """
                            INSERT INTO plan_history (user_id, plan_date, seq, generated_at, run_id, reasons,
                                                      snapshot, previous, diff, rules_version)
                            VALUES (\(userID), \(history.planDate)::date,
                                    \(evaluation.newState.historyRowsOnCurrentPlanDate - 1), \(asOf), \(runID),
                                    \(history.reasons.map(\.rawValue))::text[], \(bind: history.snapshot.jsonString)::jsonb,
                                    \(bind: history.previous?.jsonString)::jsonb, \(bind: history.diff.jsonString)::jsonb,
                                    \(bind: rulesVersion))
                            """, purpose: "naive: history")
                    }
                    let state = evaluation.newState
                    try conn.execute(
                        """
                        INSERT INTO plan_state (user_id, plan_date, rules_version, history_rows_on_plan_date,
                            last_evaluated_date, seen_updated_at, judged_updated_at, judged_rules_version,
                            scheduled_updated_at, next_check_at, updated_by_run)
                        VALUES (\(userID), \(state.currentPlan?.planDate)::date, \(bind: rulesVersion),
                                \(state.historyRowsOnCurrentPlanDate), \(state.lastEvaluatedDate)::date, \(state.seenUpdatedAt),
                                \(state.judgedUpdatedAt), \(bind: state.judgedRulesVersion), \(state.scheduledUpdatedAt),
                                \(evaluation.nextScheduledCheck),
                                \(runID))
                        ON CONFLICT (user_id) DO UPDATE SET plan_date = EXCLUDED.plan_date, rules_version = EXCLUDED.rules_version,
                            history_rows_on_plan_date = EXCLUDED.history_rows_on_plan_date,
                            last_evaluated_date = EXCLUDED.last_evaluated_date,
                            seen_updated_at = EXCLUDED.seen_updated_at, judged_updated_at = EXCLUDED.judged_updated_at,
                            judged_rules_version = EXCLUDED.judged_rules_version,
                            scheduled_updated_at = EXCLUDED.scheduled_updated_at, next_check_at = EXCLUDED.next_check_at, updated_by_run = EXCLUDED.updated_by_run
                        """, purpose: "naive: state")
                    if let notification = evaluation.notification {
                        batchID = try conn.query(
                            "INSERT INTO notification_batches (run_id) VALUES (\(runID)) RETURNING batch_id",
                            purpose: "naive: batch").singleRow().int64("batch_id")
                        try conn.execute(
                            """
                            INSERT INTO notification_outbox (notification_id, user_id, run_id, created_at, payload, batch_id)
                            VALUES (\(bind: notification.id), \(userID), \(runID), \(asOf), \(bind: notification.jsonString),
                                    \(batchID))
                            """, purpose: "naive: outbox")
                    }
                }
                if let batchID, let line = evaluation.notification?.jsonString {
                    out.write(Data((line + "\n").utf8))
                    try store.markEmitted(batch: batchID)
                }
            }
        }
    }
}

/// What both peers share: their store, a run record, a sink for the notification lines,
/// and the wall time of `body`.
enum PeerRun {
    static func measure(database: BenchDatabase, asOf: Instant, zones: ZoneDatabase, name: String,
                      _ body: (PlanStore, Int64, FileHandle) throws -> Void) throws -> Double {
        let store = try PlanStore(connection: PostgresConnection(conninfo: database.conninfo))
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/null"))
        return try timed {
            let runID = try store.startRun(RunRecord(
                asOf: asOf, dryRun: false, requestedUsers: nil, shard: nil, binaryVersion: name,
                rulesVersion: rulesVersion, tzdataVersion: zones.version))
            try body(store, runID, out)
        }
    }
}
