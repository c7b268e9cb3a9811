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

    /// True when nothing was stored (a user never planned, or erased before).
    public var isEmpty: Bool { planState + planHistory + notificationOutbox + planRejections == 0 }

    public static func + (lhs: ErasureCounts, rhs: ErasureCounts) -> ErasureCounts {
        ErasureCounts(planState: lhs.planState + rhs.planState, planHistory: lhs.planHistory + rhs.planHistory,
                      notificationOutbox: lhs.notificationOutbox + rhs.notificationOutbox,
                      planRejections: lhs.planRejections + rhs.planRejections)
    }
}

/// What `forget` found and erased for one user.
public struct UserErasure: Sendable, Equatable {
    public var userID: Int64
    public var erased: ErasureCounts

    public init(userID: Int64, erased: ErasureCounts) {
        self.userID = userID
        self.erased = erased
    }
}

extension PlanStore {
    /// Deletes everything the job holds about `userIDs` (a GDPR erasure request): current
    /// plan state, history, outbox lines (pending ones are then never emitted) and
    /// rejections, in one statement — one transaction. Returns, per user in id order, the
    /// rows erased: all zero for a user the job holds nothing about (never planned, or
    /// erased before — a repeated erasure is not an error).
    ///
    /// It first locks the users' partitions (`lockPartitionsExclusively`, up to
    /// lock_timeout), so a batch in flight for those users commits before the erasure and
    /// no run writes a plan for them while it happens. The app's `user_settings` row is not the job's: while it
    /// exists, a run makes a plan again once the row changes, so the app deletes it first.
    public func forget(_ userIDs: [Int64]) throws -> [UserErasure] {
        try connection.withTransaction { conn in
            try lockPartitionsExclusively(UserPartitions.partitions(of: userIDs))
            return try erase(userIDs, connection: conn)
        }
    }

    private func erase(_ userIDs: [Int64], connection: PostgresConnection) throws -> [UserErasure] {
        try connection.query(
            """
            WITH state AS (DELETE FROM plan_state WHERE user_id = ANY(\(userIDs)::bigint[]) RETURNING user_id),
                 history AS (DELETE FROM plan_history WHERE user_id = ANY(\(userIDs)::bigint[]) RETURNING user_id),
                 outbox AS (DELETE FROM notification_outbox WHERE user_id = ANY(\(userIDs)::bigint[]) RETURNING user_id),
                 rejections AS (DELETE FROM plan_rejections WHERE user_id = ANY(\(userIDs)::bigint[]) RETURNING user_id),
                 erased AS (SELECT user_id, 'state' AS kind FROM state
                            UNION ALL SELECT user_id, 'history' FROM history
                            UNION ALL SELECT user_id, 'outbox' FROM outbox
                            UNION ALL SELECT user_id, 'rejections' FROM rejections)
            SELECT u.user_id,
                   count(*) FILTER (WHERE e.kind = 'state') AS plan_state,
                   count(*) FILTER (WHERE e.kind = 'history') AS plan_history,
                   count(*) FILTER (WHERE e.kind = 'outbox') AS notification_outbox,
                   count(*) FILTER (WHERE e.kind = 'rejections') AS plan_rejections
            FROM (SELECT DISTINCT unnest(\(userIDs)::bigint[]) AS user_id) AS u
            LEFT JOIN erased e ON e.user_id = u.user_id
            GROUP BY u.user_id ORDER BY u.user_id
            """, purpose: "erasing the plans of \(userIDs.count) users"
        ).map { row in
            UserErasure(userID: try row.int64("user_id"), erased: ErasureCounts(
                planState: try row.int("plan_state"), planHistory: try row.int("plan_history"),
                notificationOutbox: try row.int("notification_outbox"), planRejections: try row.int("plan_rejections")))
        }
    }

    /// Those of `userIDs` that still have a `user_settings` row (the app has not deleted
    /// it, so a run would make a plan for them again once it changes).
    public func usersWithSettings(_ userIDs: [Int64]) throws -> [Int64] {
        try connection.query(
            "SELECT user_id FROM user_settings WHERE user_id = ANY(\(userIDs)::bigint[]) ORDER BY user_id",
            purpose: "looking for the users' user_settings rows"
        ).map { try $0.int64("user_id") }
    }
}
