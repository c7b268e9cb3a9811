import Foundation
import Operations
import PlanJSON
import PlanRules
import Postgres
import Testing

/// `plan-regen history`: the timeline, CSV and JSON, checked against plan_history.
@Suite struct OpsHistoryTests {
    /// Two runs: first plans, then the day-14 phase switch of lose_weight users.
    private func withTwoRuns(_ body: (String, PostgresConnection, String) throws -> Void) throws {
        try withDemoDatabase(users: 120) { database, connection in
            try withTemporaryDirectory { folder in
                for asOf in [firstRunAt, switchRunAt] {
                    let run = try PlanRegenProcess.run(
                        ["run", "--as-of", asOf, "--notifications", folder + "/n.jsonl"],
                        databaseURL: database.conninfo, folder: folder)
                    #expect(run.exitCode == 0, "\(run.stderr)")
                }
                try body(database.conninfo, connection, folder)
            }
        }
    }

    /// `--locale` changes the numbers and dates of the text (timeline, explain), never CSV
    /// or JSON; the default is today's en-US text.
    @Test func localeChangesTheTextNumbersAndDatesButNotCSVOrJSON() throws {
        try withTwoRuns { url, connection, folder in
            let user = try connection.query(
                """
                SELECT user_id FROM plan_history GROUP BY user_id
                HAVING count(*) = 2 AND min((snapshot->'targets'->>'calories')::int) >= 1000
                ORDER BY user_id LIMIT 1
                """, purpose: "test").singleRow().int64(0)
            let calories = try connection.query(
                "SELECT (snapshot->'targets'->>'calories')::int FROM plan_history WHERE user_id = \(user) ORDER BY plan_date",
                purpose: "test").map { try $0.int(0) }
            func run(_ arguments: [String]) throws -> String {
                let result = try PlanRegenProcess.run(arguments, databaseURL: url, folder: folder)
                #expect(result.exitCode == 0, "\(result.stderr)")
                return result.stdout
            }
            let english = try run(["history", "--user", "\(user)"])
            #expect(try run(["history", "--user", "\(user)", "--locale", "en-US"]) == english)
            let timeline = lines(try run(["history", "--user", "\(user)", "--locale", "de_de"]))
            func german(_ value: Int) -> String {
                let rest = String(value % 1000)
                return "\(value / 1000)." + String(repeating: "0", count: 3 - rest.count) + rest
            }
            let first = german(calories[0])
            #expect(timeline[2].contains(" 2026 — Plan created — Target \(first) cal"), "\(timeline)")
            #expect(timeline[2].range(of: #"^\d{1,2}\. [A-Za-zä]+\.? 2026"#, options: .regularExpression) != nil,
                    "\(timeline[2])")
            for format in ["csv", "json"] {
                #expect(try run(["history", "--user", "\(user)", "--format", format, "--locale", "fr-FR"])
                        == run(["history", "--user", "\(user)", "--format", format]))
            }
            let explained = try run(["explain", "--user", "\(user)", "--as-of", switchRunAt, "--locale", "de-DE"])
            #expect(explained.contains(".03.2026 (rules "), "\(explained)")
            #expect(explained.contains(german(calories[1])), "\(explained)")
            #expect(try run(["explain", "--user", "\(user)", "--as-of", switchRunAt])
                    .contains("-03-"), "the default keeps ISO dates")
        }
    }

    @Test func theTimelineShowsEachWrittenPlanOfTheUserNewestFirst() throws {
        try withTwoRuns { url, connection, folder in
            let user = try connection.query(
                """
                SELECT user_id FROM plan_history GROUP BY user_id
                HAVING count(*) = 2 AND bool_or(reasons = ARRAY['phase_switch'])
                   AND bool_or(snapshot->'phase'->>'phase' = 'maintenance')
                   AND count(DISTINCT snapshot->'targets'->>'calories') = 2
                ORDER BY user_id LIMIT 1
                """, purpose: "test").singleRow().int64(0)
            let plans = try connection.query(
                """
                SELECT extract(day FROM plan_date)::int, (snapshot->'targets'->>'calories')::int
                FROM plan_history WHERE user_id = \(user) ORDER BY plan_date DESC
                """, purpose: "test").map { (day: try $0.int(0), calories: try $0.int(1)) }

            let shown = try PlanRegenProcess.run(["history", "--user", "\(user)"], databaseURL: url, folder: folder)
            #expect(shown.exitCode == 0, "\(shown.stderr)")
            let output = lines(shown.stdout)
            #expect(output.count == 3)
            #expect(output[0] == "Plan updates for user \(user), newest first")
            // Both plans are in March 2026; the switch raises calories to maintenance.
            #expect(output[1].hasPrefix("Mar \(plans[0].day), 2026 — Maintenance phase started — Target "
                + "\(groupedThousands(plans[1].calories)) → \(groupedThousands(plans[0].calories)) cal"))
            #expect(output[1].contains("[phase_switch; run 2]"))
            #expect(output[2].hasPrefix("Mar \(plans[1].day), 2026 — Plan created — Target "
                + "\(groupedThousands(plans[1].calories)) cal"))
        }
    }

    @Test func theCSVExportRoundTripsEveryPlanOfTheDateRange() throws {
        try withTwoRuns { url, connection, folder in
            let export = try PlanRegenProcess.run(
                ["history", "--from", "2026-03-10", "--to", "2026-03-31", "--format", "csv"],
                databaseURL: url, folder: folder)
            #expect(export.exitCode == 0, "\(export.stderr)")
            let rows = try CSV.parse(export.stdout)
            #expect(rows.first == HistoryPrinter.csvColumns)
            let records = rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(rows[0], $0)) }

            let expected = try connection.query(
                """
                SELECT f.user_id, f.plan_date::text, f.seq, f.calories, f.protein_g, f.phase,
                       f.weight_kg_reported::text, array_to_string(f.reasons, ';'), h.diff::text
                FROM plan_history_flat f JOIN plan_history h ON h.id = f.history_id
                WHERE f.plan_date BETWEEN '2026-03-10' AND '2026-03-31'
                ORDER BY f.plan_date DESC, f.user_id, f.seq DESC
                """, purpose: "test")
            #expect(expected.count > 10, "the switch run wrote plans in the range")
            #expect(records.count == expected.count)
            for (record, row) in zip(records, expected) {
                #expect(record["user_id"] == "\(try row.int64(0))")
                #expect(record["plan_date"] == (try row.string(1)))
                #expect(record["seq"] == "\(try row.int(2))")
                #expect(record["calories"] == "\(try row.int(3))")
                #expect(record["protein_g"] == "\(try row.int(4))")
                #expect(record["phase"] == (try row.string(5)))
                #expect(record["weight_kg_reported"] == (try row.string(6)))
                #expect(record["reasons"] == (try row.string(7)))
                #expect(try JSONValue(parsing: record["diff"] ?? "") == JSONValue(parsing: row.string(8)))
            }
        }
    }

    @Test func theJSONFormatCarriesTheStoredSnapshotAndDiff() throws {
        try withTwoRuns { url, connection, folder in
            let user = try connection.query("SELECT min(user_id) FROM plan_history",
            purpose: "test").singleRow().int64(0)
            let export = try PlanRegenProcess.run(["history", "--user", "\(user)", "--format", "json"],
                                                  databaseURL: url, folder: folder)
            #expect(export.exitCode == 0, "\(export.stderr)")
            let stored = try connection.query(
                "SELECT snapshot::text, diff::text FROM plan_history WHERE user_id = \(user) ORDER BY plan_date DESC",
                purpose: "test")
            let output = lines(export.stdout)
            #expect(output.count == stored.count)
            for (line, row) in zip(output, stored) {
                let object = try JSONValue(parsing: line)
                #expect(object["user_id"] == (try JSONValue(parsing: "\(user)")))
                #expect(object["snapshot"] == (try JSONValue(parsing: row.string(0))))
                #expect(object["diff"] == (try JSONValue(parsing: row.string(1))))
            }
        }
    }

    @Test func theTimelineNeedsAUser() throws {
        try withTemporaryDirectory { folder in
            let refused = try PlanRegenProcess.run(["history"], databaseURL: nil, folder: folder)
            #expect(refused.exitCode == 64)
            #expect(refused.stderr.contains("give --user ID"))
        }
    }
}

/// RFC 4180 CSV, parsed independently of the writer: quoted fields, doubled quotes,
/// commas and line breaks inside quotes.
enum CSV {
    static func parse(_ text: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" { field.append("\""); characters.removeFirst() } else { quoted = false }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                row.append(field)
                field = ""
            } else if character == "\n" {
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            } else {
                field.append(character)
            }
        }
        try #require(!quoted, "unterminated quoted field")
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }
}
