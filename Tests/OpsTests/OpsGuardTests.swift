import Foundation
import PlanRules
import PlanStore
import Postgres
import Testing
import TestSupport

/// Commands that refuse what would damage a real database: a run dated ahead of the
/// database's clock, demo users poured into a table that has users. Each says what is
/// wrong and what to do, exits 64 and writes nothing.
@Suite struct OpsGuardTests {
    @Test func aRunMoreThanFiveMinutesAheadOfTheDatabasesClockIsRefusedUnlessDryRunOrAllowFuture() throws {
        try withDemoDatabase(users: 30) { database, connection in
            try withTemporaryDirectory { folder in
                let databaseNow = try PlanStore(connection: connection).databaseNow()
                let tomorrow = databaseNow.adding(seconds: 86_400).rfc3339
                func run(_ arguments: [String]) throws -> PlanRegenProcess.Finished {
                    try PlanRegenProcess.run(["run", "--notifications", folder + "/n.jsonl"] + arguments,
                                             databaseURL: database.conninfo, folder: folder)
                }
                func written() throws -> (runs: Int, states: Int) {
                    (try connection.count("SELECT count(*)::int FROM plan_runs"),
                     try connection.count("SELECT count(*)::int FROM plan_state"))
                }

                let refused = try run(["--as-of", tomorrow])
                #expect(refused.exitCode == 64, "\(refused.stderr)")
                #expect(refused.stderr.contains("refusing to write: the run's instant \(tomorrow)"))
                // 24 h less the seconds since databaseNow was read: "23 h".
                #expect(refused.stderr.contains(" h ahead of the database's clock ("))
                #expect(refused.stderr.contains("--dry-run") && refused.stderr.contains("--allow-future"))
                #expect(lines(refused.stderr).count == 1, "one line: \(refused.stderr)")
                #expect(try written() == (0, 0))
                // A manual rerun dated ahead writes too: refused the same way.
                let rerun = try run(["--as-of", tomorrow, "--user", "1"])
                #expect(rerun.exitCode == 64)
                #expect(try written() == (0, 0))

                let dryRun = try run(["--as-of", tomorrow, "--dry-run"])
                #expect(dryRun.exitCode == 0, "\(dryRun.stderr)")
                #expect(try written() == (0, 0))

                // Within 5 minutes (a host clock a little ahead): written.
                let soon = try run(["--as-of", databaseNow.adding(seconds: 120).rfc3339])
                #expect(soon.exitCode == 0, "\(soon.stderr)")
                #expect(try written().runs == 1)

                let allowed = try run(["--as-of", tomorrow, "--allow-future"])
                #expect(allowed.exitCode == 0, "\(allowed.stderr)")
                #expect(try connection.count(
                    "SELECT count(*)::int FROM plan_runs WHERE as_of = \(bind: tomorrow)::timestamptz") == 1)
            }
        }
    }

    @Test func seedDemoRefusesAUserSettingsTableWithRowsUnlessForced() throws {
        try withDemoDatabase(users: 0) { database, connection in
            try withTemporaryDirectory { folder in
                let seeded = try PlanRegenProcess.run(["seed-demo", "--users", "5"],
                                                      databaseURL: database.conninfo, folder: folder)
                #expect(seeded.exitCode == 0, "\(seeded.stderr)")
                #expect(try connection.count("SELECT count(*)::int FROM user_settings") == 5)

                let refused = try PlanRegenProcess.run(["seed-demo", "--users", "5", "--first-user-id", "100"],
                                                       databaseURL: database.conninfo, folder: folder)
                #expect(refused.exitCode == 64)
                #expect(refused.stderr.contains("refusing to seed: user_settings on database \(database.name)"))
                #expect(refused.stderr.contains("already has 5 rows"))
                #expect(refused.stderr.contains("pass --force"))
                #expect(try connection.count("SELECT count(*)::int FROM user_settings") == 5)

                let forced = try PlanRegenProcess.run(
                    ["seed-demo", "--users", "5", "--first-user-id", "100", "--force"],
                    databaseURL: database.conninfo, folder: folder)
                #expect(forced.exitCode == 0, "\(forced.stderr)")
                #expect(try connection.count("SELECT count(*)::int FROM user_settings") == 10)
            }
        }
    }
}
