import Logging
import NightlyRun
import PlanRules
import PlanStore

/// What a run or a `plan-regen deliver` reports to monitoring, gathered once (`run`,
/// `delivery`), rendered once as Prometheus text (`text(previous:)`, MetricsText.swift)
/// and handed to each `MetricsDestination`: the metrics file, the Pushgateway.
///
/// A failed run is reported too, keeping the last success and counting the failure, so
/// "no success for an hour" is one alert rule:
///
///     time() - plan_regen_last_success_timestamp_seconds > 3600
public struct MetricsReport: Sendable {
    /// How the process ended.
    public enum Outcome: Sendable {
        /// The run completed (rejected rows included).
        case succeeded(RunSummary)
        /// SIGTERM/SIGINT stopped the run early, after committing the batches it had done.
        case stopped(RunSummary)
        /// An error ended the run; nothing half-done was committed.
        case failed
        /// `plan-regen deliver` delivered what was pending (its own file: a run's metrics
        /// would be lost in it).
        case delivered(DeliveryReport)
    }

    public var outcome: Outcome
    /// When the process ended, as the metrics say it (`plan_regen_last_run_timestamp_seconds`).
    public var finishedAt: Instant
    public var binaryVersion: String
    /// The run's instant (`--as-of`, else the clock when it started). The due users'
    /// lateness and the sweep's age are measured at it, as the run's own lateness
    /// histogram is, so a test that injects `--as-of` sees fixed values.
    public var asOf: Instant?
    /// The tz database the run loaded: its version and age.
    public var zones: ZoneDatabase?
    /// What waits for delivery after the process (`PlanStore.deliveryBacklog`).
    public var backlog: DeliveryBacklog?
    /// The users due after the run, over its partitions (`PlanStore.dueBacklog`).
    public var due: DueBacklog?
    /// Where the late-row sweep of the run's partitions stands (`PlanStore.sweepProgress`).
    public var sweep: SweepProgress?

    /// Each part but the outcome is nil when it could not be known: a run that failed
    /// before it could ask the database (the failure may be the database itself) or load
    /// the tz database.
    public init(_ outcome: Outcome, finishedAt: Instant, binaryVersion: String, asOf: Instant? = nil,
                zones: ZoneDatabase? = nil, backlog: DeliveryBacklog? = nil) {
        self.outcome = outcome
        self.finishedAt = finishedAt
        self.binaryVersion = binaryVersion
        self.asOf = asOf
        self.zones = zones
        self.backlog = backlog
    }

    /// A user due for longer than one timer period (15 minutes) is overdue: a healthy
    /// schedule picks every due user up at its next tick.
    public static let overdueAfterSeconds: Int64 = 15 * 60

    /// Reports a run to `destinations` (none: nothing is asked of the database). What
    /// waits after a run that did not fail is read from a store `openStore` opens, over
    /// the partitions of `shard` (or all); a query that fails leaves its part out, logged
    /// at warning. Returns false when a destination failed (logged at error): the run
    /// then exits 5, so a monitoring blind spot does not pass for success.
    public static func publishRun(_ outcome: Outcome, asOf: Instant, zones: ZoneDatabase?, shard: Shard?,
                                  binaryVersion: String, to destinations: [any MetricsDestination],
                                  openStore: () throws -> PlanStore, logger: Logger) -> Bool {
        guard !destinations.isEmpty else { return true }
        var report = MetricsReport(outcome, finishedAt: asOf, binaryVersion: binaryVersion, asOf: asOf, zones: zones)
        if case .failed = outcome {} else {
            do {
                let store = try openStore()
                report.backlog = try store.deliveryBacklog()
                let partitions = shard.map { UserPartitions.forShard(index: $0.index, of: $0.count) }
                report.due = try store.dueBacklog(asOf: asOf, overdueAfterSeconds: overdueAfterSeconds,
                                                  partitions: partitions)
                report.sweep = try store.sweepProgress(partitions: partitions)
            } catch {
                logger.warning("metrics written without the outbox backlog or the due users", metadata: ["error": "\(error)"])
            }
        }
        report.finishedAt = wallClockNow()
        return report.publish(to: destinations, logger: logger)
    }

    /// Reports a `plan-regen deliver` to `destinations`, with what waits after it in
    /// `store`. Returns false when the backlog could not be read or a destination failed
    /// (logged at error).
    public static func publishDelivery(_ delivery: DeliveryReport, store: PlanStore, binaryVersion: String,
                                       to destinations: [any MetricsDestination], logger: Logger) -> Bool {
        guard !destinations.isEmpty else { return true }
        do {
            let backlog = try store.deliveryBacklog()
            return MetricsReport(.delivered(delivery), finishedAt: wallClockNow(), binaryVersion: binaryVersion,
                                 backlog: backlog).publish(to: destinations, logger: logger)
        } catch {
            logger.error("\(error)")
            return false
        }
    }

    /// Hands the report to every destination, even after one failed.
    private func publish(to destinations: [any MetricsDestination], logger: Logger) -> Bool {
        var published = true
        for destination in destinations {
            do {
                try write(to: destination)
            } catch {
                logger.error("\(error)")
                published = false
            }
        }
        return published
    }

    /// Replaces what `destination` holds with this report.
    public func write(to destination: any MetricsDestination) throws {
        var previous = PreviousRuns(metricsText: "")
        // A delivery's metrics carry nothing over from earlier processes.
        if case .delivered = outcome {} else { previous = try destination.previousRuns() }
        try destination.replace(with: text(previous: previous))
    }
}

/// Where the metrics of a report go. Each holds the last report only, and what a failed
/// run carries over from earlier ones (`PreviousRuns`) is read back from it.
public protocol MetricsDestination: Sendable {
    /// The last success and the failure count the destination holds.
    func previousRuns() throws -> PreviousRuns
    /// Replaces what the destination holds with `text`, whole.
    func replace(with text: String) throws
}
