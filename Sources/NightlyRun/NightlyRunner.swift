import Foundation
import LineOutput
import Logging
import PlanRules
import PlanStore

/// The result of one run, for the summary line, `plan_runs` and the exit code.
public struct RunSummary: Sendable {
    public var runID: Int64?
    public var counts = RunCounts()
    /// `--user` ids that have no `user_settings` row.
    public var unknownUsers: [Int64] = []
    /// Claims of other runs on partitions this run wanted: their users were left to them.
    public var heldByOthers: [PartitionHolder] = []
    /// Some of `heldByOthers` have been held longer than `RunOptions.overlapLimit`: their
    /// users are not being processed (exit 4).
    public var heldTooLong = false
    /// The run stopped between batches because a stop was requested (SIGTERM).
    public var stoppedEarly = false
    /// The newest rules version among the users' states (this binary's when none is newer).
    public var newestRulesVersionSeen: String?
    /// When the binary's rules version started to roll out (nil: no plan of an older one yet).
    public var rolloutStart: Instant?
    public var durationMs: Int64 = 0
    /// Round trips to the database (every connection of the run; connecting not
    /// included), and the connections opened: what a remote database's latency multiplies.
    public var roundTrips = 0
    public var connections = 1
    /// Batches written (or, in a dry run, read) and their round trips.
    public var batches = 0
    public var batchRoundTrips = 0
    /// With a webhook: what was delivered and what is left pending (`--notifications URL`).
    public var delivery: DeliveryReport?

    /// Lines the run committed or found pending that it could not deliver (the receiver
    /// down or refusing): planned, delivery pending (exit 6).
    public var deliveryPending: Bool { (delivery?.pendingLines ?? 0) > 0 }

    /// Partitions another run held, so this run skipped their users.
    public var skippedPartitions: [Int] { heldByOthers.map(\.partition) }

    /// How the run ended, as `plan_runs.status` records it.
    public var status: RunStatus {
        if stoppedEarly { return .stopped }
        if heldTooLong { return .heldTooLong }
        if deliveryPending { return .deliveryPending }
        return heldByOthers.isEmpty ? .succeeded : .heldByOthers
    }
}

/// Runs the nightly job: select due users, evaluate each with the rules, write each
/// batch in one transaction, then emit the batch's notifications (plan-rules.md §2, §7).
///
/// A scheduled run works on the user partitions it claims (PartitionClaims.swift); each
/// batch transaction checks the claims first (the fence), then loads its users and writes
/// their plans, so what it writes always follows from what is committed.
public struct NightlyRunner: Sendable {
    /// Opens the run's stores: its main one, one per worker (RunStore.swift).
    public let stores: RunStores
    public let zones: ZoneDatabase
    public let logger: Logger
    public let notifications: NotificationSink
    /// Where `--dry-run` prints what it would write (stdout).
    public let report: LineWriter
    /// `--notifications https://…`: the lines are posted on a thread of their own instead
    /// of written to `notifications`.
    public let webhook: NotificationWebhook?

    public init(stores: RunStores, zones: ZoneDatabase, logger: Logger, notifications: NotificationSink,
                report: LineWriter, webhook: NotificationWebhook? = nil) {
        self.stores = stores
        self.zones = zones
        self.logger = logger
        self.notifications = notifications
        self.report = report
        self.webhook = webhook
    }

    /// One run, phase by phase: records its start, claims its partitions, emits what earlier
    /// runs left pending, selects the candidates, runs the batches, records where the
    /// selection ended, then the run's end.
    public func run(_ options: RunOptions) throws -> RunSummary {
        let started = DispatchTime.now()
        var summary = RunSummary()
        let store = try stores.main(options.dryRun ? .readOnly : .readWrite)
        if !options.dryRun, let limit = options.asOfLeadLimit {
            try refuseIfAhead(options.asOf, limit: limit, store: store)
        }
        var run = RunInProgress(options: options, logger: logger,
                                runID: try options.dryRun ? 0 : recordStart(options, store: store))
        if !options.dryRun { summary.runID = run.runID }
        var delivery: NotificationDelivery?
        do {
            if let webhook, !options.dryRun {
                // Started first: it delivers what earlier runs left pending while this one plans.
                delivery = try webhook.makeDelivery(stores: stores, logger: run.logger,
                                                    stopRequested: options.stopRequested)
                delivery?.start()
            }
            let held = try claim(run.wantedPartitions, store: store, run: &run, summary: &summary)
            run.logger.info("run started", metadata: [
                "as_of": "\(options.asOf.rfc3339)", "dry_run": "\(options.dryRun)",
                "users_requested": "\(options.manualUsers.count)", "partitions": "\(held.count)",
            ])
            if let claims = run.claims, !held.isEmpty, delivery == nil {
                try emitLeftovers(of: held, claims: claims, store: store, run: run)
            }
            let selected = try selectCandidates(of: held, store: store, run: run, summary: &summary)
            try runBatches(selected, mainStore: store, run: run, delivery: delivery, summary: &summary)
            try countUsersLeftToNewerRules(selected.newerRulesVersions, of: held, store: store, run: run,
                                           summary: &summary)
            if !options.dryRun, !run.manual, !summary.stoppedEarly {
                try recordWhereSelectionEnds(selected, of: held, store: store, runID: run.runID)
            }
            if let delivery {
                summary.delivery = delivery.finish()
                if let failure = summary.delivery?.failure { throw RunError.delivery(reason: failure) }
                summary.delivery?.log(to: run.logger)
            }
        } catch {
            delivery?.abandon()
            summary.durationMs = elapsedMs(since: started)
            if !options.dryRun { recordFailure(of: run.runID, summary: summary, error: error, store: store) }
            throw error
        }
        summary.counts.unknownUsers = summary.unknownUsers.count
        summary.durationMs = elapsedMs(since: started)
        if !options.dryRun { try recordEnd(of: run, summary: summary, store: store) }
        summary.roundTrips += store.roundTrips
        for userID in summary.unknownUsers {
            run.logger.error("no user_settings row for requested user; nothing done",
                             metadata: ["user_id": "\(userID)"])
        }
        return summary
    }

    /// Records the run's start in `plan_runs`; returns its id.
    private func recordStart(_ options: RunOptions, store: any RunLogStore) throws -> Int64 {
        let me = ProcessIdentity.current
        return try store.startRun(RunRecord(
            asOf: options.asOf, dryRun: false,
            requestedUsers: options.manualUsers.isEmpty ? nil : options.manualUsers,
            shard: options.shard?.description, binaryVersion: options.binaryVersion,
            rulesVersion: rulesVersion, tzdataVersion: zones.version,
            host: me.host, pid: me.pid, processKey: me.key, rulesAction: options.rulesAction))
    }

    /// Emits every outbox line pending for `partitions` (left by a killed run or a broken
    /// pipe), marking each chunk emitted after it is flushed, then renews the claims.
    private func emitLeftovers(of partitions: [Int], claims: ClaimKeeper, store: any OutboxStore & ClaimStore,
                               run: RunInProgress) throws {
        var emitted = 0
        while case let pending = try store.pendingNotifications(partitions: partitions, limit: 5000), !pending.isEmpty {
            try notifications.emit(pending.map(\.payload))
            try store.markEmitted(pending.map(\.notificationID), runID: run.runID)
            emitted += pending.count
        }
        if emitted > 0 {
            run.logger.notice("emitted notifications left pending by an earlier run",
                              metadata: ["notifications": "\(emitted)"])
        }
        try claims.renew(using: store)
    }

    /// The candidates of the `held` partitions (`CandidateSelection`), or the `--user` ids
    /// as given, with the rules version's rollout every evaluation uses.
    private func selectCandidates(of held: [Int], store: any CandidateStore & RunLogStore & ClaimStore,
                                  run: RunInProgress, summary: inout RunSummary) throws -> RunCandidates {
        let options = run.options
        // A `--user` rerun recomputes with this binary's version whatever the rollout.
        let rollout = RulesRollout(atOnceForOlder: options.rulesAtOnce, atOnceForNewer: options.rulesRollback)
        guard !run.manual, !held.isEmpty else {
            return RunCandidates(userIDs: UserIDSet(inGivenOrder: options.manualUsers), rollout: rollout)
        }
        let start = try store.selectionStart(of: held)
        let startedRollout = try startRollout(rollout, start: start, store: store, run: run, summary: &summary)
        let sweep = options.lateRowSweep.step(held: held, start: start, asOf: options.asOf,
                                              everyRowRead: start.oldestWatermark == nil)
        var selected = try CandidateSelection.choose(held: held, start: start, lateRows: sweep.slices, options: options)
            .read(held: held, asOf: options.asOf, store: store, connect: { try stores.worker() })
        (selected.sweep, selected.rollout) = (sweep, startedRollout)
        if !options.rulesRollback { selected.newerRulesVersions = start.newerRulesVersions }
        summary.roundTrips += selected.roundTrips
        summary.connections += selected.connections
        try run.claims?.renew(using: store)
        if !selected.lateUserIDs.isEmpty {
            run.logger.notice("rows older than the change watermark found by the late-row sweep", metadata: [
                "candidates": "\(selected.lateUserIDs.count)",
            ])
        }
        return selected
    }

    /// Counts, and reports, the due users of `held` whose plans a newer rules version made:
    /// this binary never replaces them.
    private func countUsersLeftToNewerRules(_ newerRulesVersions: [String], of held: [Int], store: any CandidateStore,
                                            run: RunInProgress, summary: inout RunSummary) throws {
        guard !newerRulesVersions.isEmpty else { return }
        summary.counts.leftToNewerRules += try store.dueUsersUnder(newerRulesVersions, asOf: run.options.asOf,
                                                                   partitions: held)
        run.logger.notice("users left to a newer rules version: never replaced by this binary", metadata: [
            "users": "\(summary.counts.leftToNewerRules)",
            "newest_rules_version": "\(summary.newestRulesVersionSeen ?? rulesVersion)",
            "rules_version": "\(rulesVersion)",
        ])
    }

    /// Advances the change watermarks and the late-row sweep's positions of `held` to where
    /// this completed run's selection ended. Fenced: only the holder of the partitions may
    /// move them. A partition's sweep position lives in its watermark row.
    private func recordWhereSelectionEnds(_ selected: RunCandidates, of held: [Int],
                                          store: any CandidateStore & ClaimStore, runID: Int64) throws {
        guard !selected.watermarks.isEmpty || !selected.sweep.positions.isEmpty else { return }
        try store.inTransaction {
            try store.fenceClaims(held, runID: runID)
            for watermark in selected.watermarks {
                try store.advanceWatermarks(of: watermark.partitions, to: watermark.newest)
            }
            for advance in selected.sweep.positions {
                try store.advanceSweep(of: advance.partitions, to: advance.position)
            }
        }
    }

    /// Records the run's end in `plan_runs` and gives up its claims.
    private func recordEnd(of run: RunInProgress, summary: RunSummary, store: any RunLogStore & ClaimStore) throws {
        try store.finishRun(run.runID, status: summary.status, counts: summary.counts,
                            partitionsHeldByOthers: summary.heldByOthers.count,
                            durationMs: summary.durationMs, error: nil,
                            newestRulesVersionSeen: summary.newestRulesVersionSeen)
        if run.claims != nil { try store.releaseClaims(runID: run.runID) }
    }

    /// The rules version's rollout for a scheduled run (plan-rules.md section 2.1): the
    /// first run that finds a plan of an older version records its instant as the rollout
    /// start (a dry run only assumes it); a rollback forgets newer versions' starts and
    /// selects their users.
    private func startRollout(_ rollout: RulesRollout, start: SelectionStart, store: any RunLogStore,
                              run: RunInProgress, summary: inout RunSummary) throws -> RulesRollout {
        let (runID, options, logger) = (run.runID, run.options, run.logger)
        var rollout = rollout
        rollout.start = start.rolloutStart
        summary.newestRulesVersionSeen = start.newerRulesVersions
            .max { RulesVersionStanding(of: $0, against: $1) == .older } ?? rulesVersion
        if rollout.start == nil, !start.olderRulesVersions.isEmpty {
            if options.dryRun {
                rollout.start = options.asOf
            } else {
                let recorded = try store.recordRolloutStart(of: rulesVersion, at: options.asOf, runID: runID)
                rollout.start = recorded
                logger.notice("rules version rollout started: users with plans of older versions get it at their next local midnight",
                              metadata: ["rules_version": "\(rulesVersion)", "rollout_start": "\(recorded.rfc3339)",
                                         "older_versions": "\(start.olderRulesVersions.joined(separator: ","))"])
            }
        }
        if options.rulesRollback, !options.dryRun {
            let forgotten = try store.rulesRollouts().map(\.rulesVersion).filter { RulesVersionStanding(of: $0) == .newer }
            try store.forgetRollouts(of: forgotten)
            if !forgotten.isEmpty {
                logger.notice("rollback: the rollouts of newer rules versions are forgotten",
                              metadata: ["rules_versions": "\(forgotten.joined(separator: ","))"])
            }
        }
        summary.rolloutStart = rollout.start
        return rollout
    }

    /// Throws `RunError.asOfAhead` when `asOf` is more than `limit` ahead of the database's
    /// clock, before the run writes anything (not even its `plan_runs` row).
    private func refuseIfAhead(_ asOf: Instant, limit: Duration, store: any RunLogStore) throws {
        let databaseNow = try store.databaseNow()
        let leadSeconds = (asOf.microsecondsSinceEpoch - databaseNow.microsecondsSinceEpoch) / 1_000_000
        if leadSeconds > limit.components.seconds {
            throw RunError.asOfAhead(asOf: asOf, databaseNow: databaseNow, limitSeconds: limit.components.seconds)
        }
    }

    /// Claims the free partitions of `wanted` (taking over those of runs that died or
    /// whose claims expired) and reports, never silently, those other runs hold.
    private func claim(_ wanted: [Int], store: any RunLogStore & ClaimStore, run: inout RunInProgress,
                       summary: inout RunSummary) throws -> [Int] {
        // A dry run and a manual rerun claim nothing: the one writes nothing, the other
        // locks its users' partitions in each of its transactions.
        guard !run.options.dryRun, !run.manual else { return wanted }
        let (runID, options, logger) = (run.runID, run.options, run.logger)
        let dead = Set(try store.partitionHolders(wanted, except: runID)
            .filter { holder in holder.processKey.map(ProcessIdentity.isGone(key:)) ?? false }
            .map(\.runID))
        let (held, takenFrom) = try store.claimPartitions(wanted, runID: runID, ttl: options.claimTTL,
                                                         takingOverFrom: dead.sorted())
        run.claims = ClaimKeeper(runID: runID, ttl: options.claimTTL, partitions: held)
        if !takenFrom.isEmpty {
            logger.notice("took over the partitions of runs that ended without finishing", metadata: [
                "runs": "\(takenFrom.map(String.init).joined(separator: ","))",
                "how": "\(dead.isDisjoint(with: takenFrom) ? "claims expired" : "process gone")",
            ])
        }
        // Runs killed before they could record their end: those whose claims were taken
        // over, and those seen gone on this machine (also when they held no claim).
        let gone = try store.runningRuns(except: runID)
            .filter { $0.processKey.map(ProcessIdentity.isGone(key:)) ?? false }.map(\.runID)
        try store.markAbandoned(Array(Set(takenFrom + gone)).sorted(), by: runID)
        let notHeld = wanted.filter { !held.contains($0) }
        guard !notHeld.isEmpty else { return held }
        summary.heldByOthers = try store.partitionHolders(notHeld, except: runID)
        let holders = Dictionary(grouping: summary.heldByOthers, by: \.runID)
        for (holderRun, partitions) in holders.sorted(by: { $0.key < $1.key }) {
            let first = partitions[0]
            let metadata: Logger.Metadata = [
                "holder_run_id": "\(holderRun)", "partitions_held": "\(partitions.count)",
                "held_for_s": "\(first.heldForMs / 1000)", "claim_expires_in_s": "\(max(0, first.expiresInMs) / 1000)",
                "holder": "\(first.host ?? "?") pid \(first.pid.map(String.init) ?? "?")",
            ]
            if .milliseconds(first.heldForMs) > options.overlapLimit {
                summary.heldTooLong = true
                logger.error("""
                    another run has held user partitions for longer than the overlap limit: their users are not \
                    being processed; if that run is stuck, stop it (its claims lapse --claim-ttl after its last \
                    progress), or raise --overlap-limit if such long runs are expected
                    """, metadata: metadata)
            } else {
                logger.notice("another run holds user partitions; their users are left to it", metadata: metadata)
            }
        }
        return held
    }

    /// Closes the run's row as failed and gives up its claims, on a fresh connection when
    /// the run's own is gone. Best effort: the database may be what failed; then the row
    /// stays `running` (a later run marks it `abandoned`) and the claims expire.
    private func recordFailure(of runID: Int64, summary: RunSummary, error: Error, store: any RunLogStore & ClaimStore) {
        let target: (any RunLogStore & ClaimStore)? = store.isUsable ? store : try? stores.worker()
        guard let target else { return }
        try? target.finishRun(runID, status: .failed, counts: summary.counts,
                              partitionsHeldByOthers: summary.heldByOthers.count,
                              durationMs: summary.durationMs, error: "\(error)",
                              newestRulesVersionSeen: summary.newestRulesVersionSeen)
        try? target.releaseClaims(runID: runID)
    }

    private func elapsedMs(since start: DispatchTime) -> Int64 {
        Int64((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000)
    }
}

/// One run in progress: what its phases share.
struct RunInProgress {
    let options: RunOptions
    /// The run's `plan_runs` id; 0 in a dry run, which records nothing.
    let runID: Int64
    let logger: Logger
    /// The run's claims once it holds its partitions (`claim`); none in a dry run or a rerun.
    var claims: ClaimKeeper?

    init(options: RunOptions, logger: Logger, runID: Int64) {
        var logger = logger
        if !options.dryRun { logger[metadataKey: "run_id"] = "\(runID)" }
        (self.options, self.runID, self.logger) = (options, runID, logger)
    }

    /// `--user`: exactly these users, whatever is due.
    var manual: Bool { !options.manualUsers.isEmpty }

    /// The partitions of the requested users, of the shard, or all.
    var wantedPartitions: [Int] {
        if manual { return UserPartitions.partitions(of: options.manualUsers) }
        if let shard = options.shard { return UserPartitions.forShard(index: shard.index, of: shard.count) }
        return Array(0..<UserPartitions.count)
    }
}
