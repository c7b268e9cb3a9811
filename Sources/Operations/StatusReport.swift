import Foundation
import PlanRules
import PlanStore

/// `plan-regen status`: the job's state on one screen for ops, or as JSON for scripts.
///
/// Read with the same store queries the run's metrics use (`dueBacklog`, `deliveryBacklog`),
/// so the screen and the dashboards agree. Only reads: it works on a hot standby.
public struct StatusReport: JSONReport, Sendable {
    /// The instant the report describes (`--as-of`, else now), RFC 3339.
    public var at: String
    public var versions: Versions
    /// When the last completed run (`succeeded` or `held_by_others`) ended; nil if none has.
    public var lastSuccess: String?
    public var lastSuccessAgeSeconds: Int64?
    public var users: DueUsers
    public var outbox: Outbox
    public var lateRowSweep: LateRowSweep
    public var rulesRollout: RulesRollout
    public var rejectionsLastDay: Rejections
    /// Newest first.
    public var runs: [Run]

    public struct Versions: Encodable, Sendable {
        public var binary: String
        public var rules: String
        /// The last migration of this binary, which the database has (the store checks it on open).
        public var schema: String
        /// The tz database's release, or nil when it could not be loaded (`tzdataError` says why).
        public var tzdata: String?
        public var tzdataAgeDays: Int64?
        public var tzdataError: String?
    }

    public struct DueUsers: Encodable, Sendable {
        public var due: Int
        public var overdue: Int
        public var overdueAfterSeconds: Int64
        /// When the longest-waiting due user became due (their local midnight), if any is.
        public var oldestDueAt: String?
        public var oldestLatenessSeconds: Int64
    }

    public struct Outbox: Encodable, Sendable {
        public var pending: Int
        public var oldestPendingAgeSeconds: Int64
    }

    /// Where the late-row sweep stands: rows older than the change watermark are found
    /// within one period (plus the time between runs) of their commit.
    public struct LateRowSweep: Encodable, Sendable {
        public var periodSeconds: Int64?
        /// When every partition's rows were last all compared; nil until each has been.
        public var lastWholeSweep: String?
        public var lastWholeSweepAgeSeconds: Int64?
        public var partitionsNeverSwept: Int
    }

    /// The binary's rules version against the users' (plan-rules.md section 2.1).
    public struct RulesRollout: Encodable, Sendable {
        /// When this binary's version started to roll out; nil when none was recorded.
        public var rolloutStart: String?
        /// Users per rules version of their latest evaluation.
        public var usersPerVersion: [String: Int]
        /// Users whose latest evaluation a newer version made: this binary leaves them.
        public var usersOfNewerVersions: Int
        /// While this binary's version rolls out: users whose current plan an older version
        /// made, waiting for their local midnight (not due before it). Nil without a rollout.
        public var usersWaitingForRolloutMidnight: Int?
    }

    public struct Rejections: Encodable, Sendable {
        public var total: Int
        public var byField: [String: Int]
    }

    public struct Run: Encodable, Sendable {
        public var runID: Int64
        public var status: String
        public var asOf: String
        public var startedAt: String
        public var finishedAt: String?
        public var durationMs: Int64?
        public var shard: String?
        public var requestedUsers: Int?
        public var due: Int
        public var created: Int
        public var changed: Int
        public var unchanged: Int
        public var skippedIncomplete: Int
        public var rejected: Int
        public var notifications: Int
        public var unknownUsers: Int
        public var foundLate: Int
        public var partitionsHeldByOthers: Int
        public var host: String?
        public var error: String?
    }

    /// Asks `store` (opened read-only) about the job at `now`.
    public static func gather(from store: PlanStore, at now: Instant, zones: Result<ZoneDatabase, any Error>,
                              binaryVersion: String, runs limit: Int) throws -> StatusReport {
        let due = try store.dueBacklog(asOf: now, overdueAfterSeconds: MetricsReport.overdueAfterSeconds)
        let outbox = try store.deliveryBacklog()
        let rejections = try store.rejectionsByField(since: now.adding(seconds: -86_400))
        let lastSuccess = try store.lastSuccessfulRunEnd()
        let sweep = try store.sweepProgress()
        let rulesVersions = try store.usersPerRulesVersion()
        let perVersion = rulesVersions.latestEvaluation
        let rollout = try store.rulesRollouts().first { $0.rulesVersion == rulesVersion }
        let zoneDatabase = try? zones.get()
        return StatusReport(
            at: text(now),
            versions: Versions(
                binary: binaryVersion, rules: rulesVersion, schema: Migration.planRegen.last?.name ?? "none",
                tzdata: zoneDatabase?.version,
                tzdataAgeDays: zoneDatabase?.sourceModifiedAt.map { seconds(from: $0, to: now) / 86_400 },
                tzdataError: { if case .failure(let error) = zones { "\(error)" } else { nil } }()),
            // No age when the success came after the instant asked about (`--as-of` in the past).
            lastSuccess: lastSuccess.map(text),
            lastSuccessAgeSeconds: lastSuccess.flatMap { $0 <= now ? seconds(from: $0, to: now) : nil },
            users: DueUsers(due: due.due, overdue: due.overdue, overdueAfterSeconds: MetricsReport.overdueAfterSeconds,
                            oldestDueAt: due.oldestDueAt.map(text), oldestLatenessSeconds: due.oldestLatenessSeconds(at: now)),
            outbox: Outbox(pending: outbox.pendingLines,
                           oldestPendingAgeSeconds: outbox.oldestPendingCreatedAt.map { seconds(from: $0, to: now) } ?? 0),
            lateRowSweep: LateRowSweep(
                periodSeconds: sweep.periodSeconds, lastWholeSweep: sweep.oldestCompletedAt.map(text),
                lastWholeSweepAgeSeconds: sweep.oldestCompletedAt.flatMap { $0 <= now ? seconds(from: $0, to: now) : nil },
                partitionsNeverSwept: sweep.partitions - sweep.partitionsSwept),
            rulesRollout: RulesRollout(
                rolloutStart: rollout.map { text($0.startedAt) }, usersPerVersion: perVersion,
                usersOfNewerVersions: perVersion.filter { $0.key != "none" && RulesVersionStanding(of: $0.key) == .newer }
                    .values.reduce(0, +),
                usersWaitingForRolloutMidnight: rollout.map { _ in
                    rulesVersions.currentPlan.filter { RulesVersionStanding(of: $0.key) == .older }.values.reduce(0, +)
                }),
            rejectionsLastDay: Rejections(total: rejections.values.reduce(0, +), byField: rejections),
            runs: try store.recentRuns(limit: limit).map { run in
                Run(runID: run.runID, status: run.status, asOf: text(run.asOf), startedAt: text(run.startedAt),
                    finishedAt: run.finishedAt.map(text), durationMs: run.durationMs, shard: run.shard,
                    requestedUsers: run.requestedUsers, due: run.counts.due, created: run.counts.created,
                    changed: run.counts.changed, unchanged: run.counts.unchanged,
                    skippedIncomplete: run.counts.skippedIncomplete, rejected: run.counts.rejected,
                    notifications: run.counts.notifications, unknownUsers: run.counts.unknownUsers,
                    foundLate: run.counts.foundLate, partitionsHeldByOthers: run.partitionsHeldByOthers, host: run.host, error: run.error)
            })
    }

    /// The screen for people.
    public func text() -> String {
        var lines = ["plan-regen status at \(at)", ""]
        let tz = versions.tzdata.map { version in
            "tz database \(version)" + (versions.tzdataAgeDays.map { " (\($0) days old)" } ?? "")
        } ?? "tz database unreadable: \(versions.tzdataError ?? "?")"
        lines.append(row("versions", "binary \(versions.binary) · rules \(versions.rules) · schema \(versions.schema) · \(tz)"))
        lines.append(row("last success", lastSuccess.map { success in
            success + (lastSuccessAgeSeconds.map { " (\(Self.duration($0)) ago)" } ?? "")
        } ?? "none recorded"))
        var due = "\(users.due) due now, \(users.overdue) overdue (due for more than "
            + "\(Self.duration(users.overdueAfterSeconds)))"
        if let oldest = users.oldestDueAt {
            due += "; the longest-waiting since \(oldest), \(Self.duration(users.oldestLatenessSeconds)) past their midnight"
        }
        lines.append(row("users", due))
        lines.append(row("outbox", outbox.pending == 0 ? "no line pending"
            : "\(outbox.pending) lines pending, the oldest for \(Self.duration(outbox.oldestPendingAgeSeconds))"))
        var lateRows = "\(lateRowSweep.partitionsNeverSwept) of \(UserPartitions.count) partitions never swept whole: "
            + "the next scheduled run compares all of their rows"
        if let last = lateRowSweep.lastWholeSweep {
            let period = lateRowSweep.periodSeconds.map { Self.duration($0) } ?? "?"
            let age = lateRowSweep.lastWholeSweepAgeSeconds.map { " (\(Self.duration($0)) ago)" } ?? ""
            lateRows = "every row compared once per \(period); the last whole sweep ended \(last)\(age)"
        }
        lines.append(row("late rows", lateRows))
        let perVersion = rulesRollout.usersPerVersion.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        var rules = "users per rules version of their latest evaluation: "
            + (perVersion.isEmpty ? "none yet" : perVersion.joined(separator: ", "))
        if let start = rulesRollout.rolloutStart {
            rules += "; \(versions.rules) rolling out since \(start) (each user at their next local midnight)"
            if let waiting = rulesRollout.usersWaitingForRolloutMidnight {
                rules += ", \(waiting) still waiting for it"
            }
        }
        if rulesRollout.usersOfNewerVersions > 0 {
            rules += "; \(rulesRollout.usersOfNewerVersions) on newer rules, left alone by this binary"
        }
        lines.append(row("rules", rules))
        let fields = rejectionsLastDay.byField.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        lines.append(row("rejections", "\(rejectionsLastDay.total) in the last 24 h"
            + (fields.isEmpty ? "" : ": " + fields.joined(separator: ", "))))
        lines.append("")
        guard !runs.isEmpty else {
            lines.append("No runs recorded yet.")
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append("last \(runs.count) runs, newest first")
        let header = ["run", "status", "as of", "duration", "due", "created", "changed", "unchanged",
                      "incomplete", "rejected", "late", "notified", "held", "scope"]
        let table = runs.map { run -> [String] in
            [String(run.runID), run.status, run.asOf, run.durationMs.map { Self.duration(milliseconds: $0) } ?? "-",
             String(run.due), String(run.created), String(run.changed), String(run.unchanged),
             String(run.skippedIncomplete), String(run.rejected), String(run.foundLate), String(run.notifications),
             String(run.partitionsHeldByOthers),
             run.shard.map { "shard \($0)" } ?? run.requestedUsers.map { "\($0) users" } ?? "all"]
        }
        let widths = header.indices.map { column in ([header] + table).map { $0[column].count }.max() ?? 0 }
        let leftAligned: Set<Int> = [1, 2, 13]
        for cells in [header] + table {
            var line = cells.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - cells[column].count)
                return leftAligned.contains(column) ? cells[column] + padding : padding + cells[column]
            }.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
        }
        for run in runs {
            if let error = run.error { lines.append("run \(run.runID) \(run.status): \(error.prefix(300))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func row(_ title: String, _ value: String) -> String {
        title.padding(toLength: 14, withPad: " ", startingAt: 0) + value
    }

    /// `2 h 15 min`, `45 s`, `3 d 4 h`, `1 h`: the largest unit and the next one (if not 0).
    static func duration(_ seconds: Int64) -> String {
        let units: [(name: String, size: Int64)] = [("d", 86_400), ("h", 3600), ("min", 60), ("s", 1)]
        let total = max(0, seconds)
        let first = units.firstIndex { total >= $0.size } ?? units.count - 1
        var text = "\(total / units[first].size) \(units[first].name)"
        if first + 1 < units.count {
            let next = units[first + 1]
            let rest = total % units[first].size / next.size
            if rest > 0 { text += " \(rest) \(next.name)" }
        }
        return text
    }

    static func duration(milliseconds: Int64) -> String {
        milliseconds < 60_000 ? String(format: "%.1f s", Double(milliseconds) / 1000) : duration(milliseconds / 1000)
    }

    /// RFC 3339 to the second: `2026-03-15T12:00:00Z`.
    static func text(_ instant: Instant) -> String {
        let full = instant.rfc3339
        guard let dot = full.firstIndex(of: ".") else { return full }
        return String(full[..<dot]) + "Z"
    }

    static func seconds(from start: Instant, to end: Instant) -> Int64 {
        max(0, end.microsecondsSinceEpoch - start.microsecondsSinceEpoch) / 1_000_000
    }
}

/// A report `--format json` prints (`status`, `preview`): one JSON object, keys sorted and
/// snake_case, for scripts (`plan-regen status --format json | jq .users`).
public protocol JSONReport: Encodable {}

extension JSONReport {
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
