import Postgres

/// A notification committed to the outbox and not yet emitted.
public struct PendingNotification: Sendable, Equatable {
    public var notificationID: String
    public var payload: String
}

/// The outbox (plan-rules.md section 7: a notification is never lost). Each batch
/// transaction writes its lines with one `notification_batches` row; after the lines are
/// flushed the run marks that row emitted (`markEmitted(batch:)`), one row per batch
/// rather than one update per line (sql/0004_notification_batches.sql says why).
/// Lines a killed run left pending are emitted by the next run that holds their
/// partitions (`pendingNotifications`, then `markEmitted(_:runID:)`).
extension PlanStore {
    /// Outbox lines of pending batches for users of `partitions` (the ones this run
    /// holds), oldest batch first, at most `limit`; not those set aside (dead letters) or
    /// claimed by a process delivering them (`plan-regen deliver`).
    public func pendingNotifications(partitions: [Int], limit: Int) throws -> [PendingNotification] {
        let result = try connection.query(
            """
            SELECT o.notification_id, o.payload
            FROM notification_batches b JOIN notification_outbox o ON o.batch_id = b.batch_id
            WHERE b.emitted_at IS NULL AND b.set_aside_at IS NULL
              AND (b.delivery_claimed_until IS NULL OR b.delivery_claimed_until <= clock_timestamp())
              AND \(sql: UserPartitions.sql("o.user_id")) = ANY(\(partitions)::int[])
            ORDER BY b.batch_id, o.notification_id LIMIT \(limit)
            """, purpose: "reading pending notifications")
        return try result.map {
            PendingNotification(notificationID: try $0.string("notification_id"), payload: try $0.string("payload"))
        }
    }

    /// Marks every line of `batch` emitted, once they have been written and flushed.
    public func markEmitted(batch: Int64) throws {
        try connection.execute(
            "UPDATE notification_batches SET emitted_at = clock_timestamp() WHERE batch_id = \(batch)",
            purpose: "marking notification batch \(batch) emitted")
    }

    /// Marks lines that an earlier run left pending emitted, once they have been written
    /// and flushed. They move to a new, emitted batch of run `runID`: the run may hold
    /// only some of the partitions of their old batch, whose other lines stay pending.
    /// An old batch left without lines is marked emitted too.
    public func markEmitted(_ notificationIDs: [String], runID: Int64) throws {
        guard !notificationIDs.isEmpty else { return }
        // One statement: every part sees the outbox as it was before the move (data-modifying
        // CTEs share one snapshot and always run).
        try connection.execute(
            """
            WITH emitted AS (
                INSERT INTO notification_batches (run_id, emitted_at) VALUES (\(runID), clock_timestamp())
                RETURNING batch_id
            ), moved AS (
                UPDATE notification_outbox o SET batch_id = emitted.batch_id FROM emitted
                WHERE o.notification_id = ANY(\(notificationIDs)::text[])
            ), old AS (
                SELECT DISTINCT batch_id FROM notification_outbox WHERE notification_id = ANY(\(notificationIDs)::text[])
            )
            UPDATE notification_batches b SET emitted_at = clock_timestamp()
            FROM old
            WHERE b.batch_id = old.batch_id AND b.emitted_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM notification_outbox o
                              WHERE o.batch_id = b.batch_id AND o.notification_id <> ALL (\(notificationIDs)::text[]))
            """, purpose: "marking \(notificationIDs.count) pending notifications emitted")
    }
}
