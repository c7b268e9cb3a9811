import Foundation
import Postgres

/// Reads of the job's tables that tests compare between databases and check for
/// half-done batches.
struct PlanTables {
    let connection: PostgresConnection

    /// Every plan_history row as `user|plan_date|seq|md5(reasons, snapshot, previous,
    /// diff, rules_version, generated_at)`, sorted: equal lists mean equal history.
    func historyFingerprints() throws -> [String] {
        try strings(
            """
            SELECT user_id || '|' || plan_date || '|' || seq || '|'
                   || md5(concat_ws('|', reasons::text, snapshot::text, coalesce(previous::text, 'null'),
                                    diff::text, rules_version, generated_at::text))
            FROM plan_history ORDER BY user_id, plan_date, seq
            """, purpose: "fingerprinting plan_history")
    }

    /// Every plan_history row as `user|plan_date|seq|md5(reasons, snapshot, previous, diff,
    /// rules_version)`, sorted: the plans themselves, whichever run (and instant) wrote them.
    func planFingerprints() throws -> [String] {
        try strings(
            """
            SELECT user_id || '|' || plan_date || '|' || seq || '|'
                   || md5(concat_ws('|', reasons::text, snapshot::text, coalesce(previous::text, 'null'),
                                    diff::text, rules_version))
            FROM plan_history ORDER BY user_id, plan_date, seq
            """, purpose: "fingerprinting the plans of plan_history")
    }

    /// Advisory locks anyone holds in this database (none must outlive the runs).
    func advisoryLocks() throws -> Int {
        try count(
            """
            SELECT count(*) FROM pg_locks
            WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """)
    }

    /// Unexpired partition claims (none must outlive the runs that hold them).
    func heldClaims() throws -> Int {
        try count("SELECT count(*) FROM plan_partition_claims WHERE run_id IS NOT NULL AND expires_at > clock_timestamp()")
    }

    /// Every plan_state row, all columns but the run that wrote it, as
    /// `user|md5(row as JSON)`, sorted.
    func stateFingerprints() throws -> [String] {
        try strings(
            "SELECT user_id || '|' || md5((to_jsonb(s) - 'updated_by_run')::text) FROM plan_state s ORDER BY user_id",
            purpose: "fingerprinting plan_state")
    }

    /// Every rejection as `user|field|message|row_updated_at`, sorted (a duplicate shows twice).
    func rejectionFingerprints() throws -> [String] {
        try strings(
            """
            SELECT user_id || '|' || field || '|' || md5(message) || '|' || coalesce(row_updated_at::text, 'null')
            FROM plan_rejections ORDER BY user_id, field, message, row_updated_at
            """, purpose: "fingerprinting plan_rejections")
    }

    /// notification id → payload of every outbox row.
    func outbox() throws -> [String: String] {
        var rows: [String: String] = [:]
        for row in try connection.query("SELECT notification_id, payload FROM notification_outbox",
                                        purpose: "reading the outbox") {
            rows[try row.string(0)] = try row.string(1)
        }
        return rows
    }

    func count(_ sql: SQLQuery) throws -> Int {
        try connection.query(sql, purpose: "counting").singleRow().int(0)
    }

    /// Signs of a half-done batch; all zero when history, state and outbox agree.
    func consistency() throws -> Consistency {
        Consistency(
            // a user's state must point at their latest history row
            stateNotAtLatestHistory: try count(
                """
                SELECT count(*) FROM (
                    SELECT DISTINCT ON (user_id) user_id, plan_date, seq FROM plan_history
                    ORDER BY user_id, plan_date DESC, seq DESC) h
                LEFT JOIN plan_state s ON s.user_id = h.user_id
                WHERE s.plan_date IS DISTINCT FROM h.plan_date OR s.history_rows_on_plan_date IS DISTINCT FROM h.seq + 1
                """),
            // …and a state with a plan must have that row
            stateWithoutHistory: try count(
                """
                SELECT count(*) FROM plan_state s WHERE s.plan_date IS NOT NULL AND NOT EXISTS (
                    SELECT FROM plan_history h WHERE h.user_id = s.user_id AND h.plan_date = s.plan_date
                      AND h.seq = s.history_rows_on_plan_date - 1)
                """),
            // a notification "<user>:<plan_date>:<type>:<n>" belongs to history row (user, plan_date, n)
            outboxWithoutHistory: try count(
                """
                SELECT count(*) FROM notification_outbox o WHERE NOT EXISTS (
                    SELECT FROM plan_history h WHERE h.user_id = o.user_id
                      AND h.plan_date = split_part(o.notification_id, ':', 2)::date
                      AND h.seq = split_part(o.notification_id, ':', 4)::int)
                """),
            // scheduled runs write at most one row per user and plan date
            duplicateHistoryRows: try count(
                "SELECT count(*) - count(DISTINCT (user_id, plan_date)) FROM plan_history"),
            pendingNotifications: try count("SELECT count(*) FROM notification_outbox_lines WHERE emitted_at IS NULL"))
    }

    private func strings(_ sql: SQLQuery, purpose: String) throws -> [String] {
        var values: [String] = []
        try connection.forEachRow(sql, purpose: purpose) { row in
            values.append(try row.string(0))
            return .continue
        }
        return values
    }
}

struct Consistency: Equatable, CustomStringConvertible {
    var stateNotAtLatestHistory: Int
    var stateWithoutHistory: Int
    var outboxWithoutHistory: Int
    var duplicateHistoryRows: Int
    /// Not a fault by itself: lines a killed run committed and did not emit yet.
    var pendingNotifications: Int

    var isConsistent: Bool {
        stateNotAtLatestHistory == 0 && stateWithoutHistory == 0 && outboxWithoutHistory == 0
            && duplicateHistoryRows == 0
    }

    var description: String {
        "state not at latest history: \(stateNotAtLatestHistory), state without history: \(stateWithoutHistory), "
            + "outbox without history: \(outboxWithoutHistory), duplicate history rows: \(duplicateHistoryRows), "
            + "pending notifications: \(pendingNotifications)"
    }
}

/// The ids of notification JSON lines (`"id"` of each object).
func notificationIDs(_ lines: some Sequence<String>) throws -> [String] {
    try lines.map { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        guard let id = object?["id"] as? String else { throw NotificationLineError(line: line) }
        return id
    }
}

struct NotificationLineError: Error, CustomStringConvertible {
    var line: String
    var description: String { "not a notification line: \(line.prefix(200))" }
}

/// Polls `condition` (every 2 ms) until it holds; fails after `limitSeconds`, so a bug
/// makes the test fail instead of hanging CI. Waiting for a process or the server, not
/// for time to pass.
func waitUntil(_ what: String, limitSeconds: Double = 120, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(limitSeconds)
    while !(try condition()) {
        guard Date() < deadline else { throw WaitError(what: what) }
        usleep(2000)
    }
}

struct WaitError: Error, CustomStringConvertible {
    var what: String
    var description: String { "gave up waiting for \(what)" }
}
