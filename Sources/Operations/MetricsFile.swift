import Foundation
import LineOutput
import NightlyRun
import PlanRules
import PlanStore

/// `--metrics-file PATH`: the state of the last run in Prometheus text format, for the
/// node_exporter textfile collector (point its `--collector.textfile.directory` at the
/// folder and name the file `*.prom`).
///
/// Written atomically (a temporary file in the same folder, then `rename`) so the
/// collector never reads half a file, after every run — failed ones too. A failed run
/// keeps the previous file's `plan_regen_last_success_timestamp_seconds` and adds one to
/// `plan_regen_run_failures_total`, so "no success for an hour" is one alert rule:
///
///     time() - plan_regen_last_success_timestamp_seconds > 3600
///
/// One file per process: give each `--shard` its own path.
public struct MetricsFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// How the run ended.
    public enum Outcome: Sendable {
        /// Completed (rejected rows included).
        case succeeded(RunSummary)
        /// Stopped early by SIGTERM/SIGINT after committing the batches it had done.
        case stopped(RunSummary)
        /// Ended by an error; nothing half-done was committed.
        case failed
    }

    /// Writes the metrics of a run that ended at `finishedAt`. `backlog` is nil when the
    /// database could not be asked (the failure may be the database itself); `context`
    /// holds the rest of what was observed (due users, tz database).
    public func write(_ outcome: Outcome, finishedAt: Instant, backlog: OutboxBacklog?,
                      binaryVersion: String, context: MetricsContext = MetricsContext()) throws {
        try replaceAtomically(with: Self.text(
            outcome, finishedAt: finishedAt, backlog: backlog, binaryVersion: binaryVersion, context: context,
            previous: PreviousRuns(metricsText: FileManager.default.contents(atPath: path)
                .map { String(decoding: $0, as: UTF8.self) } ?? "")))
    }

    /// The Prometheus text of a run's metrics, carrying the last success and the failure
    /// count over from `previous` (the file before, or the Pushgateway's group).
    static func text(_ outcome: Outcome, finishedAt: Instant, backlog: OutboxBacklog?, binaryVersion: String,
                     context: MetricsContext, previous: PreviousRuns) -> String {
        var text = MetricsText()
        text.gauge("plan_regen_build_info", "Version of the binary and of the plan rules.",
                   [(["version": binaryVersion, "rules_version": rulesVersion], "1")])
        text.gauge("plan_regen_last_run_timestamp_seconds", "Unix time the last run ended.",
                   [([:], seconds(finishedAt))])
        let summary: RunSummary?
        var lastSuccess = previous.lastSuccess
        var failures = previous.failures
        switch outcome {
        case .succeeded(let finished):
            summary = finished
            // Users left unprocessed for longer than the overlap limit are no success.
            if !finished.heldTooLong { lastSuccess = seconds(finishedAt) }
        case .stopped(let finished):
            summary = finished
        case .failed:
            summary = nil
            failures += 1
        }
        text.gauge("plan_regen_last_run_success",
                   "1 if the last run completed, else 0 (failed, stopped, or partitions held by another run too long).",
                   [([:], { if case .succeeded(let s) = outcome, !s.heldTooLong { "1" } else { "0" } }())])
        text.gauge("plan_regen_last_run_stopped_early", "1 if SIGTERM/SIGINT stopped the last run between batches.",
                   [([:], { if case .stopped = outcome { "1" } else { "0" } }())])
        if let lastSuccess {
            text.gauge("plan_regen_last_success_timestamp_seconds", "Unix time the last completed run ended.",
                       [([:], lastSuccess)])
        }
        text.counter("plan_regen_run_failures_total", "Runs that ended with an error (exit code 1), ever.",
                     [([:], "\(failures)")])
        if let summary { describe(summary, into: &text) }
        if let backlog { describe(backlog, finishedAt: finishedAt, into: &text) }
        context.describe(finishedAt: finishedAt, into: &text)
        return text.output
    }

    /// Writes the metrics of a `plan-regen deliver` (its own file: a run's file would lose
    /// the run's metrics): what it sent, and what waits after it.
    public func writeDelivery(_ report: DeliveryReport, backlog: DeliveryBacklog, finishedAt: Instant,
                              binaryVersion: String) throws {
        try replaceAtomically(with: Self.deliveryText(report, backlog: backlog, finishedAt: finishedAt,
                                                      binaryVersion: binaryVersion))
    }

    static func deliveryText(_ report: DeliveryReport, backlog: DeliveryBacklog, finishedAt: Instant,
                             binaryVersion: String) -> String {
        var text = MetricsText()
        text.gauge("plan_regen_build_info", "Version of the binary and of the plan rules.",
                   [(["version": binaryVersion, "rules_version": rulesVersion], "1")])
        text.gauge("plan_regen_last_delivery_timestamp_seconds", "Unix time the last plan-regen deliver ended.",
                   [([:], seconds(finishedAt))])
        MetricsContext.describe(report, into: &text)
        describe(OutboxBacklog(pending: backlog.pendingLines, oldestCreatedAt: backlog.oldestPendingCreatedAt),
                 finishedAt: finishedAt, into: &text)
        MetricsContext.describe(backlog, into: &text)
        return text.output
    }

    /// The lines waiting to be emitted, and how long the oldest has waited at `finishedAt`.
    private static func describe(_ backlog: OutboxBacklog, finishedAt: Instant, into text: inout MetricsText) {
        text.gauge("plan_regen_outbox_pending", "Notification lines committed but not yet emitted.",
                   [([:], "\(backlog.pending)")])
        let age = backlog.oldestCreatedAt.map {
            max(0, finishedAt.microsecondsSinceEpoch - $0.microsecondsSinceEpoch) / 1_000_000
        } ?? 0
        text.gauge("plan_regen_outbox_oldest_pending_age_seconds",
                   "Age of the oldest pending notification line (0 when none is pending).",
                   [([:], "\(age)")])
    }

    private static func describe(_ summary: RunSummary, into text: inout MetricsText) {
        let counts = summary.counts
        text.gauge("plan_regen_last_run_duration_seconds", "Wall time of the last run.",
                   [([:], fixedPointSeconds(summary.durationMs * 1000))])
        let outcomes: [(String, Int)] = [
            ("due", counts.due), ("created", counts.created), ("changed", counts.changed),
            ("unchanged", counts.unchanged), ("skipped_incomplete", counts.skippedIncomplete),
            ("rejected", counts.rejected), ("unknown_user", counts.unknownUsers),
        ]
        text.gauge("plan_regen_last_run_users", "Users of the last run by outcome (due: regenerated for any reason).",
                   outcomes.map { (["outcome": $0.0], "\($0.1)") })
        text.gauge("plan_regen_last_run_users_by_reason",
                   "Users the last run regenerated, per due reason (a user counts under each reason that held).",
                   DueReason.allCases.map { (["reason": $0.rawValue], "\(counts.usersByReason[$0.rawValue] ?? 0)") })
        text.gauge("plan_regen_last_run_rejections", "Rejection rows the last run recorded, per settings field.",
                   SettingsField.allCases.map {
                       (["field": $0.rawValue], "\(counts.rejectionsByField[$0.rawValue] ?? 0)")
                   })
        text.gauge("plan_regen_last_run_users_found_late",
                   "Users the last run found by the late-row sweep: rows older than the change watermark when they became visible (imports, restores, late syncs).",
                   [([:], "\(counts.foundLate)")])
        text.gauge("plan_regen_last_run_users_left_to_newer_rules",
                   "Due users the last run left because a newer rules version made their plan (never replaced by an older binary).",
                   [([:], "\(counts.leftToNewerRules)")])
        text.gauge("plan_regen_last_run_notifications", "Notifications the last run created.",
                   [([:], "\(counts.notifications)")])
        text.gauge("plan_regen_last_run_unknown_unit_system",
                   "Notifications of the last run whose user's unit_system was neither metric nor imperial (units from the locale).",
                   [([:], "\(counts.unknownUnitSystems)")])
        text.gauge("plan_regen_last_run_skipped_partitions",
                   "User partitions other runs held, whose users the last run left to them.",
                   [([:], "\(summary.skippedPartitions.count)")])
        text.gauge("plan_regen_last_run_held_too_long",
                   "1 if another run has held user partitions for longer than --overlap-limit (users not processed; exit 4).",
                   [([:], summary.heldTooLong ? "1" : "0")])
        text.gauge("plan_regen_last_run_oldest_claim_of_others_seconds",
                   "How long the oldest claim of another run on partitions the last run wanted had been held (0: none).",
                   [([:], "\((summary.heldByOthers.map(\.heldForMs).max() ?? 0) / 1000)")])
        describeLateness(counts.lateness, into: &text)
        if let delivery = summary.delivery { MetricsContext.describe(delivery, into: &text) }
    }

    private func replaceAtomically(with text: String) throws {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        // A dot name without .prom: the collector ignores it while it is being written.
        let temporary = (folder.isEmpty ? "" : folder + "/") + ".\(name).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw MetricsFileError(path: path, step: "create \(temporary)", errno: errno) }
        if let code = LineWriter.writeAll(Array(text.utf8), to: fd) {
            close(fd)
            unlink(temporary)
            throw MetricsFileError(path: path, step: "write \(temporary)", errno: code)
        }
        if fsync(fd) != 0 || close(fd) != 0 {
            let code = errno
            unlink(temporary)
            throw MetricsFileError(path: path, step: "flush \(temporary)", errno: code)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw MetricsFileError(path: path, step: "rename \(temporary) to it", errno: code)
        }
    }

    /// Unix seconds with milliseconds, e.g. `1795334400.125`.
    static func seconds(_ instant: Instant) -> String {
        fixedPointSeconds(instant.microsecondsSinceEpoch)
    }

    static func fixedPointSeconds(_ microseconds: Int64) -> String {
        let milliseconds = microseconds / 1000
        let (whole, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let digits = String(abs(fraction))
        return "\(whole).\(String(repeating: "0", count: 3 - digits.count))\(digits)"
    }
}

/// Why the metrics file could not be written.
public struct MetricsFileError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var step: String
    public var reason: String

    init(path: String, step: String, errno code: Int32) {
        self.path = path
        self.step = step
        self.reason = String(cString: strerror(code))
    }

    public var description: String {
        "cannot write metrics file \(path) (\(step)): \(reason); check that its folder exists and is writable"
    }
}

/// Builds Prometheus text exposition format 0.0.4: `# HELP`, `# TYPE`, then samples.
struct MetricsText {
    private(set) var output = ""

    mutating func gauge(_ name: String, _ help: String, _ samples: [([String: String], String)]) {
        family(name, "gauge", help, samples)
    }

    mutating func counter(_ name: String, _ help: String, _ samples: [([String: String], String)]) {
        family(name, "counter", help, samples)
    }

    /// A histogram: cumulative `_bucket` counts per upper bound (`+Inf` added), `_sum`
    /// and `_count`.
    mutating func histogram(_ name: String, _ help: String, buckets: [(upperBound: String, count: Int)],
                            sum: String, count: Int) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for bucket in buckets + [("+Inf", count)] {
            output += "\(name)_bucket{le=\"\(escaped(bucket.upperBound))\"} \(bucket.count)\n"
        }
        output += "\(name)_sum \(sum)\n\(name)_count \(count)\n"
    }

    private mutating func family(_ name: String, _ type: String, _ help: String,
                                 _ samples: [([String: String], String)]) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        for (labels, value) in samples {
            output += name
            if !labels.isEmpty {
                output += "{" + labels.keys.sorted().map { "\($0)=\"\(escaped(labels[$0]!))\"" }
                    .joined(separator: ",") + "}"
            }
            output += " \(value)\n"
        }
    }

    /// Label values escape backslash, double quote and line feed.
    private func escaped(_ value: String) -> String {
        value.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").replacingAll("\n", with: "\\n")
    }
}
