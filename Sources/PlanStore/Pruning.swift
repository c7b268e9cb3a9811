import PlanRules
import Postgres

/// What `plan-regen prune` removed.
public struct PruneCounts: Sendable, Equatable {
    /// Notification lines emitted before the cutoff.
    public var emittedNotifications = 0
    /// Rejection rows recorded before the cutoff.
    public var rejections = 0
    /// Runs started before the cutoff that no remaining row references.
    public var runs = 0

    public init() {}
}

extension PlanStore {
    /// Deletes, in batches of `batchSize` rows (one short transaction each, so a run is
    /// never blocked for long):
    ///
    /// 1. outbox lines emitted before `cutoff` (pending lines are never touched), then
    ///    the emitted batches left without lines;
    /// 2. rejection rows recorded before `cutoff`;
    /// 3. runs started before `cutoff` that no history, rejection, outbox or notification
    ///    batch row references.
    ///
    /// plan_history is kept, and so are the runs it references: a history row keeps
    /// naming the run (and so the binary, rules and tzdata versions) that wrote it.
    /// `plan_state.updated_by_run` is informational and may name a pruned run.
    ///
    /// Each batch walks the table's primary key from where the last one stopped, so the
    /// whole prune reads each table once.
    public func prune(before cutoff: Instant, batchSize: Int) throws -> PruneCounts {
        var counts = PruneCounts()
        counts.emittedNotifications = try deleteInBatches(
            table: "notification_outbox", key: "notification_id", keyType: "text",
            condition: """
                t.batch_id IN (SELECT batch_id FROM notification_batches WHERE emitted_at < $2)
                """, cutoff: cutoff, batchSize: batchSize)
        _ = try deleteInBatches(
            table: "notification_batches", key: "batch_id", keyType: "bigint",
            condition: """
                emitted_at < $2 AND NOT EXISTS (SELECT 1 FROM notification_outbox o WHERE o.batch_id = t.batch_id)
                """, cutoff: cutoff, batchSize: batchSize)
        counts.rejections = try deleteInBatches(
            table: "plan_rejections", key: "id", keyType: "bigint",
            condition: "recorded_at < $2", cutoff: cutoff, batchSize: batchSize)
        counts.runs = try deleteInBatches(
            table: "plan_runs", key: "run_id", keyType: "bigint",
            condition: """
                started_at < $2
                AND NOT EXISTS (SELECT 1 FROM plan_history h WHERE h.run_id = t.run_id)
                AND NOT EXISTS (SELECT 1 FROM plan_rejections r WHERE r.run_id = t.run_id)
                AND NOT EXISTS (SELECT 1 FROM notification_outbox o WHERE o.run_id = t.run_id)
                AND NOT EXISTS (SELECT 1 FROM notification_batches b WHERE b.run_id = t.run_id)
                """,
            cutoff: cutoff, batchSize: batchSize)
        return counts
    }

    /// `table`, `key` and `condition` are constants of this file, never data; the cutoff
    /// and the cursor are parameters.
    private func deleteInBatches(table: String, key: String, keyType: String, condition: String,
                                 cutoff: Instant, batchSize: Int) throws -> Int {
        var deleted = 0
        var cursor: String? = nil
        while true {
            let row = try connection.query(
                """
                WITH batch AS (
                    SELECT t.\(key) FROM \(table) t
                    WHERE ($1::\(keyType) IS NULL OR t.\(key) > $1::\(keyType)) AND \(condition)
                    ORDER BY t.\(key) LIMIT $3
                ), gone AS (
                    DELETE FROM \(table) d USING batch WHERE d.\(key) = batch.\(key) RETURNING d.\(key)
                )
                SELECT count(*), max(\(key))::text FROM gone
                """,
                [cursor, cutoff.postgresText, batchSize],
                purpose: "pruning \(table)").singleRow()
            let count = try row.int(0)
            guard count > 0 else { return deleted }
            deleted += count
            cursor = try row.optionalString(1)
        }
    }
}
