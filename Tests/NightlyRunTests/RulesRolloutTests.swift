import Dispatch
import Foundation
import NightlyRun
import PlanRules
import PlanStore
import Synchronization
import Testing

/// A new rules version applies at each user's own midnight and never backwards
/// (plan-rules.md section 2.1), with runs every 15 minutes as the timer makes them.
@Suite struct RulesRolloutTests {
    /// 24 zones: +05:45, +13:45 (Chatham's summer), −11:00, a DST change at midnight
    /// (Havana, 2026-03-08 00:00 → 01:00), the date line's both sides, half hours.
    static let zones = [
        "UTC", "Europe/Berlin", "Europe/London", "America/New_York", "America/Los_Angeles", "America/Sao_Paulo",
        "Asia/Kolkata", "Asia/Kathmandu", "Asia/Tokyo", "Australia/Sydney", "Pacific/Auckland", "Pacific/Chatham",
        "Pacific/Kiritimati", "Pacific/Pago_Pago", "America/Havana", "Asia/Tehran", "Africa/Lagos", "Asia/Dubai",
        "America/St_Johns", "Australia/Adelaide", "Asia/Shanghai", "America/Anchorage", "Pacific/Honolulu",
        "Atlantic/Azores",
    ]
    static let created = Instant(rfc3339: "2026-03-03T12:00:00Z")!

    /// Two users per zone, planned on 2026-03-03 and then made to look as if rules 2025.0
    /// planned them.
    static func usersWithOlderPlans(_ driver: RunDriver) throws -> [(id: Int64, zone: String)] {
        var users: [(Int64, String)] = []
        for (index, zone) in zones.enumerated() {
            for slot in 1...2 {
                let id = Int64(index * 10 + slot)
                try driver.insert(TestUser(userID: id, timezone: zone, updatedAt: created.adding(minutes: -60)))
                users.append((id, zone))
            }
        }
        try driver.run(at: created)
        try DemoDataAging.makePlansLook(version: "2025.0", driver)
        return users
    }

    static func runEvery15Minutes(_ driver: RunDriver, from start: Instant, hours: Int64,
                                  _ body: (Instant, RunSummary) throws -> Void = { _, _ in }) throws -> [Instant] {
        var instants: [Instant] = []
        var asOf = start
        while asOf <= start.adding(seconds: hours * 3600) {
            try body(asOf, try driver.run(at: asOf))
            instants.append(asOf)
            asOf = asOf.adding(minutes: 15)
        }
        return instants
    }

    /// Each user gets exactly one `rules_changed` plan, dated their first local date after
    /// E whose midnight is at or after the rollout start, written by the first run at or
    /// after that midnight: never in the middle of their day.
    @Test func eachUserGetsTheNewVersionAtTheirFirstMidnightAfterTheRolloutStart() throws {
        try RunDriver.withFresh { driver in
            let users = try Self.usersWithOlderPlans(driver)
            let rolloutStart = try #require(Instant(rfc3339: "2026-03-07T13:00:00Z"))
            // After each run, the users still waiting (status's count: the current plan's
            // version older) are those whose rollout midnight is still ahead.
            let midnights = try users.map { user in
                var date = try LocalTime.date(at: Self.created, in: user.zone).adding(days: 1)
                while try LocalTime.midnight(of: date, in: user.zone) < rolloutStart { date = date.adding(days: 1) }
                return try LocalTime.midnight(of: date, in: user.zone)
            }
            let store = PlanStore(connection: driver.connection)
            var waitingSeen: Set<Int> = []
            let runs = try Self.runEvery15Minutes(driver, from: rolloutStart, hours: 26) { asOf, _ in
                let waiting = try store.usersPerRulesVersion().currentPlan
                    .filter { RulesVersionStanding(of: $0.key) == .older }.values.reduce(0, +)
                #expect(waiting == midnights.filter { $0 > asOf }.count, "waiting after the run at \(asOf.rfc3339)")
                waitingSeen.insert(waiting)
            }
            #expect(waitingSeen.contains(0) && waitingSeen.count > 10, "\(waitingSeen.sorted())")
            let recorded = try driver.connection.query(
                "SELECT rules_version, (extract(epoch FROM started_at) * 1000000)::int8 AS started FROM plan_rules_rollouts",
                purpose: "test: reading the rollouts").map { (try $0.string("rules_version"), try $0.int64("started")) }
            #expect(recorded.count == 1)
            #expect(recorded.first?.0 == rulesVersion)
            #expect(recorded.first?.1 == rolloutStart.microsecondsSinceEpoch)

            for (user, zone) in users {
                let written = try driver.history(of: user).filter { $0.generatedAt >= rolloutStart }
                #expect(written.count == 1, "user \(user) in \(zone): \(written.map(\.reasons))")
                guard let plan = written.first else { continue }
                // E is the plan date of 2026-03-03T12:00Z in the zone; the new version's date
                // is the first after E whose midnight (Foundation's) is at or after the start.
                let lastEvaluated = try LocalTime.date(at: Self.created, in: zone)
                var expected = lastEvaluated.adding(days: 1)
                while try LocalTime.midnight(of: expected, in: zone) < rolloutStart { expected = expected.adding(days: 1) }
                let midnight = try LocalTime.midnight(of: expected, in: zone)
                #expect(plan.reasons == ["rules_changed"], "user \(user) in \(zone)")
                #expect(plan.planDate == expected, "user \(user) in \(zone)")
                #expect(plan.generatedAt == runs.first { $0 >= midnight }, "user \(user) in \(zone): at its midnight")
            }
        }
    }

    /// A binary never replaces plans (or judgements) a newer version made, whatever holds
    /// for those users; it counts them. `--user` and a rollback recompute them.
    @Test func plansOfANewerVersionAreLeftAndCountedUntilARerunOrARollback() throws {
        try RunDriver.withFresh { driver in
            let users = Array(Int64(1)...Int64(12))
            for user in users {
                try driver.insert(TestUser(userID: user, timezone: user % 2 == 0 ? "Asia/Kathmandu" : "America/Chicago",
                                           updatedAt: Self.created.adding(minutes: -60)))
            }
            try driver.insert(TestUser(userID: 13, heightCm: "20", updatedAt: Self.created.adding(minutes: -60)))
            try driver.run(at: Self.created)
            #expect(try driver.rejections(of: 13).count == 1)
            try DemoDataAging.makePlansLook(version: "2026.2", driver)
            try driver.connection.execute(
                "INSERT INTO plan_rules_rollouts VALUES ('2026.2', '2026-03-05T00:00:00Z', 1)",
                purpose: "test: the newer version's rollout")
            // Settings changes pending, and the phase switch of 2026-03-17 (14 days in).
            let dayBefore = try #require(Instant(rfc3339: "2026-03-16T06:00:00Z"))
            for user in users where user % 3 == 0 { try driver.setWeight(of: user, to: "88.0", at: dayBefore) }
            let statesBefore = try Self.stateFingerprints(driver)
            let historyBefore = try driver.history().count

            var left: [Int] = []
            _ = try Self.runEvery15Minutes(driver, from: dayBefore.adding(minutes: 15), hours: 26) { _, summary in
                left.append(summary.counts.leftToNewerRules)
                #expect(summary.newestRulesVersionSeen == "2026.2")
            }
            #expect(try driver.history().count == historyBefore, "nothing written for users of the newer version")
            #expect(try Self.stateFingerprints(driver) == statesBefore, "nothing remembered anew")
            #expect(try driver.rejections(of: 13).count == 1, "nothing judged again")
            #expect(left.max() == users.count, "every user due after their midnight counted as left")
            let recordedLeft = try driver.connection.query(
                "SELECT max(left_to_newer_rules) AS most FROM plan_runs", purpose: "test").singleRow().int("most")
            #expect(recordedLeft == users.count)

            let end = dayBefore.adding(seconds: 27 * 3600)
            try driver.run(at: end, users: [1])
            #expect(try driver.history(of: 1).last?.reasons == ["phase_switch", "rules_changed", "manual_rerun"])

            let rollback = try driver.run(at: end.adding(minutes: 15), rulesRollback: true)
            #expect(rollback.counts.leftToNewerRules == 0)
            for user in users.dropFirst() {
                #expect(try driver.history(of: user).last?.reasons.contains("rules_changed") == true, "user \(user)")
            }
            #expect(try driver.connection.query("SELECT count(*) AS n FROM plan_rules_rollouts", purpose: "test")
                .singleRow().int("n") == 0, "the rollback forgot the newer version's rollout")
            #expect(try driver.connection.query(
                "SELECT rules_action FROM plan_runs ORDER BY run_id DESC LIMIT 1", purpose: "test")
                .singleRow().optionalString("rules_action") == "rollback")
        }
    }

    /// Two shards starting the rollout at once record one rollout start.
    @Test func twoShardsStartingARolloutAtOnceRecordOneStart() throws {
        try RunDriver.withFresh { driver in
            _ = try Self.usersWithOlderPlans(driver)
            let start = try #require(Instant(rfc3339: "2026-03-07T13:00:00Z"))
            let starts = Mutex<[Instant?]>([])
            let failures = Mutex<[String]>([])
            // Unchecked runs read only the driver's constants (conninfo, zones, file paths).
            nonisolated(unsafe) let shared = driver
            DispatchQueue.concurrentPerform(iterations: 2) { shard in
                do {
                    let summary = try shared.run(at: start.adding(seconds: Int64(shard)), shard: Shard("\(shard)/2"),
                                                 checked: false)
                    starts.withLock { $0.append(summary.rolloutStart) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty)
            let recorded = try driver.connection.query(
                "SELECT (extract(epoch FROM started_at) * 1000000)::int8 AS started FROM plan_rules_rollouts",
                purpose: "test").map { Instant(microsecondsSinceEpoch: try $0.int64("started")) }
            #expect(recorded.count == 1)
            #expect(Set(starts.withLock { $0 }) == Set(recorded.map { Optional($0) }), "both shards use the recorded start")
        }
    }

    static func stateFingerprints(_ driver: RunDriver) throws -> [String] {
        try driver.connection.query(
            "SELECT plan_state::text AS row FROM plan_state ORDER BY user_id", purpose: "test: reading plan_state"
        ).map { try $0.string("row") }
    }
}

/// Current plans and states made to look as if rules `version` wrote them.
enum DemoDataAging {
    static func makePlansLook(version: String, _ driver: RunDriver) throws {
        try driver.connection.execute(
            """
            UPDATE plan_history h SET rules_version = \(bind: version),
                   snapshot = jsonb_set(snapshot, '{rules_version}', to_jsonb(\(bind: version)::text))
            FROM plan_state s
            WHERE h.user_id = s.user_id AND h.plan_date = s.plan_date AND h.seq = s.history_rows_on_plan_date - 1
            """, purpose: "test: aging the current plans")
        try driver.connection.execute(
            """
            UPDATE plan_state SET rules_version = \(bind: version),
                   plan_rules_version = CASE WHEN plan_date IS NULL THEN NULL ELSE \(bind: version) END,
                   judged_rules_version = CASE WHEN judged_rules_version IS NULL THEN NULL ELSE \(bind: version) END
            """, purpose: "test: aging the states")
    }
}
