import PlanRules
import Postgres

/// The candidate ids of some partitions as one statement reads them (`changedOrDueUsers`,
/// `everyUserByID`, `everyUserByIDRange`), without reading every user's row. `evaluate`
/// then decides exactly; a candidate that turns out not due costs one row read.
public struct CandidateIDs: Sendable {
    public var userIDs: UserIDSet
    /// The largest finite `updated_at` among the changed rows read (nil if none).
    public var newestUpdatedAt: Instant?
    /// Candidate ids per user with a settings row: 1 when the ids were read, more when
    /// they are a range with gaps (`everyUserByIDRange`). A run's batches take this many
    /// more ids, so that each still holds about a batch of users.
    public var idsPerUser: Double = 1
    /// The candidates found by the late-row sweep alone (also in `userIDs`): rows older
    /// than the watermark that the job has not seen.
    public var lateUserIDs = UserIDSet([])
}

/// What a run knows before it selects its users (`selectionStart(of:)`).
public struct SelectionStart: Sendable {
    public var oldestWatermark: Instant?
    /// The distinct rules versions of the users' latest evaluations (`plan_state`).
    public var rulesVersionsInUse: [String]
    /// Some `plan_state` row carries this binary's rules version: a user has been evaluated
    /// under these rules already (true when unknown: the selection then stays exact).
    public var plansUnderTheseRules: Bool
    /// Where the late-row sweep of each partition stands; a partition never swept is absent.
    public var sweepPositions: [Int: SweepPosition]
    /// The lowest and highest `user_settings.user_id`; nil when the table is empty.
    public var userIDs: ClosedRange<Int64>?
    /// The recorded rollout start of the job's rules version (sql/0014), if any.
    public var rolloutStart: Instant?

    public init(oldestWatermark: Instant?, rulesVersionsInUse: [String] = [], plansUnderTheseRules: Bool = true,
                sweepPositions: [Int: SweepPosition] = [:], userIDs: ClosedRange<Int64>? = nil) {
        self.oldestWatermark = oldestWatermark
        self.rulesVersionsInUse = rulesVersionsInUse
        self.plansUnderTheseRules = plansUnderTheseRules
        self.sweepPositions = sweepPositions
        self.userIDs = userIDs
    }

    /// The versions in use older than the job's, and newer (section 2.1's order).
    public var olderRulesVersions: [String] { rulesVersionsInUse.filter { RulesVersionStanding(of: $0) == .older } }
    public var newerRulesVersions: [String] { rulesVersionsInUse.filter { RulesVersionStanding(of: $0) == .newer } }

    /// No watermark yet, so every row counts as changed, and nobody evaluated under these
    /// rules yet: every user of the partitions is a candidate, and the candidates are simply
    /// every id (`PlanStore.everyUserByIDRange`, `everyUserByID`). After new rules are
    /// deployed the watermarks stay: the changed rows are an index range, and the due states
    /// are every state, which `changedOrDueUsers` reads as cheaply.
    public var isFirstRun: Bool { oldestWatermark == nil && !plansUnderTheseRules }
}

/// Where the late-row sweep of one partition stands (`plan_watermarks`, sql/0011).
public struct SweepPosition: Sendable, Equatable {
    /// The first user id the partition's next slice compares.
    public var nextUserID: Int64
    /// The instant (`--as-of`) of the run that swept up to `nextUserID`.
    public var sweptAt: Instant
    /// When the last whole pass over the user ids ended; nil before the first one.
    public var completedAt: Instant?
    /// The sweep period of the run that swept last.
    public var periodSeconds: Int64

    public init(nextUserID: Int64, sweptAt: Instant, completedAt: Instant?, periodSeconds: Int64) {
        self.nextUserID = nextUserID
        self.sweptAt = sweptAt
        self.completedAt = completedAt
        self.periodSeconds = periodSeconds
    }
}

/// The user ids of some partitions whose rows a run compares with what the job saw
/// (`PlanStore.changedOrDueUsers`): rows older than the watermark that the job has not seen.
public struct LateRowSlice: Sendable, Equatable {
    public var partitions: [Int]
    /// Ascending, disjoint id ranges (two when the slice wraps around the highest id).
    public var userIDs: [ClosedRange<Int64>]

    public init(partitions: [Int], userIDs: [ClosedRange<Int64>]) {
        self.partitions = partitions
        self.userIDs = userIDs
    }
}

extension PlanStore {
    /// Where the selection of `partitions` starts: the oldest of their watermarks (nil
    /// when a partition has none: then every row of it is read once), whether any plan
    /// carries another rules version (after a deploy of new rules every user is due, as in
    /// a first run), each partition's sweep position and the range of user ids. One
    /// statement: a row per partition.
    public func selectionStart(of partitions: [Int]) throws -> SelectionStart {
        let rows = try connection.query(
            """
            SELECT p.partition, \(sql: microseconds("w.settings_watermark")) AS watermark,
                   w.sweep_next_user_id, \(sql: microseconds("w.swept_at")) AS swept_at,
                   \(sql: microseconds("w.sweep_completed_at")) AS sweep_completed_at, w.sweep_period_seconds,
                   x.versions, \(sql: microseconds("x.rollout_start")) AS rollout_start, x.low_user_id, x.high_user_id
            FROM unnest(\(partitions)::int[]) AS p(partition)
            LEFT JOIN plan_watermarks w ON w.partition = p.partition
            CROSS JOIN (SELECT (\(sql: Self.rulesVersionsInUse)) AS versions,
                               (SELECT started_at FROM plan_rules_rollouts WHERE rules_version = \(bind: rulesVersion))
                                   AS rollout_start,
                               (SELECT min(user_id) FROM user_settings) AS low_user_id,
                               (SELECT max(user_id) FROM user_settings) AS high_user_id) x
            """, purpose: "reading change watermarks and sweep positions")
        var start = SelectionStart(oldestWatermark: nil)
        var watermarks: [Instant?] = []
        for row in rows {
            let partition = try row.int("partition")
            watermarks.append(try row.optionalInt64("watermark").map(Instant.init(microsecondsSinceEpoch:)))
            if let next = try row.optionalInt64("sweep_next_user_id"), let sweptAt = try row.optionalInt64("swept_at"),
               let period = try row.optionalInt64("sweep_period_seconds") {
                start.sweepPositions[partition] = SweepPosition(
                    nextUserID: next, sweptAt: Instant(microsecondsSinceEpoch: sweptAt),
                    completedAt: try row.optionalInt64("sweep_completed_at").map(Instant.init(microsecondsSinceEpoch:)),
                    periodSeconds: period)
            }
            let versions = try row.optionalStringArray("versions")?.compactMap { $0 } ?? []
            start.rulesVersionsInUse = versions
            start.plansUnderTheseRules = versions.contains(rulesVersion)
            start.rolloutStart = try row.optionalInt64("rollout_start").map(Instant.init(microsecondsSinceEpoch:))
            if let low = try row.optionalInt64("low_user_id"), let high = try row.optionalInt64("high_user_id") {
                start.userIDs = low...high
            }
        }
        start.oldestWatermark = watermarks.isEmpty || watermarks.contains(nil) ? nil : watermarks.compactMap { $0 }.min()
        return start
    }

    /// Records where the late-row sweep of `partitions` stands after a run.
    public func advanceSweep(of partitions: [Int], to position: SweepPosition) throws {
        try connection.execute(
            """
            UPDATE plan_watermarks
               SET sweep_next_user_id = \(position.nextUserID), swept_at = \(position.sweptAt)::timestamptz,
                   sweep_completed_at = coalesce(\(position.completedAt)::timestamptz, sweep_completed_at),
                   sweep_period_seconds = \(position.periodSeconds)
            WHERE partition = ANY(\(partitions)::int[])
            """, purpose: "recording the late-row sweep's position")
    }

    public func advanceWatermarks(of partitions: [Int], to watermark: Instant) throws {
        try connection.execute(
            """
            INSERT INTO plan_watermarks (partition, settings_watermark)
            SELECT p, \(watermark)::timestamptz FROM unnest(\(partitions)::int[]) AS p
            ON CONFLICT (partition) DO UPDATE
               SET settings_watermark = greatest(plan_watermarks.settings_watermark, EXCLUDED.settings_watermark)
            """, purpose: "advancing change watermarks")
    }

    /// The candidates of `partitions` at `asOf` once watermarks exist or plans are under
    /// these rules. Index-backed sources, unioned (plan-rules.md section 2):
    /// - rows written since `changedSince` (every row without it: a partition without a
    ///   watermark), and rows with a NULL `updated_at` that have no state yet —
    ///   `user_settings(updated_at)` index; less the versions an earlier run judged to wait
    ///   for their midnight (`plan_state.scheduled_updated_at`, sql/0009), which the next
    ///   source brings back at that midnight;
    /// - users whose next scheduled change (midnight of a pending change, phase switch,
    ///   birthday) has come, and the states under `otherRulesVersions` — both ranges of one
    ///   `plan_state(rules_version, next_check_at)` index (sql/0007);
    /// - with `changedSince`, the ids of the `lateRows` slices whose row is older than it and
    ///   later than the `updated_at` the job saw (or that have no state): the late-row sweep.
    public func changedOrDueUsers(asOf: Instant, partitions: [Int], changedSince: Instant?,
                                  lateRows: [LateRowSlice] = [], otherRulesVersions: [String] = []) throws -> CandidateIDs {
        var selection = Self.changedOrDueUsersSQL(asOf: asOf, partitions: partitions, changedSince: changedSince,
                                                  otherRulesVersions: otherRulesVersions)
        if let changedSince {
            for slice in lateRows {
                for range in slice.userIDs {
                    selection = "\(sql: selection) UNION ALL \(sql: Self.lateRows(in: range, of: slice.partitions, olderThan: changedSince))"
                }
            }
        }
        return try candidates(selection, partitions: partitions, indexOnly: changedSince != nil)
    }

    /// A first run's candidates (`SelectionStart.isFirstRun`) of `partitions`: every id of
    /// the two tables, read from their primary keys, and the watermark is the newest
    /// `updated_at` up to `asOf` of all rows: the run evaluates every row there is.
    /// `changedOrDueUsers` reads every settings row's heap and joins it to the states for
    /// the same answer: at 100,000 users 27 ms of the server's time a share against 7 ms,
    /// the run's selection 45 ms against 26 ms.
    public func everyUserByID(asOf: Instant, partitions: [Int]) throws -> CandidateIDs {
        try candidates(Self.everyUserSQL(asOf: asOf, partitions: partitions), partitions: partitions, indexOnly: false)
    }

    /// One statement, so the newest `updated_at` (the next watermark) comes from the very
    /// rows selected, as one extra row with a NULL user id (converting every changed row's
    /// timestamp cost as much as a server-side UNION, which spilled a sort to disk at a
    /// million users): the ids arrive unsorted, possibly twice, and `UserIDSet` sorts them.
    private func candidates(_ selection: SQLQuery, partitions: [Int], indexOnly: Bool) throws -> CandidateIDs {
        var ids = UserIDSet.Builder()
        var lateIDs = UserIDSet.Builder()
        var newest: Instant? = nil
        // With watermarks, every source is an index range, and the plan must stay so when
        // the statistics lag behind (right after a first run wrote millions of state rows,
        // a range on `next_check_at` without a histogram is guessed at a third of the
        // table): a sequential scan would make a run with nothing due cost all users.
        // Without them (a first run) every row is read, and a sequential scan is right.
        var settings = TransactionSettings()
        if indexOnly { settings.set("enable_seqscan", "off") }
        try connection.withTransaction { connection in
            try connection.setLocal(settings, purpose: "planning the selection by its indexes")
            if !indexOnly {
                // Every row is a candidate, in the table's order: how many, as the
                // statistics count them, tells the set they are dense from the first ids on.
                let estimate = try connection.query(
                    "SELECT greatest(reltuples, 0)::int8 AS users FROM pg_class WHERE oid = to_regclass('user_settings')",
                    purpose: "estimating the users").first.map { try $0.int64("users") } ?? 0
                ids = UserIDSet.Builder(expectedCount: Int(estimate) * partitions.count / UserPartitions.count)
            }
            try connection.forEachRow(selection, purpose: "selecting due users") { row in
                if try row.isNull("user_id") {
                    newest = try row.optionalInt64("newest_updated_at").map { Instant(microsecondsSinceEpoch: $0) }
                } else {
                    let userID = try row.int64("user_id")
                    ids.insert(userID)
                    if try row.bool("late") { lateIDs.insert(userID) }
                }
                return .continue
            }
        }
        return CandidateIDs(userIDs: ids.build(), newestUpdatedAt: newest, lateUserIDs: lateIDs.build())
    }

    /// A first run's candidates (`SelectionStart.isFirstRun`) of every partition without
    /// reading the ids: every id from the lowest to the highest of the two tables, found by
    /// their primary keys, when at least half of them are users. Nil otherwise (ids too
    /// sparse, or only some partitions held): `everyUserByID` then reads them.
    ///
    /// User ids come from a sequence, with the gaps deleted users leave, so the range is
    /// the ids there are, plus a few that have no row: `loadUsers` finds nothing for them,
    /// and the run skips them. Reading the ids instead sent every one of them, on a
    /// connection per core: the selection took 31–38 ms of a 100,000-user first run and
    /// 230–270 ms of a million-user one, this statement (its `count` the largest part)
    /// 9–10 ms and 67–91 ms.
    public func everyUserByIDRange(asOf: Instant, partitions: [Int]) throws -> CandidateIDs? {
        guard Set(partitions).count == UserPartitions.count else { return nil }
        let row = try connection.query(
            """
            SELECT least(s.low, p.low) AS low, greatest(s.high, p.high) AS high, s.users,
                   (SELECT \(sql: microseconds("max(updated_at)")) FROM user_settings
                    WHERE updated_at <= \(asOf)::timestamptz AND isfinite(updated_at)) AS newest_updated_at
            FROM (SELECT min(user_id) AS low, max(user_id) AS high, count(*) AS users FROM user_settings) s,
                 (SELECT min(user_id) AS low, max(user_id) AS high FROM plan_state) p
            """, purpose: "finding the range of user ids").singleRow()
        let newest = try row.optionalInt64("newest_updated_at").map(Instant.init(microsecondsSinceEpoch:))
        guard let low = try row.optionalInt64("low"), let high = try row.optionalInt64("high") else {
            return CandidateIDs(userIDs: UserIDSet([]), newestUpdatedAt: newest)  // no users at all
        }
        let users = try row.int64("users")
        // `high - low + 1` overflows only for ids spread over the whole Int64 range: sparse.
        let difference = high.subtractingReportingOverflow(low)
        let span = difference.partialValue.addingReportingOverflow(1)
        guard users > 0, !difference.overflow, !span.overflow, span.partialValue <= 2 * users else { return nil }
        return CandidateIDs(userIDs: UserIDSet(every: low...high), newestUpdatedAt: newest,
                                idsPerUser: Double(span.partialValue) / Double(users))
    }

    /// Rows written since `changedSince` (all rows without it) that the job has not seen,
    /// and the states whose check has come or whose plan is under other rules.
    private static func changedOrDueUsersSQL(asOf: Instant, partitions: [Int], changedSince: Instant?,
                                          otherRulesVersions: [String]) -> SQLQuery {
        let part = UserPartitions.sql
        return """
            WITH changed AS MATERIALIZED (
                SELECT s.user_id, s.updated_at,
                       coalesce(s.updated_at = p.scheduled_updated_at, false) AS scheduled
                FROM user_settings s LEFT JOIN plan_state p ON p.user_id = s.user_id
                WHERE (\(changedSince)::timestamptz IS NULL OR s.updated_at >= \(changedSince)::timestamptz
                       OR s.updated_at IS NULL)
                  AND (p.user_id IS NULL OR s.updated_at IS DISTINCT FROM p.seen_updated_at)
                  AND \(sql: part("s.user_id")) = ANY(\(partitions)::int[])
            )
            SELECT user_id, NULL::int8 AS newest_updated_at, false AS late FROM changed WHERE NOT scheduled
            UNION ALL
            SELECT user_id, NULL, false FROM plan_state
            WHERE (\(sql: scheduledCheckHasCome(asOf: asOf, under: [rulesVersion]))
                   OR rules_version = ANY(\(otherRulesVersions)::text[]))
              AND \(sql: part("user_id")) = ANY(\(partitions)::int[])
            UNION ALL
            SELECT NULL, \(sql: microseconds("max(updated_at)")), false
            FROM changed WHERE updated_at <= \(asOf)::timestamptz AND isfinite(updated_at)
            """
    }

    /// The late-row sweep over `range`: rows older than `olderThan` (the watermark's
    /// source reads the newer ones) that no run has seen, less the versions waiting for
    /// their midnight. Both sides are read in id order from one index each (the
    /// administrator's `user_settings (user_id) INCLUDE (updated_at)` and `plan_state`'s
    /// primary key, sql/0011): a merge join of two index-only scans over the range. Held
    /// partitions are filtered only when the run does not hold them all.
    private static func lateRows(in range: ClosedRange<Int64>, of partitions: [Int], olderThan: Instant) -> SQLQuery {
        let partitionFilter: SQLQuery = Set(partitions).count == UserPartitions.count
            ? "" : "AND \(sql: UserPartitions.sql("s.user_id")) = ANY(\(partitions)::int[])"
        return """
            SELECT s.user_id, NULL, true
            FROM user_settings s
            LEFT JOIN plan_state p ON p.user_id = s.user_id
                 AND p.user_id BETWEEN \(range.lowerBound) AND \(range.upperBound)
            WHERE s.user_id BETWEEN \(range.lowerBound) AND \(range.upperBound) \(sql: partitionFilter)
              AND s.updated_at < \(olderThan)::timestamptz
              AND (p.user_id IS NULL
                   OR ((p.seen_updated_at IS NULL OR s.updated_at > p.seen_updated_at)
                       AND s.updated_at IS DISTINCT FROM p.scheduled_updated_at))
            """
    }

    /// Every user id of `partitions` in either table (a user with a state but no settings
    /// row any more is a candidate too, as a due state is), and the newest `updated_at` up
    /// to `asOf` (the `user_settings(updated_at)` index read backwards).
    private static func everyUserSQL(asOf: Instant, partitions: [Int]) -> SQLQuery {
        let part = UserPartitions.sql
        return """
            SELECT user_id, NULL::int8 AS newest_updated_at, false AS late FROM user_settings
            WHERE \(sql: part("user_id")) = ANY(\(partitions)::int[])
            UNION ALL
            SELECT user_id, NULL, false FROM plan_state WHERE \(sql: part("user_id")) = ANY(\(partitions)::int[])
            UNION ALL
            SELECT NULL, \(sql: microseconds("max(updated_at)")), false FROM user_settings
            WHERE updated_at <= \(asOf)::timestamptz AND isfinite(updated_at)
              AND \(sql: part("user_id")) = ANY(\(partitions)::int[])
            """
    }
}
