import Foundation
import PlanRules
import PlanStore
import Postgres
import Testing

/// The next release, simulated (docs/upgrading.md): there is no earlier release to build
/// yet, so this binary plays the previous release on a database that the next release's
/// `migrate` (this test's Migrator, knowing one more migration) has moved ahead.
@Suite struct ReleaseUpgradeTests {
    /// What the next release might bring: a new table and a nullable column on a job table.
    static let nextExpand = Migration(name: "9001_next_release_expand", file: """
        -- migration: expand
        CREATE TABLE plan_next_release (user_id bigint PRIMARY KEY, note text);
        ALTER TABLE plan_state ADD COLUMN next_release_note text;

        """)
    /// …or a rename, which this binary's SQL would not survive.
    static let nextContract = Migration(name: "9002_next_release_contract", file: """
        -- migration: contract
        ALTER TABLE plan_state RENAME COLUMN next_check_at TO next_check;

        """)
    static let firstDay = "2026-03-01T12:00:00Z"
    static let secondDay = "2026-03-02T12:00:00Z"

    /// Scheduled runs on two days, a `--user` rerun, `history`, `explain` and `status`, on a
    /// database with the next release's expand migration and on one without it: all exit 0,
    /// and the plans, the states and what history and explain print are the same.
    @Test func onASchemaAheadByAnExpandMigrationEveryCommandWorksAndThePlansAreTheSame() throws {
        func session(nextRelease: Bool) throws -> [[String]] {
            try JobDatabase.withFresh { db in
                try db.seed(users: 300, writtenBefore: Instant(rfc3339: "2026-02-28T00:00:00Z")!)
                if nextRelease {
                    #expect(try Migrator(connection: db.owner()).apply(Migration.planRegen + [Self.nextExpand])
                            == [Self.nextExpand.name])
                }
                let database = ["--database-url", db.jobConninfo]
                var printed: [String] = []
                for command in [
                    ["run", "--as-of", Self.firstDay], ["run", "--user", "5", "--as-of", Self.firstDay],
                    ["run", "--as-of", Self.secondDay], ["history", "--user", "5"],
                    ["explain", "--user", "5", "--as-of", Self.secondDay], ["status", "--as-of", Self.secondDay],
                ] {
                    let result = try JobProcess.run(command + database)
                    #expect(result.status == 0, "\(command) with the next release's migration: \(nextRelease)\n\(result.stderr)")
                    if command[0] == "history" || command[0] == "explain" { printed.append(result.stdout) }
                }
                let owner = try db.owner()
                // plan_state's rows without the next release's column (NULL where it exists).
                let states = try owner.query(
                    """
                    SELECT user_id || '|' || md5((to_jsonb(s) - 'updated_by_run' - 'next_release_note')::text) AS state
                    FROM plan_state s ORDER BY user_id
                    """, purpose: "test: fingerprinting plan_state").map { try $0.string("state") }
                return [try PlanTables(connection: owner).planFingerprints(), states, printed]
            }
        }
        let before = try session(nextRelease: false)
        let after = try session(nextRelease: true)
        // Two days of plans for most of the 300 users (some rows are incomplete or invalid).
        #expect(before[0].count > 250, "plan_history rows: \(before[0].count)")
        for (index, name) in ["plan_history", "plan_state", "history and explain"].enumerated() {
            let same = after[index] == before[index]
            let firstDifference = zip(after[index], before[index]).first { $0 != $1 }.map { "\($0) / \($1)" } ?? "the count"
            #expect(same, "\(name): \(after[index].count) with the migration, \(before[index].count) without; \(firstDifference)")
        }
    }

    /// The next release brings a contract migration: its `migrate` leaves it waiting, its
    /// `migrate --contract` refuses while this binary's run is recent; once applied anyway,
    /// every command of this binary refuses, naming it and saying what to do, and writes nothing.
    @Test(arguments: [
        ["run"], ["run", "--user", "1"], ["run", "--dry-run"], ["history", "--user", "1"], ["explain", "--user", "1"],
        ["status"], ["prune", "--older-than", "30d"], ["forget", "--user", "1"],
    ])
    func onASchemaAheadByAContractMigrationEveryCommandRefusesNamingIt(_ command: [String]) throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 20, writtenBefore: Instant(rfc3339: "2026-02-28T00:00:00Z")!)
            #expect(try db.run(["--as-of", Self.firstDay]).status == 0)
            let next = Migration.planRegen + [Self.nextContract]
            let migrator = Migrator(connection: try db.owner())
            #expect(try migrator.apply(next).isEmpty)
            #expect {
                try migrator.apply(next, contract: .apply(unlessOlderBinariesRanWithin: .seconds(24 * 3600)))
            } throws: { error in
                guard case StoreError.contractWaitsForOlderBinaries(let name, _, let version, let level, _, _) = error
                else { return false }
                return name == Self.nextContract.name && version == "1.0.0" && level == Migration.planRegen.last?.name
            }
            // The operator applies it anyway (as if this binary were gone).
            #expect(try migrator.apply(next, contract: .apply(unlessOlderBinariesRanWithin: .zero))
                    == [Self.nextContract.name])

            let runs = try PlanTables(connection: db.owner()).count("SELECT count(*) FROM plan_runs")
            let result = try JobProcess.run(command + ["--database-url", db.jobConninfo])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.criticalLines.count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("migrations this binary does not know (\(Self.nextContract.name))"),
                    "\(result.stderr)")
            #expect(result.stderr.contains("deploy the newer plan-regen"), "\(result.stderr)")
            #expect(try PlanTables(connection: db.owner()).count("SELECT count(*) FROM plan_runs") == runs)
        }
    }

    /// `migrate` on a live database: a run in progress, and an analyst's open transaction
    /// that has read plan_state (its ACCESS SHARE lock lasts until the transaction ends)
    /// while the migration must alter plan_state. Each attempt waits 0.3 s for the lock,
    /// gives way and is rolled back; the analyst commits after the third; the migration
    /// then gets through, and the run completes with every batch whole.
    @Test func migrateOnALiveDatabaseGivesWayRetriesAndTheRunCompletes() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 4_000, writtenBefore: Instant(rfc3339: "2026-02-28T00:00:00Z")!)
            let analyst = try db.owner()
            try analyst.execute("BEGIN", purpose: "test: the analyst's transaction")
            _ = try analyst.query("SELECT count(*) FROM plan_state", purpose: "test: the analyst's query")
            let run = try db.startRun(["--as-of", Self.firstDay, "--notifications", "/dev/null"])

            var migrator = Migrator(connection: try db.owner())
            migrator.statementLockWait = .milliseconds(300)
            migrator.attempts = 40
            migrator.firstPause = .milliseconds(100)
            migrator.longestPause = .milliseconds(400)
            let retries = RetryLog()
            migrator.onRetry = { _, attempt, _ in
                retries.record(runInProgress: run.isRunning)
                if attempt == 3 { _ = try? analyst.execute("COMMIT", purpose: "test: the analyst is done") }
            }
            #expect(try migrator.apply(Migration.planRegen + [Self.nextExpand]) == [Self.nextExpand.name])
            #expect(retries.count >= 3)
            #expect(retries.runWasInProgress, "the run had ended before the migration first gave way")

            let result = try run.waitForExit()
            #expect(result.status == 0, "\(result.stderr)")
            let tables = PlanTables(connection: try db.owner())
            let consistency = try tables.consistency()
            #expect(consistency.isConsistent && consistency.pendingNotifications == 0, "\(consistency)")
            #expect(try tables.count("SELECT count(*) FROM plan_state") > 3_000)
            #expect(try tables.count(
                "SELECT count(*) FROM information_schema.columns WHERE table_name = 'plan_state' AND column_name = 'next_release_note'") == 1)
        }
    }

    /// A database one migration behind: `--status` lists the newest as pending and the
    /// others as applied, with their kinds, and which binaries run after `migrate`;
    /// `--dry-run` prints its SQL; neither applies anything.
    @Test func migrateStatusAndDryRunOnADatabaseOneMigrationBehind() throws {
        try JobDatabase.withFresh(migrate: false) { db in
            let owner = try db.owner()
            try Migrator(connection: owner).apply(Migration.reference + Migration.planRegen.dropLast())
            let newest = try #require(Migration.planRegen.last)
            let database = ["--database-url", db.database.conninfo]
            func recorded() throws -> Int { try PlanTables(connection: owner).count("SELECT count(*) FROM plan_regen_migrations") }
            let before = try recorded()

            let status = try JobProcess.run(["migrate", "--status"] + database)
            #expect(status.status == 0, "\(status.stderr)")
            #expect(status.stdoutLines.contains { $0.hasPrefix("\(newest.name)  expand  pending: migrate applies it") },
                    "\(status.stdout)")
            #expect(status.stdoutLines.contains { $0.hasPrefix("0001_plan_tables  expand  applied 20") }, "\(status.stdout)")
            #expect(status.stdoutLines.contains { $0.hasPrefix("0011_late_row_sweep  expand  applied 20") }, "\(status.stdout)")
            #expect(status.stdoutLines.last == "After `plan-regen migrate`: 1 to apply; can run: binaries whose schema "
                    + "level is 0007_lighter_write_indexes or later (plan-regen --version prints it; releases before "
                    + "1.0.0 refuse any migration they do not know).", "\(status.stdout)")

            let dryRun = try JobProcess.run(["migrate", "--dry-run"] + database)
            #expect(dryRun.status == 0, "\(dryRun.stderr)")
            #expect(dryRun.stdout.hasPrefix("-- \(newest.name) (expand)"), "\(dryRun.stdout)")
            #expect(dryRun.stdout.contains(newest.sql))
            #expect(dryRun.stdoutLines.last == "-- plan-regen migrate --dry-run: nothing was applied")
            #expect(try recorded() == before)

            #expect(try JobProcess.run(["migrate"] + database).status == 0)
            #expect(try recorded() == before + 1)
            let after = try JobProcess.run(["migrate", "--status"] + database)
            #expect(after.stdoutLines.last?.hasPrefix("After `plan-regen migrate`: 0 to apply;") == true, "\(after.stdout)")
        }
    }

    /// `plan-regen migrate` itself, behind from 0013 on (which alters plan_runs) while an
    /// analyst's open transaction has read plan_runs: each of its 2 attempts waits 0.2 s,
    /// gives way and is rolled back; it exits 1 saying so and what to do, with nothing of
    /// 0013 applied; once the analyst is done, the same command applies it.
    @Test func migrateGivesUpCleanlyWhileAnAnalystHoldsALockAndSucceedsAfterwards() throws {
        try JobDatabase.withFresh(migrate: false) { db in
            let owner = try db.owner()
            let kinds = try #require(Migration.planRegen.firstIndex { $0.name == "0013_migration_kinds" })
            try Migrator(connection: owner).apply(Migration.reference + Migration.planRegen[..<kinds])
            let newest = Migration.planRegen[kinds].name
            let analyst = try db.owner()
            try analyst.execute("BEGIN", purpose: "test: the analyst's transaction")
            _ = try analyst.query("SELECT count(*) FROM plan_runs", purpose: "test: the analyst's query")
            let migrate = ["migrate", "--database-url", db.database.conninfo, "--statement-lock-wait", "0.2", "--attempts", "2"]

            let refused = try JobProcess.run(migrate)
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(refused.stderrLines.filter { $0.contains("migration waits for a lock; rolled back, trying again") }.count == 1,
                    "\(refused.stderr)")
            #expect(refused.stderr.contains("migration \(newest) not applied: 2 times a statement of it waited"), "\(refused.stderr)")
            #expect(refused.stderr.contains("run `plan-regen migrate` again"), "\(refused.stderr)")
            let tables = PlanTables(connection: owner)
            #expect(try tables.count("SELECT count(*) FROM plan_regen_migrations WHERE name = \(bind: newest)") == 0)
            #expect(try tables.count(
                "SELECT count(*) FROM information_schema.columns WHERE table_name = 'plan_regen_migrations' AND column_name = 'kind'") == 0)

            try analyst.execute("COMMIT", purpose: "test: the analyst is done")
            let applied = try JobProcess.run(migrate)
            #expect(applied.status == 0, "\(applied.stderr)")
            #expect(try tables.count("SELECT count(*) FROM plan_regen_migrations WHERE name = \(bind: newest)") == 1)
        }
    }

    /// The tested build is not stamped (deploy/test.sh does not name a commit).
    @Test func versionPrintsTheReleaseTheCommitTheRulesAndTheSchemaLevel() throws {
        let result = try JobProcess.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "plan-regen 1.0.0 (unknown commit, rules \(rulesVersion), schema "
                + "\(Migration.planRegen.last!.name))\n")
    }
}

/// What the Migrator's retries saw, from its callback.
final class RetryLog: @unchecked Sendable {
    private let lock = NSLock()
    private var retries = 0
    private var sawRunInProgress = false

    func record(runInProgress: Bool) {
        lock.lock()
        retries += 1
        if retries == 1 { sawRunInProgress = runInProgress }
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return retries
    }

    var runWasInProgress: Bool {
        lock.lock()
        defer { lock.unlock() }
        return sawRunInProgress
    }
}
