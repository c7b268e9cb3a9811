import NightlyRun
import PlanRules
import Foundation
import PlanStore
import Webhooks

/// What a run's metrics report beside its own counts: what users feel (how long the
/// longest-waiting due user has waited) and what the plans were computed with (the tz
/// database). Each part is nil when it could not be known (a run that failed before it
/// could ask the database, or load the tz database).
public struct MetricsContext: Sendable {
    /// The run's instant (`--as-of`, else the clock when it started). The due users'
    /// lateness is measured at it, as the run's own lateness histogram is, so a test that
    /// injects `--as-of` sees fixed values.
    public var asOf: Instant?
    /// The due users after the run (`PlanStore.dueBacklog`, over the run's partitions).
    public var due: DueBacklog?
    /// The tz database the run loaded: its version and age.
    public var zones: ZoneDatabase?
    /// Where the late-row sweep stands after the run (`PlanStore.sweepProgress`).
    public var sweep: SweepProgress?
    /// Refused batches and dead letters after the run (`PlanStore.deliveryBacklog`).
    public var delivery: DeliveryBacklog?

    public init(asOf: Instant? = nil, due: DueBacklog? = nil, zones: ZoneDatabase? = nil, sweep: SweepProgress? = nil) {
        self.asOf = asOf
        self.due = due
        self.zones = zones
        self.sweep = sweep
    }

    /// Due users after a run that completed are those it could not process: held by other
    /// runs, or in the partitions of a shard that does not run.
    func describe(finishedAt: Instant, into text: inout MetricsText) {
        if let due, let asOf {
            text.gauge("plan_regen_due_users",
                       "Users due at the last run's instant and still not planned after it (partitions it handled).",
                       [([:], "\(due.due)")])
            text.gauge("plan_regen_overdue_users",
                       "Of those, users due for longer than one timer period (15 minutes).",
                       [([:], "\(due.overdue)")])
            text.gauge("plan_regen_oldest_due_user_lateness_seconds",
                       "How long the longest-waiting due user had waited past their local midnight at the last run's instant (0: none).",
                       [([:], "\(due.oldestLatenessSeconds(at: asOf))")])
        }
        if let sweep, let asOf {
            if let age = sweep.ageSeconds(at: asOf) {
                text.gauge("plan_regen_late_row_sweep_age_seconds",
                           "Time since every user's row was last compared by the late-row sweep, at the last run's instant.",
                           [([:], "\(age)")])
            }
            if let period = sweep.periodSeconds {
                text.gauge("plan_regen_late_row_sweep_period_seconds",
                           "The late-row sweep's period (--sweep-period): every row is compared once per period.",
                           [([:], "\(period)")])
            }
        }
        if let delivery {
            Self.describe(delivery, into: &text)
        }
        if let zones {
            text.gauge("plan_regen_tzdata_info", "Release of the tz database the last run used (tzdata.zi's version line).",
                       [(["version": zones.version], "1")])
            if let modified = zones.sourceModifiedAt {
                text.gauge("plan_regen_tzdata_age_seconds",
                           "Age of the tz database the last run used: time since tzdata.zi was last modified (Debian: the package's release).",
                           [([:], "\(max(0, finishedAt.microsecondsSinceEpoch - modified.microsecondsSinceEpoch) / 1_000_000)")])
            }
        }
    }

    /// The outbox's refused batches and dead letters: an alert fires while either exists.
    static func describe(_ delivery: DeliveryBacklog, into text: inout MetricsText) {
        text.gauge("plan_regen_outbox_refused_batches",
                   "Pending notification batches the webhook receiver refused (a 4xx not retried): they wait for a fix or plan-regen deliver --set-aside.",
                   [([:], "\(delivery.refusedBatches)")])
        text.gauge("plan_regen_outbox_dead_letter_batches",
                   "Notification batches set aside by an operator (dead letters, never delivered; view notification_dead_letters).",
                   [([:], "\(delivery.deadLetterBatches)")])
        text.gauge("plan_regen_outbox_dead_letter_lines", "Notification lines in the batches set aside.",
                   [([:], "\(delivery.deadLetterLines)")])
    }

    /// What a process's delivery did (a run with a webhook, or `plan-regen deliver`).
    static func describe(_ report: DeliveryReport, into text: inout MetricsText) {
        text.gauge("plan_regen_last_delivery_requests", "Requests the last run (or deliver) sent to the notification destination.",
                   [([:], "\(report.requests)")])
        text.gauge("plan_regen_last_delivery_failures",
                   "Failed requests of the last run (or deliver), by class: timeout, connection, tls, http_408, http_429, http_5xx (retried), http_refused (not).",
                   DeliveryFailure.allCases.map { (["class": $0.rawValue], "\(report.failures[$0.rawValue] ?? 0)") })
        text.gauge("plan_regen_last_delivery_retries", "Requests the last run (or deliver) sent again after a failure.",
                   [([:], "\(report.retries)")])
        text.gauge("plan_regen_last_delivery_request_seconds", "Time the last run's (or deliver's) requests took in total.",
                   [([:], String(format: "%.3f", report.requestSeconds))])
        text.gauge("plan_regen_last_delivery_latency_seconds",
                   "The longest time a batch of the last run (or deliver) waited from its commit (or its takeover) to its acknowledgement.",
                   [([:], String(format: "%.3f", report.longestDeliverySeconds))])
        text.gauge("plan_regen_last_delivery_lines", "Notification lines the last run (or deliver) delivered, and left pending.",
                   [(["outcome": "delivered"], "\(report.deliveredLines)"), (["outcome": "pending"], "\(report.pendingLines)")])
    }

    /// A user due for longer than one timer period (15 minutes) is overdue: a healthy
    /// schedule picks every due user up at its next tick.
    public static let overdueAfterSeconds: Int64 = 15 * 60
}

extension MetricsFile {
    static func describeLateness(_ lateness: LatenessHistogram, into text: inout MetricsText) {
        text.histogram(
            "plan_regen_last_run_lateness_seconds",
            "Seconds from each due user's local midnight (the start of the plan date) to the last run's instant, for users due at a midnight (settings change, phase switch, birthday).",
            buckets: zip(LatenessHistogram.boundsSeconds, lateness.cumulativeCounts).map { ("\($0)", $1) },
            sum: fixedPointSeconds(lateness.sumMicroseconds), count: lateness.count)
    }
}

/// What earlier runs left for the next one to carry over: the end of the last completed
/// run and the failure count, read from the metrics text they wrote (the file, or the
/// Pushgateway's exposition of the group).
struct PreviousRuns: Equatable {
    /// `plan_regen_last_success_timestamp_seconds`, as written.
    var lastSuccess: String?
    var failures = 0

    /// Reads the samples whose labels include `labels` (the Pushgateway's `job` and
    /// `instance`; none in a metrics file). Text that is no metrics gives nothing.
    init(metricsText: String, labels: [String: String] = [:]) {
        for line in metricsText.split(separator: "\n") where !line.hasPrefix("#") {
            guard let sample = Sample(line), labels.allSatisfy({ sample.labels[$0.key] == $0.value }) else { continue }
            if sample.name == "plan_regen_last_success_timestamp_seconds", Double(sample.value) != nil {
                lastSuccess = sample.value
            } else if sample.name == "plan_regen_run_failures_total", let value = Double(sample.value) {
                failures = Int(value)
            }
        }
    }

    /// One line of Prometheus text: `name{label="value",…} value`.
    struct Sample {
        var name: Substring
        var labels: [String: String] = [:]
        var value: String

        init?(_ line: Substring) {
            guard let space = line.lastIndex(of: " ") else { return nil }
            value = String(line[line.index(after: space)...])
            let series = line[..<space]
            guard let brace = series.firstIndex(of: "{") else {
                name = series
                return
            }
            name = series[..<brace]
            var rest = series[series.index(after: brace)...]
            while let equals = rest.firstIndex(of: "=") {
                let key = rest[..<equals].drop { $0 == "," || $0 == " " }
                rest = rest[rest.index(after: equals)...]
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                var labelValue = ""
                var escaping = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaping {
                        labelValue.append(character == "n" ? "\n" : character)
                        escaping = false
                    } else if character == "\\" {
                        escaping = true
                    } else if character == "\"" {
                        break
                    } else {
                        labelValue.append(character)
                    }
                }
                labels[String(key)] = labelValue
            }
        }
    }
}
