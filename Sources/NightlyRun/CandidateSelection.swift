import PlanRules
import PlanStore
import Synchronization

/// How a scheduled run reads the candidates of the partitions it holds: one strategy,
/// chosen by `choose` from where the selection starts. Each reads index ranges or primary
/// keys only; `evaluate` then decides who is due.
enum CandidateSelection {
    /// A first run (`SelectionStart.isFirstRun`): every user id of the two tables. Of every
    /// partition, the range from the lowest to the highest id when at least half of it are
    /// users (`PlanStore.everyUserByIDRange`: one statement, no id sent); else the ids
    /// themselves (`everyUserByID`), in `shares`.
    case everyUser(shares: Int)
    /// Any other run: rows changed since `changedSince` (every row without it), states whose
    /// check has come or under `otherRulesVersions`, and the rows of the late-row sweep's
    /// `lateRows` the job has not seen (`PlanStore.changedOrDueUsers`), in `shares`.
    case changedOrDueUsers(changedSince: Instant?, lateRows: [LateRowSlice], otherRulesVersions: [String],
                           shares: Int)

    /// The strategy for the `held` partitions; `lateRows`: the late-row sweep's slices.
    ///
    /// The partitions are shared out (each share selected on a connection of its own, at
    /// once) only when the selection reads a whole table's worth of users: no watermark yet,
    /// or every state under another rules version (at a million users, a scan of
    /// `user_settings` sending a million ids takes 2.5 s on one core while the other idles).
    /// A share per core, not per worker: every share scans the whole table, so more shares
    /// than cores only repeat the scan (a million users, two cores: 4 shares 533 ms, 2
    /// shares 355 ms, 1 share 463 ms). Otherwise the selection is a few index ranges on the
    /// run's own connection: a connection per share would double the time of a run with
    /// nothing due (0.14 s instead of 0.07 s at a million users).
    static func choose(held: [Int], start: SelectionStart, lateRows: [LateRowSlice],
                       options: RunOptions) -> CandidateSelection {
        // Every state under these is a candidate: older versions (their users then wait for
        // their rollout midnight, plan-rules.md section 2.1), after a rollback newer ones too.
        let otherRulesVersions = start.olderRulesVersions + (options.rulesRollback ? start.newerRulesVersions : [])
        let readsEveryUser = start.oldestWatermark == nil || !otherRulesVersions.isEmpty
        let shares = readsEveryUser
            ? min(options.workers, held.count, options.selectionShares ?? WorkerThreads.usableCores()) : 1
        if start.isFirstRun { return .everyUser(shares: shares) }
        return .changedOrDueUsers(
            changedSince: start.oldestWatermark.map { $0.adding(seconds: -options.changeLookbackSeconds) },
            lateRows: lateRows, otherRulesVersions: otherRulesVersions, shares: shares)
    }

    /// The candidates of `held` at `asOf`, read on `store`, or each share on a store of its
    /// own from `connect`, at once: one statement a share, its watermark from its rows.
    func read(held: [Int], asOf: Instant, store: any CandidateStore,
              connect: @escaping @Sendable () throws -> any CandidateStore) throws -> RunCandidates {
        let (shareCount, lateRows): (Int, [LateRowSlice])
        let select: @Sendable (any CandidateStore, [Int], [LateRowSlice]) throws -> CandidateIDs
        switch self {
        case .everyUser(let shares):
            if let range = try store.everyUserByIDRange(asOf: asOf, partitions: held) {
                return RunCandidates(range, of: held)
            }
            (shareCount, lateRows) = (shares, [])
            select = { store, partitions, _ in try store.everyUserByID(asOf: asOf, partitions: partitions) }
        case .changedOrDueUsers(let changedSince, let slices, let otherRulesVersions, let shares):
            (shareCount, lateRows) = (shares, slices)
            select = {
                try $0.changedOrDueUsers(asOf: asOf, partitions: $1, changedSince: changedSince, lateRows: $2,
                                         otherRulesVersions: otherRulesVersions)
            }
        }
        guard shareCount > 1 else { return RunCandidates(try select(store, held, lateRows), of: held) }
        let shares = (0..<shareCount).map { share in
            held.indices.filter { $0 % shareCount == share }.map { held[$0] }
        }
        let selections = Mutex<[Int: Result<CandidateIDs, any Error>]>([:])
        let selectionRoundTrips = Atomic<Int>(0)
        WorkerThreads.run(count: shareCount, name: "select") { share in
            let selection = Result {
                let store = try connect()
                let sharedPartitions = Set(shares[share])
                let sharedLateRows = lateRows.compactMap { slice -> LateRowSlice? in
                    let partitions = slice.partitions.filter(sharedPartitions.contains)
                    return partitions.isEmpty ? nil : LateRowSlice(partitions: partitions, userIDs: slice.userIDs)
                }
                let selection = try select(store, shares[share], sharedLateRows)
                selectionRoundTrips.add(store.roundTrips, ordering: .relaxed)
                return selection
            }
            selections.withLock { $0[share] = selection }
        }
        var userIDs = UserIDSet.Builder()
        var lateUserIDs = UserIDSet.Builder()
        var candidates = RunCandidates(roundTrips: selectionRoundTrips.load(ordering: .relaxed), connections: shareCount)
        for share in 0..<shareCount {
            guard let selection = try selections.withLock({ $0.removeValue(forKey: share) })?.get() else { continue }
            userIDs.insert(contentsOf: selection.userIDs)
            lateUserIDs.insert(contentsOf: selection.lateUserIDs)
            if let newest = selection.newestUpdatedAt { candidates.watermarks.append((shares[share], newest)) }
        }
        (candidates.userIDs, candidates.lateUserIDs) = (userIDs.build(), lateUserIDs.build())
        return candidates
    }
}

/// A run's candidates (every share's `CandidateIDs` together), and what else its selection
/// decided: the rules version's rollout every evaluation uses, the newer versions whose
/// users it leaves alone, where the watermarks and the late-row sweep move once it completes.
struct RunCandidates {
    var userIDs = UserIDSet([])
    var watermarks: [(partitions: [Int], newest: Instant)] = []
    var sweep = LateRowSweep.Step()
    var rollout = RulesRollout()
    var newerRulesVersions: [String] = []
    var idsPerUser: Double = 1  // `CandidateIDs.idsPerUser`
    /// The candidates the late-row sweep alone found (also in `userIDs`).
    var lateUserIDs = UserIDSet([])
    /// Made on connections opened for the selection (the main connection counts its own).
    var roundTrips = 0
    var connections = 0

    /// The ids a batch of `users` takes: as many more as the range has gaps, so that each
    /// batch still holds about that many users.
    func batchSize(users: Int) -> Int { Int((Double(users) * idsPerUser).rounded(.up)) }
}

extension RunCandidates {
    /// The candidates of `partitions` as one statement selected them.
    init(_ selected: CandidateIDs, of partitions: [Int]) {
        userIDs = selected.userIDs
        watermarks = selected.newestUpdatedAt.map { [(partitions, $0)] } ?? []
        idsPerUser = selected.idsPerUser
        lateUserIDs = selected.lateUserIDs
    }
}
