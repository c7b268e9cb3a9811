import PlanRules
import Postgres

/// Notification lines committed but not yet emitted, over all users: what the metrics
/// file reports so an alert can fire when lines pile up (a consumer that stopped reading).
public struct OutboxBacklog: Sendable, Equatable {
    public var pending: Int
    /// `created_at` of the oldest pending line (the `as_of` of the run that wrote it).
    public var oldestCreatedAt: Instant?

    public init(pending: Int, oldestCreatedAt: Instant?) {
        self.pending = pending
        self.oldestCreatedAt = oldestCreatedAt
    }
}

extension PlanStore {
    /// Counts the lines of pending batches (found through the partial index on them), not
    /// those set aside (dead letters: `deliveryBacklog`).
    public func outboxBacklog() throws -> OutboxBacklog {
        let row = try connection.query(
            """
            SELECT count(*) AS pending, \(sql: microseconds("min(o.created_at)")) AS oldest_created_at
            FROM notification_batches b JOIN notification_outbox o ON o.batch_id = b.batch_id
            WHERE b.emitted_at IS NULL AND b.set_aside_at IS NULL
            """, purpose: "counting pending notifications").singleRow()
        return OutboxBacklog(
            pending: try row.int("pending"),
            oldestCreatedAt: try row.optionalInt64("oldest_created_at").map(Instant.init(microsecondsSinceEpoch:)))
    }
}
