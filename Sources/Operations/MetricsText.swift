import Foundation
import NightlyRun
import PlanRules
import PlanStore
import Webhooks

extension MetricsReport {
    /// The report in Prometheus text, carrying the last success and the failure count
    /// over from `previous` (what the destination held before).
    func text(previous: PreviousRuns) -> String {
        var text = MetricsText()
        text.gauge("plan_regen_build_info", "Version of the binary and of the plan rules.",
                   [(["version": binaryVersion, "rules_version": rulesVersion], "1")])
        if case .delivered(let delivery) = outcome {
            text.gauge("plan_regen_last_delivery_timestamp_seconds", "Unix time the last plan-regen deliver ended.",
                       [([:], Self.seconds(finishedAt))])
            Self.describe(delivery, into: &text)
        } else {
            describeRun(previous: previous, into: &text)
        }
        if let backlog {
            text.gauge("plan_regen_outbox_pending", "Notification lines committed but not yet emitted.",
                       [([:], "\(backlog.pendingLines)")])
            text.gauge("plan_regen_outbox_oldest_pending_age_seconds",
                       "Age of the oldest pending notification line (0 when none is pending).",
                       [([:], "\(backlog.oldestPendingCreatedAt.map { Self.wholeSeconds(from: $0, to: finishedAt) } ?? 0)")])
        }
        // Due users after a run that completed are those it could not process: held by
        // other runs, or in the partitions of a shard that does not run.
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
        // Refused batches and dead letters: an alert fires while either exists.
        if let backlog {
            text.gauge("plan_regen_outbox_refused_batches",
                       "Pending notification batches the webhook receiver refused (a 4xx not retried): they wait for a fix or plan-regen deliver --set-aside.",
                       [([:], "\(backlog.refusedBatches)")])
            text.gauge("plan_regen_outbox_dead_letter_batches",
                       "Notification batches set aside by an operator (dead letters, never delivered; view notification_dead_letters).",
                       [([:], "\(backlog.deadLetterBatches)")])
            text.gauge("plan_regen_outbox_dead_letter_lines", "Notification lines in the batches set aside.",
                       [([:], "\(backlog.deadLetterLines)")])
        }
        if let zones {
            text.gauge("plan_regen_tzdata_info", "Release of the tz database the last run used (tzdata.zi's version line).",
                       [(["version": zones.version], "1")])
            if let modified = zones.sourceModifiedAt {
                text.gauge("plan_regen_tzdata_age_seconds",
                           "Age of the tz database the last run used: time since tzdata.zi was last modified (Debian: the package's release).",
                           [([:], "\(Self.wholeSeconds(from: modified, to: finishedAt))")])
            }
        }
        return text.output
    }

    /// How the run ended, and what it carries over from `previous`.
    private func describeRun(previous: PreviousRuns, into text: inout MetricsText) {
        text.gauge("plan_regen_last_run_timestamp_seconds", "Unix time the last run ended.",
                   [([:], Self.seconds(finishedAt))])
        var summary: RunSummary?
        var lastSuccess = previous.lastSuccess
        var failures = previous.failures
        var succeeded = false
        switch outcome {
        case .succeeded(let finished):
            summary = finished
            // Users left unprocessed for longer than the overlap limit are no success.
            succeeded = !finished.heldTooLong
            if succeeded { lastSuccess = Self.seconds(finishedAt) }
        case .stopped(let finished):
            summary = finished
        case .failed, .delivered:
            failures += 1
        }
        text.gauge("plan_regen_last_run_success",
                   "1 if the last run completed, else 0 (failed, stopped, or partitions held by another run too long).",
                   [([:], succeeded ? "1" : "0")])
        text.gauge("plan_regen_last_run_stopped_early", "1 if SIGTERM/SIGINT stopped the last run between batches.",
                   [([:], { if case .stopped = outcome { "1" } else { "0" } }())])
        if let lastSuccess {
            text.gauge("plan_regen_last_success_timestamp_seconds", "Unix time the last completed run ended.",
                       [([:], lastSuccess)])
        }
        text.counter("plan_regen_run_failures_total", "Runs that ended with an error (exit code 1), ever.",
                     [([:], "\(failures)")])
        guard let summary else { return }
        let counts = summary.counts
        text.gauge("plan_regen_last_run_duration_seconds", "Wall time of the last run.",
                   [([:], Self.fixedPointSeconds(summary.durationMs * 1000))])
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
        text.histogram(
            "plan_regen_last_run_lateness_seconds",
            "Seconds from each due user's local midnight (the start of the plan date) to the last run's instant, for users due at a midnight (settings change, phase switch, birthday).",
            buckets: zip(LatenessHistogram.boundsSeconds, counts.lateness.cumulativeCounts).map { ("\($0)", $1) },
            sum: Self.fixedPointSeconds(counts.lateness.sumMicroseconds), count: counts.lateness.count)
        if let delivery = summary.delivery { Self.describe(delivery, into: &text) }
    }

    /// What a process's delivery did (a run with a webhook, or `plan-regen deliver`).
    private static func describe(_ report: DeliveryReport, into text: inout MetricsText) {
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

    /// Whole seconds from `start` to `end`, 0 when `end` is earlier.
    private static func wholeSeconds(from start: Instant, to end: Instant) -> Int64 {
        max(0, end.microsecondsSinceEpoch - start.microsecondsSinceEpoch) / 1_000_000
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
