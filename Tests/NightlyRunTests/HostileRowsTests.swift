import PlanRules
import Testing

/// The app's table has no CHECK constraints: whatever it holds, one bad row never stops
/// the run or touches another user (issue 4; plan-rules.md section 1).
@Suite struct HostileRowsTests {
    /// Values PostgreSQL accepts in the reference columns, each in its own row (set
    /// over a valid user's defaults), as SQL literals written here, never built from data.
    static let hostileValues: [(column: String, literal: String)] = [
        ("height_cm", "'NaN'"), ("current_weight_kg", "1e300"), ("current_weight_kg", "-0.04"),
        ("target_weight_kg", "'NaN'"), ("date_of_birth", "'infinity'"), ("date_of_birth", "'-infinity'"),
        ("date_of_birth", "'0044-03-15 BC'"), ("date_of_birth", "'12345-01-01'"),
        ("target_date", "'infinity'"), ("updated_at", "'infinity'"), ("updated_at", "'-infinity'"),
        ("updated_at", "NULL"), ("dietary_preferences", "'{{vegan,keto},{halal,kosher}}'"),
        ("dietary_preferences", "'[2:3]={vegan,keto}'"), ("allergies", "'{NULL,\"pea,nut\",\"a\\\\b\",\"\"}'"),
        ("allergies", "'{}'"), ("timezone", "''"), ("timezone", "'localtime'"), ("timezone", "NULL"),
        ("meals_per_day", "-2147483648"), ("meals_per_day", "NULL"), ("gender", "NULL"),
        ("primary_goal", "'LOSE_WEIGHT'"), ("onboarding_completed", "NULL"),
        ("activity_level", "E'sedentary\\n'"),
    ]

    @Test func aRunCompletesOverEveryHostileRowAndTheValidUserGetsAPlan() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            try driver.insert(TestUser(userID: 1, updatedAt: t0.adding(minutes: -5)))
            for (index, value) in Self.hostileValues.enumerated() {
                let userID = Int64(100 + index)
                try driver.insert(TestUser(userID: userID, updatedAt: t0.adding(minutes: -5)))
                try driver.connection.executeScript(
                    "UPDATE user_settings SET \(value.column) = \(value.literal) WHERE user_id = \(userID)",
                    purpose: "writing \(value.column) = \(value.literal) for user \(userID)")
            }

            let summary = try driver.run(at: t0)
            let c = summary.counts
            #expect(c.created + c.rejected + c.skippedIncomplete == Self.hostileValues.count + 1)
            #expect(try driver.history(of: 1).first?.reasons == ["created"])
            // Nested arrays and custom bounds are read as their elements in order; NULL
            // elements are dropped.
            let lists = try driver.connection.query(
                """
                SELECT user_id, (snapshot->'inputs'->'dietary_preferences')::text,
                       (snapshot->'inputs'->'allergies')::text
                FROM plan_history WHERE user_id = ANY(\(["112", "113", "114"])::bigint[]) ORDER BY user_id
                """, purpose: "reading the lists read from arrays"
            ).map { [try $0.string(1), try $0.string(2)] }
            #expect(lists == [["[\"vegan\", \"keto\", \"halal\", \"kosher\"]", "[]"],
                              ["[\"vegan\", \"keto\"]", "[]"],
                              ["[]", #"["pea,nut", "a\\b", ""]"#]])
            // A second run finds nothing left to record.
            let again = try driver.run(at: t0.adding(minutes: 15))
            #expect(again.counts.created + again.counts.rejected + again.counts.skippedIncomplete == 0)
        }
    }

    /// The app deletes a user's row: the scheduled switch finds nobody, writes nothing,
    /// and the user leaves the schedule (no next check selecting them on every run).
    @Test func aDeletedRowWritesNothingAndLeavesTheSchedule() throws {
        try RunDriver.withFresh { driver in
            let t0 = try #require(Instant(rfc3339: "2026-04-10T10:00:00Z"))
            try driver.insert(TestUser(userID: 2, updatedAt: t0.adding(minutes: -5)))
            try driver.run(at: t0)
            let switchMidnight = try #require(try driver.state(of: 2)?.nextCheckAt)
            try driver.connection.execute("DELETE FROM user_settings WHERE user_id = 2", purpose: "deleting user 2")

            let summary = try driver.run(at: switchMidnight)
            #expect(summary.counts.due == 0)
            #expect(try driver.history(of: 2).count == 1)
            #expect(try driver.state(of: 2)?.nextCheckAt == nil)
        }
    }
}
