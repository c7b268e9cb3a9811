import PlanRules
import Postgres

// Rules versions and their rollouts (plan-rules.md section 2.1, sql/0014): which versions
// the users' states carry, when each version started to roll out, and a rollback's
// forgetting of the newer ones.

/// One version's recorded rollout start.
public struct RulesRolloutRecord: Sendable, Equatable {
    public var rulesVersion: String
    public var startedAt: Instant
    public var recordedByRun: Int64
}

/// Users per rules version (plan-rules.md section 2.1).
public struct UsersPerRulesVersion: Sendable, Equatable {
    /// Per version of the users' latest evaluation (`plan_state.rules_version`; "none" for
    /// users never evaluated under a version).
    public var latestEvaluation: [String: Int] = [:]
    /// Per version of the users' current plan (`plan_rules_version`; where a release before
    /// sql/0017 wrote the state, or the plan's version is newer than the evaluation's — an
    /// older release rewrote the state and left the column as it was — the evaluation's
    /// version stands for it). Users without a plan are not counted.
    public var currentPlan: [String: Int] = [:]
}

extension PlanStore {
    /// The distinct `plan_state.rules_version` values (the version of each user's latest
    /// evaluation), read by skipping through the `(rules_version, next_check_at)` index:
    /// one probe per version, whatever the number of users.
    static var rulesVersionsInUse: SQLQuery { """
        WITH RECURSIVE versions AS (
            (SELECT rules_version FROM plan_state WHERE rules_version IS NOT NULL ORDER BY rules_version LIMIT 1)
            UNION ALL
            SELECT (SELECT s.rules_version FROM plan_state s WHERE s.rules_version > v.rules_version
                    ORDER BY s.rules_version LIMIT 1)
            FROM versions v WHERE v.rules_version IS NOT NULL
        )
        SELECT array_agg(rules_version) AS versions FROM versions WHERE rules_version IS NOT NULL
        """ }

    /// The distinct rules versions of the users' latest evaluations.
    public func rulesVersionsInUse() throws -> [String] {
        try connection.query(Self.rulesVersionsInUse, purpose: "reading the rules versions in use")
            .singleRow().optionalStringArray("versions")?.compactMap { $0 } ?? []
    }

    /// The versions in use that are not newer than the job's, and the job's own: whose
    /// users' scheduled checks this binary acts on.
    func notNewerRulesVersions() throws -> [String] {
        Array(Set(try rulesVersionsInUse().filter { RulesVersionStanding(of: $0) != .newer } + [rulesVersion])).sorted()
    }

    /// Users per rules version, counted in one scan of `plan_state`.
    public func usersPerRulesVersion() throws -> UsersPerRulesVersion {
        var users = UsersPerRulesVersion()
        for row in try connection.query(
            """
            SELECT rules_version, plan_rules_version, plan_date IS NOT NULL AS planned, count(*) AS users
            FROM plan_state GROUP BY 1, 2, 3
            """, purpose: "counting users per rules version") {
            let evaluated = try row.optionalString("rules_version") ?? "none"
            let count = try row.int("users")
            users.latestEvaluation[evaluated, default: 0] += count
            guard try row.bool("planned") else { continue }
            let planned = try row.optionalString("plan_rules_version")
            let version = planned.map { RulesVersionStanding(of: $0, against: evaluated) == .newer ? evaluated : $0 }
                ?? evaluated
            users.currentPlan[version, default: 0] += count
        }
        return users
    }

    /// Every recorded rollout start.
    public func rulesRollouts() throws -> [RulesRolloutRecord] {
        try connection.query(
            """
            SELECT rules_version, \(sql: microseconds("started_at")) AS started_at, recorded_by_run
            FROM plan_rules_rollouts ORDER BY started_at
            """, purpose: "reading the rules versions' rollout starts"
        ).map { row in
            RulesRolloutRecord(rulesVersion: try row.string("rules_version"),
                               startedAt: Instant(microsecondsSinceEpoch: try row.int64("started_at")),
                               recordedByRun: try row.int64("recorded_by_run"))
        }
    }

    /// Records `at` as the rollout start of `version` unless one is recorded already (the
    /// first run to commit wins), and returns the recorded start.
    public func recordRolloutStart(of version: String, at instant: Instant, runID: Int64) throws -> Instant {
        let row = try connection.query(
            """
            WITH inserted AS (
                INSERT INTO plan_rules_rollouts (rules_version, started_at, recorded_by_run)
                VALUES (\(bind: version), \(instant)::timestamptz, \(runID))
                ON CONFLICT (rules_version) DO NOTHING
                RETURNING started_at
            )
            SELECT \(sql: microseconds("started_at")) AS started_at FROM inserted
            UNION ALL
            SELECT \(sql: microseconds("started_at")) FROM plan_rules_rollouts WHERE rules_version = \(bind: version)
            LIMIT 1
            """, purpose: "recording the rollout start of rules \(version)").singleRow()
        return Instant(microsecondsSinceEpoch: try row.int64("started_at"))
    }

    /// Forgets the rollout starts of `versions` (a rollback to an older version): a later
    /// deployment of one of them starts a new rollout.
    public func forgetRollouts(of versions: [String]) throws {
        guard !versions.isEmpty else { return }
        try connection.execute(
            "DELETE FROM plan_rules_rollouts WHERE rules_version = ANY(\(versions)::text[])",
            purpose: "forgetting the rollouts of rules \(versions.joined(separator: ", "))")
    }

    /// Users whose state a version in `versions` made and whose scheduled check has come,
    /// of `partitions`: the due users a run leaves to newer rules without reading them.
    public func dueUsersUnder(_ versions: [String], asOf: Instant, partitions: [Int]) throws -> Int {
        guard !versions.isEmpty else { return 0 }
        return try connection.query(
            """
            SELECT count(*) AS users FROM plan_state
            WHERE rules_version = ANY(\(versions)::text[]) AND next_check_at <= \(asOf)::timestamptz
              AND \(sql: UserPartitions.sql("user_id")) = ANY(\(partitions)::int[])
            """, purpose: "counting the due users of newer rules").singleRow().int("users")
    }
}

extension PlanStore {
    /// Every user whose latest evaluation one of `versions` made, loaded `batchSize` at a
    /// time in id order (keyset pages of the primary key): memory follows the batch, not
    /// the table. Only reads, so it works on a hot standby and through a pooler.
    public func forEachUser(evaluatedUnder versions: [String], batchSize: Int,
                            _ body: ([LoadedUser]) throws -> Void) throws {
        guard !versions.isEmpty else { return }
        var after = Int64.min
        while true {
            let ids = try connection.query(
                """
                SELECT user_id FROM plan_state
                WHERE rules_version = ANY(\(versions)::text[]) AND user_id > \(after)
                ORDER BY user_id LIMIT \(batchSize)
                """, purpose: "reading the users under rules \(versions.joined(separator: ", "))"
            ).map { try $0.int64("user_id") }
            guard let last = ids.last else { return }
            try body(try loadUsers(ids))
            after = last
        }
    }
}
