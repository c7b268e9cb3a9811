import Foundation
import PlanRules
import PlanStore
import Postgres

/// What a competent first version would do: the same rules, users read 1,000 at a time,
/// and each thousand written in one transaction with one multi-row `INSERT … VALUES
/// (…), (…)` per table, then its notification lines written and marked. One connection,
/// no COPY, no pipelining, no workers. Same tables and rows as the job: the table shows
/// what the job's design buys over it.
enum BatchedPeer {
    static let usersPerTransaction = 1_000

    /// Makes every user's first plan at `asOf`; returns the wall seconds.
    static func firstRun(database: BenchDatabase, users: Int, asOf: Instant, zones: ZoneDatabase) throws -> Double {
        try PeerRun.measure(database: database, asOf: asOf, zones: zones, name: "batched-peer") { store, runID, out in
            let connection = store.connection
            let generatedAt = asOf.postgresText
            for first in stride(from: 1, through: users, by: usersPerTransaction) {
                let ids = (first..<min(first + usersPerTransaction, users + 1)).map(Int64.init)
                var history: [SQLQuery] = []
                var states: [SQLQuery] = []
                var rejections: [SQLQuery] = []
                var outbox: [(row: SQLQuery, line: String)] = []
                for user in try store.loadUsers(ids) {
                    let e = evaluate(row: user.row, state: user.state, at: asOf, manualRerun: false, zones: zones)
                    for rejection in e.rejections {
                        rejections.append("""
                            (\(user.userID), \(runID), \(bind: rejection.field.rawValue), \(bind: rejection.message), \
                            \(bind: user.row?.updatedAt?.postgresText)::timestamptz, \(bind: rulesVersion))
                            """)
                    }
                    if let h = e.history {
                        try store.ensureHistoryPartitions(for: [h.planDate])
                        history.append("""
                            (\(user.userID), \(h.planDate)::date, \(e.newState.historyRowsOnCurrentPlanDate - 1), \
                            \(bind: generatedAt)::timestamptz, \(runID), \(bind: PostgresTextArray.encode(h.reasons.map(\.rawValue)))::text[], \
                            \(bind: h.snapshot.jsonString)::jsonb, \(bind: h.previous?.jsonString)::jsonb, \(bind: h.diff.jsonString)::jsonb, \
                            \(bind: rulesVersion))
                            """)
                    }
                    let s = e.newState
                    states.append("""
                        (\(user.userID), \(s.currentPlan?.planDate)::date, \(bind: rulesVersion), \(s.historyRowsOnCurrentPlanDate), \
                        \(s.lastEvaluatedDate)::date, \(bind: s.seenUpdatedAt?.postgresText)::timestamptz, \
                        \(bind: s.judgedUpdatedAt?.postgresText)::timestamptz, \(bind: s.judgedRulesVersion), \
                        \(bind: s.scheduledUpdatedAt?.postgresText)::timestamptz, \(bind: e.nextScheduledCheck?.postgresText)::timestamptz, \(runID))
                        """)
                    if let n = e.notification {
                        outbox.append(("(\(bind: n.id), \(user.userID), \(runID), \(bind: generatedAt)::timestamptz, \(bind: n.jsonString)",
                                       n.jsonString))
                    }
                }
                let batchID = try connection.withTransaction { conn -> Int64? in
                    try insert(into: "plan_history (user_id, plan_date, seq, generated_at, run_id, reasons, snapshot, "
                               + "previous, diff, rules_version)", rows: history, on: conn)
                    try insert(into: "plan_state (user_id, plan_date, rules_version, history_rows_on_plan_date, "
                               + "last_evaluated_date, seen_updated_at, judged_updated_at, judged_rules_version, "
                               + "scheduled_updated_at, next_check_at, updated_by_run)", rows: states, on: conn)
                    try insert(into: "plan_rejections (user_id, run_id, field, message, row_updated_at, rules_version)",
                               rows: rejections, on: conn)
                    guard !outbox.isEmpty else { return nil }
                    let batchID = try conn.query(
                        "INSERT INTO notification_batches (run_id) VALUES (\(runID)) RETURNING batch_id",
                        purpose: "batched peer: batch").singleRow().int64("batch_id")
                    try insert(into: "notification_outbox (notification_id, user_id, run_id, created_at, payload, batch_id)",
                               rows: outbox.map { "\(sql: $0.row), \(batchID))" }, on: conn)
                    return batchID
                }
                let lines = outbox.map(\.line)
                if let batchID {
                    out.write(Data((lines.joined(separator: "\n") + "\n").utf8))
                    try store.markEmitted(batch: batchID)
                }
            }
        }
    }

    /// One `INSERT INTO table (columns) VALUES (…), (…)` for all `rows` (each a
    /// parenthesized row of parameters).
    private static func insert(into table: String, rows: [SQLQuery], on connection: PostgresConnection) throws {
        guard !rows.isEmpty else { return }
        var statement: SQLQuery = "INSERT INTO \(unescaped: table) VALUES "
        for (index, row) in rows.enumerated() {
            if index > 0 { statement += ", " }
            statement += row
        }
        try connection.execute(statement, purpose: "batched peer: \(rows.count) rows into \(table.prefix { $0 != " " })")
    }
}
