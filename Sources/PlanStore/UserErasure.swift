import Postgres

/// How many rows `forget` deleted, per table.
public struct ErasureCounts: Sendable, Equatable {
    public var planState = 0
    public var planHistory = 0
    public var notificationOutbox = 0
    public var planRejections = 0

    public init(planState: Int = 0, planHistory: Int = 0, notificationOutbox: Int = 0, planRejections: Int = 0) {
        self.planState = planState
        self.planHistory = planHistory
        self.notificationOutbox = notificationOutbox
        self.planRejections = planRejections
    }
}

extension PlanStore {
    /// Deletes everything the job holds about `userIDs` (a GDPR erasure request): current
    /// plan state, history, outbox lines (pending ones are then never emitted) and
    /// rejections, in one statement — one transaction.
    ///
    /// It first locks the users' partitions (`lockPartitionsExclusively`, up to
    /// lock_timeout), so a batch in flight for those users commits before the erasure and
    /// no run writes a plan for them while it happens. The app's `user_settings` row is not the job's: while it
    /// exists, a run makes a plan again once the row changes, so the app deletes it first.
    public func forget(_ userIDs: [Int64]) throws -> ErasureCounts {
        try connection.withTransaction { conn in
            try lockPartitionsExclusively(UserPartitions.partitions(of: userIDs))
            return try erase(userIDs, connection: conn)
        }
    }

    private func erase(_ userIDs: [Int64], connection: PostgresConnection) throws -> ErasureCounts {
        let row = try connection.query(
            """
            WITH state AS (DELETE FROM plan_state WHERE user_id = ANY($1::bigint[]) RETURNING 1),
                 history AS (DELETE FROM plan_history WHERE user_id = ANY($1::bigint[]) RETURNING 1),
                 outbox AS (DELETE FROM notification_outbox WHERE user_id = ANY($1::bigint[]) RETURNING 1),
                 rejections AS (DELETE FROM plan_rejections WHERE user_id = ANY($1::bigint[]) RETURNING 1)
            SELECT (SELECT count(*) FROM state), (SELECT count(*) FROM history),
                   (SELECT count(*) FROM outbox), (SELECT count(*) FROM rejections)
            """,
            [userIDs], purpose: "erasing the plans of \(userIDs.count) users"
        ).singleRow()
        return ErasureCounts(planState: try row.int(0), planHistory: try row.int(1),
                             notificationOutbox: try row.int(2), planRejections: try row.int(3))
    }

    /// Those of `userIDs` that still have a `user_settings` row (the app has not deleted
    /// it, so a run would make a plan for them again once it changes).
    public func usersWithSettings(_ userIDs: [Int64]) throws -> [Int64] {
        try connection.query(
            "SELECT user_id FROM user_settings WHERE user_id = ANY($1::bigint[]) ORDER BY user_id",
            [userIDs], purpose: "looking for the users' user_settings rows"
        ).map { try $0.int64(0) }
    }
}
