import Postgres

/// A notification committed to the outbox and not yet emitted.
public struct PendingNotification: Sendable, Equatable {
    public var notificationID: String
    public var payload: String
}

extension PlanStore {
    /// Outbox lines not yet emitted, oldest first, for users of `partitions` (the ones
    /// this run holds), at most `limit`.
    public func pendingNotifications(partitions: [Int], limit: Int) throws -> [PendingNotification] {
        let result = try connection.query(
            """
            SELECT notification_id, payload FROM notification_outbox
            WHERE emitted_at IS NULL AND \(UserPartitions.sql("user_id")) = ANY($1::int[])
            ORDER BY created_at, notification_id LIMIT $2
            """,
            [partitions.map(String.init), limit], purpose: "reading pending notifications")
        return try result.map {
            PendingNotification(notificationID: try $0.string(0), payload: try $0.string(1))
        }
    }

    /// Marks lines emitted once they have been written and flushed.
    public func markEmitted(_ notificationIDs: [String]) throws {
        guard !notificationIDs.isEmpty else { return }
        try connection.execute(
            "UPDATE notification_outbox SET emitted_at = clock_timestamp() WHERE notification_id = ANY($1::text[])",
            [notificationIDs], purpose: "marking \(notificationIDs.count) notifications emitted")
    }
}
