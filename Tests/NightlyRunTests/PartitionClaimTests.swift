import Foundation
import NightlyRun
import PlanRules
import PlanStore
import Postgres
import Testing

/// Two runs never process the same user: a run claims its user partitions and leaves
/// those another run holds to it — never silently — and takes over the partitions of a run
/// that died (at once on the same machine, else once its claim expired).
@Suite struct PartitionClaimTests {
    /// A run that is not this test's runs: holds partitions 1…4 (users 1…4).
    static let otherRun: Int64 = 900_000

    private func insertUsers(_ driver: RunDriver, at t0: Instant) throws {
        // Users 1…8 sit in partitions 1…8 (user_id mod 64).
        for userID in Int64(1)...8 {
            try driver.insert(TestUser(userID: userID, updatedAt: t0.adding(minutes: -5)))
        }
    }

    /// Another run's claim on partitions 1…4, held `heldFor` and expiring in `expiresIn`
    /// (the database's clock), by a process with `processKey`.
    private func claimForOtherRun(_ driver: RunDriver, heldFor: String = "1 minute", expiresIn: String = "2 minutes",
                                  processKey: String? = nil) throws {
        try driver.connection.execute(
            """
            INSERT INTO plan_runs (run_id, as_of, binary_version, rules_version, tzdata_version, host, pid, process_key)
            OVERRIDING SYSTEM VALUE VALUES (\(Self.otherRun), now(), 'test', 'test', 'test', 'elsewhere', 4242, \(bind: processKey))
            """, purpose: "recording the other run")
        try driver.connection.execute(
            """
            UPDATE plan_partition_claims SET run_id = \(Self.otherRun), claimed_at = clock_timestamp() - \(bind: heldFor)::interval,
                   expires_at = clock_timestamp() + \(bind: expiresIn)::interval
            WHERE partition BETWEEN 1 AND 4
            """, purpose: "claiming partitions 1…4 for the other run")
    }

    private func claimsHeld(_ driver: RunDriver) throws -> Int {
        try driver.connection.query(
            "SELECT count(*) FROM plan_partition_claims WHERE run_id IS NOT NULL AND expires_at > clock_timestamp()",
            purpose: "counting held claims").singleRow().int(0)
    }

    @Test func aRunLeavesThePartitionsAnotherRunHoldsAndSaysSoThenANextRunDoesTheirUsers() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            try insertUsers(driver, at: t0)
            try claimForOtherRun(driver)

            let partial = try driver.run(at: t0)
            #expect(partial.skippedPartitions == [1, 2, 3, 4])
            #expect(partial.heldByOthers.allSatisfy { $0.runID == Self.otherRun })
            #expect(partial.status == .heldByOthers)
            #expect(!partial.heldTooLong)
            #expect(partial.counts.created == 4)
            #expect(Set(try driver.history().map(\.userID)) == [5, 6, 7, 8])
            #expect(Set(try driver.emittedNotifications().map(\.userID)) == [5, 6, 7, 8])
            let recorded = try driver.connection.query(
                "SELECT partitions_held_by_others FROM plan_runs WHERE run_id = \(partial.runID)",
                purpose: "reading the run").singleRow().int(0)
            #expect(recorded == 4)
            // The run gave its own claims back; the other run's stay.
            #expect(try claimsHeld(driver) == 4)

            try driver.connection.execute(
                "UPDATE plan_partition_claims SET run_id = NULL, expires_at = NULL WHERE run_id = \(Self.otherRun)",
                purpose: "the other run ends")
            let rest = try driver.run(at: t0.adding(minutes: 15))
            #expect(rest.skippedPartitions.isEmpty)
            #expect(rest.status == .succeeded)
            #expect(rest.counts.created == 4)
            #expect(try driver.history().map(\.userID) == Array(1...8))
            #expect(try driver.emittedNotifications().map(\.userID).sorted() == Array(1...8))
            #expect(try claimsHeld(driver) == 0)
        }
    }

    @Test func partitionsHeldLongerThanTheOverlapLimitEndTheRunHeldTooLong() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            try insertUsers(driver, at: t0)
            try claimForOtherRun(driver, heldFor: "2 hours")
            let summary = try driver.run(at: t0, overlapLimit: .seconds(3600))
            #expect(summary.heldTooLong)
            #expect(summary.status == .heldTooLong)
            #expect(summary.counts.created == 4)
            // Held for 2 hours, but within a 3-hour limit: an ordinary overlap.
            let within = try driver.run(at: t0.adding(minutes: 15), overlapLimit: .seconds(3 * 3600))
            #expect(!within.heldTooLong)
            #expect(within.status == .heldByOthers)
        }
    }

    @Test func anExpiredClaimIsTakenOverAndItsRunMarkedAbandoned() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            try insertUsers(driver, at: t0)
            try claimForOtherRun(driver, heldFor: "10 minutes", expiresIn: "-1 second")
            let summary = try driver.run(at: t0)
            #expect(summary.skippedPartitions.isEmpty)
            #expect(summary.counts.created == 8)
            let status = try driver.connection.query(
                "SELECT status FROM plan_runs WHERE run_id = \(Self.otherRun)", purpose: "reading the other run")
                .singleRow().string(0)
            #expect(status == "abandoned")
        }
    }

    @Test func theClaimOfAProcessThatIsGoneFromThisMachineIsTakenOverAtOnce() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            try insertUsers(driver, at: t0)
            // This boot and pid namespace, a pid no process has (Linux pids stay below 2^22).
            let here = try #require(ProcessIdentity.current.key).split(separator: "/").map(String.init)
            let goneKey = [here[0], here[1], "99999999", "12345"].joined(separator: "/")
            #expect(ProcessIdentity.isGone(key: goneKey))
            #expect(!ProcessIdentity.isGone(key: try #require(ProcessIdentity.current.key)))
            // Another machine (other boot id): it cannot be judged from here.
            #expect(!ProcessIdentity.isGone(key: ["other-boot", here[1], "99999999", "1"].joined(separator: "/")))

            try claimForOtherRun(driver, expiresIn: "10 minutes", processKey: goneKey)
            let summary = try driver.run(at: t0)
            #expect(summary.skippedPartitions.isEmpty)
            #expect(summary.counts.created == 8)

            // A live holder on another machine keeps its partitions until its claim expires.
            try driver.connection.execute("DELETE FROM plan_runs WHERE run_id = \(Self.otherRun)",
                                          purpose: "forgetting the other run")
            try claimForOtherRun(driver, expiresIn: "10 minutes",
                                 processKey: ["other-boot", here[1], "99999999", "1"].joined(separator: "/"))
            let next = try driver.run(at: t0.adding(minutes: 15))
            #expect(next.skippedPartitions == [1, 2, 3, 4])
        }
    }
}
