import Foundation
import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing

/// What monitoring sees, against real Prometheus tools: a run's metrics pushed to a real
/// Pushgateway and read back, and the shipped alert rules checked and unit-tested by
/// promtool (issue 14).
@Suite struct ObservabilityTests {
    static let asOf = "2026-03-01T12:00:00Z"

    /// The repository's root (this file is Tests/ReliabilityTests/ObservabilityTests.swift).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The value of the sample named exactly `series` (labels in the gateway's order:
    /// sorted by name) in Prometheus text, or nil.
    static func value(_ series: String, in exposition: String) -> Double? {
        exposition.split(separator: "\n").first { $0.hasPrefix(series + " ") }
            .flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    @Test(.requires(.pushgateway, .promtool))
    func aRunPushesItsMetricsAndAFailedRunKeepsTheLastSuccessThere() throws {
        let gateway = try Pushgateway()
        defer { gateway.stop() }
        try JobDatabase.withFresh { database in
            try database.seed(users: 120, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!)
            let lines = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString).jsonl")
            defer { try? FileManager.default.removeItem(at: lines) }
            let before = Date().timeIntervalSince1970.rounded(.down)
            let run = try database.run(["--as-of", Self.asOf, "--shard", "0/2", "--notifications", lines.path,
                                        "--metrics-push", gateway.url])
            #expect(run.status == 0, "\(run.stderr)")
            let pushed = try gateway.metrics()
            let group = #"instance="shard-0-of-2",job="plan-regen""#
            let recorded = try database.owner().query(
                "SELECT created, rejected, notifications FROM plan_runs", purpose: "test").singleRow()
            #expect(try recorded.int(0) > 20)
            #expect(Self.value(#"plan_regen_last_run_users{\#(group),outcome="created"}"#, in: pushed)
                    == Double(try recorded.int(0)))
            #expect(Self.value(#"plan_regen_last_run_users{\#(group),outcome="rejected"}"#, in: pushed)
                    == Double(try recorded.int(1)))
            #expect(Self.value("plan_regen_last_run_notifications{\(group)}", in: pushed) == Double(try recorded.int(2)))
            #expect(Self.value("plan_regen_last_run_success{\(group)}", in: pushed) == 1)
            #expect(Self.value("plan_regen_due_users{\(group)}", in: pushed) == 0)
            #expect(Self.value("plan_regen_run_failures_total{\(group)}", in: pushed) == 0)
            let lastSuccess = try #require(Self.value("plan_regen_last_success_timestamp_seconds{\(group)}", in: pushed))
            #expect(lastSuccess >= before && lastSuccess <= Date().timeIntervalSince1970)
            #expect(Self.value("push_time_seconds{\(group)}", in: pushed) != nil, "the gateway's own push time")
            #expect(pushed.contains(#"plan_regen_tzdata_info{\#(group),version=""#))
            try Self.expectPromtoolAccepts(metrics: pushed)

            // A failed run (no database) pushes too: the last success stays, one failure.
            let failed = try JobProcess.run(["run", "--database-url", "host=/nonexistent-plan-regen port=1",
                                             "--shard", "0/2", "--metrics-push", gateway.url])
            #expect(failed.status == 1, "\(failed.stderr)")
            let afterFailure = try gateway.metrics()
            #expect(Self.value("plan_regen_last_run_success{\(group)}", in: afterFailure) == 0)
            #expect(Self.value("plan_regen_run_failures_total{\(group)}", in: afterFailure) == 1)
            #expect(Self.value("plan_regen_last_success_timestamp_seconds{\(group)}", in: afterFailure) == lastSuccess)
            #expect(Self.value(#"plan_regen_last_run_users{\#(group),outcome="created"}"#, in: afterFailure) == nil,
                    "the push replaced the whole group")

            // --metrics-instance names the group; the other group is left as it was.
            let named = try database.run(["--as-of", Self.asOf, "--notifications", lines.path,
                                          "--metrics-push", gateway.url, "--metrics-instance", "nightly-eu"])
            #expect(named.status == 0, "\(named.stderr)")
            let both = try gateway.metrics()
            #expect(Self.value(#"plan_regen_last_run_success{instance="nightly-eu",job="plan-regen"}"#, in: both) == 1)
            #expect(Self.value("plan_regen_run_failures_total{\(group)}", in: both) == 1)

            // The gateway is gone (docs/operations.md, exit 5): the run still commits and
            // emits its work (two weeks on, phase switches), logs why, and exits 5, which the
            // CronJobs fail without a retry (DeployFilesTests).
            gateway.stop()
            let plansBefore = try database.owner().query("SELECT count(*) AS n FROM plan_history", purpose: "test")
                .singleRow().int("n")
            let unpushed = try database.run(["--as-of", "2026-03-15T12:00:00Z", "--notifications", lines.path,
                                             "--metrics-push", gateway.url])
            #expect(unpushed.status == 5, "\(unpushed.stderr)")
            #expect(unpushed.stderr.contains(" error cannot push metrics to the Pushgateway at \(gateway.url)"),
                    "\(unpushed.stderr)")
            let after = try database.owner().query("""
                SELECT (SELECT count(*) FROM plan_history) AS plans,
                       (SELECT status FROM plan_runs ORDER BY run_id DESC LIMIT 1) AS status,
                       (SELECT count(*) FROM notification_batches WHERE emitted_at IS NULL) AS pending
                """, purpose: "test").singleRow()
            #expect(try after.int("plans") > plansBefore, "the run's plans are committed")
            #expect(try after.string("status") == "succeeded")
            #expect(try after.int("pending") == 0, "and its notifications emitted")
        }
    }

    @Test(.requires(.promtool)) func theAlertRulesPassPromtoolCheckAndTheirUnitTests() throws {
        let promtool = try RequiredComponent.promtool.path()
        let rules = Self.repository.appendingPathComponent("deploy/prometheus/plan-regen-alerts.yml").path
        let tests = Self.repository.appendingPathComponent("deploy/prometheus/plan-regen-alerts.test.yml").path
        let check = try Subprocess.run([promtool, "check", "rules", rules])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("SUCCESS: 13 rules found"), "\(check.stdout)")
        let unitTests = try Subprocess.run([promtool, "test", "rules", tests])
        #expect(unitTests.status == 0, "\(unitTests.stdout)\(unitTests.stderr)")
        #expect(unitTests.stdout.contains("SUCCESS"), "\(unitTests.stdout)")
    }

    /// `promtool check metrics` (reads stdin) accepts `metrics`.
    static func expectPromtoolAccepts(metrics: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).prom")
        try metrics.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try Subprocess.run(["/bin/sh", "-c", #""$0" check metrics < "$1""#,
                                         try RequiredComponent.promtool.path(), file.path])
        #expect(result.status == 0, "promtool check metrics: \(result.stdout)\(result.stderr)")
    }
}
