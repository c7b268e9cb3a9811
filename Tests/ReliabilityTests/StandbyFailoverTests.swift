import DemoData
import Foundation
import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing

/// The job against a real streaming hot standby (pg_basebackup -R), and across a failover:
/// the primary crashes mid-run, the standby is promoted, the next run — through a
/// multi-host conninfo with target_session_attrs=read-write — ends with the history an
/// uninterrupted run writes (issue 13).
@Suite(.requires(.pgBasebackup, .pgCtl)) struct StandbyFailoverTests {
    static let asOf = "2026-03-01T00:00:00Z"

    /// A primary cluster with database `app`: the schema and `users` demo users.
    static func primary(users: Int) throws -> ThrowawayCluster {
        let primary = try ThrowawayCluster()
        try primary.connect().execute("CREATE DATABASE app", purpose: "creating the app database")
        let app = try primary.connect(database: "app")
        try Migrator(connection: app).apply(Migration.reference + Migration.planRegen)
        try DemoUsers.insert(count: users, writtenBefore: Instant(rfc3339: asOf)!, into: app)
        return primary
    }

    static func withFolder<Result>(_ body: (URL) throws -> Result) throws -> Result {
        try PoolerTests.withFolder(body)
    }

    @Test func readOnlyCommandsWorkOnAHotStandbyAndWritingCommandsRefuseClearly() throws {
        try Self.withFolder { folder in
            let primary = try Self.primary(users: 200)
            let lines = folder.appendingPathComponent("lines.jsonl").path
            let first = try JobProcess.run(["run", "--database-url", primary.conninfo(database: "app"),
                                            "--as-of", Self.asOf, "--notifications", lines])
            #expect(first.status == 0, "\(first.stderr)")
            let standby = try StreamingStandby(primary: primary)
            try standby.waitForReplay()
            let url = standby.conninfo(database: "app")
            let onPrimary = PlanTables(connection: try primary.connect(database: "app"))
            let user = try onPrimary.count("SELECT min(user_id)::int FROM plan_state WHERE plan_date IS NOT NULL")
            let runsBefore = try onPrimary.count("SELECT count(*) FROM plan_runs")

            let history = try JobProcess.run(["history", "--database-url", url, "--user", "\(user)"])
            #expect(history.status == 0, "\(history.stderr)")
            #expect(history.stdout.contains("Plan updates for user \(user)"))
            let explain = try JobProcess.run(["explain", "--database-url", url, "--user", "\(user)"])
            #expect(explain.status == 0, "\(explain.stderr)")
            #expect(explain.stdout.contains("User \(user)"))
            let export = try JobProcess.run(["history", "--database-url", url, "--format", "csv"])
            #expect(export.status == 0, "\(export.stderr)")
            #expect(export.stdoutLines.count > 150)
            let dryRerun = try JobProcess.run(["run", "--database-url", url, "--dry-run", "--user", "\(user)",
                                               "--as-of", "2026-03-02T12:00:00Z"])
            #expect(dryRerun.status == 0, "\(dryRerun.stderr)")
            #expect(dryRerun.stdoutLines.count == 1)
            let dryRun = try JobProcess.run(["run", "--database-url", url, "--dry-run", "--as-of", "2026-03-15T12:00:00Z"])
            #expect(dryRun.status == 0, "\(dryRun.stderr)")
            #expect(!dryRun.stdoutLines.isEmpty, "the dry run reports the plans due 14 days later")
            let status = try JobProcess.run(["status", "--database-url", url, "--as-of", Self.asOf, "--format", "json"])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(status.stdout.contains("\"status\" : \"succeeded\""), "\(status.stdout)")

            for command in [["run", "--as-of", "2026-03-02T12:00:00Z"], ["run", "--user", "\(user)"],
                            ["prune", "--older-than", "30d"], ["forget", "--user", "\(user)"]] {
                let refused = try JobProcess.run(command + ["--database-url", url])
                #expect(refused.status == 1, "\(command): \(refused.stderr)")
                #expect(refused.criticalLines.count == 1, "\(command): \(refused.stderr)")
                #expect(refused.stderr.contains("is a hot standby (read-only, in recovery)"), "\(refused.stderr)")
                #expect(refused.stderr.contains("target_session_attrs=read-write"), "\(refused.stderr)")
            }
            try standby.waitForReplay()
            #expect(try onPrimary.count("SELECT count(*) FROM plan_runs") == runsBefore)
        }
    }

    @Test func afterAPrimaryCrashMidRunAndAPromotionTheNextRunEndsWithTheUninterruptedHistory() throws {
        let users = 6000
        try JobDatabase.withFresh { reference in
            try Self.withFolder { folder in
                try reference.seed(users: users, writtenBefore: Instant(rfc3339: Self.asOf)!)
                let referenceLines = folder.appendingPathComponent("reference.jsonl").path
                let uninterrupted = try reference.run(["--as-of", Self.asOf, "--notifications", referenceLines])
                #expect(uninterrupted.status == 0, "\(uninterrupted.stderr)")

                let primary = try Self.primary(users: users)
                let standby = try StreamingStandby(primary: primary)
                try standby.waitForReplay()
                // The way ops configure failover: every host, and libpq picks the writable one.
                let url = "host=\(primary.host),\(standby.host) port=\(primary.port),\(standby.port) "
                    + "dbname=app user=postgres target_session_attrs=read-write"
                let firstLines = folder.appendingPathComponent("first.jsonl").path
                let run = try JobProcess(["run", "--database-url", url, "--as-of", Self.asOf, "--batch-size", "50",
                                          "--notifications", firstLines])
                let watcher = PlanTables(connection: try primary.connect(database: "app"))
                try waitUntil("the run to write 1500 plans on the primary") {
                    try watcher.count("SELECT count(*) FROM plan_history") >= 1500 || !run.isRunning
                }
                try primary.crash()
                let crashed = try run.waitForExit()
                #expect(crashed.status == 1, "never 75, which the units count as success: \(crashed.stderr)")
                #expect(crashed.criticalLines.count == 1, "\(crashed.stderr)")

                try standby.promote()
                let secondLines = folder.appendingPathComponent("second.jsonl").path
                let next = try JobProcess.run(["run", "--database-url", url, "--as-of", Self.asOf,
                                               "--notifications", secondLines])
                #expect(next.status == 0, "\(next.stderr)")

                let promoted = PlanTables(connection: try standby.connect(database: "app"))
                let expected = PlanTables(connection: try reference.owner())
                let (want, got) = (try expected.planFingerprints(), try promoted.planFingerprints())
                #expect(want.count > 5000)
                #expect(want == got, "plan_history differs in \(KillTests.differences(want, got))")
                let consistency = try promoted.consistency()
                #expect(consistency.isConsistent && consistency.pendingNotifications == 0, "\(consistency)")
                #expect(try promoted.heldClaims() == 0)

                // Every notification at least once, with the same id and bytes.
                let referenceEmitted = try PoolerTests.lines(referenceLines)
                let lineByID = Dictionary(uniqueKeysWithValues: zip(try notificationIDs(referenceEmitted), referenceEmitted))
                let emitted = try (PoolerTests.lines(firstLines) + PoolerTests.lines(secondLines)).filter(PoolerTests.isJSON)
                let emittedIDs = try notificationIDs(emitted)
                #expect(Set(lineByID.keys).subtracting(emittedIDs).isEmpty, "never emitted")
                #expect(zip(emittedIDs, emitted).allSatisfy { lineByID[$0.0] == $0.1 }, "a line differs")
                print("""
                    StandbyFailoverTests: crash after \(try PoolerTests.lines(firstLines).count) lines emitted; \
                    \(want.count) plans compared after promotion, \(KillTests.differences(want, got).count) differ; \
                    \(emitted.count - Set(emittedIDs).count) lines emitted again
                    """)
            }
        }
    }
}
