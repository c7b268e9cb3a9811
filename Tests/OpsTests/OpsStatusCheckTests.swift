import Foundation
import Testing

/// `status --check` as a health check: exit 0 when the latest run of every scope completed
/// and nobody is overdue, 2 (with one error line per problem) when a run failed or users
/// are overdue — overdue as the screen and the metrics count it.
@Suite struct OpsStatusCheckTests {
    @Test func theCheckPassesWhenHealthyAndFailsOnOverdueUsersOrAFailedRun() throws {
        try withDemoDatabase(users: 300) { database, connection in
            try withTemporaryDirectory { folder in
                func check(at instant: String) throws -> PlanRegenProcess.Finished {
                    try PlanRegenProcess.run(["status", "--check", "--as-of", instant],
                                             databaseURL: database.conninfo, folder: folder)
                }
                try runToCompletion(["--as-of", firstRunAt], on: database, folder: folder)
                let healthy = try check(at: firstRunAt)
                #expect(healthy.exitCode == 0, "\(healthy.stderr)")
                #expect(!healthy.stderr.contains("status check"))

                // Shard 0 runs two weeks later, shard 1 does not: its users are overdue.
                try runToCompletion(["--as-of", switchRunAt, "--shard", "0/2"], on: database, folder: folder)
                let overdue = try check(at: switchRunAt)
                #expect(overdue.exitCode == 2, "\(overdue.stderr)")
                #expect(overdue.stdout.hasPrefix("plan-regen status at "), "the report is printed as without --check")
                let problems = lines(overdue.stderr).filter { $0.contains(" error status check: ") }
                #expect(problems.count == 1, "\(overdue.stderr)")
                #expect(problems.first?.contains(" users overdue (due for more than 15 min)") == true, "\(overdue.stderr)")

                // The latest run of all users failed: unhealthy even with nobody overdue.
                try connection.execute("UPDATE plan_runs SET status = 'failed', error = 'database went away' WHERE run_id = 1",
                                       purpose: "test")
                let failed = try check(at: firstRunAt)
                #expect(failed.exitCode == 2, "\(failed.stderr)")
                #expect(failed.stderr.contains(" error status check: the latest run of all users, run 1, failed: database went away"),
                        "\(failed.stderr)")
            }
        }
    }
}
