import DemoData
import Foundation
import PlanRules
import PlanStore
import Postgres
import Synchronization
import Testing

/// The database goes away mid-run: the job exits 1 with one line naming what failed,
/// every batch it committed is whole (history ⇔ state ⇔ outbox), and the next run
/// completes. A lock held by another session makes it fail after lock_timeout instead
/// of hanging.
@Suite struct DatabaseLossTests {
    static let asOf = ["--as-of", "2026-03-01T00:00:00Z"]

    /// The server crashing (`pg_ctl stop -m immediate`) between two statements: the next
    /// statement — sent with the transaction settings in one pipeline — fails as
    /// "database went away" at once. (It once waited forever: libpq answered the pipeline
    /// with NULL results and no error while the connection still looked fine.)
    @Test(.requires(.pgCtl)) func aStatementAfterTheServerCrashedFailsAsConnectionLostInsteadOfHanging() throws {
        let cluster = try ThrowawayCluster()
        for attempt in 0..<3 {
            let connection = try cluster.connect()
            connection.transactionSettings.set("lock_timeout", .seconds(5))
            _ = try connection.query("SELECT 1", purpose: "a first statement")
            if attempt == 2 {
                try connection.executeScript("BEGIN", purpose: "a transaction in progress")
            }
            try cluster.crash()
            /// What the statement threw: whether it reads as a lost connection, and its text.
            let outcome = Mutex<(lost: Bool, text: String)?>(nil)
            let done = DispatchSemaphore(value: 0)
            let victim = UncheckedBox(connection)
            Thread.detachNewThread {
                var thrown: (lost: Bool, text: String) = (false, "no error")
                do {
                    _ = try victim.value.query("SELECT 2", purpose: "marking a batch emitted")
                } catch {
                    thrown = ((error as? PostgresError)?.code == .connectionLost, "\(error)")
                }
                outcome.withLock { $0 = thrown }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 20) == .success, "the statement hung after the crash (attempt \(attempt))")
            let thrown = try #require(outcome.withLock { $0 })
            #expect(thrown.lost, "\(thrown.text)")
            #expect(thrown.text.hasPrefix("database went away while marking a batch emitted"), "\(thrown.text)")
            try cluster.start()
        }
    }

    @Test func aTerminatedBackendEndsTheRunWithOneLineAndTheNextRunCompletes() throws {
        try JobDatabase.withFresh { db in
            let owner = try db.owner()
            let tables = PlanTables(connection: owner)
            try db.seed(users: 4000, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!)
            // One worker: one backend of the job's to end.
            let job = try db.startRun(Self.asOf + ["--batch-size", "100", "--workers", "1"])
            try waitUntil("the run to commit 300 plans") {
                try tables.count("SELECT count(*) FROM plan_history") >= 300 || !job.isRunning
            }
            // What a DBA would do: find the job by application_name and end its backend.
            let terminated = try owner.query(
                """
                SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE application_name = 'plan-regen' AND usename = \(bind: db.jobRole)
                """, purpose: "terminating the job's backend").singleRow().int(0)
            #expect(terminated == 1)
            let result = try job.waitForExit()
            #expect(result.status == 1)
            #expect(result.criticalLines.count == 1)
            #expect(result.criticalLines.first?.contains("database went away while") == true, "\(result.stderr)")
            let partial = try tables.consistency()
            #expect(partial.isConsistent, "\(partial)")
            #expect(try tables.count("SELECT count(*) FROM plan_state") < 4000)

            let next = try db.run(Self.asOf)
            #expect(next.status == 0, "\(next.stderr)")
            let final = try tables.consistency()
            #expect(final.isConsistent && final.pendingNotifications == 0, "\(final)")
            #expect(try tables.count("SELECT count(*) FROM plan_state") == 4000)
        }
    }

    /// On a cluster of the test's own, stopped with `pg_ctl stop -m fast`'s signal.
    @Test func aServerStoppedMidRunEndsTheRunWithOneLineAndTheNextRunCompletes() throws {
        let cluster = try ThrowawayCluster()
        let setup = try cluster.connect()
        try Migrator(connection: setup).apply(Migration.reference + Migration.planRegen)
        try setup.execute("CREATE ROLE job LOGIN IN ROLE plan_regen_job", purpose: "creating the job's login role")
        try DemoUsers.insert(count: 4000, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!, into: setup)
        let jobConninfo = cluster.conninfo(user: "job")
        let job = try JobProcess(["run", "--database-url", jobConninfo, "--batch-size", "100"] + Self.asOf)
        try waitUntil("the run to commit 300 plans") {
            try PlanTables(connection: setup).count("SELECT count(*) FROM plan_history") >= 300 || !job.isRunning
        }
        try cluster.stopServer()
        let result = try job.waitForExit()
        #expect(result.status == 1)
        #expect(result.criticalLines.count == 1)
        #expect(result.criticalLines.first?.contains("database went away while") == true, "\(result.stderr)")

        try cluster.start()
        let tables = PlanTables(connection: try cluster.connect())
        let partial = try tables.consistency()
        #expect(partial.isConsistent, "\(partial)")
        #expect(try tables.count("SELECT count(*) FROM plan_state") < 4000)
        let next = try JobProcess.run(["run", "--database-url", jobConninfo] + Self.asOf)
        #expect(next.status == 0, "\(next.stderr)")
        let final = try tables.consistency()
        #expect(final.isConsistent && final.pendingNotifications == 0, "\(final)")
        #expect(try tables.count("SELECT count(*) FROM plan_state") == 4000)
    }

    @Test func aRunBlockedBehindARowLockFailsAfterLockTimeoutWithoutWriting() throws {
        try JobDatabase.withFresh { db in
            let owner = try db.owner()
            let tables = PlanTables(connection: owner)
            try db.seed(users: 30, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!)
            #expect(try db.run(Self.asOf).status == 0)
            try owner.execute(
                "UPDATE user_settings SET current_weight_kg = current_weight_kg + 3, updated_at = '2026-03-01T01:00:00Z'",
                purpose: "the app changing every user")
            let historyBefore = try tables.count("SELECT count(*) FROM plan_history")
            // Another session holds user 7's plan_state row.
            let holder = try db.owner()
            try holder.execute("BEGIN", purpose: "starting the blocking transaction")
            try holder.execute("SELECT * FROM plan_state WHERE user_id = 7 FOR UPDATE", purpose: "locking a row")

            let blocked = try db.run(["--as-of", "2026-03-03T00:00:00Z", "--lock-timeout", "1"])
            #expect(blocked.status == 1)
            #expect(blocked.criticalLines.count == 1)
            let line = try #require(blocked.criticalLines.first)
            #expect(line.contains("canceling statement due to lock timeout"), "\(line)")
            #expect(line.contains("SQLSTATE 55P03"))
            #expect(line.contains("pg_locks"))
            #expect(try tables.count("SELECT count(*) FROM plan_history") == historyBefore)
            #expect(try tables.consistency().isConsistent)

            try holder.execute("ROLLBACK", purpose: "releasing the lock")
            let next = try db.run(["--as-of", "2026-03-03T00:00:00Z"])
            #expect(next.status == 0, "\(next.stderr)")
            #expect(try tables.count("SELECT count(*) FROM plan_history") > historyBefore)
        }
    }
}

/// Hands a non-Sendable value to another thread that is its only user from then on.
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
