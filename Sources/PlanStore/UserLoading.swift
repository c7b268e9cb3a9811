import PlanJSON
import PlanRules
import Postgres

/// One user as a run sees them: the live settings row (nil if the app has none) and
/// what the job remembers (nil before the job first saw them).
public struct LoadedUser: Sendable {
    public var userID: Int64
    public var row: UserSettingsRow?
    public var state: UserPlanState?
    /// `plan_state.next_check_at` and `rules_version` as stored, to skip rewriting an
    /// unchanged state row.
    public var storedNextCheck: Instant?
    public var storedRulesVersion: String?
}

extension PlanStore {
    /// Reads the settings row and stored state of each of `userIDs` in one query, in the
    /// order given (so `--dry-run` output and evaluation order are repeatable). The
    /// current plan is the latest history row, which `plan_state` points at.
    /// Numbers and dates come as PostgreSQL text: reading them is a rule (PlanRules).
    ///
    /// One result for the batch, not single-row mode: the batch's rows are held in memory
    /// anyway, and a result per row cost more client CPU than decoding the rows.
    ///
    /// Each table is probed once per user (`LATERAL … LIMIT 1` keeps the planner from
    /// turning the lookups into a join that reads the whole table): with plain joins it
    /// chose, from statistics that lag behind a first run's writes, a hash or merge join
    /// over all of `plan_state` for every batch — work growing with the table, which made
    /// the server's share of a first run a third larger at 200,000 users.
    public func loadUsers(_ userIDs: [Int64]) throws -> [LoadedUser] {
        var users: [LoadedUser] = []
        users.reserveCapacity(userIDs.count)
        let presentation = try presentationColumns()
        let rows = try connection.query(
            """
            SELECT u.user_id, s.user_id IS NOT NULL,
                   s.date_of_birth::text, s.gender, s.height_cm::text, s.current_weight_kg::text,
                   s.target_weight_kg::text, s.primary_goal, s.target_date::text, s.activity_level,
                   \(oneDimensional("s.dietary_preferences")), \(oneDimensional("s.allergies")),
                   s.meals_per_day, s.timezone,
                   s.onboarding_completed, \(microseconds("s.updated_at")),
                   p.user_id IS NOT NULL, h.snapshot::text, p.history_rows_on_plan_date,
                   p.last_evaluated_date::text, \(microseconds("p.seen_updated_at")),
                   \(microseconds("p.judged_updated_at")), p.judged_rules_version,
                   \(microseconds("p.next_check_at")), p.rules_version,
                   \(presentation.locale ? "s.locale::text" : "NULL::text"),
                   \(presentation.unitSystem ? "s.unit_system::text" : "NULL::text")
            FROM unnest($1::bigint[]) WITH ORDINALITY AS u(user_id, position)
            LEFT JOIN LATERAL (SELECT * FROM user_settings WHERE user_id = u.user_id LIMIT 1) s ON true
            LEFT JOIN LATERAL (SELECT * FROM plan_state WHERE user_id = u.user_id LIMIT 1) p ON true
            LEFT JOIN LATERAL (
                SELECT snapshot FROM plan_history
                WHERE user_id = p.user_id AND plan_date = p.plan_date AND seq = p.history_rows_on_plan_date - 1
                LIMIT 1) h ON true
            ORDER BY u.position
            """,
            [userIDs], purpose: "reading settings and plan state of \(userIDs.count) users")
        for row in rows {
            users.append(try loadedUser(from: row))
        }
        return users
    }

    /// Which of section 7.1's optional columns `user_settings` has (`locale`,
    /// `unit_system`): the app may not have added them. Asked once per store; the load
    /// query names only the columns that exist (column names are constants, never data).
    func presentationColumns() throws -> (locale: Bool, unitSystem: Bool) {
        if let known = optionalSettingsColumns { return known }
        let names = try connection.query(
            """
            SELECT attname::text FROM pg_attribute
            WHERE attrelid = 'user_settings'::regclass AND attname IN ('locale', 'unit_system')
              AND attnum > 0 AND NOT attisdropped
            """, purpose: "looking for the optional locale and unit_system columns of user_settings"
        ).map { try $0.string(0) }
        let known = (locale: names.contains("locale"), unitSystem: names.contains("unit_system"))
        optionalSettingsColumns = known
        return known
    }

    /// One row of `loadUsers`' query.
    private func loadedUser(from r: PostgresRow) throws -> LoadedUser {
        let userID = try r.int64(0)
        var user = LoadedUser(userID: userID, row: nil, state: nil, storedNextCheck: nil, storedRulesVersion: nil)
        if try r.bool(1) {
            user.row = UserSettingsRow(
                userID: userID,
                dateOfBirth: try r.optionalString(2), gender: try r.optionalString(3),
                heightCm: try r.optionalString(4), currentWeightKg: try r.optionalString(5),
                targetWeightKg: try r.optionalString(6), primaryGoal: try r.optionalString(7),
                targetDate: try r.optionalString(8), activityLevel: try r.optionalString(9),
                dietaryPreferences: try r.optionalString(10).map { try PostgresTextArray.decode($0) },
                allergies: try r.optionalString(11).map { try PostgresTextArray.decode($0) },
                mealsPerDay: try r.isNull(12) ? nil : r.int(12),
                timezone: try r.optionalString(13),
                onboardingCompleted: try r.isNull(14) ? nil : r.bool(14),
                updatedAt: try instant(r, 15),
                locale: try r.optionalString(25), unitSystem: try r.optionalString(26))
        }
        if try r.bool(16) {
            var state = UserPlanState()
            if let json = try r.optionalString(17) {
                state.currentPlan = try currentPlan(json: json, userID: userID)
            }
            state.historyRowsOnCurrentPlanDate = try r.int(18)
            state.lastEvaluatedDate = try r.optionalString(19).flatMap { LocalDate(iso8601: $0) }
            state.seenUpdatedAt = try instant(r, 20)
            state.judgedUpdatedAt = try instant(r, 21)
            state.judgedRulesVersion = try r.optionalString(22)
            user.state = state
            user.storedNextCheck = try instant(r, 23)
            user.storedRulesVersion = try r.optionalString(24)
        }
        return user
    }

    private func currentPlan(json: String, userID: Int64) throws -> Snapshot {
        do {
            return try Snapshot(json: Array(json.utf8))
        } catch {
            // The path only: the reason quotes the bad value, which may be health data.
            throw StoreError.corruptState(userID: userID, detail: error.path.isEmpty
                ? "plan_history.snapshot: \(error.reason)"
                : "plan_history.snapshot field \(error.path) is unreadable")
        }
    }

    /// The text of the `text[]` column `column` (a literal name) as a one-dimensional
    /// array: the app may store a nested array (`{{a,b},{c,d}}`), which is read as its
    /// elements in PostgreSQL's own order (`unnest`), so a limit counts every element
    /// (`cardinality`) and one such row never stops the run.
    private func oneDimensional(_ column: String) -> String {
        "(CASE WHEN array_ndims(\(column)) > 1 THEN ARRAY(SELECT unnest(\(column))) ELSE \(column) END)::text"
    }

    private func instant(_ row: PostgresRow, _ column: Int) throws -> Instant? {
        try row.isNull(column) ? nil : Instant(microsecondsSinceEpoch: row.int64(column))
    }
}
