import Foundation
import Logging
import PlanRules
import PlanStore
import Postgres

/// The result of one run, for the summary line, `plan_runs` and the exit code.
public struct RunSummary: Sendable {
    public var runID: Int64?
    public var counts = RunCounts()
    /// `--user` ids that have no `user_settings` row.
    public var unknownUsers: [Int64] = []
    /// Partitions another run held, so this run skipped their users.
    public var skippedPartitions: [Int] = []
    /// The run stopped between batches because a stop was requested (SIGTERM).
    public var stoppedEarly = false
    public var durationMs: Int64 = 0
}

/// Runs the nightly job: select due users, evaluate each with the rules, write each
/// batch in one transaction, then emit the batch's notifications (plan-rules.md §2, §7).
public struct NightlyRunner: Sendable {
    /// Opens a new database connection (one per worker).
    public let connect: @Sendable () throws -> PostgresConnection
    public let timeouts: PlanStore.Timeouts
    public let zones: ZoneDatabase
    public let logger: Logger
    public let notifications: NotificationSink
    /// Where `--dry-run` prints what it would write (stdout).
    public let report: NotificationSink

    public init(connect: @escaping @Sendable () throws -> PostgresConnection,
                timeouts: PlanStore.Timeouts = PlanStore.Timeouts(), zones: ZoneDatabase, logger: Logger,
                notifications: NotificationSink, report: NotificationSink) {
        self.connect = connect
        self.timeouts = timeouts
        self.zones = zones
        self.logger = logger
        self.notifications = notifications
        self.report = report
    }

    public func run(_ options: RunOptions) throws -> RunSummary {
        let started = DispatchTime.now()
        var summary = RunSummary()
        let connection = try connect()
        // Before PlanStore prepares the session (a staging table LIKE plan_state), so that a
        // database without the job's tables gets the schema message, not "no plan_state".
        try Migrator(connection: connection).checkUpToDate()
        let store = try PlanStore(connection: connection, timeouts: timeouts)

        let manual = !options.manualUsers.isEmpty
        let wanted: [Int]
        if manual {
            wanted = Array(Set(options.manualUsers.map(UserPartitions.partition(of:)))).sorted()
        } else if let shard = options.shard {
            wanted = UserPartitions.forShard(index: shard.index, of: shard.count)
        } else {
            wanted = Array(0..<UserPartitions.count)
        }
        let held: [Int]
        if manual {
            try store.lockPartitions(wanted)
            held = wanted
        } else {
            held = try store.tryLockPartitions(wanted)
        }
        defer { try? store.unlockPartitions(held) }
        summary.skippedPartitions = wanted.filter { !held.contains($0) }
        if !summary.skippedPartitions.isEmpty {
            logger.notice("another run holds some user partitions; their users are left to it",
                          metadata: ["partitions_skipped": "\(summary.skippedPartitions.count)"])
        }

        var runLogger = logger
        var runID: Int64 = 0
        if !options.dryRun {
            runID = try store.startRun(RunRecord(
                asOf: options.asOf, dryRun: false, requestedUsers: manual ? options.manualUsers : nil,
                shard: options.shard?.description, binaryVersion: options.binaryVersion,
                rulesVersion: rulesVersion, tzdataVersion: zones.version))
            summary.runID = runID
            runLogger[metadataKey: "run_id"] = "\(runID)"
        }
        runLogger.info("run started", metadata: [
            "as_of": "\(options.asOf.rfc3339)", "dry_run": "\(options.dryRun)",
            "users_requested": "\(options.manualUsers.count)", "partitions": "\(held.count)",
        ])

        do {
            if !options.dryRun, !held.isEmpty {
                let leftovers = try emitPending(partitions: held, store: store, runID: runID)
                if leftovers > 0 {
                    runLogger.notice("emitted notifications left pending by an earlier run",
                                     metadata: ["notifications": "\(leftovers)"])
                }
            }

            var candidates: [Int64] = []
            var newWatermarks: [(partitions: [Int], newest: Instant)] = []
            if manual {
                var seen = Set<Int64>()
                candidates = options.manualUsers.filter { seen.insert($0).inserted }
            } else if !held.isEmpty {
                let since = try store.oldestWatermark(of: held).map {
                    $0.adding(seconds: -options.changeLookbackSeconds)
                }
                (candidates, newWatermarks) = try selectDueUsers(of: held, changedSince: since, store: store,
                                                                 options: options)
            }
            runLogger.info("candidates selected", metadata: ["candidates": "\(candidates.count)"])

            let batches = BatchQueue(candidates: candidates, batchSize: options.batchSize)
            let progress = try processBatches(batches, mainStore: store, runID: runID, options: options,
                                              manual: manual, logger: runLogger)
            summary.counts += progress.counts
            summary.unknownUsers += progress.unknownUsers
            summary.stoppedEarly = progress.stoppedEarly
            if summary.stoppedEarly {
                runLogger.notice("stop requested; the batches done so far are committed and emitted",
                                 metadata: ["users_left": "\(candidates.count - progress.usersDone)"])
            }
            if !options.dryRun, !manual, !summary.stoppedEarly {
                for watermark in newWatermarks {
                    try store.advanceWatermarks(of: watermark.partitions, to: watermark.newest)
                }
            }
        } catch {
            summary.durationMs = elapsedMs(since: started)
            if !options.dryRun {
                try? store.finishRun(runID, counts: summary.counts, durationMs: summary.durationMs, error: "\(error)")
            }
            throw error
        }
        summary.counts.unknownUsers = summary.unknownUsers.count
        summary.durationMs = elapsedMs(since: started)
        if !options.dryRun {
            try store.finishRun(runID, counts: summary.counts, durationMs: summary.durationMs, error: nil)
        }
        for userID in summary.unknownUsers {
            runLogger.error("no user_settings row for requested user; nothing done",
                            metadata: ["user_id": "\(userID)"])
        }
        return summary
    }

    /// Emits every outbox line pending for `partitions` (left by a killed run or a broken
    /// pipe), marking each chunk emitted after it is flushed. Returns how many lines were
    /// emitted.
    private func emitPending(partitions: [Int], store: PlanStore, runID: Int64) throws -> Int {
        var emitted = 0
        while true {
            let pending = try store.pendingNotifications(partitions: partitions, limit: 5000)
            if pending.isEmpty { return emitted }
            try notifications.emit(pending.map(\.payload))
            try store.markEmitted(pending.map(\.notificationID), runID: runID)
            emitted += pending.count
        }
    }

    private func elapsedMs(since start: DispatchTime) -> Int64 {
        Int64((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000)
    }
}
