import Dispatch
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
        var done = BatchesDone()
        /// The first error of any worker: the others stop after their batch in flight. A
        /// worker's failure to connect gives way to a batch's failure that follows it: when
        /// the server goes down mid-run, a worker still connecting hears "shutting down"
        /// first, but what the run met is the loss of the database in the middle of a batch.
        var failure: (any Error)?
        var failureIsConnecting = false
    }

    let candidates: UserIDSet
    var candidateCount: Int { candidates.count }
    let batchSize: Int
    let state: Mutex<State>

    init(candidates: UserIDSet, batchSize: Int) {
        self.candidates = candidates
        self.batchSize = batchSize
        self.state = Mutex(State())
    }

    /// The next batch, or nil when none is left, a worker failed, or a stop was requested
    /// (then `done.stoppedEarly` is set).
    func next(stopRequested: () -> Bool) -> [Int64]? {
        state.withLock { state in
            guard state.failure == nil, !state.done.stoppedEarly else { return nil }
            var batch: [Int64] = []
            batch.reserveCapacity(min(batchSize, candidates.count))
            candidates.read(from: &state.position, upTo: batchSize, into: &batch)
            guard !batch.isEmpty else { return nil }
            if stopRequested() {
                state.done.stoppedEarly = true
                return nil
            }
            return batch
        }
    }
}

/// What the committed (and emitted) batches of a run add up to.
struct BatchesDone: Sendable {
    var usersDone = 0
    var batches = 0
    /// Round trips of the batches' transactions (fence, load, write, commit, marking emitted).
    var batchRoundTrips = 0
    /// Round trips and connections of the worker connections opened for the run (the
    /// main connection is counted by the runner).
    var workerRoundTrips = 0
    var workerConnections = 0
    var counts = RunCounts()
    var unknownUsers: [Int64] = []
    var stoppedEarly = false
}

extension NightlyRunner {
    /// Evaluates, writes and emits every batch of `queue`. With `options.workers` > 1,
    /// each worker is a thread of its own with its own connection (WorkerThreads.swift);
    /// batches are independent, because a user is in one batch only.
    ///
    /// After a worker fails, the others finish their batch in flight (committed and
    /// emitted) and stop; the first error is thrown.
    ///
    /// `lateCandidates`: the candidates the late-row sweep found (`DueUsersSelected`);
    /// `rollout`: the rules version's rollout every evaluation uses.
    func processBatches(_ queue: BatchQueue, lateCandidates: UserIDSet, rollout: RulesRollout, mainStore: any RunStore,
                        runID: Int64, options: RunOptions, manual: Bool, claims: ClaimKeeper?,
                        delivery: NotificationDelivery?, logger: Logger) throws -> BatchesDone {
        let workers = min(options.workers, max(1, (queue.candidateCount + queue.batchSize - 1) / queue.batchSize))
        let worker = BatchWorker(runner: self, queue: queue, runID: runID, options: options, manual: manual,
                                 claims: claims, lateCandidates: lateCandidates, rollout: rollout, delivery: delivery)
        if workers <= 1 {
            worker.work(store: mainStore, logger: logger)
        } else {
            queue.state.withLock { $0.done.workerConnections += workers }
            WorkerThreads.run(count: workers, name: "worker") { index in
                var workerLogger = logger
                workerLogger[metadataKey: "worker"] = "\(index)"
                let store: any RunStore
                do {
                    store = try stores.worker()
                } catch {
                    queue.state.withLock { state in
                        if state.failure == nil { (state.failure, state.failureIsConnecting) = (error, true) }
                    }
                    return
                }
                worker.work(store: store, logger: workerLogger)
                queue.state.withLock { $0.done.workerRoundTrips += store.roundTrips }
            }
        }
        return try queue.state.withLock { state in
            if let failure = state.failure { throw failure }
            return state.done
        }
    }
}

/// What every worker of a run shares: the queue, the run, and its claims.
struct BatchWorker: Sendable {
    let runner: NightlyRunner
    let queue: BatchQueue
    let runID: Int64
    let options: RunOptions
    let manual: Bool
    let claims: ClaimKeeper?
    let lateCandidates: UserIDSet
    let rollout: RulesRollout
    /// With a webhook: the thread that posts the committed batches (nil: written here).
    let delivery: NotificationDelivery?

    /// Takes batches until none is left. Each batch is one transaction — fence, load,
    /// evaluate, write — then its notification lines are emitted and marked emitted, or
    /// handed to the delivery thread (a webhook: planning never waits for the receiver).
    func work(store: any RunStore, logger: Logger) {
        do {
            if !options.dryRun { try store.ensureHistoryPartitions(for: Self.likelyPlanDates(at: options.asOf)) }
            while let batch = queue.next(stopRequested: options.stopRequested) {
                let roundTripsBefore = store.roundTrips
                let outcome = try process(batch, store: store, logger: logger)
                let roundTrips = store.roundTrips - roundTripsBefore
                logger.debug("batch done", metadata: ["users": "\(batch.count)", "round_trips": "\(roundTrips)"])
                queue.state.withLock { state in
                    state.done.usersDone += batch.count
                    state.done.batches += 1
                    state.done.batchRoundTrips += roundTrips
                    state.done.counts += outcome.counts
                    state.done.unknownUsers += outcome.unknownUsers
                    options.progress(RunProgress(usersDone: state.done.usersDone,
                                                 usersTotal: queue.candidateCount, counts: state.done.counts))
                }
                try claims?.renewIfDue(using: store)
            }
        } catch {
            queue.state.withLock { state in
                if state.failure == nil || state.failureIsConnecting { (state.failure, state.failureIsConnecting) = (error, false) }
            }
        }
    }

    /// One batch: a dry run only reads and reports; a real one writes in one transaction
    /// and then emits.
    private func process(_ batch: [Int64], store: any RunStore, logger: Logger) throws -> BatchOutcome {
        if options.dryRun {
            let outcome = try runner.process(batch, store: store, options: options, manual: manual,
                                             lateCandidates: lateCandidates, rollout: rollout, logger: logger)
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
                let partitionGuard: PartitionGuard = manual
                    ? .exclusively(partitions: partitions) : .claimedBy(runID: runID, partitions: partitions)
                var outcome = try runner.process(batch, store: store, after: partitionGuard, options: options,
                                                 manual: manual, lateCandidates: lateCandidates, rollout: rollout,
                                                 logger: logger)
                outcome.write.deliveryClaim = delivery?.claim
                missingMonths = store.missingHistoryPartitions(for: outcome.write.history.map(\.planDate))
                guard missingMonths.isEmpty else { return nil }
                let notificationBatch = try store.write(outcome.write, runID: runID, generatedAt: options.asOf)
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

extension NightlyRunner {
    /// The candidates of the `held` partitions, and the watermark each group of partitions
    /// may advance to once the run completes.
    ///
    /// A first run of every partition takes the range of ids when it is dense enough
    /// (`PlanStore.everyUserByIDRange`): one statement, no id sent.
    ///
    /// Otherwise, with several workers, the partitions are shared out and each share is
    /// selected on a connection of its own, at once: at a million users the selection (a
    /// scan of `user_settings`, a million ids sent) took 2.5 s on one core while the other
    /// idled.
    /// Each share is one statement, so its watermark comes from the rows it selected.
    /// A share per core, not per worker: a partition's users lie all over the table, so
    /// every share scans all of it, and more shares than cores only repeat the scan (at a
    /// million users on two cores, 4 shares took 533 ms, 2 shares 355 ms, 1 share 463 ms).
    /// Only when everyone may be due (`start.everyoneMayBeDue`): otherwise the selection is
    /// a few index ranges, one statement on the run's own connection, since opening a
    /// connection per share doubled the time of a run with nothing due (0.14 s instead of
    /// 0.07 s at a million users).
    ///
    /// `lateRows`: the late-row sweep's slices (`LateRowSweep`), each share selecting those
    /// of its partitions.
    func selectDueUsers(of held: [Int], changedSince: Instant?, start: SelectionStart, lateRows: [LateRowSlice],
                        store: any RunStore, options: RunOptions) throws -> DueUsersSelected {
        if start.everyoneIsDue,
           let everyone = try store.everyUserByIDRange(asOf: options.asOf, partitions: held) {
            return DueUsersSelected(candidates: everyone.userIDs,
                                    watermarks: everyone.newestUpdatedAt.map { [(held, $0)] } ?? [],
                                    idsPerUser: everyone.idsPerUser)
        }
        let shareCount = start.everyoneMayBeDue
            ? min(options.workers, held.count, options.selectionShares ?? WorkerThreads.usableCores()) : 1
        guard shareCount > 1 else {
            let selection = try store.dueUsers(asOf: options.asOf, partitions: held, changedSince: changedSince,
                                               everyoneIsDue: start.everyoneIsDue, lateRows: lateRows,
                                               otherRulesVersions: start.selectedOtherRulesVersions)
            return DueUsersSelected(candidates: selection.userIDs,
                                    watermarks: selection.newestUpdatedAt.map { [(held, $0)] } ?? [],
                                    lateCandidates: selection.lateUserIDs)
        }
        let shares = (0..<shareCount).map { share in
            held.indices.filter { $0 % shareCount == share }.map { held[$0] }
        }
        let selections = Mutex<[Int: Result<DueUserSelection, any Error>]>([:])
        let selectionRoundTrips = Atomic<Int>(0)
        WorkerThreads.run(count: shareCount, name: "select") { share in
            let selection = Result {
                let store = try stores.worker()
                let sharedPartitions = Set(shares[share])
                let sharedLateRows = lateRows.compactMap { slice -> LateRowSlice? in
                    let partitions = slice.partitions.filter(sharedPartitions.contains)
                    return partitions.isEmpty ? nil : LateRowSlice(partitions: partitions, userIDs: slice.userIDs)
                }
                let selection = try store.dueUsers(asOf: options.asOf, partitions: shares[share],
                                                   changedSince: changedSince, everyoneIsDue: start.everyoneIsDue,
                                                   lateRows: sharedLateRows,
                                                   otherRulesVersions: start.selectedOtherRulesVersions)
                selectionRoundTrips.add(store.roundTrips, ordering: .relaxed)
                return selection
            }
            selections.withLock { $0[share] = selection }
        }
        var candidates = UserIDSet.Builder()
        var lateCandidates = UserIDSet.Builder()
        var watermarks: [(partitions: [Int], newest: Instant)] = []
        for share in 0..<shareCount {
            guard let selection = try selections.withLock({ $0.removeValue(forKey: share) })?.get() else { continue }
            candidates.insert(contentsOf: selection.userIDs)
            lateCandidates.insert(contentsOf: selection.lateUserIDs)
            if let newest = selection.newestUpdatedAt { watermarks.append((shares[share], newest)) }
        }
        return DueUsersSelected(candidates: candidates.build(), watermarks: watermarks,
                                lateCandidates: lateCandidates.build(),
                                roundTrips: selectionRoundTrips.load(ordering: .relaxed), connections: shareCount)
    }
}

/// A run's candidates (`selectDueUsers`).
struct DueUsersSelected {
    var candidates: UserIDSet
    /// The watermark each group of partitions may advance to once the run completes.
    var watermarks: [(partitions: [Int], newest: Instant)]
    /// `DueUserSelection.idsPerUser`: a batch takes this many times `--batch-size` ids.
    var idsPerUser: Double = 1
    /// The candidates the late-row sweep alone found (also in `candidates`).
    var lateCandidates = UserIDSet([])
    /// Made on connections opened for the selection (the main connection counts its own).
    var roundTrips = 0
    var connections = 0
}
