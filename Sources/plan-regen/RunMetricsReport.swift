import ArgumentParser
import Logging
import NightlyRun
import Operations
import PlanRules
import PlanStore

extension RunCommand {
    /// `--metrics-instance` must be a valid label value, and labels `--metrics-push`;
    /// neither goes with `--dry-run`, which records no run.
    func validateMetricsPush() throws {
        if let metricsInstance, !MetricsPush.isValidInstance(metricsInstance) {
            throw ValidationError(
                "--metrics-instance: '\(metricsInstance)' must be 1-128 letters, digits, '.', '_' or '-', e.g. shard-0-of-2")
        }
        guard metricsPush != nil else {
            if metricsInstance != nil { throw ValidationError("--metrics-instance labels --metrics-push; give both") }
            return
        }
        if dryRun { throw ValidationError("--metrics-push records real runs; leave it out with --dry-run") }
    }

    /// Writes `--metrics-file` and pushes to `--metrics-push`, as asked, failed runs too.
    /// Returns false when either failed (logged at error): the run then exits 5, so a
    /// monitoring blind spot does not pass for success.
    func reportMetrics(_ outcome: MetricsFile.Outcome, asOf: Instant, zones: ZoneDatabase?, logger: Logger) -> Bool {
        guard metricsFile != nil || metricsPush != nil else { return true }
        var backlog: OutboxBacklog?
        var context = MetricsContext(asOf: asOf, zones: zones)
        if case .failed = outcome {
            backlog = nil  // the failure may be the database itself
        } else {
            do {
                let store = try connection.openStore(for: .readOnly)
                backlog = try store.outboxBacklog()
                let partitions = shard.map { UserPartitions.forShard(index: $0.index, of: $0.count) }
                context.due = try store.dueBacklog(
                    asOf: asOf, overdueAfterSeconds: MetricsContext.overdueAfterSeconds, partitions: partitions)
                context.sweep = try store.sweepProgress(partitions: partitions)
                context.delivery = try store.deliveryBacklog()
            } catch {
                logger.warning("metrics written without the outbox backlog or the due users", metadata: ["error": "\(error)"])
            }
        }
        let finishedAt = wallClockNow()
        var reported = true
        func record(_ write: () throws -> Void) {
            do {
                try write()
            } catch {
                logger.error("\(error)")
                reported = false
            }
        }
        record { try metricsFile?.write(outcome, finishedAt: finishedAt, backlog: backlog, binaryVersion: binaryVersion,
                                        context: context) }
        if var metricsPush {
            metricsPush.instance = metricsInstance ?? MetricsPush.instanceName(shard: shard)
            record { try metricsPush.push(outcome, finishedAt: finishedAt, backlog: backlog, binaryVersion: binaryVersion,
                                          context: context) }
        }
        return reported
    }
}
