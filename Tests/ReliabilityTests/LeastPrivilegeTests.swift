import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing

/// The job runs as a member of `plan_regen_job` (sql/0003_job_role.sql), which can read
/// user_settings and read/write the job's own tables, and nothing else. Every other test
/// of this target runs the job under that role too.
@Suite struct LeastPrivilegeTests {
    @Test func theJobRoleReadsUserSettingsAndCannotChangeAnythingElse() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 5, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!)
            let job = try db.asJob()
            #expect(try job.query("SELECT count(*) FROM user_settings", purpose: "reading").singleRow().int(0) == 5)
            let forbidden: [SQLQuery] = [
                "UPDATE user_settings SET gender = 'other'",
                "INSERT INTO user_settings (user_id) VALUES (99)",
                "DELETE FROM user_settings",
                "UPDATE plan_history SET reasons = '{}'",       // history is append-only for the job
                "DELETE FROM plan_watermarks",
                "TRUNCATE plan_history",
                "DROP TABLE plan_history",
                "ALTER TABLE plan_state ADD COLUMN x int",
                "CREATE TABLE public.intruder (x int)",
                "INSERT INTO plan_regen_migrations (name, checksum) VALUES ('x', 'y')",
            ]
            for statement in forbidden {
                let error = try #require(throws: PostgresError.self, "\(statement.sql)") {
                    try job.execute(statement, purpose: "trying what the job may not do")
                }
                #expect(error.sqlState == "42501", "\(statement.sql): \(error)")
            }
        }
    }

    @Test func everyJobCommandWorksUnderTheJobRole() throws {
        try JobDatabase.withFresh { db in
            try db.seed(users: 50, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!)
            let result = try db.run(["--as-of", "2026-03-01T00:00:00Z"])
            #expect(result.status == 0, "\(result.stderr)")
            let tables = PlanTables(connection: try db.owner())
            #expect(try tables.count("SELECT count(*) FROM plan_state") == 50)
            #expect(try tables.count("SELECT count(*) FROM plan_runs WHERE status = 'succeeded'") == 1)
            for command in [["history", "--user", "1"], ["explain", "--user", "1"], ["prune", "--older-than", "30d"],
                            ["forget", "--user", "1"]] {
                let result = try JobProcess.run([command[0], "--database-url", db.jobConninfo] + command.dropFirst())
                #expect(result.status == 0, "\(command[0]): \(result.stderr)")
            }
        }
    }

    /// In production the job's tables and the app's user_settings have different owners,
    /// and the migrating role may grant only on its own tables: migrations still succeed
    /// and say which grant the app's owner must run.
    @Test func migrationsByAnOwnerWhoDoesNotOwnUserSettingsSucceedAndNameTheGrant() throws {
        let database = try TestDatabase.create()
        let admin = try TestDatabase.adminConnection()
        let suffix = database.name.dropFirst(2)
        let appOwner = "app_\(suffix)"
        let migrator = "mig_\(suffix)"
        defer {
            try? database.drop()
            _ = try? admin.execute("DROP ROLE IF EXISTS \(identifier: appOwner)", purpose: "dropping a test role")
            _ = try? admin.execute("DROP ROLE IF EXISTS \(identifier: migrator)", purpose: "dropping a test role")
        }
        try admin.execute("CREATE ROLE \(identifier: appOwner) NOLOGIN", purpose: "creating the app's owner")
        try admin.execute("CREATE ROLE \(identifier: migrator) LOGIN", purpose: "creating the job's owner")
        let owner = try database.connect()
        for migration in Migration.reference { try owner.executeScript(migration.sql, purpose: "creating the app's table") }
        try owner.execute("ALTER TABLE user_settings OWNER TO \(identifier: appOwner)",
        purpose: "handing user_settings to the app")
        try owner.execute("GRANT CREATE ON SCHEMA public TO \(identifier: migrator)",
                          purpose: "letting the job's owner create its tables")
        // plan_regen_job exists already (other databases of the cluster made it), as a DBA would have.
        try admin.executeScript(
            "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'plan_regen_job') THEN "
                + "CREATE ROLE plan_regen_job NOLOGIN; END IF; EXCEPTION WHEN duplicate_object OR "
                + "unique_violation THEN NULL; END $$",
            purpose: "making sure plan_regen_job exists")

        let asMigrator = try PostgresConnection(conninfo: "\(database.conninfo) user=\(migrator)")
        var notices: [String] = []
        asMigrator.onNotice = { notices.append($0) }
        let applied = try Migrator(connection: asMigrator).apply(Migration.planRegen)
        #expect(applied == Migration.planRegen.map(\.name))
        #expect(notices.contains { $0.contains("GRANT SELECT ON user_settings TO plan_regen_job") })
        let granted = try owner.query(
            "SELECT has_table_privilege('plan_regen_job', 'user_settings', 'SELECT')", purpose: "checking the grant")
        #expect(try granted.singleRow().bool(0) == false)
    }

    @Test func migrationsWithoutUserSettingsSucceedAndNameTheGrant() throws {
        try TestDatabase.withFresh { database in
            let owner = try database.connect()
            var notices: [String] = []
            owner.onNotice = { notices.append($0) }
            try Migrator(connection: owner).apply(Migration.planRegen)
            #expect(notices.contains { $0.contains("user_settings does not exist yet")
                && $0.contains("GRANT SELECT ON user_settings TO plan_regen_job") })
        }
    }

    /// libpq's own password handling: neither a URL password nor PGPASSWORD is ever printed.
    @Test func noPasswordReachesALogLine() throws {
        try JobDatabase.withFresh { db in
            let owner = try db.owner()
            let password = "S3cret-Pw_%21"
            let base = "postgresql://\(db.jobRole):\(password)@/"
            let location = "?host=\(owner.host.uriEncoded)&port=\(owner.port)"
            // A connection that fails (no such database): the error names the target, not the password.
            let failed = try JobProcess.run(["run", "--database-url", base + "no_such_db" + location],
                                            environment: ["PGPASSWORD": "Env-S3cret"])
            #expect(failed.status == 1)
            #expect(failed.criticalLines.count == 1)
            #expect(failed.stderr.contains("no_such_db"))
            // A run that succeeds (the test server trusts local connections) at the most verbose level.
            let succeeded = try JobProcess.run(
                ["run", "--database-url", base + db.database.name + location, "--log-level", "trace",
                 "--as-of", "2026-03-01T00:00:00Z"],
                environment: ["PGPASSWORD": "Env-S3cret"])
            #expect(succeeded.status == 0, "\(succeeded.stderr)")
            for output in [failed.stderr, succeeded.stderr] {
                #expect(!output.contains("S3cret"))
            }
        }
    }

    /// `sslmode` reaches libpq from a conninfo, a URL and PGSSLMODE: against a server
    /// without TLS, `require` fails with libpq's reason instead of connecting in clear.
    @Test func sslmodeRequireAgainstAServerWithoutTLSFailsWithLibpqsReason() throws {
        let cluster = try ThrowawayCluster()
        // Listen on 127.0.0.1 too (libpq ignores sslmode on Unix sockets).
        try cluster.connect().execute("ALTER SYSTEM SET listen_addresses = '127.0.0.1'", purpose: "enabling TCP")
        try cluster.stopServer()
        try cluster.start()
        let tcp = "host=127.0.0.1 port=\(cluster.port) dbname=postgres user=postgres"
        let attempts: [([String], [String: String])] = [
            (["--database-url", "\(tcp) sslmode=require"], [:]),
            (["--database-url", "postgresql://postgres@127.0.0.1:\(cluster.port)/postgres?sslmode=require"], [:]),
            (["--database-url", tcp], ["PGSSLMODE": "require"]),
        ]
        for (arguments, environment) in attempts {
            let result = try JobProcess.run(["run"] + arguments, environment: environment)
            #expect(result.status == 1)
            #expect(result.criticalLines.count == 1)
            #expect(result.stderr.contains("server does not support SSL, but SSL was required"), "\(result.stderr)")
        }
        // Without TLS required the same server is reached (and refuses the TCP login by pg_hba).
        let clear = try JobProcess.run(["run", "--database-url", "\(tcp) sslmode=disable"])
        #expect(clear.status == 1)
        #expect(!clear.stderr.contains("SSL was required"))
        #expect(clear.stderr.contains("pg_hba.conf"))
    }
}
