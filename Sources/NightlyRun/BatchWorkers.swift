import Dispatch
import Logging
import PlanRules
import PlanStore
import Synchronization

/// The candidates of one run cut into batches, handed out in order to the workers, with
/// what the batches done so far add up to.
final class BatchQueue: Sendable {
    struct State {
        var nextStart = 0
        var done = BatchesDone()
        /// The first error of any worker: the others stop after their batch in flight.
        var failure: (any Error)?
    }

    let candidates: [Int64]
    let batchSize: Int
    let state = Mutex(State())

    init(candidates: [Int64], batchSize: Int) {
        self.candidates = candidates
        self.batchSize = batchSize
    }

    /// The next batch, or nil when none is left, a worker failed, or a stop was requested
    /// (then `done.stoppedEarly` is set).
    func next(stopRequested: () -> Bool) -> [Int64]? {
        state.withLock { state in
            guard state.failure == nil, !state.done.stoppedEarly,
                  state.nextStart < candidates.count else { return nil }
            if stopRequested() {
                state.done.stoppedEarly = true
                return nil
            }
            let end = min(state.nextStart + batchSize, candidates.count)
            defer { state.nextStart = end }
            return Array(candidates[state.nextStart..<end])
        }
    }
}

/// What the committed (and emitted) batches of a run add up to.
struct BatchesDone: Sendable {
    var usersDone = 0
    var counts = RunCounts()
    var unknownUsers: [Int64] = []
    var stoppedEarly = false
}

extension NightlyRunner {
    /// Evaluates, writes and emits every batch of `queue`. With `options.workers` > 1,
    /// each worker is a thread with its own connection (the run's partition locks stay on
    /// the main connection); batches are independent, because a user is in one batch only.
    ///
    /// After a worker fails, the others finish their batch in flight (committed and
    /// emitted) and stop; the first error is thrown.
    func processBatches(_ queue: BatchQueue, mainStore: PlanStore, runID: Int64, options: RunOptions,
                        manual: Bool, logger: Logger) throws -> BatchesDone {
        let workers = min(options.workers, max(1, (queue.candidates.count + queue.batchSize - 1) / queue.batchSize))
        if workers <= 1 {
            work(on: queue, store: mainStore, runID: runID, options: options, manual: manual, logger: logger)
        } else {
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var workerLogger = logger
                workerLogger[metadataKey: "worker"] = "\(worker)"
                let store: PlanStore
                do {
                    store = try PlanStore(connection: connect(), timeouts: timeouts)
                } catch {
                    queue.state.withLock { if $0.failure == nil { $0.failure = error } }
                    return
                }
                work(on: queue, store: store, runID: runID, options: options, manual: manual, logger: workerLogger)
            }
        }
        return try queue.state.withLock { state in
            if let failure = state.failure { throw failure }
            return state.done
        }
    }

    /// One worker: takes batches until none is left. Each batch is written in one
    /// transaction, then its notification lines are emitted and marked emitted.
    private func work(on queue: BatchQueue, store: PlanStore, runID: Int64, options: RunOptions,
                      manual: Bool, logger: Logger) {
        while let batch = queue.next(stopRequested: options.stopRequested) {
            do {
                let outcome = try process(batch, store: store, options: options, manual: manual, logger: logger)
                if options.dryRun {
                    try report.emit(outcome.reportLines)
                } else if let notificationBatch = try store.write(outcome.write, runID: runID,
                                                                   generatedAt: options.asOf) {
                    try notifications.emit(outcome.write.outbox.map(\.payload))
                    try store.markEmitted(batch: notificationBatch)
                }
                queue.state.withLock { state in
                    state.done.usersDone += batch.count
                    state.done.counts += outcome.counts
                    state.done.unknownUsers += outcome.unknownUsers
                    options.progress(RunProgress(usersDone: state.done.usersDone,
                                                 usersTotal: queue.candidates.count, counts: state.done.counts))
                }
            } catch {
                queue.state.withLock { if $0.failure == nil { $0.failure = error } }
                return
            }
        }
    }
}

extension NightlyRunner {
    /// The candidates of the `held` partitions, ascending, and the watermark each group of
    /// partitions may advance to once the run completes.
    ///
    /// With several workers the partitions are shared out and each share is selected on a
    /// connection of its own, at once: at a million users the selection (a scan of
    /// `user_settings`, a million ids sent) took 2.5 s on one core while the other idled.
    /// Each share is one statement, so its watermark comes from the rows it selected.
    func selectDueUsers(of held: [Int], changedSince: Instant?, store: PlanStore, options: RunOptions) throws
        -> (candidates: [Int64], watermarks: [(partitions: [Int], newest: Instant)]) {
        let shareCount = min(options.workers, held.count)
        guard shareCount > 1 else {
            let selection = try store.dueUsers(asOf: options.asOf, partitions: held, changedSince: changedSince)
            return (selection.userIDs, selection.newestUpdatedAt.map { [(held, $0)] } ?? [])
        }
        let shares = (0..<shareCount).map { share in
            held.indices.filter { $0 % shareCount == share }.map { held[$0] }
        }
        let selections = Mutex<[Int: Result<DueUserSelection, any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: shareCount) { share in
            let selection = Result {
                try PlanStore(connection: connect(), timeouts: timeouts)
                    .dueUsers(asOf: options.asOf, partitions: shares[share], changedSince: changedSince)
            }
            selections.withLock { $0[share] = selection }
        }
        var candidates: [Int64] = []
        var watermarks: [(partitions: [Int], newest: Instant)] = []
        for share in 0..<shareCount {
            guard let selection = try selections.withLock({ $0[share] })?.get() else { continue }
            // Shares hold different partitions, so no user is in two of them.
            candidates += selection.userIDs
            if let newest = selection.newestUpdatedAt { watermarks.append((shares[share], newest)) }
        }
        candidates.sort()
        return (candidates, watermarks)
    }
}
