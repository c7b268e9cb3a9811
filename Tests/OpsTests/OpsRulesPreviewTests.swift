import DemoData
import Foundation
import Operations
import PlanRules
import PlanStore
import Postgres
import Testing
import ZoneFiles

/// `plan-regen preview` against what the runs then do (plan-rules.md section 2.1): for
/// every user of the population, the preview's plan at the user's rollout midnight equals
/// the plan the runs write at that midnight, and its counts equal the runs' counts.
@Suite struct OpsRulesPreviewTests {
    @Test func thePreviewsPlansAreThePlansTheRunsWriteAtEachUsersMidnight() throws {
        try withDemoDatabase(users: 20_000) { database, connection in
            try withTemporaryDirectory { folder in
                func run(at instant: Instant) throws {
                    let finished = try PlanRegenProcess.run(
                        ["run", "--as-of", instant.rfc3339, "--notifications", folder + "/n.jsonl"],
                        databaseURL: database.conninfo, folder: folder)
                    #expect(finished.exitCode == 0, "\(finished.stderr)")
                }
                try run(at: try #require(Instant(rfc3339: firstRunAt)))
                try DemoUsers.makeCurrentPlansLookOlder(in: connection)
                let start = try #require(Instant(rfc3339: "2026-03-05T13:00:00Z"))

                var expected: [Int64: (midnight: Instant, targets: Snapshot.Targets, type: String?)] = [:]
                let preview = try RulesPreview.gather(
                    from: PlanStore(connection: connection), at: start, zones: try ZoneDatabase.loadSystem(),
                    binaryVersion: "test", batchSize: 700) { userID, midnight, evaluation in
                    if let plan = evaluation.history?.snapshot {
                        expected[userID] = (midnight, plan.targets, evaluation.notification?.type.rawValue)
                    }
                }
                #expect(preview.usersCompared > 15_000)
                #expect(preview.usersChanging == expected.count)

                // The timer's runs every 15 minutes for 26 hours, except those with no
                // previewed midnight in their quarter hour: they would find nobody due.
                let midnights = expected.values.map(\.midnight)
                var asOf = start
                while asOf <= start.adding(seconds: 26 * 3600) {
                    let quarter = asOf.adding(seconds: -900)
                    if asOf == start || midnights.contains(where: { quarter < $0 && $0 <= asOf }) { try run(at: asOf) }
                    asOf = asOf.adding(seconds: 900)
                }
                let written = try connection.query(
                    """
                    SELECT h.user_id, (extract(epoch FROM h.generated_at) * 1000000)::int8 AS generated_at,
                           (h.snapshot->'targets'->>'calories')::int AS calories,
                           (h.snapshot->'targets'->>'protein_g')::int AS protein_g,
                           (h.snapshot->'targets'->>'fat_g')::int AS fat_g,
                           (h.snapshot->'targets'->>'carbs_g')::int AS carbs_g,
                           (h.snapshot->'targets'->>'water_ml')::int AS water_ml,
                           split_part(o.notification_id, ':', 3) AS type
                    FROM plan_history h
                    LEFT JOIN notification_outbox o
                           ON o.user_id = h.user_id AND split_part(o.notification_id, ':', 2) = h.plan_date::text
                    WHERE h.generated_at >= \(start)::timestamptz AND 'rules_changed' = ANY(h.reasons)
                    """, purpose: "test: the plans the runs wrote with the new rules")
                var agreeing = 0
                var disagreeing: [String] = []
                var byType: [String: Int] = [:]
                for row in written {
                    let user = try row.int64("user_id")
                    if let type = try row.optionalString("type") { byType[type, default: 0] += 1 }
                    guard let plan = expected[user] else {
                        Issue.record("user \(user) planned by the runs, not by the preview")
                        continue
                    }
                    let targets = try ["calories", "protein_g", "fat_g", "carbs_g", "water_ml"].map { try row.int($0) }
                    let previewed = [plan.targets.calories, plan.targets.proteinG, plan.targets.fatG, plan.targets.carbsG,
                                     plan.targets.waterMl]
                    let atMidnight = try row.int64("generated_at") - plan.midnight.microsecondsSinceEpoch
                    if targets == previewed, (0..<900_000_000).contains(atMidnight) {
                        agreeing += 1
                    } else if disagreeing.count < 5 {
                        disagreeing.append("user \(user): \(targets) at +\(atMidnight / 1_000_000) s, previewed \(previewed)")
                    }
                }
                let twice = try connection.query(
                    """
                    SELECT user_id, string_agg(plan_date || ' ' || array_to_string(reasons, ',') || ' @'
                                               || to_char(generated_at AT TIME ZONE 'UTC', 'DD HH24:MI'), '; ') AS plans
                    FROM plan_history WHERE generated_at >= \(start)::timestamptz
                    GROUP BY user_id HAVING count(*) > 1 LIMIT 5
                    """, purpose: "test: users planned twice").map { "\(try $0.int64("user_id")): \(try $0.string("plans"))" }
                #expect(written.count == expected.count, "the runs wrote a plan for every user the preview changes: \(twice)")
                #expect(agreeing == expected.count, "every previewed plan written as previewed, by the run previewed: \(disagreeing)")
                #expect(byType == preview.notifications.mapValues { $0.values.reduce(0, +) })
            }
        }
    }
    /// `preview --out`: a self-contained page that opens in Chromium without an error, one
    /// bar per calorie bucket from the smallest change to the largest, their plans adding up
    /// to the calorie changes of the JSON printed by the same command, and a row for each of
    /// the largest changes.
    @Test func thePreviewPageShowsTheJSONsCalorieChangesAsOneBarPerBucket() throws {
        guard let chromium = HeadlessChromium.required() else { return }
        try withDemoDatabase(users: 400) { database, connection in
            try withTemporaryDirectory { folder in
                let first = try PlanRegenProcess.run(["run", "--as-of", firstRunAt, "--allow-future"],
                                                     databaseURL: database.conninfo, folder: folder)
                #expect(first.exitCode == 0, "\(first.stderr)")
                try DemoUsers.makeCurrentPlansLookOlder(in: connection)
                let page = folder + "/preview.html"
                // Two weeks on: MATADOR's phase switches change calories, up and down.
                let previewed = try PlanRegenProcess.run(
                    ["preview", "--as-of", switchRunAt, "--format", "json", "--out", page],
                    databaseURL: database.conninfo, folder: folder)
                #expect(previewed.exitCode == 0, "\(previewed.stderr)")
                let json = try #require(try JSONSerialization.jsonObject(with: Data(previewed.stdout.utf8)) as? [String: Any])
                let buckets = try #require(json["calorie_deltas"] as? [[String: Int]])
                let calories = try #require((json["fields"] as? [[String: Any]])?.first { $0["field"] as? String == "calories" })
                let changed = try #require(calories["changed"] as? Int)
                let largest = try #require(json["largest_calorie_changes"] as? [[String: Int]])
                #expect(changed > 20 && buckets.count > 1, "the demo's phase switches should change calories: \(buckets)")
                #expect(buckets.reduce(0) { $0 + ($1["plans"] ?? 0) } == changed)

                let opened = try chromium.openReportPage(page, folder: folder)
                #expect(occurrences(of: "<svg", in: opened.dom) == 1)
                let width = 50
                let span = ((buckets.last?["from"] ?? 0) - (buckets.first?["from"] ?? 0)) / width + 1
                #expect(occurrences(of: "<rect class=\"bar\"", in: opened.dom) == span)
                let barPlans = opened.dom.matches(of: /— ([0-9,]+) plans<\/title>/)
                    .map { Int($0.1.replacingOccurrences(of: ",", with: "")) ?? -1 }
                #expect(barPlans.reduce(0, +) == changed, "the bars' plans add up to the calorie changes")
                #expect(barPlans.count == span)
                for change in largest {
                    #expect(opened.dom.contains("<tr><td>\(change["user_id"] ?? -1)</td>"), "largest change \(change)")
                }
                try chromium.screenshot(page, to: "\(folder)/preview-390.png", width: 390, height: 900, folder: folder)
            }
        }
    }
}
