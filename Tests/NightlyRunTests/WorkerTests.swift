import DemoData
import Foundation
@testable import NightlyRun
import PlanStore
import PlanRules
import Testing

/// `--workers N` (issue 5): batches processed at once on N connections write exactly what
/// one worker writes, and each notification is emitted once.
@Suite struct WorkerTests {
    static let zones = ["UTC", "Asia/Kathmandu", "Pacific/Kiritimati", "America/St_Johns", "Europe/Berlin"]
    static let goals = ["lose_weight", "gain_muscle", "maintain_weight", "improve_health"]

    /// 240 users in 5 zones and 4 goals, written a day before `t0`; every 37th is
    /// incomplete and every 41st has an unknown zone, so rejections are written too.
    static func insertUsers(into driver: RunDriver, before t0: Instant) throws {
        for userID in Int64(1)...240 {
            try driver.insert(TestUser(
                userID: userID, currentWeightKg: "\(60 + userID % 50).\(userID % 10)",
                primaryGoal: goals[Int(userID) % goals.count],
                timezone: userID % 41 == 0 ? "Mars/Olympus_Mons" : zones[Int(userID) % zones.count],
                onboardingCompleted: userID % 37 != 0, updatedAt: t0.adding(seconds: -86_400)))
        }
    }

    /// What a run leaves behind that must not depend on how many workers wrote it.
    static func written(by driver: RunDriver) throws -> [String] {
        try driver.connection.query(
            """
            SELECT 'history ' || user_id || ' ' || plan_date || ' ' || seq || ' ' || reasons::text || ' '
                   || snapshot::text || ' ' || coalesce(previous::text, '-') || ' ' || diff::text FROM plan_history
            UNION ALL
            SELECT 'state ' || user_id || ' ' || coalesce(plan_date::text, '-') || ' ' || coalesce(last_evaluated_date::text, '-')
                   || ' ' || coalesce(next_check_at::text, '-') || ' ' || history_rows_on_plan_date FROM plan_state
            UNION ALL
            SELECT 'rejection ' || user_id || ' ' || field || ' ' || message FROM plan_rejections
            UNION ALL
            SELECT 'outbox ' || notification_id || ' ' || payload || ' ' || (emitted_at IS NOT NULL)
            FROM notification_outbox_lines
            ORDER BY 1
            """, purpose: "reading what the runs wrote"
        ).map { try $0.string(0) }
    }

    /// A history row's `previous` is the user's plan before it, as stored (the job writes
    /// back the text it read, not a new encoding of the decoded plan), for batches written
    /// by COPY (240 users in one) and by single statements (7 users each).
    @Test func everyPreviousIsTheStoredPlanBeforeIt() throws {
        let t0 = try #require(Instant(rfc3339: "2026-05-01T00:30:00Z"))
        for batchSize in [240, 7] {
            try RunDriver.withFresh { driver in
                try Self.insertUsers(into: driver, before: t0)
                // Day 14: the lose_weight users switch phase; day 15: everyone under new rules.
                try driver.run(at: t0, batchSize: batchSize)
                try driver.run(at: t0.adding(seconds: 14 * 86_400), batchSize: batchSize)
                try DemoUsers.makeCurrentPlansLookOlder(in: driver.connection)
                let rulesChange = try driver.run(at: t0.adding(seconds: 15 * 86_400), batchSize: batchSize,
                                                 rulesAtOnce: true)
                #expect(rulesChange.counts.due > 200)
                let rows = try driver.connection.query(
                    """
                    SELECT count(*) FILTER (WHERE h.previous IS NOT NULL) AS with_previous,
                           count(*) FILTER (WHERE h.previous IS DISTINCT FROM
                               (SELECT b.snapshot FROM plan_history b WHERE b.user_id = h.user_id
                                  AND (b.plan_date, b.seq) < (h.plan_date, h.seq)
                                ORDER BY b.plan_date DESC, b.seq DESC LIMIT 1)) AS mismatched
                    FROM plan_history h
                    """, purpose: "test: comparing each previous with the plan before it").singleRow()
                #expect(try rows.int("with_previous") > 200, "batch size \(batchSize)")
                #expect(try rows.int("mismatched") == 0, "batch size \(batchSize)")
            }
        }
    }

    @Test func threeWorkersWriteWhatOneWorkerWritesAndEmitEachLineOnce() throws {
        let t0 = try #require(Instant(rfc3339: "2026-05-01T00:30:00Z"))
        let later = t0.adding(seconds: 14 * 86_400)  // phase switches for the lose_weight users
        try RunDriver.withFresh { single in
            try RunDriver.withFresh { parallel in
                try Self.insertUsers(into: single, before: t0)
                try Self.insertUsers(into: parallel, before: t0)
                for instant in [t0, later] {
                    // Batches of 7 users: 35 batches for 240 users, shared by 3 workers.
                    let one = try single.run(at: instant, batchSize: 7, workers: 1)
                    let three = try parallel.run(at: instant, batchSize: 7, workers: 3)
                    #expect(one.counts == three.counts)
                    #expect(three.counts.due > 0)
                    // Rejections are recorded once per row version: by the first run.
                    #expect((three.counts.rejected > 0) == (instant == t0))
                }
                let expected = try Self.written(by: single)
                #expect(expected.count > 480)
                #expect(try Self.written(by: parallel) == expected)
                let emitted = try parallel.emittedNotifications().map(\.raw)
                #expect(emitted.sorted() == (try single.emittedNotifications().map(\.raw).sorted()))
                #expect(Set(emitted).count == emitted.count, "a line emitted twice")
                #expect(try parallel.outbox().allSatisfy(\.emitted))
            }
        }
    }

    /// With N workers each worker selects the candidates of its share of the partitions:
    /// a weight changed in any share is seen by the next run (and only those users'
    /// state is rewritten), and the new plans are written at the users' next midnight.
    @Test func workersSelectChangesInEveryShareOfThePartitions() throws {
        let t0 = try #require(Instant(rfc3339: "2026-05-01T00:30:00Z"))
        try RunDriver.withFresh { driver in
            try Self.insertUsers(into: driver, before: t0)
            let first = try #require(try driver.run(at: t0, batchSize: 7, workers: 3).runID)
            // Users 64…69: six consecutive partitions, so every share of 3 workers.
            let changed: [Int64] = Array(64...69)
            for userID in changed {
                try driver.setWeight(of: userID, to: "99.5", at: t0.adding(seconds: 600))
            }
            let seen = try #require(try driver.run(at: t0.adding(seconds: 900), batchSize: 7, workers: 3).runID)
            for userID in changed {
                #expect(try driver.state(of: userID)?.updatedByRun == seen, "user \(userID)'s change was not seen")
            }
            #expect(try driver.state(of: 70)?.updatedByRun == first)
            // Two days on, every changed user's new plan has been written, and no one else's.
            let later = try driver.run(at: t0.adding(seconds: 2 * 86_400), batchSize: 7, workers: 3)
            #expect(later.counts.due == changed.count)
            for userID in changed {
                #expect(try driver.history(of: userID).count == 2, "user \(userID)'s new plan is missing")
            }
        }
    }

    /// A batch left pending by a killed unsharded run spans partitions; a `--shard` run
    /// emits only the lines of its own partitions and leaves the others pending for the
    /// run that holds theirs.
    @Test func aShardEmitsOnlyItsPartOfALeftoverBatchAndTheOtherShardTheRest() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            // Users 64 and 66 are in even partitions (shard 0/2), 65 in an odd one (shard 1/2).
            for userID in Int64(64)...66 {
                try driver.insert(TestUser(userID: userID, updatedAt: t0.adding(seconds: -60)))
            }
            let full = try NotificationSink.appending(toFile: "/dev/full")
            #expect(throws: RunError.self) { try driver.run(at: t0, notifications: full) }
            #expect(try driver.outbox().filter(\.emitted).isEmpty)

            try driver.run(at: t0.adding(minutes: 15), shard: Shard("0/2"))
            #expect(try driver.emittedNotifications().map(\.userID).sorted() == [64, 66])
            #expect(try driver.outbox().filter { !$0.emitted }.map(\.id) == ["65:2026-04-10:plan_created:0"])

            try driver.run(at: t0.adding(minutes: 30), shard: Shard("1/2"))
            try driver.run(at: t0.adding(minutes: 45))
            #expect(try driver.emittedNotifications().map(\.userID).sorted() == [64, 65, 66])
            #expect(try driver.outbox().allSatisfy(\.emitted))
            #expect(try driver.connection.query(
                "SELECT count(*) FROM notification_batches WHERE emitted_at IS NULL",
                purpose: "counting pending batches").singleRow().int(0) == 0)
        }
    }

    /// A small batch (a `--user` rerun, the last users of a run) is written by statements
    /// sent in one round trip, a large one by COPY: both store exactly the same rows.
    @Test func smallBatchesWrittenInOneRoundTripStoreWhatCopyStores() throws {
        let t0 = try #require(Instant(rfc3339: "2026-05-01T00:30:00Z"))
        try RunDriver.withFresh { copied in
            try RunDriver.withFresh { pipelined in
                try Self.insertUsers(into: copied, before: t0)
                try Self.insertUsers(into: pipelined, before: t0)
                for instant in [t0, t0.adding(seconds: 14 * 86_400)] {
                    let one = try copied.run(at: instant, batchSize: 2000, workers: 1)
                    let small = try pipelined.run(at: instant, batchSize: 3, workers: 1)
                    #expect(one.counts == small.counts)
                    // 3 users a batch: one round trip for the guard and the read, one for
                    // every write, one to commit, one to mark the lines emitted.
                    #expect(small.batchRoundTrips <= 4 * small.batches)
                    if instant == t0 {
                        #expect(small.batches == 80)
                        #expect(one.batchRoundTrips > 4 * one.batches, "the large batch was not written by COPY")
                    }
                }
                let expected = try Self.written(by: copied)
                #expect(expected.count > 480)
                #expect(try Self.written(by: pipelined) == expected)
            }
        }
    }

    /// A rerun of one user makes few round trips: latency to a remote database is paid
    /// per round trip. The run counts them (every connection) and reports them.
    @Test func aRerunOfOneUserMakesAtMostSevenRoundTrips() throws {
        let t0 = try #require(Instant(rfc3339: "2026-05-01T00:30:00Z"))
        try RunDriver.withFresh { driver in
            try Self.insertUsers(into: driver, before: t0)
            let first = try driver.run(at: t0, batchSize: 50, workers: 2)
            #expect(first.roundTrips > first.batchRoundTrips)
            #expect(first.connections == 1 + 2, "main (the range of ids) and two workers")
            try driver.setWeight(of: 42, to: "88.5", at: t0.adding(seconds: 600))
            let rerun = try driver.run(at: t0.adding(seconds: 900), users: [42])
            #expect(rerun.counts.changed == 1 && rerun.counts.notifications == 1)
            #expect(rerun.batches == 1)
            #expect(rerun.batchRoundTrips == 4)
            #expect(rerun.roundTrips <= 7)
            #expect(rerun.connections == 1)
        }
    }

    /// The selection is shared out over connections only when everyone may be due (no
    /// watermark yet, or plans under another rules version) and the candidates are not
    /// simply the range of ids (a first run of dense ids, `everyUserByIDRange`); otherwise
    /// it is read on the run's own connection.
    @Test func theSelectionIsSharedOutOnlyWhenEveryoneMayBeDue() throws {
        let t0 = try #require(Instant(rfc3339: "2026-05-01T00:30:00Z"))
        try RunDriver.withFresh { driver in
            try Self.insertUsers(into: driver, before: t0)
            let first = try driver.run(at: t0, batchSize: 50, workers: 2)
            #expect(first.connections == 1 + 2, "main (the range of ids) and two workers")
            let idle = try driver.run(at: t0.adding(seconds: 900), batchSize: 50, workers: 2)
            #expect(idle.counts.due == 0 && idle.batches == 0)
            #expect(idle.connections == 1)
            try driver.connection.execute("UPDATE plan_state SET rules_version = '2025.0' WHERE user_id = 42",
                                          purpose: "pretending one plan is under older rules")
            let afterDeploy = try driver.run(at: t0.adding(seconds: 1800), batchSize: 50, workers: 2)
            // Rules changes take effect on the next date: a candidate now, not yet due.
            #expect(afterDeploy.counts.due == 0 && afterDeploy.batches == 1)
            #expect(afterDeploy.connections == 1 + 2, "main and two selection shares")
        }
    }

    /// A first run whose ids are too sparse to be taken as a range (fewer users than half
    /// of it) reads them, shared out over connections as before.
    @Test func aFirstRunOfSparseIdsReadsThemInShares() throws {
        let t0 = try #require(Instant(rfc3339: "2026-05-01T00:30:00Z"))
        try RunDriver.withFresh { driver in
            for userID in stride(from: Int64(1_000), through: 40_000, by: 1_000) {
                try driver.insert(TestUser(userID: userID, updatedAt: t0.adding(seconds: -86_400)))
            }
            let first = try driver.run(at: t0, batchSize: 50, workers: 2)
            #expect(first.counts.created == 40)
            #expect(first.connections == 1 + 2, "main (which does the one batch itself) and two selection shares")
        }
    }

    /// Batches take the selected candidates in ascending order, and `--user` ids as given.
    @Test func batchesTakeTheCandidatesInOrder() {
        func batches(of candidates: UserIDSet, size: Int, stopAfter: Int = .max) -> [[Int64]] {
            let queue = BatchQueue(candidates: candidates, batchSize: size)
            var batches: [[Int64]] = []
            while let batch = queue.next(stopRequested: { batches.count >= stopAfter }) { batches.append(batch) }
            return batches
        }
        var shares = UserIDSet.Builder()
        for share in [[2, 4, 6, 8, 10], [1, 3, 9], [], [5, 7, 11, 12]] as [[Int64]] {
            shares.insert(contentsOf: UserIDSet(share))
        }
        let selected = shares.build()
        #expect(selected.count == 12)
        #expect(batches(of: selected, size: 5) == [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12]])
        #expect(batches(of: selected, size: 5, stopAfter: 1) == [[1, 2, 3, 4, 5]])
        #expect(batches(of: UserIDSet(inGivenOrder: [9, 3, 9, 1]), size: 2) == [[9, 3], [1]])
        #expect(batches(of: UserIDSet([]), size: 5) == [])
    }

    /// The default `--workers`: twice the usable cores, at least 2 and at most 8; a
    /// container's CPU quota (cgroup v2 `cpu.max`) counts, rounded up, and so does the
    /// affinity mask (`Cpus_allowed_list`; a pinned process is tested in `ProcessTests`).
    @Test func theDefaultWorkerCountFollowsTheUsableCores() throws {
        #expect((2...8).contains(WorkerThreads.defaultCount))
        #expect(WorkerThreads.cpuQuota(fromCPUMax: "150000 100000\n") == 2)
        #expect(WorkerThreads.cpuQuota(fromCPUMax: "400000 100000") == 4)
        #expect(WorkerThreads.cpuQuota(fromCPUMax: "max 100000\n") == nil)
        #expect(WorkerThreads.cpuQuota(fromCPUMax: "") == nil)
        #expect(WorkerThreads.cpuCount(fromList: "\t0-1\n") == 2)
        #expect(WorkerThreads.cpuCount(fromList: "0-3,8,10-11") == 7)
        #expect(WorkerThreads.cpuCount(fromList: "5") == 1)
        #expect(WorkerThreads.cpuCount(fromList: "") == nil)
        #expect(WorkerThreads.cpuCount(fromList: "3-1") == nil)
        #expect(WorkerThreads.cpuCount(fromList: "0-") == nil)
        #expect(WorkerThreads.cpuCount(fromList: "zero") == nil)
        let allowed = try #require(WorkerThreads.affinityCPUCount(), "no Cpus_allowed_list in /proc/self/status")
        #expect((1...ProcessInfo.processInfo.activeProcessorCount).contains(allowed))
        #expect(WorkerThreads.usableCores() <= allowed)
    }
}
