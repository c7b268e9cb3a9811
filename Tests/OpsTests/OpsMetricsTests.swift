import Foundation
import NightlyRun
import Operations
import PlanRules
import PlanStore
import Testing
import ZoneFiles

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
                        "SELECT count(*) FROM plan_rejections WHERE field = \(bind: field.rawValue)")
                    #expect(metrics["plan_regen_last_run_rejections{field=\"\(field.rawValue)\"}"] == Double(rows))
                }
                #expect(metrics["plan_regen_outbox_pending"] == 0)
                #expect(metrics["plan_regen_last_run_success"] == 1)
                #expect(metrics["plan_regen_run_failures_total"] == 0)
                let lastSuccess = try #require(metrics["plan_regen_last_success_timestamp_seconds"])
                #expect(lastSuccess >= before.rounded(.down) && lastSuccess <= after)
                for series in metrics.samples.keys {
                    let name = String(series.prefix { $0 != "{" })
                    // A histogram's _bucket, _sum and _count series belong to its family.
                    let family = ["_bucket", "_sum", "_count"].lazy.filter { name.hasSuffix($0) }
                        .map { String(name.dropLast($0.count)) }.first { metrics.types[$0] == "histogram" } ?? name
                    #expect(metrics.types[family] != nil, "\(family) has no # TYPE line")
                }
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".tmp") }.isEmpty)
                try expectPromtoolAccepts(metricsFile: path)

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
                try expectPromtoolAccepts(metricsFile: path)
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
                let backlog = try PlanStore(connection: database.connect()).deliveryBacklog()
                #expect(backlog.pendingLines == 3)
                #expect(backlog.oldestPendingCreatedAt == Instant(rfc3339: "2026-03-01T10:30:00Z"))

                let path = folder + "/m.prom"
                try MetricsReport(.failed, finishedAt: Instant(rfc3339: firstRunAt)!, binaryVersion: "test", backlog: backlog)
                    .write(to: MetricsFile(path: path))
                let metrics = try ParsedMetrics(String(contentsOfFile: path, encoding: .utf8))
                #expect(metrics["plan_regen_outbox_pending"] == 3)
                #expect(metrics["plan_regen_outbox_oldest_pending_age_seconds"] == Double(90 * 60))
                try expectPromtoolAccepts(metricsFile: path)
            }
        }
    }

    /// Lateness, checked against PostgreSQL's own time zone arithmetic: for each user due
    /// at a midnight, `as_of - (plan_date::timestamp AT TIME ZONE timezone)`.
    @Test func theLatenessHistogramAndTheDueUsersMatchWhatTheDatabaseSays() throws {
        try withDemoDatabase(users: 300) { database, connection in
            try withTemporaryDirectory { folder in
                try runToCompletion(["--as-of", firstRunAt], on: database, folder: folder)
                // Two weeks later shard 0 runs; shard 1's users stay due.
                let path = folder + "/shard0.prom"
                try runToCompletion(["--as-of", switchRunAt, "--shard", "0/2", "--metrics-file", path],
                                    on: database, folder: folder)
                let metrics = try ParsedMetrics(String(contentsOfFile: path, encoding: .utf8))
                try expectPromtoolAccepts(metricsFile: path)
                #expect(metrics["plan_regen_last_run_users{outcome=\"unchanged\"}"] == 0, "every due user has a history row")
                let expected = try connection.query(
                    """
                    SELECT extract(epoch FROM \(bind: switchRunAt)::timestamptz - (plan_date::timestamp AT TIME ZONE timezone))::int8
                    FROM plan_history_flat
                    WHERE run_id = (SELECT max(run_id) FROM plan_runs)
                      AND reasons && ARRAY['settings_changed', 'phase_switch', 'birthday']
                    """, purpose: "test: lateness per user").map { try $0.int64(0) }
                #expect(expected.count > 30)
                #expect(metrics["plan_regen_last_run_lateness_seconds_count"] == Double(expected.count))
                #expect(metrics["plan_regen_last_run_lateness_seconds_sum"] == Double(expected.reduce(0, +)))
                for bound in [60, 300, 900, 1800, 3600, 7200, 21_600, 86_400] {
                    #expect(metrics["plan_regen_last_run_lateness_seconds_bucket{le=\"\(bound)\"}"]
                            == Double(expected.filter { $0 <= bound }.count), "le=\(bound)")
                }
                #expect(metrics["plan_regen_last_run_lateness_seconds_bucket{le=\"+Inf\"}"] == Double(expected.count))
                #expect(metrics.types["plan_regen_last_run_lateness_seconds"] == "histogram")
                #expect(metrics["plan_regen_due_users"] == 0, "shard 0's own partitions are done")
                #expect(metrics["plan_regen_tzdata_info{version=\"\(try ZoneDatabase.loadSystem().version)\"}"] == 1)
                #expect((metrics["plan_regen_tzdata_age_seconds"] ?? -1) > 0)

                // A manual rerun's metrics cover every partition: shard 1's users are due,
                // the longest-waiting one since its local midnight.
                let due = try connection.query(
                    """
                    SELECT count(*), min(next_check_at),
                           count(*) FILTER (WHERE next_check_at <= \(bind: switchRunAt)::timestamptz - interval '15 minutes')
                    FROM plan_state WHERE next_check_at <= \(bind: switchRunAt)::timestamptz
                    """, purpose: "test: due users").singleRow()
                let dueUsers = try due.int(0)
                #expect(dueUsers > 10)
                let oldest = try connection.query(
                    """
                    SELECT extract(epoch FROM \(bind: switchRunAt)::timestamptz - min(next_check_at))::int8
                    FROM plan_state WHERE next_check_at <= \(bind: switchRunAt)::timestamptz
                    """, purpose: "test: oldest due").singleRow().int64(0)
                let anyUser = try connection.count("SELECT min(user_id)::int FROM plan_state WHERE user_id % 2 = 0")
                let manualPath = folder + "/manual.prom"
                try runToCompletion(["--as-of", switchRunAt, "--user", "\(anyUser)", "--metrics-file", manualPath],
                                    on: database, folder: folder)
                let afterManual = try ParsedMetrics(String(contentsOfFile: manualPath, encoding: .utf8))
                #expect(afterManual["plan_regen_due_users"] == Double(dueUsers))
                #expect(afterManual["plan_regen_overdue_users"] == Double(try due.int(2)))
                #expect(afterManual["plan_regen_oldest_due_user_lateness_seconds"] == Double(oldest))
                try expectPromtoolAccepts(metricsFile: manualPath)
            }
        }
    }

    /// A completed run whose metrics cannot be written says so and exits 5: monitoring
    /// would not see it.
    @Test func anUnwritableMetricsFileIsLoggedAndTheRunExits5() throws {
        try withDemoDatabase(users: 20) { database, connection in
            try withTemporaryDirectory { folder in
                let path = folder + "/no-such-folder/plan-regen.prom"
                let run = try PlanRegenProcess.run(
                    ["run", "--as-of", firstRunAt, "--notifications", folder + "/n.jsonl", "--metrics-file", path],
                    databaseURL: database.conninfo, folder: folder)
                #expect(run.exitCode == 5, "\(run.stderr)")
                #expect(run.stderr.contains(" error cannot write metrics file \(path) (create "), "\(run.stderr)")
                #expect(run.stderr.contains("No such file or directory; check that its folder exists and is writable"))
                #expect(try connection.count("SELECT count(*) FROM plan_runs WHERE status = 'succeeded'") == 1,
                        "the run itself completed")
                #expect(try connection.count("SELECT count(*) FROM plan_history") > 10)
            }
        }
    }
}
