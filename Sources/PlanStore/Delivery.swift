import PlanRules
import Postgres

/// A process's claim on the delivery of notification batches (sql/0019): who holds it (the
/// process key: host, pid and start time) and how long it lasts without renewal.
public struct DeliveryClaim: Sendable, Equatable {
    public var claimant: String
    public var ttl: Duration

    public init(claimant: String, ttl: Duration) {
        self.claimant = claimant
        self.ttl = ttl
    }

    var ttlMilliseconds: Int64 { Int64(TransactionSettings.milliseconds(ttl)) }
}

/// A batch whose lines no destination has acknowledged yet, as the delivery queue sees it.
public struct PendingBatch: Sendable, Equatable {
    public var batchID: Int64
    /// Another process's live claim, if any (its key): that process is posting the batch.
    public var claimedBy: String?
    /// The receiver's last refusal (status and first body line), if it refused the batch.
    public var refusal: String?
    public var lines: Int
}

/// One outbox line of a batch being delivered.
public struct DeliveryLine: Sendable, Equatable {
    public var notificationID: String
    public var userID: Int64
    public var payload: String
}

/// A batch the receiver refused, or one set aside (a dead letter), for the operator.
public struct RefusedBatch: Sendable, Equatable {
    public var batchID: Int64
    public var runID: Int64
    public var lines: Int
    public var createdAt: Instant
    public var refusedAt: Instant?
    public var refusal: String?
    public var setAsideAt: Instant?
    public var setAsideReason: String?
}

/// What waits for delivery, over all users: the metrics and `status` report it.
public struct DeliveryBacklog: Sendable, Equatable {
    /// Lines of batches neither acknowledged nor set aside.
    public var pendingLines: Int
    /// `created_at` of the oldest such line.
    public var oldestPendingCreatedAt: Instant?
    /// Pending batches the receiver refused: they wait for an operator (or a fix).
    public var refusedBatches: Int
    /// Batches set aside (dead letters) and their lines.
    public var deadLetterBatches: Int
    public var deadLetterLines: Int

    public init(pendingLines: Int = 0, oldestPendingCreatedAt: Instant? = nil, refusedBatches: Int = 0,
                deadLetterBatches: Int = 0, deadLetterLines: Int = 0) {
        self.pendingLines = pendingLines
        self.oldestPendingCreatedAt = oldestPendingCreatedAt
        self.refusedBatches = refusedBatches
        self.deadLetterBatches = deadLetterBatches
        self.deadLetterLines = deadLetterLines
    }
}

extension PlanStore {
    /// Batches not acknowledged and not set aside, oldest first (through the partial index
    /// on pending batches), with any live claim of another process.
    public func pendingBatches() throws -> [PendingBatch] {
        try connection.query(
            """
            SELECT b.batch_id,
                   CASE WHEN b.delivery_claimed_until > clock_timestamp() THEN b.delivery_claimed_by END AS claimed_by,
                   b.refusal, (SELECT count(*) FROM notification_outbox o WHERE o.batch_id = b.batch_id) AS lines
            FROM notification_batches b
            WHERE b.emitted_at IS NULL AND b.set_aside_at IS NULL
            ORDER BY b.batch_id
            """, purpose: "reading the pending notification batches"
        ).map {
            PendingBatch(batchID: try $0.int64("batch_id"), claimedBy: try $0.optionalString("claimed_by"),
                         refusal: try $0.optionalString("refusal"), lines: try $0.int("lines"))
        }
    }

    /// Claims `batchID` for delivery when it is pending and unclaimed, its claim lapsed, or
    /// its claimant is one of `goneClaimants` (processes seen dead on this machine).
    /// Returns false when another process holds it or it is no longer pending.
    public func claimDelivery(of batchID: Int64, claim: DeliveryClaim, takingOverFrom goneClaimants: [String]) throws
        -> Bool {
        try connection.execute(
            """
            UPDATE notification_batches
            SET delivery_claimed_by = \(bind: claim.claimant),
                delivery_claimed_until = clock_timestamp() + \(claim.ttlMilliseconds)::int8 * interval '1 millisecond'
            WHERE batch_id = \(batchID) AND emitted_at IS NULL AND set_aside_at IS NULL
              AND (delivery_claimed_by IS NULL OR delivery_claimed_until <= clock_timestamp()
                   OR delivery_claimed_by = \(bind: claim.claimant)
                   OR delivery_claimed_by = ANY(\(goneClaimants)::text[]))
            """, purpose: "claiming the delivery of notification batch \(batchID)") == 1
    }

    /// Renews every delivery claim of `claim.claimant` (while a request backs off).
    public func renewDeliveryClaims(_ claim: DeliveryClaim) throws {
        _ = try connection.execute(
            """
            UPDATE notification_batches
            SET delivery_claimed_until = clock_timestamp() + \(claim.ttlMilliseconds)::int8 * interval '1 millisecond'
            WHERE delivery_claimed_by = \(bind: claim.claimant) AND emitted_at IS NULL
            """, purpose: "renewing the delivery claims of this process")
    }

    /// Gives up every claim of `claimant` on batches still pending: the next run or
    /// `deliver` takes them at once.
    public func releaseDeliveryClaims(of claimant: String) throws {
        _ = try connection.execute(
            """
            UPDATE notification_batches SET delivery_claimed_by = NULL, delivery_claimed_until = NULL
            WHERE delivery_claimed_by = \(bind: claimant) AND emitted_at IS NULL
            """, purpose: "releasing the delivery claims of this process")
    }

    /// The lines of a batch, in user order.
    public func lines(ofBatch batchID: Int64) throws -> [DeliveryLine] {
        try connection.query(
            """
            SELECT notification_id, user_id, payload FROM notification_outbox
            WHERE batch_id = \(batchID) ORDER BY user_id, notification_id
            """, purpose: "reading the lines of notification batch \(batchID)"
        ).map {
            DeliveryLine(notificationID: try $0.string("notification_id"), userID: try $0.int64("user_id"),
                         payload: try $0.string("payload"))
        }
    }

    /// The users with lines in `batchIDs`: their later lines wait behind these.
    public func users(ofBatches batchIDs: [Int64]) throws -> [Int64] {
        guard !batchIDs.isEmpty else { return [] }
        return try connection.query(
            "SELECT DISTINCT user_id FROM notification_outbox WHERE batch_id = ANY(\(batchIDs)::int8[])",
            purpose: "reading the users of \(batchIDs.count) undelivered notification batches"
        ).map { try $0.int64("user_id") }
    }

    /// Marks `batchID` acknowledged (every request of it answered 2xx, or the file
    /// fsync'ed) and gives up its claim.
    public func markDelivered(batch batchID: Int64) throws {
        _ = try connection.execute(
            """
            UPDATE notification_batches
            SET emitted_at = clock_timestamp(), delivery_claimed_by = NULL, delivery_claimed_until = NULL
            WHERE batch_id = \(batchID) AND emitted_at IS NULL
            """, purpose: "marking notification batch \(batchID) delivered")
    }

    /// Records that the receiver refused `batchID` (a 4xx not retried); it stays pending.
    public func recordRefusal(of batchID: Int64, refusal: String) throws {
        _ = try connection.execute(
            """
            UPDATE notification_batches
            SET refused_at = clock_timestamp(), refusal = \(bind: refusal),
                delivery_claimed_by = NULL, delivery_claimed_until = NULL
            WHERE batch_id = \(batchID) AND emitted_at IS NULL
            """, purpose: "recording the refusal of notification batch \(batchID)")
    }

    /// Pending batches the receiver refused and batches set aside, oldest first.
    public func refusedBatches() throws -> [RefusedBatch] {
        try connection.query(
            """
            SELECT b.batch_id, b.run_id, \(sql: microseconds("b.created_at")) AS created_at,
                   \(sql: microseconds("b.refused_at")) AS refused_at, b.refusal,
                   \(sql: microseconds("b.set_aside_at")) AS set_aside_at, b.set_aside_reason,
                   (SELECT count(*) FROM notification_outbox o WHERE o.batch_id = b.batch_id) AS lines
            FROM notification_batches b
            WHERE b.emitted_at IS NULL AND (b.refused_at IS NOT NULL OR b.set_aside_at IS NOT NULL)
            ORDER BY b.batch_id
            """, purpose: "reading the refused and set-aside notification batches"
        ).map {
            RefusedBatch(
                batchID: try $0.int64("batch_id"), runID: try $0.int64("run_id"), lines: try $0.int("lines"),
                createdAt: Instant(microsecondsSinceEpoch: try $0.int64("created_at")),
                refusedAt: try $0.optionalInt64("refused_at").map(Instant.init(microsecondsSinceEpoch:)),
                refusal: try $0.optionalString("refusal"),
                setAsideAt: try $0.optionalInt64("set_aside_at").map(Instant.init(microsecondsSinceEpoch:)),
                setAsideReason: try $0.optionalString("set_aside_reason"))
        }
    }

    /// Sets a pending batch aside (a dead letter): never delivered, kept for queries
    /// (`notification_dead_letters`). Returns false when no pending batch has that id.
    public func setAside(batch batchID: Int64, reason: String) throws -> Bool {
        try connection.execute(
            """
            UPDATE notification_batches
            SET set_aside_at = clock_timestamp(), set_aside_reason = \(bind: reason),
                delivery_claimed_by = NULL, delivery_claimed_until = NULL
            WHERE batch_id = \(batchID) AND emitted_at IS NULL AND set_aside_at IS NULL
            """, purpose: "setting notification batch \(batchID) aside") == 1
    }

    /// Pending lines, the oldest one's age, refused batches and dead letters.
    public func deliveryBacklog() throws -> DeliveryBacklog {
        let row = try connection.query(
            """
            SELECT count(*) FILTER (WHERE b.set_aside_at IS NULL) AS pending_lines,
                   \(sql: microseconds("min(o.created_at) FILTER (WHERE b.set_aside_at IS NULL)")) AS oldest_created_at,
                   count(DISTINCT b.batch_id) FILTER (WHERE b.set_aside_at IS NULL AND b.refused_at IS NOT NULL)
                       AS refused_batches,
                   count(DISTINCT b.batch_id) FILTER (WHERE b.set_aside_at IS NOT NULL) AS dead_letter_batches,
                   count(*) FILTER (WHERE b.set_aside_at IS NOT NULL) AS dead_letter_lines
            FROM notification_batches b JOIN notification_outbox o ON o.batch_id = b.batch_id
            WHERE b.emitted_at IS NULL
            """, purpose: "counting the notification lines waiting for delivery").singleRow()
        return DeliveryBacklog(
            pendingLines: try row.int("pending_lines"),
            oldestPendingCreatedAt: try row.optionalInt64("oldest_created_at").map(Instant.init(microsecondsSinceEpoch:)),
            refusedBatches: try row.int("refused_batches"), deadLetterBatches: try row.int("dead_letter_batches"),
            deadLetterLines: try row.int("dead_letter_lines"))
    }
}
