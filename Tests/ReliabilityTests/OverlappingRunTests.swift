import Foundation
import PlanRules
import Postgres
import Testing

/// Runs that overlap never process the same user twice: each takes the advisory locks
/// of the user partitions it works on and skips those another run holds.
@Suite struct OverlappingRunTests {
    @Test func threeRunsStartedTogetherWriteEachPlanAndEmitEachNotificationOnce() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 3000, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!)
            let runs = try (0..<3).map { _ in
                try db.startRun(["--as-of", "2026-03-01T00:00:00Z", "--batch-size", "200"])
            }
            let results = try runs.map { try $0.waitForExit() }
            for result in results { #expect(result.status == 0, "\(result.stderr)") }

            let tables = PlanTables(connection: try db.owner())
            let consistency = try tables.consistency()
            #expect(consistency.isConsistent, "\(consistency)")
            #expect(consistency.pendingNotifications == 0)
            #expect(try tables.count("SELECT count(*) FROM plan_state") == 3000)
            #expect(try tables.count("SELECT coalesce(sum(created), 0)::int FROM plan_runs")
                    == tables.count("SELECT count(*) FROM plan_history"))
            let emitted = try notificationIDs(results.flatMap(\.stdoutLines))
            #expect(emitted.count == Set(emitted).count)
            #expect(Set(emitted) == Set(try tables.outbox().keys))
        }
    }

    @Test func aRunStartedWhileOneIsInProgressLeavesItsUsersToIt() throws {
        try JobDatabase.withFresh { db in
            let tables = PlanTables(connection: try db.owner())
            try db.seed(users: 400, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!)
            let errors = HookErrors()
            let second = SecondRun()
            let first = try InProcessRun(database: db, asOf: Instant(rfc3339: "2026-03-01T00:00:00Z")!,
                                         batchSize: 50).run { batch in
                guard batch == 3 else { return }
                errors.capture { second.result = try db.run(["--as-of", "2026-03-01T00:00:00Z"]) }
            }
            try errors.check()
            let overlapping = try #require(second.result)
            #expect(overlapping.status == 0, "\(overlapping.stderr)")
            #expect(overlapping.stderr.contains("another run holds user partitions; their users are left to it"))
            #expect(overlapping.stderr.contains("status=held_by_others"))
            #expect(overlapping.stdoutLines.isEmpty)
            let firstRun = try #require(first.runID)
            #expect(try tables.count("SELECT count(*) FROM plan_history WHERE run_id <> \(firstRun)") == 0)
            let consistency = try tables.consistency()
            #expect(consistency.isConsistent, "\(consistency)")
            #expect(try tables.count("SELECT count(*) FROM plan_state") == 400)
        }
    }
}

/// The result of the run a hook started.
final class SecondRun: @unchecked Sendable {
    var result: JobResult?
}
