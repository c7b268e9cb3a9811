import PlanRules
import Postgres

/// The all-users figures of `plan-regen report --from --to`: each one aggregated by
/// PostgreSQL (GROUP BY day, reason, field…), so the job receives a few hundred rows
/// however many users and plans the range covers.
public struct PlanReportFigures: Sendable {
    /// One count of a day (plan date) and key (a reason, a phase).
    public struct DayCount: Sendable, Equatable {
        public var day: LocalDate
        public var key: String
        public var count: Int
    }

    /// Written plans per plan date and reason (a plan with two reasons counts under each).
    public var plansByReason: [DayCount] = []
    /// Plans that switched MATADOR phase (`plan_history.phase_switch`), per plan date and
    /// the phase switched to.
    public var phaseSwitches: [DayCount] = []
    /// Rejected settings rows per field, from the runs started in the range (the query of
    /// `plan-regen status` and the metrics).
    public var rejectionsByField: [String: Int] = [:]
    /// Notifications made per type (`plan_history.notification_type`), for plan dates in
    /// the range.
    public var notificationsByType: [String: Int] = [:]
    /// Calorie changes (after − before) in buckets of `calorieBucketWidth`: bucket start → plans.
    public var calorieChanges: [(bucket: Int, count: Int)] = []
    public static let calorieBucketWidth = 50

    /// The start of the bucket of a calorie change, rounded down (−1 is in the bucket of
    /// −50): the report's and the preview's buckets.
    public static func calorieBucket(of change: Int) -> Int {
        (change >= 0 ? change / calorieBucketWidth : -((-change + calorieBucketWidth - 1) / calorieBucketWidth))
            * calorieBucketWidth
    }

    public init() {}
}

extension PlanStore {
    /// The figures of every user's plans dated `from` through `to` (inclusive).
    public func planReportFigures(from: LocalDate, to: LocalDate) throws -> PlanReportFigures {
        var figures = PlanReportFigures()
        let inRange: SQLQuery = "BETWEEN \(from)::date AND \(to)::date"
        try connection.forEachRow(
            """
            SELECT h.plan_date::text AS day, r.reason AS key, count(*)
            FROM plan_history h CROSS JOIN LATERAL unnest(h.reasons) AS r(reason)
            WHERE h.plan_date \(sql: inRange)
            GROUP BY 1, 2 ORDER BY 1, 2
            """, purpose: "counting plans per day and reason for the report"
        ) { row in
            figures.plansByReason.append(try dayCount(row))
            return .continue
        }
        try connection.forEachRow(
            """
            SELECT plan_date::text AS day, phase_switch AS key, count(*)
            FROM plan_history
            WHERE plan_date \(sql: inRange) AND phase_switch IS NOT NULL
            GROUP BY 1, 2 ORDER BY 1, 2
            """, purpose: "counting phase switches per day for the report"
        ) { row in
            figures.phaseSwitches.append(try dayCount(row))
            return .continue
        }
        try connection.forEachRow(
            """
            SELECT notification_type AS type, count(*)
            FROM plan_history
            WHERE plan_date \(sql: inRange) AND notification_type IS NOT NULL
            GROUP BY 1 ORDER BY 1
            """, purpose: "counting notifications per type for the report"
        ) { row in
            figures.notificationsByType[try row.string("type")] = try row.int("count")
            return .continue
        }
        // Grouped per change (a few thousand values at most), bucketed here as the preview's.
        var plansPerBucket: [Int: Int] = [:]
        try connection.forEachRow(
            """
            SELECT ((d->>'after')::numeric - (d->>'before')::numeric)::bigint AS change, count(*)
            FROM plan_history h CROSS JOIN LATERAL jsonb_array_elements(h.diff) AS d
            WHERE h.plan_date \(sql: inRange) AND h.diff @> '[{"path": "targets.calories"}]'
              AND d->>'path' = 'targets.calories'
            GROUP BY 1
            """, purpose: "counting calorie changes for the report"
        ) { row in
            plansPerBucket[PlanReportFigures.calorieBucket(of: try row.int("change")), default: 0] += try row.int("count")
            return .continue
        }
        figures.calorieChanges = plansPerBucket.sorted { $0.key < $1.key }.map { (bucket: $0.key, count: $0.value) }
        let midnight = { (date: LocalDate) in Instant(secondsSinceEpoch: Int64(date.daysSinceEpoch) * 86_400) }
        figures.rejectionsByField = try rejectionsByField(since: midnight(from), before: midnight(to.adding(days: 1)))
        return figures
    }
}

private func dayCount(_ row: PostgresRow) throws -> PlanReportFigures.DayCount {
    let text = try row.string("day")
    guard let day = LocalDate(iso8601: text) else {
        throw StoreError.corruptState(userID: 0, detail: "plan_history.plan_date '\(text)'")
    }
    return PlanReportFigures.DayCount(day: day, key: try row.optionalString("key") ?? "none", count: try row.int("count"))
}
