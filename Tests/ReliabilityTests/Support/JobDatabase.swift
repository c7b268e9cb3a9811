import DemoData
import Foundation
import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing

/// A fresh test database set up the way production is: the owner applies the migrations
/// (with the app's reference user_settings), and the job logs in as its own LOGIN role,
/// a member of `plan_regen_job` (sql/0003_job_role.sql) and nothing more.
struct JobDatabase: Sendable {
    let database: TestDatabase
    /// The job's login role (cluster-wide, so unique per test).
    let jobRole: String

    /// The conninfo the job connects with: this database, as `jobRole`.
    var jobConninfo: String { "\(database.conninfo) user=\(jobRole)" }

    /// A connection as the owner (superuser on the test server): the app's writes and checks.
    func owner() throws -> PostgresConnection { try database.connect() }

    /// A connection as the job's role, as `plan-regen` itself would open.
    func asJob() throws -> PostgresConnection { try PostgresConnection(conninfo: jobConninfo) }

    /// `plan-regen run --database-url … arguments…` as a real process (the tested build,
    /// or `binary`).
    func run(_ arguments: [String], environment: [String: String] = [:], binary: URL? = nil) throws -> JobResult {
        try JobProcess.run(["run", "--database-url", jobConninfo] + arguments, environment: environment,
                           binary: binary)
    }

    func startRun(_ arguments: [String], environment: [String: String] = [:]) throws -> JobProcess {
        try JobProcess(["run", "--database-url", jobConninfo] + arguments, environment: environment)
    }

    /// Inserts the demo population (varied zones, goals, some incomplete and invalid rows).
    func seed(users: Int, firstUserID: Int64 = 1, writtenBefore: Instant) throws {
        try DemoUsers.insert(count: users, firstUserID: firstUserID, writtenBefore: writtenBefore, into: owner())
    }

    /// Runs `body` with a migrated database and a job role; drops both afterwards.
    static func withFresh<Result>(migrate: Bool = true, _ body: (JobDatabase) throws -> Result) throws -> Result {
        try TestDatabase.withFresh { database in
            let owner = try database.connect()
            if migrate {
                try Migrator(connection: owner).apply(Migration.reference + Migration.planRegen)
            }
            let role = "job_" + database.name.dropFirst(2)
            let admin = try TestDatabase.adminConnection()
            // IN ROLE needs plan_regen_job, which the migrations create once per cluster
            // (a database left unmigrated, for schema drift tests, has not run them).
            try admin.executeScript(
                "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'plan_regen_job') THEN "
                    + "CREATE ROLE plan_regen_job NOLOGIN; END IF; EXCEPTION WHEN duplicate_object OR "
                    + "unique_violation THEN NULL; END $$",
                purpose: "making sure plan_regen_job exists")
            try admin.execute(
                "CREATE ROLE \(identifier: role) LOGIN IN ROLE plan_regen_job",
                purpose: "creating the job's login role")
            defer {
                _ = try? TestDatabase.adminConnection().execute(
                    "DROP ROLE IF EXISTS \(identifier: role)", purpose: "dropping the job's login role")
            }
            let jobDatabase = JobDatabase(database: database, jobRole: role)
            defer { try? jobDatabase.disconnectJobSessions() }
            let result = try body(jobDatabase)
            // Whatever the test's runs stored validates against the published schemas.
            for check in try PublishedSchema.checksOfStoredDocuments(try jobDatabase.owner(), what: "a job database") {
                #expect(check.isValid, "\(check)")
            }
            return result
        }
    }

    /// Ends every session of the job's role, so the database and the role can be dropped.
    func disconnectJobSessions() throws {
        _ = try owner().query(
            "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE usename = \(bind: jobRole)",
            purpose: "ending the job's sessions")
    }
}
