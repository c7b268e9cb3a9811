import Foundation
import PlanRules
import Postgres
import Testing

/// Whatever the app writes to user_settings (no CHECK constraints), a run rejects the row
/// with the spec's exact messages (plan-rules.md §1.2) or skips it as incomplete (§1.1),
/// processes every other user, and does not crash.
@Suite struct BadInputTests {
    /// What one row must lead to.
    enum Outcome: Equatable {
        case created
        case incomplete
        /// (field, message) in the table's order.
        case rejected([(String, String)])

        static func == (lhs: Outcome, rhs: Outcome) -> Bool {
            switch (lhs, rhs) {
            case (.created, .created), (.incomplete, .incomplete): true
            case (.rejected(let a), .rejected(let b)): a.map { "\($0.0)|\($0.1)" } == b.map { "\($0.0)|\($0.1)" }
            default: false
            }
        }
    }

    struct Row {
        var what: String
        /// Column → PostgreSQL input text (cast by the server), nil for NULL; the other
        /// columns keep the valid base row's value.
        var changes: [String: String?]
        var outcome: Outcome
    }

    // The spec's messages (plan-rules.md §1.2), written out here rather than taken from the code.
    static let dobInvalid = ("date_of_birth", "Please enter a valid date of birth")
    static let dobFuture = ("date_of_birth", "Date of birth cannot be in the future")
    static let tooYoung = ("date_of_birth", "You must be at least 13 years old to use GTSD")
    static let gender = ("gender", "Please select your gender")
    static let heightLow = ("height_cm", "Height must be at least 50 cm (1'8\")")
    static let heightHigh = ("height_cm", "Height must be less than 300 cm (9'10\")")
    static let weightLow = ("current_weight_kg", "Weight must be at least 20 kg (44 lbs)")
    static let weightHigh = ("current_weight_kg", "Weight must be less than 500 kg (1102 lbs)")
    static let targetLow = ("target_weight_kg", "Target weight must be at least 20 kg (44 lbs)")
    static let targetHigh = ("target_weight_kg", "Target weight must be less than 500 kg (1102 lbs)")
    static let goal = ("primary_goal", "Please select your primary goal")
    static let activity = ("activity_level", "Please select your activity level")
    static func zone(_ value: String) -> (String, String) { ("timezone", "Unknown time zone '\(value)'") }
    static let fewMeals = ("meals_per_day", "At least 1 meal per day required")
    static let manyMeals = ("meals_per_day", "Maximum 10 meals per day")
    static let manyPreferences = ("dietary_preferences", "Maximum 10 dietary preferences allowed")
    static let longPreference = ("dietary_preferences", "Each dietary preference must be at most 30 characters")
    static let manyAllergies = ("allergies", "Maximum 20 allergies allowed")
    static let longAllergy = ("allergies", "Each allergy must be at most 30 characters")

    static let tenKB = String(repeating: "x", count: 10_240)
    static let hostileZone = "'; DROP TABLE plan_history; --"
    static let controlZone = "Europe/Berlin\n\t\\\"x"
    static let oddPreferences = ["quote\"back\\slash", "tab\tnew\nline", "\u{2028}sep", "🥑 avocado", "NULL", ""]

    static func array(_ items: [String]) -> String { PostgresTextArray.encode(items) }

    /// Plan date 2026-03-01 in Europe/Berlin (the run is at 2026-03-01T12:00Z).
    static let rows: [Row] = [
        Row(what: "date of birth NULL", changes: ["date_of_birth": nil], outcome: .rejected([dobInvalid])),
        Row(what: "date of birth tomorrow", changes: ["date_of_birth": "2026-03-02"], outcome: .rejected([dobFuture])),
        Row(what: "date of birth infinity", changes: ["date_of_birth": "infinity"], outcome: .rejected([dobFuture])),
        Row(what: "date of birth -infinity", changes: ["date_of_birth": "-infinity"], outcome: .rejected([dobInvalid])),
        Row(what: "date of birth BC", changes: ["date_of_birth": "0044-03-15 BC"], outcome: .rejected([dobInvalid])),
        Row(what: "date of birth year 12345", changes: ["date_of_birth": "12345-01-01"], outcome: .rejected([dobFuture])),
        Row(what: "age 12", changes: ["date_of_birth": "2013-03-02"], outcome: .rejected([tooYoung])),
        Row(what: "gender NULL", changes: ["gender": nil], outcome: .rejected([gender])),
        Row(what: "gender wrong case", changes: ["gender": "Female"], outcome: .rejected([gender])),
        Row(what: "gender 10 kB", changes: ["gender": tenKB], outcome: .rejected([gender])),
        Row(what: "height NULL", changes: ["height_cm": nil], outcome: .incomplete),
        Row(what: "height 0", changes: ["height_cm": "0"], outcome: .incomplete),
        Row(what: "height NaN", changes: ["height_cm": "NaN"], outcome: .rejected([heightHigh])),
        Row(what: "height Infinity", changes: ["height_cm": "Infinity"], outcome: .rejected([heightHigh])),
        Row(what: "height -Infinity", changes: ["height_cm": "-Infinity"], outcome: .rejected([heightLow])),
        Row(what: "height negative", changes: ["height_cm": "-170"], outcome: .rejected([heightLow])),
        Row(what: "height 10^30", changes: ["height_cm": "1" + String(repeating: "0", count: 30)],
            outcome: .rejected([heightHigh])),
        Row(what: "height 49.94 reads 49.9", changes: ["height_cm": "49.94"], outcome: .rejected([heightLow])),
        Row(what: "weight NULL", changes: ["current_weight_kg": nil], outcome: .incomplete),
        Row(what: "weight 0.04 reads 0.0", changes: ["current_weight_kg": "0.04"], outcome: .incomplete),
        Row(what: "weight NaN", changes: ["current_weight_kg": "NaN"], outcome: .rejected([weightHigh])),
        Row(what: "weight negative", changes: ["current_weight_kg": "-70"], outcome: .rejected([weightLow])),
        Row(what: "target weight NaN", changes: ["target_weight_kg": "NaN"], outcome: .rejected([targetHigh])),
        Row(what: "target weight -1", changes: ["target_weight_kg": "-1"], outcome: .rejected([targetLow])),
        Row(what: "goal NULL", changes: ["primary_goal": nil], outcome: .rejected([goal])),
        Row(what: "goal wrong case", changes: ["primary_goal": "LOSE_WEIGHT"], outcome: .rejected([goal])),
        Row(what: "activity unknown", changes: ["activity_level": "couch_potato"], outcome: .rejected([activity])),
        Row(what: "activity NULL", changes: ["activity_level": nil], outcome: .rejected([activity])),
        Row(what: "zone SQL injection", changes: ["timezone": hostileZone], outcome: .rejected([zone(hostileZone)])),
        Row(what: "zone path traversal", changes: ["timezone": "../../etc/passwd"],
            outcome: .rejected([zone("../../etc/passwd")])),
        Row(what: "zone absolute path", changes: ["timezone": "/etc/localtime"], outcome: .rejected([zone("/etc/localtime")])),
        Row(what: "zone empty", changes: ["timezone": ""], outcome: .rejected([zone("")])),
        Row(what: "zone wrong case", changes: ["timezone": "europe/berlin"], outcome: .rejected([zone("europe/berlin")])),
        Row(what: "zone posixrules", changes: ["timezone": "posixrules"], outcome: .rejected([zone("posixrules")])),
        Row(what: "zone 10 kB", changes: ["timezone": tenKB], outcome: .rejected([zone(tenKB)])),
        Row(what: "zone with control characters", changes: ["timezone": controlZone],
            outcome: .rejected([zone(controlZone)])),
        Row(what: "meals 0", changes: ["meals_per_day": "0"], outcome: .rejected([fewMeals])),
        Row(what: "meals int min", changes: ["meals_per_day": "-2147483648"], outcome: .rejected([fewMeals])),
        Row(what: "meals int max", changes: ["meals_per_day": "2147483647"], outcome: .rejected([manyMeals])),
        Row(what: "11 preferences", changes: ["dietary_preferences": array((1...11).map { "p\($0)" })],
            outcome: .rejected([manyPreferences])),
        Row(what: "preference of 31 characters",
            changes: ["dietary_preferences": array([String(repeating: "a", count: 31)])],
            outcome: .rejected([longPreference])),
        Row(what: "preference of 10 kB", changes: ["dietary_preferences": array([tenKB])],
            outcome: .rejected([longPreference])),
        Row(what: "21 allergies", changes: ["allergies": array((1...21).map { "a\($0)" })],
            outcome: .rejected([manyAllergies])),
        Row(what: "allergy of 31 code points", changes: ["allergies": array([String(repeating: "é", count: 31)])],
            outcome: .rejected([longAllergy])),
        Row(what: "onboarding NULL", changes: ["onboarding_completed": nil], outcome: .incomplete),
        Row(what: "onboarding false", changes: ["onboarding_completed": "false"], outcome: .incomplete),
        Row(what: "incomplete and invalid", changes: ["onboarding_completed": "false", "gender": nil],
            outcome: .incomplete),
        Row(what: "every field wrong",
            changes: ["date_of_birth": "infinity", "gender": "x", "height_cm": "NaN", "current_weight_kg": "-1",
                      "target_weight_kg": "1e6", "primary_goal": "", "activity_level": "", "timezone": hostileZone,
                      "meals_per_day": "99", "dietary_preferences": array((1...11).map { "p\($0)" }),
                      "allergies": array([tenKB])],
            outcome: .rejected([dobFuture, gender, heightHigh, weightLow, targetHigh, goal, activity,
                                zone(hostileZone), manyMeals, manyPreferences, longAllergy])),
        // Odd but valid: each makes a plan.
        Row(what: "meals NULL reads 3", changes: ["meals_per_day": nil], outcome: .created),
        Row(what: "zone NULL reads UTC", changes: ["timezone": nil], outcome: .created),
        Row(what: "NULL preference dropped", changes: ["dietary_preferences": "{NULL,vegan}"], outcome: .created),
        Row(what: "11 preferences, one NULL", changes: ["dietary_preferences": "{p1,p2,p3,p4,p5,p6,p7,p8,p9,p10,NULL}"],
            outcome: .created),
        Row(what: "JSON-hostile preferences", changes: ["dietary_preferences": array(oddPreferences)], outcome: .created),
        Row(what: "two-dimensional preferences", changes: ["dietary_preferences": "{{vegan,keto},{paleo,halal}}"],
            outcome: .created),
        Row(what: "preferences with a lower bound", changes: ["dietary_preferences": "[0:1]={vegan,keto}"],
            outcome: .created),
        Row(what: "updated_at NULL", changes: ["updated_at": nil], outcome: .created),
        Row(what: "updated_at infinity", changes: ["updated_at": "infinity"], outcome: .created),
        Row(what: "target date -infinity", changes: ["target_date": "-infinity"], outcome: .created),
        Row(what: "height 300.04 reads 300.0", changes: ["height_cm": "300.04"], outcome: .created),
    ]

    static let base: [(String, String, String?)] = [
        ("date_of_birth", "date", "1990-05-15"), ("gender", "text", "female"), ("height_cm", "numeric", "165.0"),
        ("current_weight_kg", "numeric", "70.0"), ("target_weight_kg", "numeric", "65.0"),
        ("primary_goal", "text", "lose_weight"), ("target_date", "date", nil),
        ("activity_level", "text", "moderately_active"), ("dietary_preferences", "text[]", "{}"),
        ("allergies", "text[]", "{}"), ("meals_per_day", "integer", "3"), ("timezone", "text", "Europe/Berlin"),
        ("onboarding_completed", "boolean", "true"), ("updated_at", "timestamptz", "2026-02-01T00:00:00Z"),
    ]

    /// Bad rows get ids from 1,000,001; 100 ordinary demo users have ids 1–100; and two
    /// valid rows sit at the ends of bigint.
    @Test func everyMalformedRowIsRejectedOrSkippedAndTheOtherUsersGetPlans() throws {
        #expect(Self.rows.filter { $0.outcome != .created }.count >= 30)
        try JobDatabase.withFresh { db in
            let owner = try db.owner()
            try db.seed(users: 100, writtenBefore: Instant(rfc3339: "2026-02-15T00:00:00Z")!)
            let columns = Self.base.map(\.0)
            func insertRow(id: Int64, changes: [String: String?]) throws {
                var insert: SQLQuery = """
                    INSERT INTO user_settings (user_id, \(unescaped: columns.joined(separator: ", "))) VALUES (\(id)::bigint
                    """
                for (column, type, value) in Self.base {
                    insert += ", \(bind: changes.keys.contains(column) ? changes[column]! : value)::\(unescaped: type)"
                }
                insert += ")"
                try owner.execute(insert, purpose: "inserting a test row")
            }
            for (index, row) in Self.rows.enumerated() {
                try insertRow(id: 1_000_001 + Int64(index), changes: row.changes)
            }
            try insertRow(id: -9_223_372_036_854_775_808, changes: [:])
            try insertRow(id: 9_223_372_036_854_775_807, changes: [:])

            let result = try db.run(["--as-of", "2026-03-01T12:00:00Z", "--batch-size", "25"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.criticalLines.isEmpty)

            let tables = PlanTables(connection: owner)
            for (index, row) in Self.rows.enumerated() {
                let userID = 1_000_001 + Int64(index)
                #expect(try outcome(of: userID, owner) == row.outcome, "\(row.what)")
            }
            #expect(try outcome(of: -9_223_372_036_854_775_808, owner) == .created)
            #expect(try outcome(of: 9_223_372_036_854_775_807, owner) == .created)
            // Every ordinary user was evaluated, and plan_history survived the hostile zone.
            #expect(try tables.count("SELECT count(*) FROM plan_state WHERE user_id BETWEEN 1 AND 100") == 100)
            #expect(try tables.count("SELECT count(*) FROM plan_history WHERE user_id BETWEEN 1 AND 100") > 80)
            #expect(try tables.consistency().isConsistent)
            // Strings the app wrote come back exactly, through COPY and JSON.
            let index = try #require(Self.rows.firstIndex { $0.what == "JSON-hostile preferences" })
            let stored = try owner.query(
                "SELECT snapshot -> 'inputs' -> 'dietary_preferences' FROM plan_history WHERE user_id = \(1_000_001 + Int64(index))",
                purpose: "reading the preferences").singleRow().string(0)
            let decoded = try JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [String]
            #expect(decoded == Self.oddPreferences)
            // No value of a row reaches the log: neither the hostile strings nor health data.
            for secret in [Self.tenKB, Self.hostileZone, "../../etc/passwd", "couch_potato", "1990-05-15"] {
                #expect(!result.stderr.contains(secret))
            }
        }
    }

    /// PostgreSQL refuses invalid UTF-8 in a UTF8 database, so it cannot reach the job:
    /// the one bad-input case the job never sees.
    @Test func invalidUTF8NeverReachesTheJobInAUTF8Database() throws {
        try JobDatabase.withFresh { db in
            let owner = try db.owner()
            #expect(try owner.query("SHOW server_encoding", purpose: "reading the encoding").singleRow().string(0) == "UTF8")
            let error = try #require(throws: PostgresError.self) {
                try owner.execute(
                    "INSERT INTO user_settings (user_id, gender) VALUES (1, convert_from('\\xc328'::bytea, 'UTF8'))",
                    purpose: "writing invalid UTF-8")
            }
            #expect(error.sqlState == "22021")
        }
    }

    private func outcome(of userID: Int64, _ connection: PostgresConnection) throws -> Outcome? {
        let state = try connection.query(
            "SELECT plan_date IS NOT NULL FROM plan_state WHERE user_id = \(userID)", purpose: "reading state")
        guard state.count == 1 else { return nil }
        let rejections = try connection.query(
            "SELECT field, message FROM plan_rejections WHERE user_id = \(userID) ORDER BY id",
            purpose: "reading rejections"
        ).map { (try $0.string(0), try $0.string(1)) }
        let history = try connection.query(
            "SELECT count(*) FROM plan_history WHERE user_id = \(userID) AND reasons = '{created}'",
            purpose: "reading history").singleRow().int(0)
        if try state.singleRow().bool(0) { return history == 1 && rejections.isEmpty ? .created : nil }
        return rejections.isEmpty ? .incomplete : .rejected(rejections)
    }
}
