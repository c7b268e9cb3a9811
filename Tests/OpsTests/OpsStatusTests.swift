import Foundation
import PlanRules
import PlanStore
import Postgres
import Testing
import ZoneFiles

/// `plan-regen status`: one screen for ops and one JSON object for scripts, from a test
/// database where shard 0 has run two weeks later and shard 1 has not.
@Suite struct OpsStatusTests {
    /// The demo users' first plans, then shard 0 at `switchRunAt` (shard 1's users stay due),
    /// then `status` at `at` in `format`.
    static func status(_ format: String, at: String = switchRunAt,
                       _ check: (PlanRegenProcess.Finished, PostgresConnectionProbe) throws -> Void) throws {
        try withDemoDatabase(users: 300) { database, connection in
            try withTemporaryDirectory { folder in
                try runToCompletion(["--as-of", firstRunAt], on: database, folder: folder)
                try runToCompletion(["--as-of", switchRunAt, "--shard", "0/2"], on: database, folder: folder)
                let status = try PlanRegenProcess.run(["status", "--as-of", at, "--format", format],
                                                      databaseURL: database.conninfo, folder: folder)
                #expect(status.exitCode == 0, "\(status.stderr)")
                try check(status, PostgresConnectionProbe(at: at, count: { try connection.count($0) }))
            }
        }
    }

    /// What the test database says, for the expected values.
    struct PostgresConnectionProbe {
        var at: String
        var count: (SQLQuery) throws -> Int

        var dueUsers: Int { get throws { try count("SELECT count(*) FROM plan_state WHERE next_check_at <= \(bind: at)::timestamptz") } }
        var overdueUsers: Int {
            get throws {
                try count("SELECT count(*) FROM plan_state WHERE next_check_at <= \(bind: at)::timestamptz - interval '15 minutes'")
            }
        }
        var rejections: Int { get throws { try count("SELECT count(*) FROM plan_rejections") } }
    }

    @Test func theJSONHasTheRunsTheDueUsersTheBacklogAndTheVersions() throws {
        try Self.status("json") { status, probe in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
            #expect(object["at"] as? String == switchRunAt)
            let users = try #require(object["users"] as? [String: Any])
            #expect(users["due"] as? Int == (try probe.dueUsers))
            #expect((try probe.dueUsers) > 10, "shard 1's users are due")
            #expect(users["overdue"] as? Int == (try probe.overdueUsers))
            #expect(users["overdue_after_seconds"] as? Int == 900)
            #expect((users["oldest_lateness_seconds"] as? Int ?? 0) > 900)
            #expect(users["oldest_due_at"] is String)
            let runs = try #require(object["runs"] as? [[String: Any]])
            #expect(runs.map { $0["run_id"] as? Int } == [2, 1], "newest first")
            #expect(runs.map { $0["status"] as? String } == ["succeeded", "succeeded"])
            #expect(runs[0]["shard"] as? String == "0/2")
            #expect(runs[0]["as_of"] as? String == switchRunAt)
            #expect((runs[1]["created"] as? Int ?? 0) > 200)
            let outbox = try #require(object["outbox"] as? [String: Any])
            #expect(outbox["pending"] as? Int == 0)
            let rejections = try #require(object["rejections_last_day"] as? [String: Any])
            #expect(rejections["total"] as? Int == (try probe.rejections))
            #expect((try probe.rejections) > 0)
            let versions = try #require(object["versions"] as? [String: Any])
            #expect(versions["rules"] as? String == rulesVersion)
            #expect(versions["schema"] as? String == Migration.planRegen.last?.name)
            #expect(versions["tzdata"] as? String == (try ZoneDatabase.loadSystem().version))
            #expect(object["last_success"] is String)
        }
    }

    @Test func theScreenSaysTheSameForPeople() throws {
        try Self.status("text") { status, probe in
            let text = status.stdout
            #expect(text.hasPrefix("plan-regen status at \(switchRunAt)\n"))
            let due = try probe.dueUsers
            let overdue = try probe.overdueUsers
            #expect(text.contains("users         \(due) due now, \(overdue) overdue (due for more than 15 min); "
                                  + "the longest-waiting since 2026-03-"), "\(text)")
            #expect(text.contains("outbox        no line pending"), "\(text)")
            #expect(lines(text).first { $0.hasPrefix("last success  2026-") }?.hasSuffix("Z") == true,
                    "the success came after --as-of: no age, \(text)")
            #expect(text.contains("rejections    \(try probe.rejections) in the last 24 h: "), "\(text)")
            #expect(text.contains("versions      binary 1.0.0 · rules \(rulesVersion) · schema "
                                  + "\(Migration.planRegen.last!.name) · tz database "), "\(text)")
            let table = lines(text).drop { !$0.hasPrefix("last 2 runs") }.dropFirst()
            #expect(table.first?.hasPrefix("run  status     as of ") == true, "\(text)")
            #expect(table.dropFirst().first?.hasPrefix("  2  succeeded  \(switchRunAt)") == true, "\(text)")
            #expect(table.dropFirst().first?.hasSuffix("shard 0/2") == true, "\(text)")
            #expect(table.dropFirst(2).first?.hasSuffix("  all") == true, "\(text)")
        }
    }

    /// Nobody is due before the first midnight after the first run; the screen says so.
    @Test func aDatabaseWithNothingDueSaysSo() throws {
        try Self.status("text", at: firstRunAt) { status, _ in
            #expect(status.stdout.contains("users         0 due now, 0 overdue (due for more than 15 min)\n"),
                    "\(status.stdout)")
        }
    }
}
