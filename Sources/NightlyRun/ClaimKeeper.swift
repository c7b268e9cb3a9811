import Synchronization

/// Keeps a run's partition claims alive while it makes progress: any worker, after a
/// batch, renews them once a quarter of the TTL has passed since the last renewal. A run
/// that stops making progress (killed, or stuck) stops renewing, and its claims lapse
/// after the TTL for another run to take over.
final class ClaimKeeper: Sendable {
    let runID: Int64
    let ttl: Duration
    private struct State {
        var partitions: [Int] = []
        var lastRenewal = ContinuousClock.now
    }
    private let state = Mutex(State())

    init(runID: Int64, ttl: Duration) {
        self.runID = runID
        self.ttl = ttl
    }

    /// The partitions the run claimed (at `now`).
    func claimed(_ partitions: [Int]) {
        state.withLock {
            $0.partitions = partitions
            $0.lastRenewal = ContinuousClock.now
        }
    }

    /// The partitions the run holds.
    var partitions: [Int] { state.withLock { $0.partitions } }

    /// Renews the claims on `store`'s connection.
    func renew(using store: any ClaimStore) throws {
        let partitions = self.partitions
        try store.renewClaims(partitions, runID: runID, ttl: ttl)
        state.withLock { $0.lastRenewal = ContinuousClock.now }
    }

    /// Renews the claims if a quarter of the TTL has passed since the last renewal.
    func renewIfDue(using store: any ClaimStore) throws {
        let due = state.withLock { state -> Bool in
            guard ContinuousClock.now - state.lastRenewal >= ttl / 4 else { return false }
            // Claimed by this worker: the others skip until the next quarter.
            state.lastRenewal = ContinuousClock.now
            return true
        }
        if due { try renew(using: store) }
    }
}
