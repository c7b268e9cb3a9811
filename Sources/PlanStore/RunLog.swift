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
    /// Users whose row was older than the change watermark when it became visible and not
    /// yet seen: found by the late-row sweep, due now or waiting for their midnight. Their
    /// plans made for that row are not in `lateness`.
    public var foundLate = 0
    /// Due users whose current plan a newer rules version made: a scheduled run leaves
    /// them (plan-rules.md section 2.1).
    public var leftToNewerRules = 0
    /// Notifications of users whose `unit_system` was neither metric nor imperial.
    public var unknownUnitSystems = 0
    /// Regenerated users per due reason (`settings_changed`, `phase_switch`, …): a user
    /// counts once under each reason that held. For the metrics file.
    public var usersByReason: [String: Int] = [:]
    /// Rejection rows per settings field (`height_cm`, …). For the metrics file.
    public var rejectionsByField: [String: Int] = [:]
    /// How late the plans due at a local midnight were written. For the metrics file.
    public var lateness = LatenessHistogram()

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
        lhs.foundLate += rhs.foundLate
        lhs.leftToNewerRules += rhs.leftToNewerRules
        lhs.unknownUnitSystems += rhs.unknownUnitSystems
        lhs.usersByReason.merge(rhs.usersByReason, uniquingKeysWith: +)
        lhs.rejectionsByField.merge(rhs.rejectionsByField, uniquingKeysWith: +)
        lhs.lateness += rhs.lateness
    }
}

/// How late users' plans were written: for each user due at a local midnight, the time
/// from that midnight to the run's instant, counted in the buckets of the metric
/// `plan_regen_last_run_lateness_seconds`.
public struct LatenessHistogram: Sendable, Equatable {
    /// Upper bounds of the buckets, in seconds: 1 min, 5 min, 15 min (one timer period),
    /// 30 min, 1 h, 2 h, 6 h, 1 day.
    public static let boundsSeconds: [Int64] = [60, 300, 900, 1800, 3600, 7200, 21_600, 86_400]

    /// Observations per bucket (not cumulative); the last counts those above every bound.
    public private(set) var bucketCounts = [Int](repeating: 0, count: boundsSeconds.count + 1)
    public private(set) var count = 0
    public private(set) var sumMicroseconds: Int64 = 0

    public init() {}

    /// Counts one plan written `microseconds` after its midnight (negative counts as 0).
    public mutating func record(microseconds: Int64) {
        let late = max(0, microseconds)
        let bucket = Self.boundsSeconds.firstIndex { late <= $0 * 1_000_000 } ?? Self.boundsSeconds.count
        bucketCounts[bucket] += 1
        count += 1
        sumMicroseconds += late
    }

    /// Observations at or below each bound, as Prometheus' `le` buckets count them.
    public var cumulativeCounts: [Int] {
        var total = 0
        return bucketCounts.dropLast().map { total += $0; return total }
    }

    public static func += (lhs: inout LatenessHistogram, rhs: LatenessHistogram) {
        for index in lhs.bucketCounts.indices { lhs.bucketCounts[index] += rhs.bucketCounts[index] }
        lhs.count += rhs.count
        lhs.sumMicroseconds += rhs.sumMicroseconds
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
    /// The machine and process of the run, so another run can tell it died.
    public var host: String?
    public var pid: Int?
    public var processKey: String?
    /// What the operator asked of rules versions (`at_once`, `rollback`, `both`), nil for none.
    public var rulesAction: String?

    public init(asOf: Instant, dryRun: Bool, requestedUsers: [Int64]?, shard: String?,
                binaryVersion: String, rulesVersion: String, tzdataVersion: String,
                host: String? = nil, pid: Int? = nil, processKey: String? = nil, rulesAction: String? = nil) {
        self.asOf = asOf
        self.dryRun = dryRun
        self.requestedUsers = requestedUsers
        self.shard = shard
        self.binaryVersion = binaryVersion
        self.rulesVersion = rulesVersion
        self.tzdataVersion = tzdataVersion
        self.host = host
        self.pid = pid
        self.processKey = processKey
        self.rulesAction = rulesAction
    }
}

/// How a run ended, as `plan_runs.status` records it (docs/operations.md, "Exit codes and run statuses").
public enum RunStatus: String, Sendable, CaseIterable {
    /// Still going, or killed before it could say (a later run marks it `abandoned`).
    case running
    /// Completed: every partition it wanted was processed.
    case succeeded
    /// Completed, but other runs held some or all of its partitions (an ordinary overlap):
    /// their users were left to them.
    case heldByOthers = "held_by_others"
    /// Completed, but a run has held some of its partitions for longer than the overlap
    /// limit: their users are not being processed (exit 4).
    case heldTooLong = "held_too_long"
    /// Completed and committed, but some notification lines could not be delivered (a
    /// webhook receiver down or refusing): they stay pending (exit 6).
    case deliveryPending = "delivery_pending"
    /// Stopped by SIGTERM/SIGINT after its batch in flight (exit 75).
    case stopped
    /// Ended by an error (exit 1); nothing half-done was committed.
    case failed
    /// Died without finishing (killed); found by the run that took its partitions over.
    case abandoned
}

extension PlanStore {
    /// Inserts the `plan_runs` row (status `running`) and returns its `run_id`. The row keeps
    /// the binary's schema level: `migrate --contract` waits while binaries that do not know
    /// a contract migration run.
    public func startRun(_ record: RunRecord) throws -> Int64 {
        let result = try connection.query(
            """
            INSERT INTO plan_runs (as_of, dry_run, requested_users, shard, binary_version,
                                   rules_version, tzdata_version, host, pid, process_key, schema_level, rules_action)
            VALUES (\(record.asOf), \(record.dryRun), \(record.requestedUsers)::bigint[], \(bind: record.shard),
                    \(bind: record.binaryVersion), \(bind: record.rulesVersion), \(bind: record.tzdataVersion),
                    \(bind: record.host), \(record.pid), \(bind: record.processKey),
                    \(bind: Migration.planRegen.last?.name), \(bind: record.rulesAction))
            RETURNING run_id
            """, purpose: "recording the start of the run")
        return try result.singleRow().int64("run_id")
    }

    /// Closes the `plan_runs` row with its status, the counts and the error (if any).
    ///
    /// `newestRulesVersionSeen`: the newest rules version among the users' states.
    public func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts, partitionsHeldByOthers: Int,
                          durationMs: Int64, error: String?, newestRulesVersionSeen: String? = nil) throws {
        try connection.execute(
            """
            UPDATE plan_runs SET finished_at = clock_timestamp(), status = \(bind: status.rawValue),
                   due = \(counts.due), created = \(counts.created), changed = \(counts.changed),
                   unchanged = \(counts.unchanged), skipped_incomplete = \(counts.skippedIncomplete),
                   rejected = \(counts.rejected), notifications = \(counts.notifications),
                   unknown_users = \(counts.unknownUsers), found_late = \(counts.foundLate),
                   left_to_newer_rules = \(counts.leftToNewerRules), newest_rules_version_seen = \(bind: newestRulesVersionSeen),
                   duration_ms = \(durationMs), error = \(bind: error),
                   partitions_held_by_others = \(partitionsHeldByOthers)
            WHERE run_id = \(runID)
            """, purpose: "recording the end of run \(runID)")
    }

    /// Runs other than `runID` still marked `running`, with their process identity.
    public func runningRuns(except runID: Int64) throws -> [(runID: Int64, processKey: String?)] {
        try connection.query(
            "SELECT run_id, process_key FROM plan_runs WHERE status = 'running' AND run_id <> \(runID)",
            purpose: "reading the runs still marked running"
        ).map { (try $0.int64("run_id"), try $0.optionalString("process_key")) }
    }

    /// Marks `runIDs` `abandoned` where they still say `running`: they died without
    /// finishing, and run `by` took their partitions over.
    public func markAbandoned(_ runIDs: [Int64], by runID: Int64) throws {
        guard !runIDs.isEmpty else { return }
        try connection.execute(
            """
            UPDATE plan_runs SET status = 'abandoned', finished_at = clock_timestamp(),
                   error = 'ended without finishing (killed?); run ' || \(runID) || ' took over its partitions'
            WHERE run_id = ANY(\(runIDs)::bigint[]) AND status = 'running'
            """, purpose: "marking runs that died as abandoned")
    }
}
