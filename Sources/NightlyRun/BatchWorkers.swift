import Logging
import PlanRules
import PlanStore
import Synchronization

/// The candidates of one run cut into batches, handed out in order to the workers, with
/// what the batches done so far add up to.
///
/// The candidates are read ascending (or as given, for `--user`) from a `UserIDSet`:
/// a batch's ids are made when it is handed out, so the run holds its ten million
/// candidates in about a megabyte, not 80 MB of ids.
final class BatchQueue: Sendable {
    struct State {
        /// Where the next batch starts.
        var position = UserIDSet.Position()
        /// The run's summary, which each batch committed (and emitted) adds to.
        var summary = RunSummary()
        var usersDone = 0
        /// The first error of any worker (`fail`): the others stop after their batch in flight.
        var failure: (any Error)?
        var failureIsConnecting = false
    }

    let candidates: UserIDSet
    var candidateCount: Int { candidates.count }
    let batchSize: Int
    let state = Mutex(State())

    init(candidates: UserIDSet, batchSize: Int) {
        self.candidates = candidates
        self.batchSize = batchSize
    }

    /// The next batch, or nil when none is left, a worker failed, or a stop was requested
    /// (then `summary.stoppedEarly` is set).
    func next(stopRequested: () -> Bool) -> [Int64]? {
        state.withLock { state in
            guard state.failure == nil, !state.summary.stoppedEarly else { return nil }
            var batch: [Int64] = []
            batch.reserveCapacity(min(batchSize, candidates.count))
            candidates.read(from: &state.position, upTo: batchSize, into: &batch)
            guard !batch.isEmpty else { return nil }
            if stopRequested() {
                state.summary.stoppedEarly = true
                return nil
            }
            return batch
        }
    }

    /// Records a worker's failure unless an earlier one is kept. A failure to connect gives
    /// way to a batch's failure that follows it: when the server goes down mid-run, a worker
    /// still connecting hears "shutting down" first, but what the run met is the loss of the
    /// database in the middle of a batch.
    func fail(_ error: any Error, connecting: Bool) {
        state.withLock { state in
            if state.failure == nil || (state.failureIsConnecting && !connecting) {
                (state.failure, state.failureIsConnecting) = (error, connecting)
            }
        }
    }
}

extension NightlyRunner {
    /// Evaluates, writes and emits the candidates batch by batch, adding them to `summary`.
    /// With `options.workers` > 1, each worker is a thread of its own with its own
    /// connection (WorkerThreads.swift); batches are independent, as a user is in one only.
    /// After a worker fails, the others finish their batch in flight (committed and
    /// emitted) and stop; the first error is thrown.
    func runBatches(_ candidates: RunCandidates, mainStore: any WorkerStore, run: RunInProgress,
                    delivery: NotificationDelivery?, summary: inout RunSummary) throws {
        let (options, logger) = (run.options, run.logger)
        let queue = BatchQueue(candidates: candidates.userIDs, batchSize: candidates.batchSize(users: options.batchSize))
        var selectedMetadata: Logger.Metadata = ["candidates": "\(queue.candidateCount)"]
        if candidates.idsPerUser > 1 {
            // The candidates are an id range with gaps: say how many of them are users.
            selectedMetadata["users"] = "\(Int((Double(queue.candidateCount) / candidates.idsPerUser).rounded()))"
        }
        logger.info("candidates selected", metadata: selectedMetadata)
        queue.state.withLock { $0.summary = summary }
        let workers = min(options.workers, max(1, (queue.candidateCount + queue.batchSize - 1) / queue.batchSize))
        let worker = BatchWorker(runner: self, queue: queue, run: run, selected: candidates, delivery: delivery)
        if workers <= 1 {
            worker.work(store: mainStore, logger: logger)
        } else {
            queue.state.withLock { $0.summary.connections += workers }
            WorkerThreads.run(count: workers, name: "worker") { index in
                var workerLogger = logger
                workerLogger[metadataKey: "worker"] = "\(index)"
                let store: any WorkerStore
                do { store = try stores.worker() } catch { return queue.fail(error, connecting: true) }
                worker.work(store: store, logger: workerLogger)
                queue.state.withLock { $0.summary.roundTrips += store.roundTrips }
            }
        }
        let usersDone = try queue.state.withLock { state in
            if let failure = state.failure { throw failure }
            summary = state.summary
            return state.usersDone
        }
        if summary.stoppedEarly {
            logger.notice("stop requested; the batches done so far are committed and emitted",
                          metadata: ["users_left": "\(queue.candidateCount - usersDone)"])
        }
    }
}

/// A worker's connection: its batches' reads and writes, outbox marks, claim renewals.
typealias WorkerStore = BatchStore & OutboxStore & ClaimStore

/// What every worker of a run shares: the queue, the run and what it selected.
struct BatchWorker: Sendable {
    let runner: NightlyRunner
    let queue: BatchQueue
    let run: RunInProgress
    let selected: RunCandidates
    var options: RunOptions { run.options }
    /// With a webhook: the thread that posts the committed batches (nil: written here).
    let delivery: NotificationDelivery?

    /// Takes batches until none is left. Each batch is one transaction — fence, load,
    /// evaluate, write — then its notification lines are emitted and marked emitted, or
    /// handed to the delivery thread (a webhook: planning never waits for the receiver).
    func work(store: any WorkerStore, logger: Logger) {
        do {
            if !options.dryRun { try store.ensureHistoryPartitions(for: Self.likelyPlanDates(at: options.asOf)) }
            while let batch = queue.next(stopRequested: options.stopRequested) {
                let roundTripsBefore = store.roundTrips
                let outcome = try process(batch, store: store, logger: logger)
                let roundTrips = store.roundTrips - roundTripsBefore
                logger.debug("batch done", metadata: ["users": "\(batch.count)", "round_trips": "\(roundTrips)"])
                queue.state.withLock { state in
                    state.usersDone += batch.count
                    state.summary.batches += 1
                    state.summary.batchRoundTrips += roundTrips
                    state.summary.counts += outcome.counts
                    state.summary.unknownUsers += outcome.unknownUsers
                    options.progress(RunProgress(usersDone: state.usersDone,
                                                 usersTotal: queue.candidateCount, counts: state.summary.counts))
                }
                try run.claims?.renewIfDue(using: store)
            }
        } catch {
            queue.fail(error, connecting: false)
        }
    }

    /// One batch: a dry run only reads and reports; a real one writes in one transaction
    /// and then emits.
    private func process(_ batch: [Int64], store: any WorkerStore, logger: Logger) throws -> BatchOutcome {
        if options.dryRun {
            let outcome = try runner.process(batch, store: store, run: run, selected: selected, logger: logger)
            try runner.report.emit(outcome.reportLines)
            return outcome
        }
        let partitions = UserPartitions.partitions(of: batch)
        while true {
            var missingMonths: [LocalDate] = []
            let written = try store.inTransaction { () -> (BatchOutcome, Int64?)? in
                // Before the users are read (in the same round trip): a run that lost its
                // claim stops here, and a manual rerun waits for the batch in flight of a
                // scheduled run.
                let partitionGuard: PartitionGuard = run.manual
                    ? .exclusively(partitions: partitions) : .claimedBy(runID: run.runID, partitions: partitions)
                var outcome = try runner.process(batch, store: store, after: partitionGuard, run: run,
                                                 selected: selected, logger: logger)
                outcome.write.deliveryClaim = delivery?.claim
                missingMonths = store.missingHistoryPartitions(for: outcome.write.history.map(\.planDate))
                guard missingMonths.isEmpty else { return nil }
                let notificationBatch = try store.write(outcome.write, runID: run.runID, generatedAt: options.asOf)
                return (outcome, notificationBatch)
            }
            guard let (outcome, notificationBatch) = written else {
                // A plan date in a month without its partition (rare: the likely months
                // were made at the start): make it outside the transaction, then redo.
                try store.ensureHistoryPartitions(for: missingMonths)
                continue
            }
            if let notificationBatch {
                if let delivery {
                    delivery.submit(batchID: notificationBatch, write: outcome.write)
                } else {
                    try runner.notifications.emit(lines: outcome.write.notificationLines)
                    try store.markEmitted(batch: notificationBatch)
                }
            }
            return outcome
        }
    }

    /// The plan dates a run at `asOf` writes: the local date at `asOf` in every zone lies
    /// within a day of its UTC date.
    static func likelyPlanDates(at asOf: Instant) -> [LocalDate] {
        let microsecondsPerDay: Int64 = 86_400_000_000
        let micros = asOf.microsecondsSinceEpoch
        let day = Int((micros >= 0 ? micros : micros - microsecondsPerDay + 1) / microsecondsPerDay)
        return [day - 1, day, day + 1].map { LocalDate(daysSinceEpoch: $0) }
    }
}
