import Foundation
import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing

/// The job behind a real PgBouncer (Debian's 1.18) in transaction and in session mode,
/// with two server connections: what a managed platform gives. Nothing may depend on
/// session state there (issue 13): migrations, overlapping and killed runs, a pooler
/// restart. Every job process runs as the least-privileged job role.
@Suite(.requires(.pgbouncer)) struct PoolerTests {
    static let asOf = "2026-03-01T00:00:00Z"

    /// The shared test server (socket directory, port), which every pooler points at.
    static func server() throws -> (host: String, port: String) {
        let admin = try TestDatabase.adminConnection()
        return (admin.host, admin.port)
    }

    static func pooler(_ mode: PgBouncer.PoolMode, poolSize: Int = 2, users: [String] = []) throws -> PgBouncer {
        let server = try server()
        return try PgBouncer(server: server.host, port: server.port, poolMode: mode, poolSize: poolSize, users: users)
    }

    /// A temp folder for notification files, removed afterwards.
    static func withFolder<Result>(_ body: (URL) throws -> Result) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pooler-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    @Test func twoMigratesAtOnceThroughTheTransactionPoolerBothSucceedAndLeaveNoLock() throws {
        try JobDatabase.withFresh(migrate: false) { db in
            let bouncer = try Self.pooler(.transaction)
            defer { bouncer.stop() }
            let url = bouncer.conninfo(database: db.database.name)
            let migrates = try (0..<2).map { _ in
                try JobProcess(["migrate", "--with-reference-schema", "--database-url", url])
            }
            let results = try migrates.map { try $0.waitForExit() }
            for result in results { #expect(result.status == 0, "\(result.stderr)") }
            let tables = PlanTables(connection: try db.owner())
            #expect(try tables.count("SELECT count(*) FROM plan_regen_migrations")
                    == Migration.reference.count + Migration.planRegen.count)
            #expect(try tables.advisoryLocks() == 0)
            // Directly, at once: a session lock left on a pooled server connection made this
            // wait until PgBouncer closed that connection (server_idle_timeout, 10 minutes).
            let direct = try JobProcess.run(["migrate", "--database-url", db.database.conninfo])
            #expect(direct.status == 0, "\(direct.stderr)")
            #expect(direct.stderr.contains("none (up to date)"))
        }
    }

    /// Issue 13's "done when": three runs started together through the transaction pooler
    /// (one claims every partition, two leave the users to it), the holder killed -9
    /// mid-run, the run that takes over killed -9 mid-run too, then a last run: every user
    /// planned exactly once — the history equals an uninterrupted run's —, every
    /// notification emitted, no advisory lock or claim left; a change the next day is
    /// planned by the next run.
    @Test func overlappingRunsWithTwoKilledPlanEveryUserOnceBehindTheTransactionPooler() throws {
        try JobDatabase.withFresh { reference in
            try JobDatabase.withFresh { db in
                try Self.withFolder { folder in
                    let users = 3000
                    for database in [reference, db] {
                        try database.seed(users: users, writtenBefore: Instant(rfc3339: Self.asOf)!)
                    }
                    let arguments = ["--as-of", Self.asOf, "--batch-size", "50"]
                    let referenceLines = folder.appendingPathComponent("reference.jsonl").path
                    let uninterrupted = try reference.run(arguments + ["--notifications", referenceLines])
                    #expect(uninterrupted.status == 0, "\(uninterrupted.stderr)")

                    let bouncer = try Self.pooler(.transaction, users: [db.jobRole])
                    defer { bouncer.stop() }
                    let url = bouncer.conninfo(database: db.database.name, user: db.jobRole)
                    let tables = PlanTables(connection: try db.owner())
                    var files: [String] = []
                    func start() throws -> JobProcess {
                        files.append(folder.appendingPathComponent("run\(files.count).jsonl").path)
                        return try JobProcess(["run", "--database-url", url, "--workers", "2",
                                               "--notifications", files.last!] + arguments)
                    }
                    func plans() throws -> Int { try tables.count("SELECT count(*) FROM plan_history") }
                    /// The run among `runs` that holds the claims, once one does.
                    func holder(_ runs: [JobProcess]) throws -> JobProcess? {
                        let pids = try tables.connection.query(
                            """
                            SELECT DISTINCT r.pid FROM plan_partition_claims c JOIN plan_runs r USING (run_id)
                            WHERE c.expires_at > clock_timestamp()
                            """, purpose: "finding the holder").map { try $0.int(0) }
                        return runs.first { pids.contains(Int($0.process.processIdentifier)) }
                    }

                    let together = try (0..<3).map { _ in try start() }
                    var firstHolder: JobProcess?
                    // The two others have found every partition held and ended (else one of
                    // them, started late on a busy machine, would take over from the kill).
                    try waitUntil("a run holding the partitions to write 400 plans, the others to end") {
                        firstHolder = try holder(together)
                        guard let running = firstHolder else { return false }
                        return try plans() >= 400 && together.allSatisfy { $0 === running || !$0.isRunning }
                    }
                    firstHolder?.killNow()
                    let togetherResults = try together.map { try $0.waitForExit() }
                    #expect(togetherResults.filter(\.killed).count == 1)
                    for result in togetherResults where !result.killed {
                        #expect(result.status == 0, "\(result.stderr)")
                        #expect(result.stderr.contains("status=held_by_others"), "\(result.stderr)")
                    }

                    let takeover = try start()
                    try waitUntil("the run that took over to write 400 more plans") {
                        try plans() >= 800 && holder([takeover]) != nil
                    }
                    takeover.killNow()
                    let killed = try takeover.waitForExit()
                    #expect(killed.killed)

                    let last = try start()
                    let lastResult = try last.waitForExit()
                    #expect(lastResult.status == 0, "\(lastResult.stderr)")
                    #expect(lastResult.stderr.contains("took over the partitions of runs that ended without finishing"))

                    let expected = PlanTables(connection: try reference.owner())
                    let (want, got) = (try expected.planFingerprints(), try tables.planFingerprints())
                    #expect(want.count > 2000)
                    #expect(want == got, "plan_history differs in \(KillTests.differences(want, got))")
                    #expect(try tables.count("SELECT count(*) FROM plan_state") == users)
                    let consistency = try tables.consistency()
                    #expect(consistency.isConsistent && consistency.pendingNotifications == 0, "\(consistency)")
                    let referenceIDs = Set(try notificationIDs(try Self.lines(referenceLines)))
                    let emitted = Set(try files.flatMap { try notificationIDs(try Self.lines($0).filter(Self.isJSON)) })
                    #expect(referenceIDs.subtracting(emitted).isEmpty, "never emitted")
                    #expect(try tables.advisoryLocks() == 0)
                    #expect(try tables.heldClaims() == 0)
                    #expect(try tables.count("SELECT count(*) FROM plan_runs WHERE status = 'abandoned'") == 2)
                    #expect(try tables.count("SELECT count(*) FROM plan_runs WHERE status = 'running'") == 0)

                    // The next day the app changes a user; the next run plans it.
                    let changed = try tables.connection.query(
                        "SELECT min(user_id) FROM plan_state WHERE plan_date IS NOT NULL", purpose: "a planned user")
                        .singleRow().int64(0)
                    try tables.connection.execute(
                        """
                        UPDATE user_settings SET current_weight_kg = current_weight_kg - 2,
                               updated_at = '2026-03-02T09:00:00Z' WHERE user_id = \(changed)
                        """, purpose: "the app changing a user")
                    let nextDay = try JobProcess.run(["run", "--database-url", url, "--as-of", "2026-03-03T12:00:00Z",
                                                      "--notifications", files[0]])
                    #expect(nextDay.status == 0, "\(nextDay.stderr)")
                    let reasons = try tables.connection.query(
                        """
                        SELECT array_to_string(reasons, ',') FROM plan_history
                        WHERE user_id = \(changed) ORDER BY plan_date DESC, seq DESC LIMIT 1
                        """, purpose: "the user's latest plan").singleRow().string(0)
                    #expect(reasons.contains("settings_changed"))
                    #expect(try tables.heldClaims() == 0)
                }
            }
        }
    }

    @Test func overlappingRunsBehindTheSessionPoolerPlanEveryUserOnce() throws {
        try JobDatabase.withFresh { db in
            try Self.withFolder { folder in
                try db.seed(users: 1500, writtenBefore: Instant(rfc3339: Self.asOf)!)
                // Two server connections for three runs of up to three connections each
                // (main + 2 workers): clients wait for a server connection, none deadlocks.
                let bouncer = try Self.pooler(.session, poolSize: 2, users: [db.jobRole])
                defer { bouncer.stop() }
                let url = bouncer.conninfo(database: db.database.name, user: db.jobRole)
                let runs = try (0..<3).map { index in
                    try JobProcess(["run", "--database-url", url, "--as-of", Self.asOf, "--batch-size", "100",
                                    "--workers", "2", "--notifications", folder.appendingPathComponent("\(index).jsonl").path])
                }
                let results = try runs.map { try $0.waitForExit() }
                for result in results { #expect(result.status == 0, "\(result.stderr)") }
                let tables = PlanTables(connection: try db.owner())
                #expect(try tables.count("SELECT count(*) FROM plan_state") == 1500)
                let consistency = try tables.consistency()
                #expect(consistency.isConsistent && consistency.pendingNotifications == 0, "\(consistency)")
                let emitted = try (0..<3).flatMap {
                    try notificationIDs(try Self.lines(folder.appendingPathComponent("\($0).jsonl").path))
                }
                #expect(emitted.count == Set(emitted).count, "a notification emitted twice")
                #expect(Set(emitted) == Set(try tables.outbox().keys))
                #expect(try tables.advisoryLocks() == 0)
                #expect(try tables.heldClaims() == 0)
            }
        }
    }

    /// A pooler restart drops every connection mid-run: the run exits 1 (it does not
    /// retry), the batch in flight rolls back, and the next run completes the rest.
    @Test func aPoolerRestartMidRunEndsItWithExitOneAndTheNextRunCompletes() throws {
        try JobDatabase.withFresh { db in
            try Self.withFolder { folder in
                try db.seed(users: 2000, writtenBefore: Instant(rfc3339: Self.asOf)!)
                let bouncer = try Self.pooler(.transaction, users: [db.jobRole])
                defer { bouncer.stop() }
                let url = bouncer.conninfo(database: db.database.name, user: db.jobRole)
                let lines = folder.appendingPathComponent("lines.jsonl").path
                let tables = PlanTables(connection: try db.owner())
                let run = try JobProcess(["run", "--database-url", url, "--as-of", Self.asOf, "--batch-size", "25",
                                          "--notifications", lines])
                try waitUntil("the run to write 300 plans") {
                    try tables.count("SELECT count(*) FROM plan_history") >= 300 || !run.isRunning
                }
                try bouncer.restart()
                let dropped = try run.waitForExit()
                #expect(dropped.status == 1, "\(dropped.stderr)")
                #expect(dropped.criticalLines.count == 1, "\(dropped.stderr)")
                #expect(try tables.consistency().isConsistent)

                let next = try JobProcess.run(["run", "--database-url", url, "--as-of", Self.asOf,
                                               "--notifications", lines])
                #expect(next.status == 0, "\(next.stderr)")
                #expect(try tables.count("SELECT count(*) FROM plan_state") == 2000)
                let consistency = try tables.consistency()
                #expect(consistency.isConsistent && consistency.pendingNotifications == 0, "\(consistency)")
                let emitted = Set(try notificationIDs(try Self.lines(lines).filter(Self.isJSON)))
                #expect(emitted == Set(try tables.outbox().keys))
                #expect(try tables.heldClaims() == 0)
            }
        }
    }

    static func lines(_ path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// A whole JSON line (a kill mid-write may leave the start of one).
    static func isJSON(_ line: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil
    }
}
