import PlanRules
import Postgres

/// What `plan-regen prune` removed.
public struct PruneCounts: Sendable, Equatable {
    /// Notification lines emitted before the cutoff.
    public var emittedNotifications = 0
    /// Lines of batches an operator set aside (dead letters) before the cutoff.
    public var deadLetters = 0
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
    /// 1. outbox lines emitted before `cutoff` (pending lines are never touched), and
    ///    dead letters set aside before it, then the batches left without lines;
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
            table: "notification_outbox", key: "notification_id",
            condition: "t.batch_id IN (SELECT batch_id FROM notification_batches WHERE emitted_at < \(cutoff))",
            batchSize: batchSize)
        counts.deadLetters = try deleteInBatches(
            table: "notification_outbox", key: "notification_id",
            condition: "t.batch_id IN (SELECT batch_id FROM notification_batches WHERE set_aside_at < \(cutoff))",
            batchSize: batchSize)
        _ = try deleteInBatches(
            table: "notification_batches", key: "batch_id",
            condition: """
                (emitted_at < \(cutoff) OR set_aside_at < \(cutoff)) AND NOT EXISTS (SELECT 1 FROM notification_outbox o WHERE o.batch_id = t.batch_id)
                """, batchSize: batchSize)
        counts.rejections = try deleteInBatches(
            table: "plan_rejections", key: "id", condition: "recorded_at < \(cutoff)", batchSize: batchSize)
        counts.runs = try deleteInBatches(
            table: "plan_runs", key: "run_id",
            condition: """
                started_at < \(cutoff)
                AND NOT EXISTS (SELECT 1 FROM plan_history h WHERE h.run_id = t.run_id)
                AND NOT EXISTS (SELECT 1 FROM plan_rejections r WHERE r.run_id = t.run_id)
                AND NOT EXISTS (SELECT 1 FROM notification_outbox o WHERE o.run_id = t.run_id)
                AND NOT EXISTS (SELECT 1 FROM notification_batches b WHERE b.run_id = t.run_id)
                """,
            batchSize: batchSize)
        return counts
    }

    /// `table` and `key` are names of this file, never data. The cursor, the key of the last
    /// row deleted, goes as text: `t.key > cursor` gives it the key's type.
    private func deleteInBatches(table: String, key: String, condition: SQLQuery, batchSize: Int) throws -> Int {
        var deleted = 0
        var cursor: String? = nil
        while true {
            let row = try connection.query(
                """
                WITH batch AS (
                    SELECT t.\(identifier: key) FROM \(identifier: table) t
                    WHERE (\(bind: cursor)::text IS NULL OR t.\(identifier: key) > \(bind: cursor))
                      AND \(sql: condition)
                    ORDER BY t.\(identifier: key) LIMIT \(batchSize)
                ), gone AS (
                    DELETE FROM \(identifier: table) d USING batch
                    WHERE d.\(identifier: key) = batch.\(identifier: key) RETURNING d.\(identifier: key)
                )
                SELECT count(*) AS deleted, max(\(identifier: key))::text AS last_key FROM gone
                """, purpose: "pruning \(table)").singleRow()
            let count = try row.int("deleted")
            guard count > 0 else { return deleted }
            deleted += count
            cursor = try row.optionalString("last_key")
        }
    }
}
