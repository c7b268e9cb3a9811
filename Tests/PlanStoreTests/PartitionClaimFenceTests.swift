import Foundation
import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing

/// The claims of sql/0008 as the store uses them (PartitionClaims.swift): a takeover waits
/// for the write in flight of the run it takes over from, after which that run can neither
/// write nor renew; a manual rerun's lock waits for a batch in flight too.
@Suite struct PartitionClaimFenceTests {
    private func migratedDatabase<Result>(_ body: (TestDatabase) throws -> Result) throws -> Result {
        try TestDatabase.withFresh { database in
            try Migrator(connection: database.connect()).apply(Migration.reference + Migration.planRegen)
            return try body(database)
        }
    }

    /// Polls (bounded) until some session of `database` waits on a lock.
    private func waitUntilASessionWaitsOnALock(_ observer: PostgresConnection, database: String) throws {
        for _ in 0..<500 {
            let waiting = try observer.query(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = \(bind: database) AND wait_event_type = 'Lock'",
                purpose: "looking for a session waiting on a lock").singleRow().int(0)
            if waiting > 0 { return }
            usleep(10_000)
        }
        Issue.record("no session started waiting on a lock within 5 s")
    }

    @Test func aTakeoverWaitsForTheBatchInFlightAndTheLosingRunCanNeitherWriteNorRenew() throws {
        try migratedDatabase { database in
            let observer = try database.connect()
            let runA = PlanStore(connection: try database.connect())
            let runB = PlanStore(connection: try database.connect())
            let claimedA = try runA.claimPartitions([0, 1, 2], runID: 1, ttl: .seconds(60), takingOverFrom: [])
            #expect(claimedA.claimed == [0, 1, 2])
            // B finds them held.
            #expect(try runB.claimPartitions([0, 1, 2], runID: 2, ttl: .seconds(60), takingOverFrom: []).claimed.isEmpty)
            #expect(try runB.partitionHolders([0, 1, 2], except: 2).map(\.runID) == [1, 1, 1])

            // A's batch transaction is in flight (fenced) when its claim lapses.
            try runA.connection.executeScript("BEGIN", purpose: "A's batch transaction")
            try runA.fenceClaims([0, 1, 2], runID: 1)
            try observer.execute("UPDATE plan_partition_claims SET expires_at = clock_timestamp() - interval '1 s'",
                                 purpose: "A's claim lapses")

            let takeover = ResultBox()
            let done = DispatchSemaphore(value: 0)
            let conninfo = database.conninfo
            Thread.detachNewThread {
                takeover.value = Result {
                    try PlanStore(connection: PostgresConnection(conninfo: conninfo))
                        .claimPartitions([0, 1, 2], runID: 2, ttl: .seconds(60), takingOverFrom: [])
                }
                done.signal()
            }
            try waitUntilASessionWaitsOnALock(observer, database: database.name)
            #expect(takeover.value == nil, "the takeover must wait for A's batch transaction")
            try runA.connection.executeScript("COMMIT", purpose: "A's batch commits")
            done.wait()
            let taken = try #require(try takeover.value?.get())
            #expect(taken.claimed == [0, 1, 2])
            #expect(taken.takenFrom == [1])

            // A's next batch stops at its fence; its renewal fails too.
            try runA.connection.executeScript("BEGIN", purpose: "A's next batch transaction")
            #expect(throws: StoreError.self) { try runA.fenceClaims([0, 1, 2], runID: 1) }
            try runA.connection.executeScript("ROLLBACK", purpose: "A gives up")
            #expect(throws: StoreError.self) { try runA.renewClaims([0, 1, 2], runID: 1, ttl: .seconds(60)) }
            // B's fence and renewal hold; releasing frees every row.
            try runB.connection.withTransaction { _ in try runB.fenceClaims([0, 1, 2], runID: 2) }
            try runB.renewClaims([0, 1, 2], runID: 2, ttl: .seconds(60))
            try runB.releaseClaims(runID: 2)
            #expect(try observer.query("SELECT count(*) FROM plan_partition_claims WHERE run_id IS NOT NULL",
                                       purpose: "counting claims").singleRow().int(0) == 0)
        }
    }

    @Test func aRenewalDoesNotWaitForTheRunsOwnBatchesButAManualRerunDoes() throws {
        try migratedDatabase { database in
            let observer = try database.connect()
            let worker = PlanStore(connection: try database.connect())
            let keeper = PlanStore(connection: try database.connect())
            #expect(try keeper.claimPartitions([5], runID: 7, ttl: .seconds(60), takingOverFrom: []).claimed == [5])
            try worker.connection.executeScript("BEGIN", purpose: "a batch transaction of run 7")
            try worker.fenceClaims([5], runID: 7)
            // The run's own renewal goes through while its batch is in flight (KEY SHARE).
            try keeper.renewClaims([5], runID: 7, ttl: .seconds(60))

            // A manual rerun's transaction waits for the batch.
            let manual = ResultBox()
            let done = DispatchSemaphore(value: 0)
            let conninfo = database.conninfo
            Thread.detachNewThread {
                manual.value = Result {
                    let store = PlanStore(connection: try PostgresConnection(conninfo: conninfo))
                    try store.connection.withTransaction { _ in try store.lockPartitionsExclusively([5]) }
                    return (claimed: [5], takenFrom: [])
                }
                done.signal()
            }
            try waitUntilASessionWaitsOnALock(observer, database: database.name)
            #expect(manual.value == nil)
            try worker.connection.executeScript("COMMIT", purpose: "the batch commits")
            done.wait()
            #expect(throws: Never.self) { try manual.value?.get() }
        }
    }
}

/// A result handed from a thread to the test (set once, read after a semaphore).
final class ResultBox: @unchecked Sendable {
    var value: Result<(claimed: [Int], takenFrom: [Int64]), any Error>?
}
