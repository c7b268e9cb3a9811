import PlanRules
import Postgres

/// The outcome counts of one run, as the summary line and `plan_runs` show them.
public struct RunCounts: Sendable, Equatable {
    public var due = 0
    public var created = 0
    public var changed = 0
    public var unchanged = 0
    public var skippedIncomplete = 0
    public var rejected = 0
    public var notifications = 0
    public var unknownUsers = 0
    /// Regenerated users per due reason (`settings_changed`, `phase_switch`, …): a user
    /// counts once under each reason that held. For the metrics file.
    public var usersByReason: [String: Int] = [:]
    /// Rejection rows per settings field (`height_cm`, …). For the metrics file.
    public var rejectionsByField: [String: Int] = [:]

    public init() {}

    public static func += (lhs: inout RunCounts, rhs: RunCounts) {
        lhs.due += rhs.due
        lhs.created += rhs.created
        lhs.changed += rhs.changed
        lhs.unchanged += rhs.unchanged
        lhs.skippedIncomplete += rhs.skippedIncomplete
        lhs.rejected += rhs.rejected
        lhs.notifications += rhs.notifications
        lhs.unknownUsers += rhs.unknownUsers
        lhs.usersByReason.merge(rhs.usersByReason, uniquingKeysWith: +)
        lhs.rejectionsByField.merge(rhs.rejectionsByField, uniquingKeysWith: +)
    }
}

/// What a run records about itself in `plan_runs`.
public struct RunRecord: Sendable {
    public var asOf: Instant
    public var dryRun: Bool
    public var requestedUsers: [Int64]?
    public var shard: String?
    public var binaryVersion: String
    public var rulesVersion: String
    public var tzdataVersion: String

    public init(asOf: Instant, dryRun: Bool, requestedUsers: [Int64]?, shard: String?,
                binaryVersion: String, rulesVersion: String, tzdataVersion: String) {
        self.asOf = asOf
        self.dryRun = dryRun
        self.requestedUsers = requestedUsers
        self.shard = shard
        self.binaryVersion = binaryVersion
        self.rulesVersion = rulesVersion
        self.tzdataVersion = tzdataVersion
    }
}

extension PlanStore {
    /// Inserts the `plan_runs` row (status `running`) and returns its `run_id`.
    public func startRun(_ record: RunRecord) throws -> Int64 {
        let result = try connection.query(
            """
            INSERT INTO plan_runs (as_of, dry_run, requested_users, shard, binary_version,
                                   rules_version, tzdata_version)
            VALUES ($1, $2, $3::bigint[], $4, $5, $6, $7) RETURNING run_id
            """,
            [record.asOf.postgresText, record.dryRun, record.requestedUsers,
             record.shard, record.binaryVersion, record.rulesVersion, record.tzdataVersion],
            purpose: "recording the start of the run")
        return try result.singleRow().int64(0)
    }

    /// Closes the `plan_runs` row with the counts, `succeeded` or `failed` and the error.
    public func finishRun(_ runID: Int64, counts: RunCounts, durationMs: Int64, error: String?) throws {
        try connection.execute(
            """
            UPDATE plan_runs SET finished_at = clock_timestamp(), status = $2, due = $3, created = $4,
                   changed = $5, unchanged = $6, skipped_incomplete = $7, rejected = $8,
                   notifications = $9, unknown_users = $10, duration_ms = $11, error = $12
            WHERE run_id = $1
            """,
            [runID, error == nil ? "succeeded" : "failed", counts.due, counts.created, counts.changed,
             counts.unchanged, counts.skippedIncomplete, counts.rejected, counts.notifications,
             counts.unknownUsers, durationMs, error],
            purpose: "recording the end of run \(runID)")
    }
}
