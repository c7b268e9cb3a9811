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
        let store = try PlanStore(connection: PostgresConnection(conninfo: database.conninfo))
        let connection = store.connection
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/null"))
        return try timed {
            let runID = try store.startRun(RunRecord(
                asOf: asOf, dryRun: false, requestedUsers: nil, shard: nil, binaryVersion: "batched-peer",
                rulesVersion: rulesVersion, tzdataVersion: zones.version))
            let generatedAt = asOf.postgresText
            for first in stride(from: 1, through: users, by: usersPerTransaction) {
                let ids = (first..<min(first + usersPerTransaction, users + 1)).map(Int64.init)
                var history: [[(any PostgresParameter)?]] = []
                var states: [[(any PostgresParameter)?]] = []
                var rejections: [[(any PostgresParameter)?]] = []
                var outbox: [[(any PostgresParameter)?]] = []
                var lines: [String] = []
                for user in try store.loadUsers(ids) {
                    let e = evaluate(row: user.row, state: user.state, at: asOf, manualRerun: false, zones: zones)
                    for rejection in e.rejections {
                        rejections.append([user.userID, runID, rejection.field.rawValue, rejection.message,
                                           user.row?.updatedAt?.postgresText, rulesVersion])
                    }
                    if let h = e.history {
                        try store.ensureHistoryPartitions(for: [h.planDate])
                        history.append([user.userID, h.planDate.postgresText, e.newState.historyRowsOnCurrentPlanDate - 1,
                                        generatedAt, runID, PostgresTextArray.encode(h.reasons.map(\.rawValue)),
                                        h.snapshot.jsonString, h.previous?.jsonString, h.diff.jsonString, rulesVersion])
                    }
                    let s = e.newState
                    states.append([user.userID, s.currentPlan?.planDate.postgresText, rulesVersion,
                                   s.historyRowsOnCurrentPlanDate, s.lastEvaluatedDate?.postgresText,
                                   s.seenUpdatedAt?.postgresText, s.judgedUpdatedAt?.postgresText, s.judgedRulesVersion,
                                   e.nextScheduledCheck?.postgresText, runID])
                    if let n = e.notification {
                        outbox.append([n.id, user.userID, runID, generatedAt, n.jsonString])
                        lines.append(n.jsonString)
                    }
                }
                let batchID = try connection.withTransaction { conn -> Int64? in
                    try insert(into: "plan_history (user_id, plan_date, seq, generated_at, run_id, reasons, snapshot, "
                               + "previous, diff, rules_version)",
                               casts: ["", "::date", "", "::timestamptz", "", "::text[]", "::jsonb", "::jsonb", "::jsonb", ""],
                               rows: history, on: conn)
                    try insert(into: "plan_state (user_id, plan_date, rules_version, history_rows_on_plan_date, "
                               + "last_evaluated_date, seen_updated_at, judged_updated_at, judged_rules_version, "
                               + "next_check_at, updated_by_run)",
                               casts: ["", "::date", "", "", "::date", "::timestamptz", "::timestamptz", "", "::timestamptz", ""],
                               rows: states, on: conn)
                    try insert(into: "plan_rejections (user_id, run_id, field, message, row_updated_at, rules_version)",
                               casts: ["", "", "", "", "::timestamptz", ""], rows: rejections, on: conn)
                    guard !outbox.isEmpty else { return nil }
                    let batchID = try conn.query(
                        "INSERT INTO notification_batches (run_id) VALUES ($1) RETURNING batch_id", [runID],
                        purpose: "batched peer: batch").singleRow().int64(0)
                    try insert(into: "notification_outbox (notification_id, user_id, run_id, created_at, payload, batch_id)",
                               casts: ["", "", "", "::timestamptz", "", ""], rows: outbox.map { $0 + [batchID] }, on: conn)
                    return batchID
                }
                if let batchID {
                    out.write(Data((lines.joined(separator: "\n") + "\n").utf8))
                    try store.markEmitted(batch: batchID)
                }
            }
        }
    }

    /// One `INSERT INTO table (columns) VALUES ($1, …), ($k, …)` for all `rows`.
    private static func insert(into table: String, casts: [String], rows: [[(any PostgresParameter)?]],
                               on connection: PostgresConnection) throws {
        guard !rows.isEmpty else { return }
        var placeholders: [String] = []
        var parameters: [(any PostgresParameter)?] = []
        for row in rows {
            let first = parameters.count + 1
            placeholders.append("(" + row.indices.map { "$\(first + $0)\(casts[$0])" }.joined(separator: ", ") + ")")
            parameters += row
        }
        try connection.execute("INSERT INTO \(table) VALUES \(placeholders.joined(separator: ", "))", parameters,
                               purpose: "batched peer: \(rows.count) rows into \(table.prefix { $0 != " " })")
    }
}
