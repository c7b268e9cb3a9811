import PlanRules
import Postgres

/// Everything one batch of users writes, committed in one transaction: history rows,
/// the new plan state, rejections and the notifications' outbox lines. Values arrive
/// already encoded (snapshot and diff JSON, notification lines) so the store only moves
/// bytes.
///
/// The JSON of a batch lies back to back in two buffers, `json` and `notificationLines`,
/// and rows point into them by range: an array per value cost a run three allocations
/// and their release per user.
public struct BatchWrite: Sendable {
    public var history: [HistoryWrite] = []
    public var states: [StateWrite] = []
    public var rejections: [RejectionWrite] = []
    public var outbox: [OutboxWrite] = []
    /// The UTF-8 JSON texts of `history` (snapshots, diffs), back to back.
    public var json: [UInt8] = []
    /// The outbox's payloads, each followed by a line feed: as they go to the
    /// notifications file.
    public var notificationLines: [UInt8] = []
    /// Set when the lines go to a webhook: the batch's `notification_batches` row is
    /// written already claimed for delivery by this process, so no `deliver` posts it
    /// while the run does (sql/0019).
    public var deliveryClaim: DeliveryClaim?

    public init() {}

    /// Room for the JSON of `users` users, so that the buffers are allocated once rather
    /// than grown by doubling (which left a run's peak memory about 18 MB higher). A
    /// snapshot takes about 900 bytes, a diff up to a few hundred, a notification line
    /// about 430 (docs/performance.md).
    public init(reservingFor users: Int) {
        json.reserveCapacity(users * 1_200)
        notificationLines.reserveCapacity(users * 480)
    }

    public var isEmpty: Bool { history.isEmpty && states.isEmpty && rejections.isEmpty && outbox.isEmpty }

    /// Appends the JSON text `encode` writes to `json` and returns where it lies.
    @inlinable
    public mutating func appendJSON(_ encode: (inout [UInt8]) -> Void) -> Range<Int> {
        let start = json.count
        encode(&json)
        return start..<json.count
    }

    /// Appends one outbox line: `payload` is a notification's JSON text (`encode` writes
    /// it to the end of `notificationLines`), which gets its line feed here. Returns where
    /// the payload lies.
    @discardableResult
    public mutating func appendNotification(id: String, userID: Int64, createdAt: Instant,
                                            payload encode: (inout [UInt8]) -> Void) -> Range<Int> {
        let start = notificationLines.count
        encode(&notificationLines)
        let payload = start..<notificationLines.count
        outbox.append(OutboxWrite(notificationID: id, userID: userID, createdAt: createdAt, payload: payload))
        notificationLines.append(UInt8(ascii: "\n"))
        return payload
    }

    /// The text of a range of `json` (a snapshot or diff).
    public func jsonText(_ range: Range<Int>) -> String { String(decoding: json[range], as: UTF8.self) }

    /// The text of a range of `notificationLines` (an outbox line's payload).
    public func notificationText(_ payload: Range<Int>) -> String {
        String(decoding: notificationLines[payload], as: UTF8.self)
    }
}

/// One `plan_history` row.
public struct HistoryWrite: Sendable {
    public var userID: Int64
    public var planDate: LocalDate
    public var seq: Int
    public var reasons: [DueReason]
    /// Where the snapshot's JSON text (section 6) lies in the batch's `json`.
    public var snapshotJSON: Range<Int>
    /// The previous plan's JSON text: the stored text the user was loaded with, kept as
    /// it came.
    public var previousJSON: [UInt8]?
    /// Where the diff's JSON text lies in the batch's `json`.
    public var diffJSON: Range<Int>
    public var rulesVersion: String
    /// The decisions `plan-regen report` counts (sql/0018): the phase the plan switched to
    /// (`HistoryEntry.phaseSwitch`) and the type of its notification, nil when none.
    public var phaseSwitch: Phase?
    public var notificationType: NotificationType?

    public init(userID: Int64, planDate: LocalDate, seq: Int, reasons: [DueReason], snapshotJSON: Range<Int>,
                previousJSON: [UInt8]?, diffJSON: Range<Int>, rulesVersion: String, phaseSwitch: Phase?,
                notificationType: NotificationType?) {
        self.userID = userID
        self.planDate = planDate
        self.seq = seq
        self.reasons = reasons
        self.snapshotJSON = snapshotJSON
        self.previousJSON = previousJSON
        self.diffJSON = diffJSON
        self.rulesVersion = rulesVersion
        self.phaseSwitch = phaseSwitch
        self.notificationType = notificationType
    }
}

/// One `plan_state` row, written whole (insert or replace). Its current plan is the
/// history row it points at (`plan_date`, `history_rows_on_plan_date` − 1), so the row
/// holds the state's fields but not the plan itself.
public struct StateWrite: Sendable {
    public var userID: Int64
    /// The current plan's date; nil before the user's first plan.
    public var planDate: LocalDate?
    public var historyRowsOnPlanDate: Int
    public var lastEvaluatedDate: LocalDate?
    public var seenUpdatedAt: Instant?
    public var judgedUpdatedAt: Instant?
    public var judgedRulesVersion: String?
    public var scheduledUpdatedAt: Instant?
    public var rulesVersion: String
    /// The rules version of the current plan (plan-rules.md section 2.1: older while the
    /// user waits for their rollout midnight); nil before the first plan.
    public var planRulesVersion: String?
    public var nextCheckAt: Instant?
    /// The user has no `plan_state` row yet: it is copied straight in, which skips the
    /// staging table and the upsert (a first run writes a million of these).
    public var isNew: Bool

    /// `state` is borrowed: only its fields are kept, and an initializer's argument is
    /// otherwise a copy (the current plan's strings retained for every user).
    public init(userID: Int64, state: borrowing UserPlanState, rulesVersion: String, nextCheckAt: Instant?,
                isNew: Bool) {
        self.userID = userID
        self.planDate = state.currentPlan?.planDate
        self.historyRowsOnPlanDate = state.historyRowsOnCurrentPlanDate
        self.lastEvaluatedDate = state.lastEvaluatedDate
        self.seenUpdatedAt = state.seenUpdatedAt
        self.judgedUpdatedAt = state.judgedUpdatedAt
        self.judgedRulesVersion = state.judgedRulesVersion
        self.scheduledUpdatedAt = state.scheduledUpdatedAt
        self.rulesVersion = rulesVersion
        self.planRulesVersion = state.currentPlan?.rulesVersion
        self.nextCheckAt = nextCheckAt
        self.isNew = isNew
    }
}

/// One `plan_rejections` row (one per failing field).
public struct RejectionWrite: Sendable {
    public var userID: Int64
    public var field: String
    public var message: String
    public var rowUpdatedAt: Instant?

    public init(userID: Int64, field: String, message: String, rowUpdatedAt: Instant?) {
        self.userID = userID
        self.field = field
        self.message = message
        self.rowUpdatedAt = rowUpdatedAt
    }
}

extension BatchWrite {
    /// The values of `delivery_claimed_by` and `delivery_claimed_until` of the batch's row.
    var deliveryClaimColumns: SQLQuery {
        guard let deliveryClaim else { return "NULL, NULL" }
        return """
            \(bind: deliveryClaim.claimant), \
            clock_timestamp() + \(deliveryClaim.ttlMilliseconds)::int8 * interval '1 millisecond'
            """
    }
}

/// One `notification_outbox` row.
public struct OutboxWrite: Sendable {
    public var notificationID: String
    public var userID: Int64
    public var createdAt: Instant
    /// Where the line's JSON text lies in the batch's `notificationLines` (without its
    /// line feed).
    public var payload: Range<Int>

    init(notificationID: String, userID: Int64, createdAt: Instant, payload: Range<Int>) {
        self.notificationID = notificationID
        self.userID = userID
        self.createdAt = createdAt
        self.payload = payload
    }
}

extension PlanStore {
    /// Writes `batch` with COPY (few round trips, no per-row SQL), inside the caller's
    /// transaction — the batch transaction that fenced the run's claims and loaded the
    /// users (NightlyRun). A failure rolls the whole batch back: nothing half-done is ever
    /// committed. The plan_history partitions of its dates must exist
    /// (`missingHistoryPartitions`).
    ///
    /// - Returns: the `notification_batches` row of the batch's outbox lines (nil without
    ///   lines): once they are emitted, `markEmitted(batch:)` marks them all at once.
    @discardableResult
    public func write(_ batch: BatchWrite, runID: Int64, generatedAt: Instant) throws -> Int64? {
        precondition(connection.isInTransaction, "a batch is written inside its batch transaction")
        guard !batch.isEmpty else { return nil }
        let rows = batch.history.count + batch.states.count + batch.rejections.count + batch.outbox.count
        if rows <= Self.pipelinedWriteRowLimit {
            return try writePipelined(batch, runID: runID, generatedAt: generatedAt)
        }
        let conn = connection
        if !batch.history.isEmpty {
            let generated = generatedAt.postgresText
            try conn.copyIn(
                """
                COPY plan_history (user_id, plan_date, seq, generated_at, run_id, reasons, snapshot,
                                   previous, diff, rules_version, phase_switch, notification_type) FROM STDIN
                """, purpose: "writing \(batch.history.count) plan_history rows"
            ) { writer in
                // Rows read in place (`history[i].field`): `for h in` copied each one,
                // retaining its buffers.
                let history = batch.history
                // Users of a batch mostly share their reasons (`{created}` in a first run):
                // the array's text is made again only when they change.
                var reasons = (list: [DueReason](), text: PostgresTextArray.encode([String]()))
                try batch.json.withUnsafeBufferPointer { json in
                    for i in history.indices {
                        if history[i].reasons != reasons.list {
                            let list = history[i].reasons
                            reasons = (list, PostgresTextArray.encode(list.map(\.rawValue)))
                        }
                        try writer.addRow { row in
                            row.integer(history[i].userID)
                            row.plain(history[i].planDate)
                            row.integer(history[i].seq)
                            row.text(generated)
                            row.integer(runID)
                            row.text(reasons.text)
                            row.compactJSON(utf8: UnsafeBufferPointer(rebasing: json[history[i].snapshotJSON]))
                            row.compactJSON(utf8: history[i].previousJSON)
                            row.compactJSON(utf8: UnsafeBufferPointer(rebasing: json[history[i].diffJSON]))
                            row.text(history[i].rulesVersion)
                            row.text(history[i].phaseSwitch?.rawValue)
                            row.text(history[i].notificationType?.rawValue)
                        }
                    }
                }
            }
        }
        if batch.states.contains(where: \.isNew) {
            try copyNewStates(batch.states, runID: runID)
        }
        if batch.states.contains(where: { !$0.isNew }) {
            try updateStates(batch.states.filter { !$0.isNew }, runID: runID)
        }
        if !batch.rejections.isEmpty {
            try conn.copyIn(
                """
                COPY plan_rejections (user_id, run_id, field, message, row_updated_at, rules_version)
                FROM STDIN
                """, purpose: "writing \(batch.rejections.count) plan_rejections rows"
            ) { writer in
                for r in batch.rejections {
                    try writer.addRow { row in
                        row.integer(r.userID)
                        row.integer(runID)
                        row.text(r.field)
                        row.text(r.message)
                        row.text(r.rowUpdatedAt?.postgresText)
                        row.text(rulesVersion)
                    }
                }
            }
        }
        guard !batch.outbox.isEmpty else { return nil }
        let batchID = try conn.query(
            """
            INSERT INTO notification_batches (run_id, delivery_claimed_by, delivery_claimed_until)
            VALUES (\(runID), \(sql: batch.deliveryClaimColumns)) RETURNING batch_id
            """,
            purpose: "opening a notification batch").singleRow().int64("batch_id")
        try conn.copyIn(
            """
            COPY notification_outbox (notification_id, user_id, run_id, created_at, payload, batch_id)
            FROM STDIN
            """, purpose: "writing \(batch.outbox.count) notifications to the outbox"
        ) { writer in
            // Lines of a run share one creation instant: its text is made once.
            var createdAt = (instant: Instant.distantPast, text: Instant.distantPast.postgresText)
            let outbox = batch.outbox
            try batch.notificationLines.withUnsafeBufferPointer { lines in
                for i in outbox.indices {
                    if outbox[i].createdAt != createdAt.instant {
                        createdAt = (outbox[i].createdAt, outbox[i].createdAt.postgresText)
                    }
                    try writer.addRow { row in
                        row.text(outbox[i].notificationID)
                        row.integer(outbox[i].userID)
                        row.integer(runID)
                        row.text(createdAt.text)
                        row.compactJSON(utf8: UnsafeBufferPointer(rebasing: lines[outbox[i].payload]))
                        row.integer(batchID)
                    }
                }
            }
        }
        return batchID
    }

    /// COPYs the rows of users who had no `plan_state` yet straight into the table (a
    /// first run writes a million of these).
    private func copyNewStates(_ states: [StateWrite], runID: Int64) throws {
        try connection.copyIn(
            """
            COPY plan_state (user_id, plan_date, rules_version,
                history_rows_on_plan_date, last_evaluated_date, seen_updated_at,
                judged_updated_at, judged_rules_version, scheduled_updated_at, next_check_at, plan_rules_version,
                updated_by_run)
            FROM STDIN
            """, purpose: "writing new plan_state rows"
        ) { writer in
            for i in states.indices where states[i].isNew {
                try writer.addRow { row in
                    row.integer(states[i].userID)
                    row.plain(states[i].planDate)
                    row.text(states[i].rulesVersion)
                    row.integer(states[i].historyRowsOnPlanDate)
                    row.plain(states[i].lastEvaluatedDate)
                    row.plain(states[i].seenUpdatedAt)
                    row.plain(states[i].judgedUpdatedAt)
                    row.text(states[i].judgedRulesVersion)
                    row.plain(states[i].scheduledUpdatedAt)
                    row.plain(states[i].nextCheckAt)
                    row.text(states[i].planRulesVersion)
                    row.integer(runID)
                }
            }
        }
    }

    /// A batch with at most this many rows (a `--user` rerun, the last users of a run) is
    /// written by statements sent in one round trip; a larger one by COPY, which costs two
    /// round trips a table but far less work per row.
    static let pipelinedWriteRowLimit = 64

    /// `write` for a small batch: every row in one round trip. Returns the notification
    /// batch id, as `write` does.
    private func writePipelined(_ batch: BatchWrite, runID: Int64, generatedAt: Instant) throws -> Int64? {
        var statements: [(query: SQLQuery, purpose: String)] = batch.history.map { h in
            ("""
             INSERT INTO plan_history (user_id, plan_date, seq, generated_at, run_id, reasons, snapshot,
                                       previous, diff, rules_version, phase_switch, notification_type)
             VALUES (\(h.userID), \(h.planDate)::date, \(h.seq), \(generatedAt)::timestamptz, \(runID),
                     \(h.reasons.map(\.rawValue))::text[], \(bind: batch.jsonText(h.snapshotJSON))::jsonb,
                     \(bind: h.previousJSON.map { String(decoding: $0, as: UTF8.self) })::jsonb,
                     \(bind: batch.jsonText(h.diffJSON))::jsonb, \(bind: h.rulesVersion),
                     \(bind: h.phaseSwitch?.rawValue), \(bind: h.notificationType?.rawValue))
             """, "writing the plan_history row of user \(h.userID)")
        }
        if !batch.states.isEmpty { statements.append(stateUpsert(batch.states, runID: runID)) }
        statements += batch.rejections.map { r in
            ("""
             INSERT INTO plan_rejections (user_id, run_id, field, message, row_updated_at, rules_version)
             VALUES (\(r.userID), \(runID), \(bind: r.field), \(bind: r.message), \(r.rowUpdatedAt)::timestamptz,
                     \(bind: rulesVersion))
             """, "writing a plan_rejections row of user \(r.userID)")
        }
        if !batch.outbox.isEmpty {
            statements.append(("""
                WITH batch AS (INSERT INTO notification_batches (run_id, delivery_claimed_by, delivery_claimed_until)
                               VALUES (\(runID), \(sql: batch.deliveryClaimColumns)) RETURNING batch_id),
                     lines AS (
                        INSERT INTO notification_outbox (notification_id, user_id, run_id, created_at, payload, batch_id)
                        SELECT o.id, o.user_id, \(runID), o.created_at, o.payload, batch.batch_id
                        FROM unnest(\(batch.outbox.map(\.notificationID))::text[], \(batch.outbox.map(\.userID))::bigint[],
                                    \(batch.outbox.map(\.createdAt.postgresText))::timestamptz[],
                                    \(batch.outbox.map { batch.notificationText($0.payload) })::text[])
                             AS o(id, user_id, created_at, payload), batch)
                SELECT batch_id FROM batch
                """, "writing \(batch.outbox.count) notifications to the outbox"))
        }
        let results = try connection.pipelined(statements)
        return batch.outbox.isEmpty ? nil : try results.last!.singleRow().int64("batch_id")
    }

    /// Rewrites the `plan_state` rows of users loaded with one (a rules-change run writes a
    /// million): a plain `UPDATE … FROM unnest(…)`. Measured against the upsert below on
    /// a million rows in batches of 2,000, it costs the server 10–15% less: no
    /// speculative-insertion check and no tuple lock (with its WAL record) before each
    /// update. Should a row have gone meanwhile (only a DELETE outside plan-regen can do
    /// that: an erasure waits for the batch's partitions), the upsert writes the batch's
    /// states again, so the batch never loses one.
    /// A dense batch's rows are found by their id range (one index range scan and a hash
    /// join, like `loadUsers`), which costs the server less than a probe per row.
    private func updateStates(_ states: [StateWrite], runID: Int64) throws {
        let inRange: SQLQuery = UserLookup.denseRange(of: states.map(\.userID)).map {
            "AND p.user_id BETWEEN \($0.lowerBound) AND \($0.upperBound)"
        } ?? ""
        let updated = try connection.pipelined([(
            """
            UPDATE plan_state p SET
                plan_date = u.plan_date, rules_version = u.rules_version,
                history_rows_on_plan_date = u.history_rows_on_plan_date,
                last_evaluated_date = u.last_evaluated_date, seen_updated_at = u.seen_updated_at,
                judged_updated_at = u.judged_updated_at, judged_rules_version = u.judged_rules_version,
                scheduled_updated_at = u.scheduled_updated_at, next_check_at = u.next_check_at,
                plan_rules_version = u.plan_rules_version, updated_by_run = \(runID)
            FROM \(sql: Self.stateColumns(states)) AS u(user_id, plan_date, rules_version, history_rows_on_plan_date,
                last_evaluated_date, seen_updated_at, judged_updated_at, judged_rules_version,
                scheduled_updated_at, next_check_at, plan_rules_version)
            WHERE p.user_id = u.user_id \(sql: inRange)
            """, "updating \(states.count) plan_state rows")])[0].affectedRows
        if updated != states.count {
            _ = try connection.pipelined([stateUpsert(states, runID: runID)])
        }
    }

    /// Replaces (or inserts) the `plan_state` rows of `states`: one `INSERT … SELECT FROM
    /// unnest(…) ON CONFLICT DO UPDATE` with a column array per field. No staging table:
    /// a temporary table is session state a pooler does not keep, DDL in every batch, and
    /// a privilege (TEMP) the job's role need not have.
    private func stateUpsert(_ states: [StateWrite], runID: Int64) -> (query: SQLQuery, purpose: String) {
        ("""
            INSERT INTO plan_state (user_id, plan_date, rules_version, history_rows_on_plan_date,
                                    last_evaluated_date, seen_updated_at, judged_updated_at,
                                    judged_rules_version, scheduled_updated_at, next_check_at, plan_rules_version,
                                    updated_by_run)
            SELECT u.*, \(runID)::bigint FROM \(sql: Self.stateColumns(states)) AS u
            ON CONFLICT (user_id) DO UPDATE SET
                plan_date = EXCLUDED.plan_date,
                rules_version = EXCLUDED.rules_version,
                history_rows_on_plan_date = EXCLUDED.history_rows_on_plan_date,
                last_evaluated_date = EXCLUDED.last_evaluated_date,
                seen_updated_at = EXCLUDED.seen_updated_at,
                judged_updated_at = EXCLUDED.judged_updated_at,
                judged_rules_version = EXCLUDED.judged_rules_version,
                scheduled_updated_at = EXCLUDED.scheduled_updated_at,
                next_check_at = EXCLUDED.next_check_at, plan_rules_version = EXCLUDED.plan_rules_version,
                updated_by_run = EXCLUDED.updated_by_run
            """, "saving \(states.count) plan_state rows")
    }

    /// The fields of `states` as one row each: `unnest` of a column array per field, in
    /// `plan_state`'s order from `user_id` to `next_check_at`, then `plan_rules_version`
    /// (without `updated_by_run`).
    /// Dates travel as days and instants as microseconds since the epoch, turned into
    /// `date` and `timestamptz` by arithmetic (`timestamptz(microseconds:)`): parsing
    /// their text cost the server about half as much again (32 against 22 ms per 100,000
    /// timestamps, and each state has six such columns), and writing it cost the job a
    /// calendar conversion per value.
    private static func stateColumns(_ states: [StateWrite]) -> SQLQuery {
        func days(_ date: LocalDate?) -> Int64? { date.map { Int64($0.daysSinceEpoch) } }
        return """
            (SELECT user_id, \(sql: date(days: "plan_date")), rules_version, history_rows_on_plan_date,
                    \(sql: date(days: "last_evaluated_date")),
                    \(sql: timestamptz(microseconds: "seen_updated_at")),
                    \(sql: timestamptz(microseconds: "judged_updated_at")), judged_rules_version,
                    \(sql: timestamptz(microseconds: "scheduled_updated_at")),
                    \(sql: timestamptz(microseconds: "next_check_at")), plan_rules_version
             FROM unnest(\(states.map(\.userID))::bigint[],
                         \(PostgresPlainArray(states.map { days($0.planDate) }))::int[],
                         \(states.map(\.rulesVersion))::text[], \(states.map(\.historyRowsOnPlanDate))::int[],
                         \(PostgresPlainArray(states.map { days($0.lastEvaluatedDate) }))::int[],
                         \(PostgresPlainArray(states.map { $0.seenUpdatedAt?.microsecondsSinceEpoch }))::int8[],
                         \(PostgresPlainArray(states.map { $0.judgedUpdatedAt?.microsecondsSinceEpoch }))::int8[],
                         \(states.map(\.judgedRulesVersion))::text[],
                         \(PostgresPlainArray(states.map { $0.scheduledUpdatedAt?.microsecondsSinceEpoch }))::int8[],
                         \(PostgresPlainArray(states.map { $0.nextCheckAt?.microsecondsSinceEpoch }))::int8[],
                         \(states.map(\.planRulesVersion))::text[])
                  AS s(user_id, plan_date, rules_version, history_rows_on_plan_date, last_evaluated_date,
                       seen_updated_at, judged_updated_at, judged_rules_version, scheduled_updated_at, next_check_at,
                       plan_rules_version))
            """
    }
}
