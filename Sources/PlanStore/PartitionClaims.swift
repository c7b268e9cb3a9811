import PlanRules
import Postgres

/// Claims on user partitions (sql/0008): which run works on which partitions, in rows
/// rather than session locks, so they hold behind a pooler in transaction mode and lapse
/// when their run dies.
///
/// - A run claims the partitions that are free or whose claim expired (`claimPartitions`)
///   and renews its claims while it makes progress (`renewClaims`); it releases them at the
///   end (`releaseClaims`). A killed run stops renewing: its claims expire after the TTL.
/// - Every transaction that writes plans starts with `fenceClaims`: it locks its
///   partitions' claim rows FOR KEY SHARE and checks that its run still holds them. Taking
///   a partition over locks the row FOR UPDATE, which waits for such transactions, and a
///   fence after the takeover sees the new holder. So a run that lost its claim never
///   writes again, and no user's plan is written twice.
/// - A manual rerun and `forget` do not claim: each of their transactions locks its users'
///   partitions FOR UPDATE (`lockPartitionsExclusively`), waiting for the batch in flight of
///   any run, and the next batch of that run reloads the users after them.
public struct PartitionHolder: Sendable, Equatable {
    public var partition: Int
    public var runID: Int64
    public var claimedAt: Instant
    /// How long the holder has held it, and how long until its claim lapses unless
    /// renewed, both by the database's clock.
    public var heldForMs: Int64
    public var expiresInMs: Int64
    /// Where the holding process runs (`plan_runs.host`, `.pid`), for ops.
    public var host: String?
    public var pid: Int?
    /// The holder's process identity (`plan_runs.process_key`), to tell whether it died.
    public var processKey: String?
}

extension PlanStore {
    /// The unexpired claims of other runs than `runID` on `partitions`.
    public func partitionHolders(_ partitions: [Int], except runID: Int64) throws -> [PartitionHolder] {
        try connection.query(
            """
            SELECT c.partition, c.run_id, \(sql: microseconds("c.claimed_at")) AS claimed_at,
                   r.host, r.pid, r.process_key,
                   (extract(epoch FROM clock_timestamp() - c.claimed_at) * 1000)::int8 AS held_for_ms,
                   (extract(epoch FROM c.expires_at - clock_timestamp()) * 1000)::int8 AS expires_in_ms
            FROM plan_partition_claims c LEFT JOIN plan_runs r ON r.run_id = c.run_id
            WHERE c.partition = ANY(\(partitions)::int[]) AND c.run_id <> \(runID) AND c.expires_at > clock_timestamp()
            ORDER BY c.partition
            """, purpose: "reading who holds the user partitions"
        ).map { row in
            PartitionHolder(
                partition: try row.int("partition"), runID: try row.int64("run_id"),
                claimedAt: Instant(microsecondsSinceEpoch: try row.int64("claimed_at")),
                heldForMs: try row.int64("held_for_ms"), expiresInMs: try row.int64("expires_in_ms"),
                host: try row.optionalString("host"), pid: try row.optionalInt("pid"),
                processKey: try row.optionalString("process_key"))
        }
    }

    /// Claims for `runID` every partition of `wanted` that is free, whose claim expired, or
    /// whose holder is one of `deadRuns` (seen gone by the caller). Waits (up to
    /// lock_timeout) for the write in flight of a run whose claim it takes over.
    ///
    /// - Returns: the partitions claimed, ascending, and the runs they were taken from.
    public func claimPartitions(_ wanted: [Int], runID: Int64, ttl: Duration, takingOverFrom deadRuns: [Int64])
        throws -> (claimed: [Int], takenFrom: [Int64]) {
        let rows = try connection.query(
            """
            WITH takeable AS (
                SELECT partition, run_id AS previous_run FROM plan_partition_claims
                WHERE partition = ANY(\(wanted)::int[])
                  AND (run_id IS NULL OR expires_at <= clock_timestamp() OR run_id = ANY(\(deadRuns)::bigint[]))
                ORDER BY partition
                FOR UPDATE
            )
            UPDATE plan_partition_claims c
            SET run_id = \(runID), claimed_at = clock_timestamp(),
                expires_at = clock_timestamp() + \(TransactionSettings.milliseconds(ttl))::int8 * interval '1 millisecond'
            FROM takeable t WHERE c.partition = t.partition
            RETURNING c.partition, t.previous_run
            """, purpose: "claiming user partitions")
        var claimed: [Int] = []
        var takenFrom = Set<Int64>()
        for row in rows {
            claimed.append(try row.int("partition"))
            if let previous = try row.optionalInt64("previous_run") { takenFrom.insert(previous) }
        }
        takenFrom.remove(runID)
        return (claimed.sorted(), takenFrom.sorted())
    }

    /// Extends `runID`'s claims on `partitions` by `ttl` from now.
    ///
    /// - Throws: `StoreError.claimLost` when another run took some of them over.
    public func renewClaims(_ partitions: [Int], runID: Int64, ttl: Duration) throws {
        guard !partitions.isEmpty else { return }
        let renewed = try connection.query(
            """
            UPDATE plan_partition_claims
            SET expires_at = clock_timestamp() + \(TransactionSettings.milliseconds(ttl))::int8 * interval '1 millisecond'
            WHERE partition = ANY(\(partitions)::int[]) AND run_id = \(runID)
            RETURNING partition
            """, purpose: "renewing the claims of run \(runID)"
        ).map { try $0.int("partition") }
        if renewed.count < partitions.count {
            throw StoreError.claimLost(runID: runID, partitions: partitions.filter { !renewed.contains($0) })
        }
    }

    /// Gives up every claim of `runID`.
    public func releaseClaims(runID: Int64) throws {
        try connection.execute(
            """
            UPDATE plan_partition_claims SET run_id = NULL, claimed_at = NULL, expires_at = NULL
            WHERE run_id = \(runID)
            """, purpose: "releasing the claims of run \(runID)")
    }

    /// The fence, first statement of every transaction that writes for `runID`: locks the
    /// claim rows of `partitions` FOR KEY SHARE until the transaction ends (a takeover
    /// waits for it) and checks that `runID` still holds them all.
    ///
    /// - Throws: `StoreError.claimLost` when another run holds some of them now.
    public func fenceClaims(_ partitions: [Int], runID: Int64) throws {
        let guardOfBatch = PartitionGuard.claimedBy(runID: runID, partitions: partitions)
        try guardOfBatch.check(connection.pipelined([guardOfBatch.statement(connection)])[0])
    }

    /// Inside the caller's transaction: waits (up to lock_timeout) for the writes in flight
    /// on `partitions` and keeps new ones out until the transaction ends. A manual rerun
    /// and `forget` use it instead of claims.
    public func lockPartitionsExclusively(_ partitions: [Int]) throws {
        let guardOfBatch = PartitionGuard.exclusively(partitions: partitions)
        _ = try connection.pipelined([guardOfBatch.statement(connection)])
    }
}

/// What a batch transaction makes sure of before it reads its users: that the run still
/// holds the claims of their partitions (the fence), or, for a manual rerun, that no
/// batch of a scheduled run is writing them (an exclusive lock). `loadUsers` sends it in
/// the same round trip as the users' read.
public enum PartitionGuard: Sendable {
    case claimedBy(runID: Int64, partitions: [Int])
    case exclusively(partitions: [Int])

    func statement(_ connection: PostgresConnection) -> (query: SQLQuery, purpose: String) {
        precondition(connection.isInTransaction, "a partition guard lasts until the transaction ends")
        switch self {
        case .claimedBy(let runID, let partitions):
            return ("""
                SELECT partition FROM plan_partition_claims
                WHERE partition = ANY(\(partitions)::int[]) AND run_id = \(runID)
                ORDER BY partition
                FOR KEY SHARE
                """, "checking the claims of run \(runID)")
        case .exclusively(let partitions):
            return ("SELECT 1 FROM plan_partition_claims WHERE partition = ANY(\(partitions)::int[]) ORDER BY partition FOR UPDATE",
                    "waiting for the runs writing to the users' partitions")
        }
    }

    /// Throws `StoreError.claimLost` when the fence found a claim of the run gone.
    func check(_ result: PostgresResult) throws {
        guard case .claimedBy(let runID, let partitions) = self else { return }
        let held = try result.map { try $0.int("partition") }
        if held.count < partitions.count {
            throw StoreError.claimLost(runID: runID, partitions: partitions.filter { !held.contains($0) })
        }
    }
}
