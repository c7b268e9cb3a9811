import PlanRules
import Postgres

/// One written plan as `plan-regen history` shows it: the typed columns of the
/// `plan_history_flat` view (sql/0002) plus the raw snapshot and diff.
public struct HistoryRecord: Sendable {
    public var userID: Int64
    public var planDate: LocalDate
    /// 0 for a scheduled plan, 1… for same-day manual reruns.
    public var seq: Int
    public var generatedAt: Instant
    public var runID: Int64
    public var reasons: [String]
    public var rulesVersion: String
    public var calories: Int
    public var proteinG: Int
    public var fatG: Int
    public var carbsG: Int
    public var waterMl: Int
    public var bmr: Int
    public var tdee: Int
    public var phase: String
    /// As the snapshot writes it, one decimal (`82.0`).
    public var weightKgReported: String
    /// `plan_history.snapshot` / `.diff` as PostgreSQL prints jsonb.
    public var snapshotJSON: String
    public var diffJSON: String
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
    public func forEachHistoryRecord(in range: HistoryRange, _ body: (HistoryRecord) throws -> Void) throws {
        try connection.forEachRow(
            """
            SELECT h.user_id, h.plan_date::text, h.seq, \(microseconds("h.generated_at")), h.run_id,
                   h.reasons, h.rules_version, f.calories, f.protein_g, f.fat_g, f.carbs_g, f.water_ml,
                   f.bmr, f.tdee, f.phase, h.snapshot->'inputs'->>'weight_kg_reported',
                   h.snapshot::text, h.diff::text
            FROM plan_history h CROSS JOIN LATERAL plan_snapshot_fields(h.snapshot) f
            WHERE ($1::bigint IS NULL OR h.user_id = $1)
              AND ($2::date IS NULL OR h.plan_date >= $2)
              AND ($3::date IS NULL OR h.plan_date <= $3)
            ORDER BY h.plan_date DESC, h.user_id, h.seq DESC
            LIMIT $4
            """,
            [range.userID, range.from?.description, range.to?.description, range.limit],
            purpose: "reading plan history"
        ) { row in
            let userID = try row.int64(0)
            let dateText = try row.string(1)
            guard let planDate = LocalDate(iso8601: dateText) else {
                throw StoreError.corruptState(userID: userID, detail: "plan_history.plan_date '\(dateText)'")
            }
            try body(HistoryRecord(
                userID: userID, planDate: planDate, seq: try row.int(2),
                generatedAt: Instant(microsecondsSinceEpoch: try row.int64(3)), runID: try row.int64(4),
                reasons: try row.stringArray(5).compactMap { $0 }, rulesVersion: try row.string(6),
                calories: try row.int(7), proteinG: try row.int(8), fatG: try row.int(9),
                carbsG: try row.int(10), waterMl: try row.int(11), bmr: try row.int(12), tdee: try row.int(13),
                phase: try row.string(14), weightKgReported: try row.string(15),
                snapshotJSON: try row.string(16), diffJSON: try row.string(17)))
            return .continue
        }
    }
}
