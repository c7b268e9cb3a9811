import ArgumentParser
import Foundation
import Logging
import NightlyRun
import Operations
import PlanRules
import PlanStore
import ZoneFiles

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Regenerates the plans that are due now and emits their notifications.",
        discussion: """
            A user is due at their local midnight when their settings changed the day before, \
            a MATADOR phase switches, they have a birthday, or the rules version changed; new \
            users get their first plan at once. Each batch is written in one transaction; its \
            notifications then go out as JSON lines: stdout, a file (fsync'ed), or a webhook \
            (--notifications https://..., signed; planning never waits for the receiver, and \
            lines it did not acknowledge stay pending: exit \(ExitCodes.deliveryPending.code), then the next run or \
            plan-regen deliver sends them first).

            Two runs at once never process the same user: a run claims the user partitions it \
            works on and leaves those another run holds to it (logged, counted in plan_runs and \
            the metrics). A run that dies loses its claims --claim-ttl after its last progress \
            (at once for the next run on the same machine). A --user rerun waits only for the \
            batch in flight (up to --lock-timeout). Works directly and behind PgBouncer in session \
            or transaction mode.

            SIGTERM or SIGINT (systemd, Kubernetes, Ctrl-C) stops the run after the batch in \
            flight: it is committed and its notifications emitted, then the run exits with \(ExitCodes.stopped.code). \
            A second signal stops at once (committed lines not yet emitted stay in the outbox \
            for the next run).

            Examples:
              plan-regen run
              plan-regen run --as-of 2026-03-16T00:15:00Z
              plan-regen run --as-of 2031-01-01T00:15:00Z --allow-future   # tests, demos
              plan-regen run --user 42 --user 43 --dry-run
              plan-regen run --sweep-all        # after an import or a restore
              plan-regen run --notifications /var/spool/plan-regen/notifications.jsonl
              plan-regen run --notifications https://push.example/plan-regen
              plan-regen run --workers 4        # four batches at once (a remote database)
              plan-regen run --shard 0/2        # with another process running --shard 1/2
              plan-regen run --metrics-file /run/plan-regen/plan-regen.prom
              plan-regen run --shard 0/2 --metrics-push http://pushgateway:9091
              plan-regen run --log-format json --log-level notice

            """ + ExitCodes.help([ExitCodes.done, ExitCodes.fatal, ExitCodes.unknownUsers, ExitCodes.heldTooLong, ExitCodes.metricsNotReported, ExitCodes.deliveryPending, ExitCodes.usage, ExitCodes.stopped]))

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("Run as if now were this RFC 3339 instant (tests, backfills).", valueName: "instant"),
            transform: Instant.parse)
    var asOf: Instant?

    @Option(name: .customLong("user"), parsing: .unconditionalSingleValue, help: ArgumentHelp(
        "Recompute this user now (reason manual_rerun). Repeatable.", valueName: "id"))
    var users: [Int64] = []

    @ArgumentParser.Flag(help: "Compute and print what would be written (diffs, notifications); write nothing.")
    var dryRun = false

    @ArgumentParser.Flag(help: ArgumentHelp(
        "Write even when --as-of is more than 5 minutes ahead of the database's clock (tests, demos, benchmarks).",
        discussion: "Without it such a run is refused (exit \(ExitCodes.usage.code)): plans dated ahead would make the scheduled runs "
            + "skip their users until the calendar catches up."))
    var allowFuture = false

    @OptionGroup var destination: NotificationOptions

    @Option(help: "Users per transaction.")
    var batchSize = RunOptions.defaults.batchSize

    @Option(help: ArgumentHelp(
        "Batches to process at once, each on its own database connection. "
            + "Default: twice the CPU cores this process may use, from 2 to 8 (here \(WorkerThreads.defaultCount)).",
        valueName: "n"))
    var workers: Int?

    @Option(help: ArgumentHelp("Handle only shard i of n (user partitions), e.g. 0/2.", valueName: "i/n"),
            transform: Shard.parse)
    var shard: Shard?

    @Option(help: "Seconds behind the last run's watermark to look for changed rows.")
    var changeLookback = RunOptions.defaults.changeLookbackSeconds

    @Option(help: ArgumentHelp(
        "Compare every user's row with what the job saw once per this many seconds (the late-row sweep).",
        discussion: "A row that becomes visible with an updated_at older than the watermark (an import, a restore, "
            + "an offline edit synced late) is planned by the first run at least this long plus the time between "
            + "runs after it was committed.",
        valueName: "seconds"))
    var sweepPeriod = RunOptions.defaults.lateRowSweep.periodSeconds

    @ArgumentParser.Flag(help: "Compare every user's row in this run (after an import or a restore of user_settings).")
    var sweepAll = false

    @ArgumentParser.Flag(help: ArgumentHelp(
        "Make this binary's rules version apply at once to users whose plan an older version made (an urgent correction).",
        discussion: "Otherwise each such user gets the new version at their first local midnight after the version's "
            + "rollout start. At 1M users the run rewrites every such plan (docs/releasing-rules.md)."))
    var rulesAtOnce = false

    @ArgumentParser.Flag(help: ArgumentHelp(
        "Roll back: make this binary's rules version apply at once to users whose plan a newer version made, and forget the newer versions' rollout starts.",
        discussion: "Without it a scheduled run never replaces a plan of a newer version; it counts such users."))
    var rulesRollback = false

    @Option(help: ArgumentHelp(
        "Seconds after its last progress that a run's claim on its user partitions lapses (a dead run's users are then taken over).",
        valueName: "seconds"))
    var claimTTL = Int(RunOptions.defaults.claimTTL.components.seconds)

    @Option(help: ArgumentHelp(
        "Exit 4 when another run has held some of the user partitions for longer than this many seconds.",
        valueName: "seconds"))
    var overlapLimit = Int(RunOptions.defaults.overlapLimit.components.seconds)

    @Option(help: ArgumentHelp(
        "Write Prometheus metrics of this run here, atomically (node_exporter textfile collector; name it *.prom).",
        valueName: "file"), transform: MetricsFile.init(path:))
    var metricsFile: MetricsFile?

    @Option(help: ArgumentHelp(
        "Push the same metrics to this Prometheus Pushgateway (PUT URL/metrics/job/plan-regen/instance/NAME).",
        valueName: "url"), transform: MetricsPush.parse)
    var metricsPush: MetricsPush?

    @Option(help: ArgumentHelp(
        "The instance label of --metrics-push. Default: shard-I-of-N with --shard, else all.", valueName: "name"))
    var metricsInstance: String?

    func validate() throws {
        try validateUserIDs(users)
        if shard != nil, !users.isEmpty {
            throw ValidationError("--shard and --user cannot be combined")
        }
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
        guard (1...64).contains(workers ?? 1) else { throw ValidationError("--workers must be between 1 and 64") }
        guard changeLookback >= 0 else { throw ValidationError("--change-lookback cannot be negative") }
        guard sweepPeriod >= 60 else { throw ValidationError("--sweep-period must be at least 60 seconds") }
        if sweepAll, !users.isEmpty { throw ValidationError("--sweep-all and --user cannot be combined") }
        if rulesAtOnce || rulesRollback, !users.isEmpty {
            throw ValidationError("--rules-at-once and --rules-rollback act on scheduled runs; --user always recomputes with this binary's rules")
        }
        guard claimTTL >= 1 else { throw ValidationError("--claim-ttl must be at least 1 second") }
        guard overlapLimit >= 1 else { throw ValidationError("--overlap-limit must be at least 1 second") }
        if metricsFile != nil, dryRun {
            throw ValidationError("--metrics-file records real runs; leave it out with --dry-run")
        }
        if let metricsInstance, !MetricsPush.isValidInstance(metricsInstance) {
            throw ValidationError(
                "--metrics-instance: '\(metricsInstance)' must be 1-128 letters, digits, '.', '_' or '-', e.g. shard-0-of-2")
        }
        if metricsInstance != nil, metricsPush == nil {
            throw ValidationError("--metrics-instance labels --metrics-push; give both")
        }
        if metricsPush != nil, dryRun { throw ValidationError("--metrics-push records real runs; leave it out with --dry-run") }
    }

    /// Reports the run to `--metrics-file` and `--metrics-push`, failed runs too; false
    /// when either failed (the run then exits 5).
    private func reportMetrics(_ outcome: MetricsReport.Outcome, asOf: Instant, zones: ZoneDatabase?,
                               logger: Logger) -> Bool {
        var destinations: [any MetricsDestination] = metricsFile.map { [$0] } ?? []
        if var metricsPush {
            metricsPush.instance = metricsInstance ?? MetricsPush.instanceName(shard: shard)
            destinations.append(metricsPush)
        }
        let connection = self.connection
        return MetricsReport.publishRun(outcome, asOf: asOf, zones: zones, shard: shard, binaryVersion: binaryVersion,
                                        to: destinations, openStore: { try connection.openStore(for: .readOnly) },
                                        logger: logger)
    }

    func run() throws {
        // A closed stdout must become a write error (lines stay in the outbox), not a kill.
        signal(SIGPIPE, SIG_IGN)
        MallocSettings.keepFreedMemoryForReuse()
        let stop = StopSignal()
        let logger = connection.makeLogger(label: "plan-regen.run")
        let progressLine = ProgressLine(output: standardError)
        let summary: RunSummary
        let runAsOf = asOf ?? wallClockNow()
        var loadedZones: ZoneDatabase?
        do {
            let zones: ZoneDatabase
            do {
                zones = try ZoneDatabase.loadSystem()
                loadedZones = zones
            } catch {
                throw RunError.timeZoneDatabase(reason: "\(error)")
            }
            let sink = try destination.sink()
            let webhook = try destination.webhook(userAgent: "plan-regen/\(binaryVersion)",
                                                  claimTTL: .seconds(claimTTL))
            #if PLAN_REGEN_FAULT_INJECTION
            sink.fault = try FaultInjection.fromEnvironment()
            #endif
            let runner = NightlyRunner(
                stores: connection.runStores(logger: logger),
                zones: zones,
                logger: logger, notifications: sink, report: .standardOutput(), webhook: webhook)
            var options = RunOptions(asOf: runAsOf)
            (options.manualUsers, options.dryRun, options.batchSize) = (users, dryRun, batchSize)
            (options.workers, options.shard) = (workers ?? WorkerThreads.defaultCount, shard)
            options.changeLookbackSeconds = changeLookback
            options.lateRowSweep = LateRowSweep(periodSeconds: sweepPeriod, wholeSweep: sweepAll)
            (options.rulesAtOnce, options.rulesRollback) = (rulesAtOnce, rulesRollback)
            options.binaryVersion = binaryVersion
            (options.claimTTL, options.overlapLimit) = (.seconds(claimTTL), .seconds(overlapLimit))
            options.asOfLeadLimit = allowFuture ? nil : .seconds(300)
            (options.stopRequested, options.progress) = ({ stop.isRequested }, progressLine.report)
            summary = try runner.run(options)
        } catch {
            progressLine.finish()
            _ = reportMetrics(.failed, asOf: runAsOf, zones: loadedZones, logger: logger)
            throw fail(error, logger: logger)
        }
        progressLine.finish()
        let c = summary.counts
        logger.notice("run finished", metadata: [
            "run_id": "\(summary.runID.map(String.init) ?? "dry-run")", "status": "\(summary.status.rawValue)",
            "partitions_held_by_others": "\(summary.heldByOthers.count)",
            "due": "\(c.due)", "created": "\(c.created)", "changed": "\(c.changed)",
            "unchanged": "\(c.unchanged)", "skipped_incomplete": "\(c.skippedIncomplete)",
            "rejected": "\(c.rejected)", "notifications": "\(c.notifications)",
            "unknown_users": "\(c.unknownUsers)", "found_late": "\(c.foundLate)",
            "left_to_newer_rules": "\(c.leftToNewerRules)", "duration_ms": "\(summary.durationMs)",
            "stopped_early": "\(summary.stoppedEarly)", "round_trips": "\(summary.roundTrips)",
            "notifications_pending": "\(summary.delivery?.pendingLines ?? 0)",
            "connections": "\(summary.connections)", "batches": "\(summary.batches)",
            "round_trips_per_batch": "\(summary.batches == 0 ? "0" : String(format: "%.1f", Double(summary.batchRoundTrips) / Double(summary.batches)))",
        ])
        let reported = reportMetrics(summary.stoppedEarly ? .stopped(summary) : .succeeded(summary), asOf: runAsOf,
                                     zones: loadedZones, logger: logger)
        if !reported { throw ExitCodes.metricsNotReported.exitCode }
        if summary.stoppedEarly { throw ExitCodes.stopped.exitCode }
        if summary.heldTooLong { throw ExitCodes.heldTooLong.exitCode }
        if summary.deliveryPending { throw ExitCodes.deliveryPending.exitCode }
        if !summary.unknownUsers.isEmpty { throw ExitCodes.unknownUsers.exitCode }
    }
}

extension ConnectionOptions {
    /// A run's stores, each on a connection of its own; `logger` warns of a missing index.
    func runStores(logger: Logger) -> RunStores {
        let connected = { @Sendable in PlanStore(connection: try connect(), timeouts: timeouts) }
        return RunStores(main: { access in
            let store = try openStore(for: access)
            if store.userSettingsIndexMissing { logger.warning("\(UserSettingsIndex.missingWarning)") }
            return store
        }, worker: connected, delivery: connected)
    }
}
