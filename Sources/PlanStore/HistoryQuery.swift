import PlanJSON
import PlanRules
import Postgres

/// One row of `plan_history`: the rules' own snapshot and diff, read back by PlanJSON.
public struct WrittenPlan: Sendable {
    public var userID: Int64
    /// 0 for a scheduled plan, 1… for same-day manual reruns.
    public var seq: Int
    public var generatedAt: Instant
    public var runID: Int64
    /// The plan: its date, reasons, rules version, targets, phase and projection.
    public var snapshot: Snapshot
    /// The changes from the plan it replaced; empty for a first plan.
    public var diff: [FieldChange]
    /// `plan_history.snapshot` and `.diff` as PostgreSQL prints them, which the exports
    /// copy as they are.
    public var storedSnapshotJSON: String
    public var storedDiffJSON: String

    public var planDate: LocalDate { snapshot.planDate }
}

/// Which plans `history` reads: one user or everyone, between two plan dates (inclusive).
public struct HistoryRange: Sendable {
    public var userID: Int64?
    public var from: LocalDate?
    public var to: LocalDate?
    /// At most this many plans (the newest); nil for all.
    public var limit: Int?

    public init(userID: Int64? = nil, from: LocalDate? = nil, to: LocalDate? = nil, limit: Int? = nil) {
        self.userID = userID
        self.from = from
        self.to = to
        self.limit = limit
    }
}

extension PlanStore {
    /// Calls `body` with each plan in `range`, newest first (plan date, then seq; users by
    /// id within a date). Rows stream one at a time (libpq single-row mode), so memory
    /// stays flat however many plans an export covers.
    public func forEachWrittenPlan(in range: HistoryRange, _ body: (WrittenPlan) throws -> Void) throws {
        try connection.forEachRow(
            """
            SELECT h.user_id, h.plan_date::text, h.seq, \(sql: microseconds("h.generated_at")) AS generated_at,
                   h.run_id, h.snapshot::text, h.diff::text
            FROM plan_history h
            WHERE (\(range.userID)::bigint IS NULL OR h.user_id = \(range.userID)::bigint)
              AND (\(range.from)::date IS NULL OR h.plan_date >= \(range.from)::date)
              AND (\(range.to)::date IS NULL OR h.plan_date <= \(range.to)::date)
            ORDER BY h.plan_date DESC, h.user_id, h.seq DESC
            LIMIT \(range.limit)
            """,
            purpose: "reading plan history"
        ) { row in
            let userID = try row.int64("user_id")
            let planDate = try row.string("plan_date")
            let snapshotJSON = try row.string("snapshot"), diffJSON = try row.string("diff")
            let snapshot: Snapshot
            do throws(SnapshotDecodingError) {
                snapshot = try Snapshot(json: snapshotJSON)
            } catch {
                // The path only: the reason quotes the bad value, which may be health data.
                throw StoreError.corruptState(userID: userID, detail: "plan_history.snapshot of \(planDate): "
                    + (error.path.isEmpty ? error.reason : "field \(error.path) is unreadable"))
            }
            guard let diff = try? FieldChange.diff(json: diffJSON) else {
                throw StoreError.corruptState(userID: userID, detail: "plan_history.diff of \(planDate) is not a JSON array")
            }
            try body(WrittenPlan(
                userID: userID, seq: try row.int("seq"),
                generatedAt: Instant(microsecondsSinceEpoch: try row.int64("generated_at")), runID: try row.int64("run_id"),
                snapshot: snapshot, diff: diff, storedSnapshotJSON: snapshotJSON, storedDiffJSON: diffJSON))
            return .continue
        }
    }
}
