import Synchronization

/// Keeps a run's partition claims alive while it makes progress: any worker, after a
/// batch, renews them once a quarter of the TTL has passed since the last renewal. A run
/// that stops making progress (killed, or stuck) stops renewing, and its claims lapse
/// after the TTL for another run to take over.
final class ClaimKeeper: Sendable {
    let runID: Int64
    let ttl: Duration
    /// The partitions the run claimed.
    let partitions: [Int]
    private let lastRenewal = Mutex(ContinuousClock.now)

    /// The claims just made (or renewed) on `partitions`.
    init(runID: Int64, ttl: Duration, partitions: [Int]) {
        (self.runID, self.ttl, self.partitions) = (runID, ttl, partitions)
    }

    /// Renews the claims on `store`'s connection.
    func renew(using store: any ClaimStore) throws {
        try store.renewClaims(partitions, runID: runID, ttl: ttl)
        lastRenewal.withLock { $0 = ContinuousClock.now }
    }

    /// Renews the claims if a quarter of the TTL has passed since the last renewal.
    func renewIfDue(using store: any ClaimStore) throws {
        let due = lastRenewal.withLock { last -> Bool in
            guard ContinuousClock.now - last >= ttl / 4 else { return false }
            // Claimed by this worker: the others skip until the next quarter.
            last = ContinuousClock.now
            return true
        }
        if due { try renew(using: store) }
    }
}
