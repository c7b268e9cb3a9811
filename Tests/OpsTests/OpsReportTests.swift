import Foundation
import PlanStore
import Postgres
import Testing

/// `plan-regen report`: the HTML pages opened in headless Chromium, counted against plan_history.
@Suite struct OpsReportTests {
    /// Four runs two weeks apart: first plans, then phase switches back and forth.
    private func withFourRuns(_ body: (String, PostgresConnection, String) throws -> Void) throws {
        try withDemoDatabase(users: 60) { database, connection in
            try withTemporaryDirectory { folder in
                for asOf in [firstRunAt, switchRunAt, "2026-03-29T12:00:00Z", "2026-04-12T12:00:00Z"] {
                    try runToCompletion(["--as-of", asOf, "--allow-future"], on: database, folder: folder)
                }
                try body(database.conninfo, connection, folder)
            }
        }
    }

    /// Runs of consecutive plans in the same deficit/maintenance phase, as the page's bands.
    private func phaseRuns(of user: Int64, _ connection: PostgresConnection) throws -> Int {
        try connection.count(
            """
            SELECT count(*) FROM (
                SELECT phase, lag(phase) OVER (ORDER BY plan_date, seq) AS previous
                FROM (SELECT plan_date, seq, snapshot->'phase'->>'phase' AS phase
                      FROM plan_history WHERE user_id = \(user)) plans) runs
            WHERE phase IN ('deficit', 'maintenance') AND phase IS DISTINCT FROM previous
            """)
    }

    @Test func aUsersPageHasOneMarkerPerPlanAndOneBandPerPhaseRunAndNoConsoleError() throws {
        guard let chromium = HeadlessChromium.required() else { return }
        try withFourRuns { url, connection, folder in
            let user = try connection.query(
                """
                SELECT user_id FROM plan_history GROUP BY user_id
                HAVING count(DISTINCT snapshot->'phase'->>'phase') = 2 ORDER BY count(*) DESC, user_id LIMIT 1
                """, purpose: "test").singleRow().int64(0)
            let plans = try connection.count("SELECT count(*) FROM plan_history WHERE user_id = \(user)")
            let bands = try phaseRuns(of: user, connection)
            #expect(plans >= 4 && bands >= 3, "the demo data should switch phases: \(plans) plans, \(bands) runs")
            let page = folder + "/user.html"
            let made = try PlanRegenProcess.run(["report", "--user", "\(user)", "--out", page],
                                                databaseURL: url, folder: folder)
            #expect(made.exitCode == 0, "\(made.stderr)")
            let opened = try chromium.openReportPage(page, folder: folder)
            #expect(occurrences(of: "<svg", in: opened.dom) == 1)
            #expect(occurrences(of: "class=\"marker\"", in: opened.dom) == plans)
            #expect(occurrences(of: "class=\"phase-band ", in: opened.dom) == bands)
            #expect(occurrences(of: "<tr class=\"update\">", in: opened.dom) == plans)
            #expect(occurrences(of: "class=\"step ", in: opened.dom) == 3, "calories, protein and water")
            // A phase switch's tooltip names the reason and the calories before → after.
            let switched = try connection.query(
                """
                SELECT d->>'before', d->>'after' FROM plan_history, jsonb_array_elements(diff) d
                WHERE user_id = \(user) AND reasons = ARRAY['phase_switch'] AND d->>'path' = 'targets.calories'
                ORDER BY plan_date LIMIT 1
                """, purpose: "test").singleRow()
            let before = Int(try switched.string(0))!, after = Int(try switched.string(1))!
            let grouped = { (value: Int) in value >= 1000 ? "\(value / 1000),\(String(format: "%03d", value % 1000))" : "\(value)" }
            #expect(opened.dom.contains("Target \(grouped(before)) → \(grouped(after)) cal [phase_switch]</title>"),
                    "no marker title with the switch's calories")

            for (width, height) in [(390, 900), (1280, 900)] {
                try chromium.screenshot(page, to: "\(folder)/user-\(width).png", width: width, height: height, folder: folder)
            }
        }
    }

    @Test func theAllUsersPageAndCSVCountWhatPlanHistoryHolds() throws {
        guard let chromium = HeadlessChromium.required() else { return }
        try withFourRuns { url, connection, folder in
            // A rejection, so the figure through status's query has something to count.
            try connection.execute("""
                UPDATE user_settings SET height_cm = 20, updated_at = '2026-04-20T08:00:00Z'
                WHERE user_id = (SELECT min(user_id) FROM plan_history)
                """, purpose: "test")
            let rerun = try PlanRegenProcess.run(["run", "--as-of", "2026-04-22T12:00:00Z", "--allow-future",
                                                  "--notifications", folder + "/n.jsonl"], databaseURL: url, folder: folder)
            #expect(rerun.exitCode == 0, "\(rerun.stderr)")
            // Scheduled runs start at their as-of; these ran today with an older --as-of.
            try connection.execute("UPDATE plan_runs SET started_at = as_of, finished_at = as_of + interval '1 minute'",
                                   purpose: "test")
            let page = folder + "/all.html"
            let made = try PlanRegenProcess.run(["report", "--from", "2026-03-01", "--to", "2026-04-30", "--out", page],
                                                databaseURL: url, folder: folder)
            #expect(made.exitCode == 0, "\(made.stderr)")
            let csv = lines(try String(contentsOfFile: folder + "/all.csv", encoding: .utf8))
            #expect(csv.first == "section,day,key,count")
            func sum(_ section: String, key: String? = nil) -> Int {
                csv.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
                    .filter { $0[0] == section && (key == nil || $0[2] == key) }.reduce(0) { $0 + Int($1[3])! }
            }
            let inRange: SQLQuery = "plan_date BETWEEN '2026-03-01' AND '2026-04-30'"
            #expect(sum("plans_by_reason") == (try connection.count(
                "SELECT count(*) FROM plan_history, unnest(reasons) WHERE \(sql: inRange)")))
            #expect(sum("plans_by_reason", key: "created") == (try connection.count(
                "SELECT count(*) FROM plan_history WHERE 'created' = ANY(reasons) AND \(sql: inRange)")))
            let switches = try connection.count(
                "SELECT count(*) FROM notification_outbox WHERE notification_id LIKE '%:phase_switch:%'")
            #expect(switches > 0 && sum("phase_switches") == switches)
            #expect(sum("rejections_by_field") == (try connection.count("SELECT count(*) FROM plan_rejections"))
                    && sum("rejections_by_field") > 0)
            #expect(sum("notifications_by_type") == (try connection.count(
                "SELECT count(*) FROM notification_outbox WHERE split_part(notification_id, ':', 2) <= '2026-04-30'")))
            #expect(sum("calorie_change") == (try connection.count(
                """
                SELECT count(*) FROM plan_history h, jsonb_array_elements(h.diff) d
                WHERE d->>'path' = 'targets.calories' AND \(sql: inRange)
                """)))

            let opened = try chromium.openReportPage(page, folder: folder)
            #expect(occurrences(of: "<svg", in: opened.dom) == 3, "plans, switches, calorie changes")
            let calorieBuckets = csv.filter { $0.hasPrefix("calorie_change,") }.count
            #expect(occurrences(of: "class=\"bar\"", in: opened.dom) == 61 + 61 + calorieBuckets,
                    "one bar per day of March and April in two charts, one per calorie bucket")
        }
    }

    /// The report's phase switches are section 7's: as many as the `phase_switch`
    /// notifications of the same plan dates (before `prune`), by the phase switched to; a
    /// goal change from or to lose_weight (phase none ↔ deficit) changes `phase.phase` but
    /// switches nothing. The notifications per type are those the runs made.
    @Test func thePhaseSwitchesAreThePhaseSwitchNotificationsAndAGoalChangeIsNone() throws {
        try withFourRuns { url, connection, folder in
            // Between the fourth run and the next: some dieters stop (deficit or maintenance
            // → none), some others start (none → deficit).
            let stopped = try connection.count(
                """
                WITH changed AS (
                    UPDATE user_settings SET primary_goal = 'maintain_weight', updated_at = '2026-04-19T08:00:00Z'
                    WHERE primary_goal = 'lose_weight' AND user_id % 3 = 0 RETURNING 1)
                SELECT count(*) FROM changed
                """)
            let started = try connection.count(
                """
                WITH changed AS (
                    UPDATE user_settings SET primary_goal = 'lose_weight', target_weight_kg = NULL, target_date = NULL,
                                             updated_at = '2026-04-19T08:00:00Z'
                    WHERE primary_goal IN ('maintain_weight', 'improve_health') AND user_id % 3 = 1 RETURNING 1)
                SELECT count(*) FROM changed
                """)
            #expect(stopped > 0 && started > 0, "the demo data should have dieters and others: \(stopped), \(started)")
            let run = try PlanRegenProcess.run(["run", "--as-of", "2026-04-20T12:00:00Z", "--allow-future",
                                                "--notifications", folder + "/n.jsonl"], databaseURL: url, folder: folder)
            #expect(run.exitCode == 0, "\(run.stderr)")
            let page = folder + "/all.html"
            let made = try PlanRegenProcess.run(["report", "--from", "2026-03-01", "--to", "2026-04-30", "--out", page],
                                                databaseURL: url, folder: folder)
            #expect(made.exitCode == 0, "\(made.stderr)")
            let rows = lines(try String(contentsOfFile: folder + "/all.csv", encoding: .utf8)).dropFirst()
                .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            func sum(_ section: String, key: String? = nil) -> Int {
                rows.filter { $0[0] == section && (key == nil || $0[2] == key) }.reduce(0) { $0 + Int($1[3])! }
            }
            func notifications(_ type: String) throws -> Int {
                try connection.count(
                    """
                    SELECT count(*) FROM notification_outbox
                    WHERE split_part(notification_id, ':', 3) = \(bind: type)
                      AND split_part(notification_id, ':', 2) BETWEEN '2026-03-01' AND '2026-04-30'
                    """)
            }
            let phaseChanges = try connection.count(
                """
                SELECT count(*) FROM plan_history, jsonb_array_elements(diff) d
                WHERE d->>'path' = 'phase.phase' AND plan_date BETWEEN '2026-03-01' AND '2026-04-30'
                """)
            #expect(sum("phase_switches") == (try notifications("phase_switch")) && sum("phase_switches") > 0)
            #expect(phaseChanges > sum("phase_switches"), "the goal changes changed phase.phase without switching")
            #expect(Set(rows.filter { $0[0] == "phase_switches" }.map { $0[2] }) == ["deficit", "maintenance"])
            for type in ["plan_created", "phase_switch", "targets_updated"] {
                #expect(sum("notifications_by_type", key: type) == (try notifications(type)), "\(type)")
            }

            // Rows written before sql/0018 get from its UPDATE the decisions the runs recorded.
            let migration = try #require(Migration.planRegen.first { $0.name == "0018_plan_history_decisions" })
            let backfill = try #require(migration.sql.range(of: "UPDATE plan_history SET"))
            let decisions = {
                try connection.query("SELECT id, phase_switch, notification_type FROM plan_history ORDER BY id",
                                     purpose: "test: the recorded decisions").map { row in
                    "\(try row.int64("id")) \(try row.optionalString("phase_switch") ?? "-") "
                        + (try row.optionalString("notification_type") ?? "-")
                }
            }
            let recorded = try decisions()
            #expect(recorded.contains { $0.hasSuffix(" phase_switch") } && recorded.contains { $0.hasSuffix(" targets_updated") })
            _ = try connection.execute("UPDATE plan_history SET phase_switch = NULL, notification_type = NULL",
                                       purpose: "test: rows as sql/0018 finds them")
            try connection.executeScript(String(migration.sql[backfill.lowerBound...]), purpose: "test: sql/0018's backfill")
            #expect(try decisions() == recorded)
        }
    }

    /// The summary above the chart names the projected date, or says there is none (a
    /// maintain_weight user has no projection).
    @Test func theUserPageSaysWhenThereIsNoProjectedDate() throws {
        try withDemoDatabase(users: 60) { database, connection in
            try withTemporaryDirectory { folder in
                try runToCompletion(["--as-of", firstRunAt, "--allow-future"], on: database, folder: folder)
                for projected in [false, true] {
                    let user = try connection.query(
                        """
                        SELECT user_id FROM plan_history
                        WHERE (snapshot->'projection'->>'projected_date' IS NOT NULL) = \(projected)
                        ORDER BY user_id LIMIT 1
                        """, purpose: "test").singleRow().int64("user_id")
                    let page = folder + "/user-\(user).html"
                    let made = try PlanRegenProcess.run(["report", "--user", "\(user)", "--out", page],
                                                        databaseURL: database.conninfo, folder: folder)
                    #expect(made.exitCode == 0, "\(made.stderr)")
                    let html = try String(contentsOfFile: page, encoding: .utf8)
                    #expect(html.contains("; no projected date.</p>") == !projected, "user \(user)")
                    #expect(html.contains("projected to reach it <span class=\"projected-date\">") == projected)
                    #expect(!html.contains("projected to reach it <span class=\"projected-date\">none"))
                }
            }
        }
    }

    /// The console check above can fail: a page with a script error is caught.
    @Test func aScriptErrorOnThePageIsCaught() throws {
        guard let chromium = HeadlessChromium.required() else { return }
        try withTemporaryDirectory { folder in
            let page = folder + "/broken.html"
            try "<!DOCTYPE html><html><body><p>x</p><script>notDefinedAnywhere();</script></body></html>"
                .write(toFile: page, atomically: true, encoding: .utf8)
            let opened = try chromium.open(page, folder: folder)
            #expect(opened.consoleErrors.contains { $0.contains("notDefinedAnywhere") }, "\(opened.consoleErrors)")
        }
    }
}
