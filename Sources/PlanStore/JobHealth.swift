import PlanRules
import Postgres

// What ops ask of the job's tables, for the metrics of a run and for `plan-regen status`:
// both read these queries, so the two never disagree. All of them only read (they work on
// a hot standby) and use indexes or small tables only.

/// Users the job knows are due: their `plan_state.next_check_at` (the local midnight of a
/// pending settings change, a phase switch, a birthday or their rollout of new rules) has
/// come; users left to a newer rules version are not counted, nor users waiting for their
/// rollout midnight. A settings row written since the last run is not counted: no run has
/// read it yet.
public struct DueBacklog: Sendable, Equatable {
    /// Users due at the instant asked about.
    public var due: Int
    /// Of those, the users whose `next_check_at` passed longer ago than the overdue limit.
    public var overdue: Int
    /// The earliest `next_check_at` that has come (nil when none has): the instant the
    /// longest-waiting user became due.
    public var oldestDueAt: Instant?

    public init(due: Int, overdue: Int, oldestDueAt: Instant?) {
        self.due = due
        self.overdue = overdue
        self.oldestDueAt = oldestDueAt
    }

    /// How long the longest-waiting user has been due at `instant`, in whole seconds (0
    /// when nobody is).
    public func oldestLatenessSeconds(at instant: Instant) -> Int64 {
        guard let oldestDueAt else { return 0 }
        return max(0, instant.microsecondsSinceEpoch - oldestDueAt.microsecondsSinceEpoch) / 1_000_000
    }
}

/// Where the late-row sweep stands over some partitions (`plan_watermarks`, sql/0011).
public struct SweepProgress: Sendable, Equatable {
    /// The partitions asked about, and those that have ended a whole sweep.
    public var partitions: Int
    public var partitionsSwept: Int
    /// The oldest end of a whole sweep among them; nil before every one has ended one.
    public var oldestCompletedAt: Instant?
    /// The sweep period the latest runs used (nil before any run swept).
    public var periodSeconds: Int64?

    public init(partitions: Int, partitionsSwept: Int, oldestCompletedAt: Instant?, periodSeconds: Int64?) {
        self.partitions = partitions
        self.partitionsSwept = partitionsSwept
        self.oldestCompletedAt = oldestCompletedAt
        self.periodSeconds = periodSeconds
    }

    /// How long ago, at `instant`, every partition's rows were last all compared; nil when
    /// some partition has never been swept whole.
    public func ageSeconds(at instant: Instant) -> Int64? {
        guard let oldestCompletedAt else { return nil }
        return max(0, instant.microsecondsSinceEpoch - oldestCompletedAt.microsecondsSinceEpoch) / 1_000_000
    }
}

/// One `plan_runs` row, as `status` lists the last runs.
public struct RecordedRun: Sendable, Equatable {
    public var runID: Int64
    public var status: String
    public var asOf: Instant
    public var startedAt: Instant
    public var finishedAt: Instant?
    public var durationMs: Int64?
    /// `--shard` (`0/2`), nil for a run over every partition.
    public var shard: String?
    /// How many `--user` ids a manual rerun asked for (nil: a scheduled run).
    public var requestedUsers: Int?
    public var counts: RunCounts
    public var partitionsHeldByOthers: Int
    public var host: String?
    public var binaryVersion: String
    public var rulesVersion: String
    public var tzdataVersion: String
    /// The error of a failed run (or why it was marked abandoned).
    public var error: String?
}

extension PlanStore {
    /// `plan_state` rows whose scheduled check (`next_check_at`) has come at `asOf`, of
    /// users last evaluated under one of `versions` or never (`rules_version` NULL): ranges
    /// of the `plan_state(rules_version, next_check_at)` index. The run's candidate
    /// selection and the due backlog share it, so `status` counts the users a run would pick.
    static func scheduledCheckHasCome(asOf: Instant, under versions: [String]) -> SQLQuery {
        """
        (rules_version = ANY(\(versions)::text[]) AND next_check_at <= \(asOf)::timestamptz \
        OR rules_version IS NULL AND next_check_at <= \(asOf)::timestamptz)
        """
    }

    /// The users due at `asOf` (of `partitions`, or all), those due for longer than
    /// `overdueAfterSeconds`, and when the longest-waiting one became due.
    public func dueBacklog(asOf: Instant, overdueAfterSeconds: Int64, partitions: [Int]? = nil) throws
        -> DueBacklog {
        let overdueAt = asOf.adding(seconds: -overdueAfterSeconds)
        let row = try connection.query(
            """
            SELECT count(*) AS due,
                   count(*) FILTER (WHERE next_check_at <= \(overdueAt)::timestamptz) AS overdue,
                   \(sql: microseconds("min(next_check_at) FILTER (WHERE next_check_at <= \(asOf)::timestamptz)")) AS oldest
            FROM plan_state
            WHERE \(sql: Self.scheduledCheckHasCome(asOf: asOf, under: try notNewerRulesVersions()))
              AND (\(partitions)::int[] IS NULL OR \(sql: UserPartitions.sql("user_id")) = ANY(\(partitions)::int[]))
            """, purpose: "counting the users due").singleRow()
        return DueBacklog(
            due: try row.int("due"), overdue: try row.int("overdue"),
            oldestDueAt: try row.optionalInt64("oldest").map(Instant.init(microsecondsSinceEpoch:)))
    }

    /// Where the late-row sweep of `partitions` (or of all) stands.
    public func sweepProgress(partitions: [Int]? = nil) throws -> SweepProgress {
        let asked = partitions ?? Array(0..<UserPartitions.count)
        let row = try connection.query(
            """
            SELECT count(w.sweep_completed_at) AS swept,
                   CASE WHEN count(w.sweep_completed_at) = cardinality(\(asked)::int[])
                   THEN \(sql: microseconds("min(w.sweep_completed_at)")) END AS oldest,
                   max(w.sweep_period_seconds)::int8 AS period
            FROM unnest(\(asked)::int[]) AS p(partition)
            LEFT JOIN plan_watermarks w ON w.partition = p.partition
            """, purpose: "reading the late-row sweep's progress").singleRow()
        return SweepProgress(partitions: asked.count, partitionsSwept: try row.int("swept"),
                             oldestCompletedAt: try row.optionalInt64("oldest").map(Instant.init(microsecondsSinceEpoch:)),
                             periodSeconds: try row.optionalInt64("period"))
    }

    /// The latest `limit` runs, newest first (dry runs are not recorded).
    public func recentRuns(limit: Int) throws -> [RecordedRun] {
        try connection.query(
            """
            SELECT run_id, status, \(sql: microseconds("as_of")) AS as_of, \(sql: microseconds("started_at")) AS started_at,
                   \(sql: microseconds("finished_at")) AS finished_at, duration_ms, shard,
                   cardinality(requested_users) AS requested_users, due, created, changed, unchanged,
                   skipped_incomplete, rejected, notifications, unknown_users, found_late, partitions_held_by_others,
                   host, binary_version, rules_version, tzdata_version, error
            FROM plan_runs ORDER BY run_id DESC LIMIT \(limit)
            """, purpose: "reading the latest runs"
        ).map { row in
            var counts = RunCounts()
            counts.due = try row.int("due")
            counts.created = try row.int("created")
            counts.changed = try row.int("changed")
            counts.unchanged = try row.int("unchanged")
            counts.skippedIncomplete = try row.int("skipped_incomplete")
            counts.rejected = try row.int("rejected")
            counts.notifications = try row.int("notifications")
            counts.unknownUsers = try row.int("unknown_users")
            counts.foundLate = try row.int("found_late")
            return RecordedRun(
                runID: try row.int64("run_id"), status: try row.string("status"),
                asOf: Instant(microsecondsSinceEpoch: try row.int64("as_of")),
                startedAt: Instant(microsecondsSinceEpoch: try row.int64("started_at")),
                finishedAt: try row.optionalInt64("finished_at").map(Instant.init(microsecondsSinceEpoch:)),
                durationMs: try row.optionalInt64("duration_ms"), shard: try row.optionalString("shard"),
                requestedUsers: try row.optionalInt("requested_users"), counts: counts,
                partitionsHeldByOthers: try row.int("partitions_held_by_others"),
                host: try row.optionalString("host"), binaryVersion: try row.string("binary_version"),
                rulesVersion: try row.string("rules_version"), tzdataVersion: try row.string("tzdata_version"),
                error: try row.optionalString("error"))
        }
    }

    /// When the last run that completed (`succeeded`, `held_by_others` or
    /// `delivery_pending`: its plans are written) ended; nil when none has.
    public func lastSuccessfulRunEnd() throws -> Instant? {
        try connection.query(
            """
            SELECT \(sql: microseconds("max(finished_at)")) AS finished_at
            FROM plan_runs WHERE status IN ('succeeded', 'held_by_others', 'delivery_pending')
            """, purpose: "reading the end of the last successful run"
        ).singleRow().optionalInt64("finished_at").map(Instant.init(microsecondsSinceEpoch:))
    }

    /// Rejection rows per settings field recorded by the runs started at or after `since`
    /// (and before `before`, when given: `plan-regen report`'s date range), through
    /// plan_rejections' run index: plan_runs is small.
    public func rejectionsByField(since: Instant, before: Instant? = nil) throws -> [String: Int] {
        var byField: [String: Int] = [:]
        for row in try connection.query(
            """
            SELECT field, count(*) AS rows FROM plan_rejections
            WHERE run_id >= (SELECT min(run_id) FROM plan_runs WHERE started_at >= \(since)::timestamptz)
              AND (\(before)::timestamptz IS NULL
                   OR run_id <= (SELECT max(run_id) FROM plan_runs WHERE started_at < \(before)::timestamptz))
            GROUP BY field
            """, purpose: "counting recent rejections") {
            byField[try row.string("field")] = try row.int("rows")
        }
        return byField
    }
}
