import Foundation
import PlanRules
import Postgres
import Testing

/// Two binaries of different rules versions running turn by turn, as during a canary or a
/// rollout of shards on two images (plan-rules.md section 2.1): the newer version reaches
/// each user at their midnight, and the older never takes a user back.
@Suite struct OpsRulesVersionTests {
    @Test func twoVersionsAlternatingNeverWriteAUserBackAndForth() throws {
        try withDemoDatabase(users: 120) { database, connection in
            try withTemporaryDirectory { folder in
                func run(at instant: Instant, newer: Bool) throws {
                    // Debug builds only: the compiled rules version overridden (RulesVersion.swift).
                    let finished = try PlanRegenProcess.run(
                        ["run", "--as-of", instant.rfc3339, "--notifications", folder + "/n.jsonl"],
                        databaseURL: database.conninfo, folder: folder,
                        environment: newer ? ["PLAN_REGEN_RULES_VERSION": "2026.2"] : [:])
                    #expect(finished.exitCode == 0, "\(finished.stderr)")
                }
                try run(at: try #require(Instant(rfc3339: firstRunAt)), newer: false)
                let rolloutStart = try #require(Instant(rfc3339: "2026-03-03T13:00:00Z"))
                var asOf = rolloutStart
                var turn = 0
                while asOf <= rolloutStart.adding(seconds: 26 * 3600) {
                    try run(at: asOf, newer: turn % 2 == 0)
                    asOf = asOf.adding(seconds: 900)
                    turn += 1
                }
                // Written in the window: never twice for a user and date, never 2026.1 after 2026.2.
                let rows = try connection.query(
                    """
                    SELECT user_id, plan_date::text AS plan_date, rules_version, generated_at
                    FROM plan_history WHERE generated_at >= \(rolloutStart)::timestamptz
                    ORDER BY user_id, generated_at
                    """, purpose: "test: the plans of the window"
                ).map { (try $0.int64("user_id"), try $0.string("plan_date"), try $0.string("rules_version")) }
                #expect(!rows.isEmpty)
                let byUser = Dictionary(grouping: rows, by: \.0)
                for (user, plans) in byUser {
                    #expect(Set(plans.map(\.1)).count == plans.count, "user \(user) planned twice on a date: \(plans)")
                    let versions = plans.map(\.2)
                    if let firstNewer = versions.firstIndex(of: "2026.2") {
                        #expect(versions[firstNewer...].allSatisfy { $0 == "2026.2" }, "user \(user): \(versions)")
                    }
                }
                let current = try connection.query(
                    "SELECT count(*) FILTER (WHERE rules_version = '2026.2') AS newer, count(*) AS plans FROM plan_current",
                    purpose: "test: the current plans").singleRow()
                #expect(try current.int("newer") == current.int("plans"), "every user reached by 2026.2 within 26 hours")
                let seen = try connection.query(
                    """
                    SELECT count(*) AS runs FROM plan_runs
                    WHERE rules_version = '2026.1' AND as_of > \(rolloutStart)::timestamptz
                      AND newest_rules_version_seen IS DISTINCT FROM '2026.2'
                    """, purpose: "test: what the older binary saw").singleRow().int("runs")
                #expect(seen == 0, "every run of the older binary names the newer version it saw")

                let status = try PlanRegenProcess.run(["status", "--as-of", asOf.rfc3339],
                                                      databaseURL: database.conninfo, folder: folder)
                #expect(status.exitCode == 0, "\(status.stderr)")
                #expect(status.stdout.contains("on newer rules, left alone by this binary"), "\(status.stdout)")
            }
        }
    }
}
