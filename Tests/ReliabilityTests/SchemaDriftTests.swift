import PlanStore
import Testing

/// A database whose migrations are behind or ahead of the binary is never written to:
/// `plan-regen run` exits 1 with one line saying what to do.
@Suite struct SchemaDriftTests {
    private let asOf = ["--as-of", "2026-03-01T00:00:00Z"]

    @Test func aRunAgainstASchemaBehindTheBinaryExitsOneAndWritesNothing() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 20, writtenBefore: .init(rfc3339: "2026-03-01T00:00:00Z")!)
            // The database has not had the binary's newest migration yet.
            let newest = try #require(Migration.planRegen.last).name
            try db.owner().execute("DELETE FROM plan_regen_migrations WHERE name = \(bind: newest)",
                                   purpose: "forgetting the newest migration")
            let result = try db.run(asOf)
            #expect(result.status == 1)
            #expect(result.criticalLines.count == 1)
            #expect(result.stderr.contains("the database schema is behind this binary (pending: \(newest))"))
            #expect(result.stderr.contains("run `plan-regen migrate` first"))
            let tables = PlanTables(connection: try db.owner())
            #expect(try tables.count("SELECT count(*) FROM plan_runs") == 0)
            #expect(try tables.count("SELECT count(*) FROM plan_state") == 0)
        }
    }

    @Test func aRunAgainstADatabaseWithoutTheJobsTablesExitsOne() throws {
        try JobDatabase.withFresh(migrate: false) { db in
            let result = try db.run(asOf)
            #expect(result.status == 1)
            #expect(result.criticalLines.count == 1)
            #expect(result.stderr.contains("the database schema is behind this binary"))
        }
    }

    /// Every command opens the database the same way: before `migrate`, each says to run
    /// it (not "relation plan_state does not exist"), and none writes anything.
    @Test(arguments: [
        ["history", "--user", "1"], ["explain", "--user", "1"], ["run", "--dry-run", "--user", "1"],
        ["run", "--user", "1"], ["prune", "--older-than", "30d"], ["forget", "--user", "1"],
    ])
    func everyCommandBeforeMigrateSaysToRunMigrate(_ command: [String]) throws {
        try JobDatabase.withFresh(migrate: false) { db in
            let result = try JobProcess.run(command + ["--database-url", db.jobConninfo])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.criticalLines.count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("run `plan-regen migrate` first"), "\(result.stderr)")
            #expect(!result.stderr.contains("does not exist"), "\(result.stderr)")
            let tables = try db.owner().query(
                "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
                purpose: "counting tables").singleRow().int(0)
            #expect(tables == 0)
        }
    }

    @Test func aRunAgainstASchemaAheadOfTheBinaryExitsOneAndWritesNothing() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 20, writtenBefore: .init(rfc3339: "2026-03-01T00:00:00Z")!)
            try db.owner().execute(
                "INSERT INTO plan_regen_migrations (name, checksum) VALUES ('9999_from_a_newer_binary', '0')",
                purpose: "faking a newer schema")
            let result = try db.run(asOf)
            #expect(result.status == 1)
            #expect(result.criticalLines.count == 1)
            #expect(result.stderr.contains("migrations this binary does not know (9999_from_a_newer_binary)"))
            #expect(result.stderr.contains("deploy the newer plan-regen"))
            let tables = PlanTables(connection: try db.owner())
            #expect(try tables.count("SELECT count(*) FROM plan_runs") == 0)
            #expect(try tables.count("SELECT count(*) FROM plan_history") == 0)
        }
    }
}
