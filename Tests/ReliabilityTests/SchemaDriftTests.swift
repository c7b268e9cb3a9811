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
            try db.owner().execute("DELETE FROM plan_regen_migrations WHERE name = $1", [newest],
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
