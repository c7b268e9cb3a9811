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
            SELECT h.user_id, h.plan_date::text, h.seq, \(sql: microseconds("h.generated_at")) AS generated_at,
                   h.run_id, h.reasons, h.rules_version, f.calories, f.protein_g, f.fat_g, f.carbs_g, f.water_ml,
                   f.bmr, f.tdee, f.phase, h.snapshot->'inputs'->>'weight_kg_reported' AS weight_kg_reported,
                   h.snapshot::text, h.diff::text
            FROM plan_history h CROSS JOIN LATERAL plan_snapshot_fields(h.snapshot) f
            WHERE (\(range.userID)::bigint IS NULL OR h.user_id = \(range.userID)::bigint)
              AND (\(range.from)::date IS NULL OR h.plan_date >= \(range.from)::date)
              AND (\(range.to)::date IS NULL OR h.plan_date <= \(range.to)::date)
            ORDER BY h.plan_date DESC, h.user_id, h.seq DESC
            LIMIT \(range.limit)
            """,
            purpose: "reading plan history"
        ) { row in
            let userID = try row.int64("user_id")
            let dateText = try row.string("plan_date")
            guard let planDate = LocalDate(iso8601: dateText) else {
                throw StoreError.corruptState(userID: userID, detail: "plan_history.plan_date '\(dateText)'")
            }
            try body(HistoryRecord(
                userID: userID, planDate: planDate, seq: try row.int("seq"),
                generatedAt: Instant(microsecondsSinceEpoch: try row.int64("generated_at")), runID: try row.int64("run_id"),
                reasons: try row.stringArray("reasons").compactMap { $0 }, rulesVersion: try row.string("rules_version"),
                calories: try row.int("calories"), proteinG: try row.int("protein_g"), fatG: try row.int("fat_g"),
                carbsG: try row.int("carbs_g"), waterMl: try row.int("water_ml"), bmr: try row.int("bmr"),
                tdee: try row.int("tdee"), phase: try row.string("phase"),
                weightKgReported: try row.string("weight_kg_reported"),
                snapshotJSON: try row.string("snapshot"), diffJSON: try row.string("diff")))
            return .continue
        }
    }
}
