import Foundation
import NightlyRun
import Operations
import PlanRules
import PlanStore
import Testing

/// The metrics file read back as Prometheus text: `name{labels} value` samples, and the
/// `# TYPE` of each family.
struct ParsedMetrics {
    var samples: [String: Double] = [:]
    var types: [String: String] = [:]

    init(_ text: String) throws {
        for line in lines(text) {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                types[String(parts[2])] = String(parts[3])
            } else if !line.hasPrefix("#") {
                let space = try #require(line.lastIndex(of: " "))
                let value: Double? = Double(String(line[line.index(after: space)...]))
                try #require(value != nil, "not a sample: \(line)")
                samples[String(line[..<space])] = value
            }
        }
    }

    subscript(_ series: String) -> Double? { samples[series] }
}

@Suite struct OpsMetricsTests {
    @Test func aRunWritesItsCountsAndAFailedRunKeepsTheLastSuccess() throws {
        try withDemoDatabase(users: 300) { database, connection in
            try withTemporaryDirectory { folder in
                let path = folder + "/plan-regen.prom"
                let before = Double(wallClockNow().microsecondsSinceEpoch) / 1e6
                let run = try PlanRegenProcess.run(
                    ["run", "--as-of", firstRunAt, "--notifications", folder + "/n.jsonl", "--metrics-file", path],
                    databaseURL: database.conninfo, folder: folder)
                let after = Double(wallClockNow().microsecondsSinceEpoch) / 1e6
                #expect(run.exitCode == 0, "\(run.stderr)")
                let metrics = try ParsedMetrics(String(contentsOfFile: path, encoding: .utf8))

                let recorded = try connection.query(
                    "SELECT created, rejected, skipped_incomplete, notifications FROM plan_runs", purpose: "test")
                    .singleRow()
                #expect(metrics["plan_regen_last_run_users{outcome=\"created\"}"] == Double(try recorded.int(0)))
                #expect(metrics["plan_regen_last_run_users{outcome=\"rejected\"}"] == Double(try recorded.int(1)))
                #expect(metrics["plan_regen_last_run_users{outcome=\"skipped_incomplete\"}"] == Double(try recorded.int(2)))
                #expect(metrics["plan_regen_last_run_notifications"] == Double(try recorded.int(3)))
                #expect(metrics["plan_regen_last_run_users_by_reason{reason=\"created\"}"] == Double(try recorded.int(0)))
                for field in SettingsField.allCases {
                    let rows = try connection.count(
                        "SELECT count(*) FROM plan_rejections WHERE field = $1", [field.rawValue])
                    #expect(metrics["plan_regen_last_run_rejections{field=\"\(field.rawValue)\"}"] == Double(rows))
                }
                #expect(metrics["plan_regen_outbox_pending"] == 0)
                #expect(metrics["plan_regen_last_run_success"] == 1)
                #expect(metrics["plan_regen_run_failures_total"] == 0)
                let lastSuccess = try #require(metrics["plan_regen_last_success_timestamp_seconds"])
                #expect(lastSuccess >= before.rounded(.down) && lastSuccess <= after)
                for series in metrics.samples.keys {
                    let family = String(series.prefix { $0 != "{" })
                    #expect(metrics.types[family] != nil, "\(family) has no # TYPE line")
                }
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".tmp") }.isEmpty)

                // The database is unreachable: the file says so and keeps the last success.
                let failed = try PlanRegenProcess.run(
                    ["run", "--database-url", "host=\(folder)/no-server port=1", "--metrics-file", path],
                    databaseURL: nil, folder: folder)
                #expect(failed.exitCode == 1)
                let afterFailure = try ParsedMetrics(String(contentsOfFile: path, encoding: .utf8))
                #expect(afterFailure["plan_regen_last_run_success"] == 0)
                #expect(afterFailure["plan_regen_run_failures_total"] == 1)
                #expect(afterFailure["plan_regen_last_success_timestamp_seconds"] == lastSuccess)
                #expect(afterFailure["plan_regen_last_run_users{outcome=\"created\"}"] == nil)
            }
        }
    }

    /// The backlog: pending lines and the age of the oldest, measured at the end of the run
    /// (written whenever the database could be asked).
    @Test func theOutboxBacklogCountsPendingLinesAndTheAgeOfTheOldest() throws {
        try withDemoDatabase(users: 40) { database, connection in
            try withTemporaryDirectory { folder in
                let run = try PlanRegenProcess.run(
                    ["run", "--as-of", firstRunAt, "--notifications", folder + "/n.jsonl"],
                    databaseURL: database.conninfo, folder: folder)
                #expect(run.exitCode == 0, "\(run.stderr)")
                // Three lines left pending, the oldest created 90 minutes before the end.
                try connection.execute(
                    """
                    WITH pending AS (INSERT INTO notification_batches (run_id) SELECT max(run_id) FROM plan_runs
                                     RETURNING batch_id)
                    UPDATE notification_outbox SET batch_id = (SELECT batch_id FROM pending),
                           created_at = timestamptz '2026-03-01T12:00:00Z' - make_interval(mins => ord::int)
                    FROM (SELECT notification_id, row_number() OVER (ORDER BY notification_id) * 30 AS ord
                          FROM notification_outbox LIMIT 3) pick
                    WHERE notification_outbox.notification_id = pick.notification_id
                    """, purpose: "test: leave three lines pending")
                let backlog = try PlanStore(connection: database.connect()).outboxBacklog()
                #expect(backlog.pending == 3)
                #expect(backlog.oldestCreatedAt == Instant(rfc3339: "2026-03-01T10:30:00Z"))

                let path = folder + "/m.prom"
                try MetricsFile(path: path).write(
                    .failed, finishedAt: Instant(rfc3339: firstRunAt)!, backlog: backlog,
                    binaryVersion: "test")
                let metrics = try ParsedMetrics(String(contentsOfFile: path, encoding: .utf8))
                #expect(metrics["plan_regen_outbox_pending"] == 3)
                #expect(metrics["plan_regen_outbox_oldest_pending_age_seconds"] == Double(90 * 60))
            }
        }
    }
}
