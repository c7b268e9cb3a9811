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
    /// The current plan as stored (`plan_history.snapshot` as jsonb's text): a new history
    /// row's `previous` is this plan, so it is written back as it came instead of encoded
    /// again from `state.currentPlan`.
    public var currentPlanJSON: [UInt8]?
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
    /// Two shapes of the same query, chosen by how the ids lie (`UserLookup`):
    /// - **A dense ascending batch** (a first run, a new rules version: most ids between
    ///   the first and the last are candidates) reads each table's id range once, as a
    ///   full join of the two ranges, and keeps the batch's ids here: the range's other
    ///   users are skipped, and an id with neither row is a user without settings or state.
    ///   The range bounds each scan, so stale statistics cannot turn it into a read of the
    ///   whole table. Joining the ranges to the batch's ids on the server (`unnest` of a
    ///   2,000-id array, then a hash join per table) cost it 3.4 ms more a batch of users
    ///   with no state yet (5.0 against 1.6 ms), about 5% of the server's work in a first
    ///   run; probing each id costs more still. The rows come back in the join's order,
    ///   and are put in id order here.
    /// - **Sparse or given ids** (a nightly run, `--user`) probe each table once per user
    ///   (`LATERAL … LIMIT 1` keeps the planner from turning the lookups into a join that
    ///   reads the whole table: with plain joins it chose, from statistics that lag behind
    ///   a first run's writes, a hash or merge join over all of `plan_state` for every
    ///   batch). The current plan is a subquery of the state's probe, not a third
    ///   `LATERAL`: as a join of its own the planner put a Memoize node over it, which
    ///   copied every snapshot into a cache that never hits.
    ///
    /// With `partitionGuard`, it is checked first in the same round trip (the batch's fence
    /// or lock), and the users are read only if it holds.
    public func loadUsers(_ userIDs: [Int64], after partitionGuard: PartitionGuard? = nil) throws -> [LoadedUser] {
        try loadUsers(userIDs, after: partitionGuard, lookup: UserLookup(userIDs))
    }

    func loadUsers(_ userIDs: [Int64], after partitionGuard: PartitionGuard? = nil, lookup: UserLookup) throws
        -> [LoadedUser] {
        var users: [LoadedUser] = []
        users.reserveCapacity(userIDs.count)
        let presentation = try presentationColumns()
        let guardStatements = partitionGuard.map { [$0.statement(connection)] } ?? []
        let results = try connection.pipelined(guardStatements + [(
            """
            SELECT \(sql: lookup.userID) AS user_id, s.user_id IS NOT NULL AS has_settings,
                   s.date_of_birth::text, s.gender, s.height_cm::text, s.current_weight_kg::text,
                   s.target_weight_kg::text, s.primary_goal, s.target_date::text, s.activity_level,
                   \(sql: oneDimensional("s.dietary_preferences")) AS dietary_preferences,
                   \(sql: oneDimensional("s.allergies")) AS allergies, s.meals_per_day, s.timezone,
                   s.onboarding_completed, \(sql: microseconds("s.updated_at")) AS updated_at,
                   \(unescaped: presentation.locale ? "s.locale::text" : "NULL::text") AS locale,
                   \(unescaped: presentation.unitSystem ? "s.unit_system::text" : "NULL::text") AS unit_system,
                   p.user_id IS NOT NULL AS has_state, \(sql: lookup.currentPlan), p.history_rows_on_plan_date,
                   p.last_evaluated_date::text, \(sql: microseconds("p.seen_updated_at")) AS seen_updated_at,
                   \(sql: microseconds("p.judged_updated_at")) AS judged_updated_at, p.judged_rules_version,
                   \(sql: microseconds("p.scheduled_updated_at")) AS scheduled_updated_at,
                   \(sql: microseconds("p.next_check_at")) AS next_check_at, p.rules_version
            \(sql: lookup.from(userIDs))
            """, "reading settings and plan state of \(userIDs.count) users")])
        try partitionGuard?.check(results[0])
        let rows = results.last!
        let column = LoadedUserColumns(rows.columns)
        guard lookup.range != nil else {
            // One row per id, in the ids' order.
            for row in rows {
                users.append(try loadedUser(from: row, column))
            }
            return users
        }
        // The range's rows, in id order: the batch's ids ascend, so one pass pairs them.
        // Only the batch's rows are decoded.
        let rowIDs = try rows.map { try $0.int64(column.userID) }
        var order = Array(rows.indices)
        if rowIDs.indices.dropFirst().contains(where: { rowIDs[$0 - 1] > rowIDs[$0] }) {
            order.sort { rowIDs[$0] < rowIDs[$1] }
        }
        var next = 0
        for userID in userIDs {
            while next < order.count, rowIDs[order[next]] < userID { next += 1 }
            if next < order.count, rowIDs[order[next]] == userID {
                users.append(try loadedUser(from: rows[order[next]], column, userID: userID))
                next += 1
            } else {
                users.append(LoadedUser(userID: userID, row: nil, state: nil, storedNextCheck: nil,
                                        storedRulesVersion: nil))
            }
        }
        return users
    }

    /// Which of section 7.1's optional columns `user_settings` has (`locale`,
    /// `unit_system`): the app may not have added them. Asked once per store; the load
    /// query names only the columns that exist (column names are constants, never data).
    func presentationColumns() throws -> (locale: Bool, unitSystem: Bool) {
        if let known = optionalSettingsColumns { return known }
        let known = try Self.presentationColumns(from: connection.pipelined([Self.presentationColumnsQuery])[0])
        optionalSettingsColumns = known
        return known
    }

    static var presentationColumnsQuery: (query: SQLQuery, purpose: String) {
        ("""
         SELECT attname::text FROM pg_attribute
         WHERE attrelid = to_regclass('user_settings') AND attname IN ('locale', 'unit_system')
           AND attnum > 0 AND NOT attisdropped
         """, "looking for the optional locale and unit_system columns of user_settings")
    }

    static func presentationColumns(from result: PostgresResult) throws -> (locale: Bool, unitSystem: Bool) {
        let names = try result.map { try $0.string("attname") }
        return (locale: names.contains("locale"), unitSystem: names.contains("unit_system"))
    }

    /// One row of `loadUsers`' query; `knownID` when its id was read already.
    private func loadedUser(from r: PostgresRow, _ c: LoadedUserColumns, userID knownID: Int64? = nil) throws
        -> LoadedUser {
        // Each part is made in a local and the user once, at the end: filling in a
        // `LoadedUser` variable copied its row and state (a retain of every string).
        let userID = try knownID ?? r.int64(c.userID)
        let row: UserSettingsRow? = try r.bool(c.hasSettings) ? UserSettingsRow(
            userID: userID,
            dateOfBirth: try r.optionalString(c.dateOfBirth), gender: try r.optionalString(c.gender),
            heightCm: try r.optionalString(c.heightCm), currentWeightKg: try r.optionalString(c.currentWeightKg),
            targetWeightKg: try r.optionalString(c.targetWeightKg), primaryGoal: try r.optionalString(c.primaryGoal),
            targetDate: try r.optionalString(c.targetDate), activityLevel: try r.optionalString(c.activityLevel),
            dietaryPreferences: try r.optionalStringArray(c.dietaryPreferences),
            allergies: try r.optionalStringArray(c.allergies),
            mealsPerDay: try r.optionalInt(c.mealsPerDay),
            timezone: try r.optionalString(c.timezone),
            onboardingCompleted: try r.optionalBool(c.onboardingCompleted),
            updatedAt: try instant(r, c.updatedAt),
            locale: try r.optionalString(c.locale), unitSystem: try r.optionalString(c.unitSystem)) : nil
        guard try r.bool(c.hasState) else {
            return LoadedUser(userID: userID, row: row, state: nil, storedNextCheck: nil, storedRulesVersion: nil)
        }
        var state = UserPlanState()
        let currentPlanJSON = try r.optionalBytes(c.snapshot)
        if let currentPlanJSON {
            state.currentPlan = try currentPlan(json: currentPlanJSON, userID: userID)
        }
        state.historyRowsOnCurrentPlanDate = try r.int(c.historyRowsOnPlanDate)
        state.lastEvaluatedDate = try r.optionalString(c.lastEvaluatedDate).flatMap { LocalDate(iso8601: $0) }
        state.seenUpdatedAt = try instant(r, c.seenUpdatedAt)
        state.judgedUpdatedAt = try instant(r, c.judgedUpdatedAt)
        state.judgedRulesVersion = try r.optionalString(c.judgedRulesVersion)
        state.scheduledUpdatedAt = try instant(r, c.scheduledUpdatedAt)
        return LoadedUser(userID: userID, row: row, state: state, storedNextCheck: try instant(r, c.nextCheckAt),
                          storedRulesVersion: try r.optionalString(c.rulesVersion), currentPlanJSON: currentPlanJSON)
    }

    private func currentPlan(json: [UInt8], userID: Int64) throws -> Snapshot {
        do {
            return try Snapshot(json: json)
        } catch {
            // The path only: the reason quotes the bad value, which may be health data.
            throw StoreError.corruptState(userID: userID, detail: error.path.isEmpty
                ? "plan_history.snapshot: \(error.reason)"
                : "plan_history.snapshot field \(error.path) is unreadable")
        }
    }

    /// The text of the `text[]` column `column` as a one-dimensional array: the app may
    /// store a nested array (`{{a,b},{c,d}}`), which is read as its elements in
    /// PostgreSQL's own order (`unnest`), so a limit counts every element (`cardinality`)
    /// and one such row never stops the run.
    private func oneDimensional(_ column: SQLQuery) -> SQLQuery {
        "(CASE WHEN array_ndims(\(sql: column)) > 1 THEN ARRAY(SELECT unnest(\(sql: column))) ELSE \(sql: column) END)::text"
    }

    private func instant(_ row: PostgresRow, _ column: PostgresColumn) throws -> Instant? {
        try row.optionalInt64(column).map(Instant.init(microsecondsSinceEpoch:))
    }
}

/// How `loadUsers` finds a batch's rows: by each table's id range when the ids ascend and
/// at least half of the range is asked for, else by one probe per id.
struct UserLookup {
    /// The ids' range, when it is read whole.
    let range: ClosedRange<Int64>?

    init(_ userIDs: [Int64]) {
        range = Self.denseRange(of: userIDs)
    }

    /// A probe per id, whatever the ids (tests compare the two shapes).
    static let probes = UserLookup(range: nil)

    private init(range: ClosedRange<Int64>?) {
        self.range = range
    }

    /// `userIDs`' range if they strictly ascend and fill at least half of it.
    static func denseRange(of userIDs: [Int64]) -> ClosedRange<Int64>? {
        guard let first = userIDs.first, let last = userIDs.last else { return nil }
        var previous = first
        for id in userIDs.dropFirst() {
            guard id > previous else { return nil }
            previous = id
        }
        // Ascending distinct ids: last - first >= count - 1, so the span cannot overflow
        // unless the ids are far apart, which the division keeps from mattering.
        let (span, overflow) = last.subtractingReportingOverflow(first)
        guard !overflow, span / 2 < Int64(userIDs.count) else { return nil }
        return first...last
    }

    /// The id column of the query's rows.
    var userID: SQLQuery {
        range == nil ? "u.user_id" : "coalesce(s.user_id, p.user_id)"
    }

    /// The query's `FROM` clause: the two tables as `s` (settings) and `p` (state).
    func from(_ userIDs: [Int64]) -> SQLQuery {
        guard let range else {
            return """
                FROM unnest(\(userIDs)::bigint[]) WITH ORDINALITY AS u(user_id, position)
                LEFT JOIN LATERAL (SELECT * FROM user_settings WHERE user_id = u.user_id LIMIT 1) s ON true
                LEFT JOIN LATERAL (
                    SELECT plan_state.*, \(sql: Self.currentPlan(of: "plan_state")) AS snapshot
                    FROM plan_state WHERE user_id = u.user_id LIMIT 1) p ON true
                ORDER BY u.position
                """
        }
        return """
            FROM (SELECT * FROM user_settings WHERE user_id BETWEEN \(range.lowerBound) AND \(range.upperBound)) s
            FULL JOIN (SELECT * FROM plan_state WHERE user_id BETWEEN \(range.lowerBound) AND \(range.upperBound)) p
                   ON p.user_id = s.user_id
            """
    }

    /// The current plan's column: in the probe it comes with the state; in the range
    /// query it is looked up for the batch's own state rows only. (Only for users with a
    /// state: run for a user without one, the lookup found nothing at the price of an
    /// index rescan, 0.1–0.3 µs of the server's time a user in a first run.)
    var currentPlan: SQLQuery {
        guard range != nil else { return "p.snapshot::text" }
        return "CASE WHEN p.user_id IS NOT NULL THEN \(sql: Self.currentPlan(of: "p"))::text END AS snapshot"
    }

    /// The snapshot of the history row a `plan_state` row (named `state` in the query)
    /// points at: its current plan.
    private static func currentPlan(of state: String) -> SQLQuery {
        """
        (SELECT snapshot FROM plan_history h
         WHERE h.user_id = \(identifier: state).user_id AND h.plan_date = \(identifier: state).plan_date
           AND h.seq = \(identifier: state).history_rows_on_plan_date - 1)
        """
    }
}

/// The columns of `loadUsers`' result, found by name once per batch: a run reads a million
/// rows, and looking 27 names up in each would cost about half a second per million users.
private struct LoadedUserColumns {
    let userID, hasSettings, dateOfBirth, gender, heightCm, currentWeightKg, targetWeightKg, primaryGoal, targetDate,
        activityLevel, dietaryPreferences, allergies, mealsPerDay, timezone, onboardingCompleted, updatedAt, locale,
        unitSystem, hasState, snapshot, historyRowsOnPlanDate, lastEvaluatedDate, seenUpdatedAt, judgedUpdatedAt,
        judgedRulesVersion, scheduledUpdatedAt, nextCheckAt, rulesVersion: PostgresColumn

    init(_ columns: PostgresColumns) {
        userID = columns.column("user_id")
        hasSettings = columns.column("has_settings")
        dateOfBirth = columns.column("date_of_birth")
        gender = columns.column("gender")
        heightCm = columns.column("height_cm")
        currentWeightKg = columns.column("current_weight_kg")
        targetWeightKg = columns.column("target_weight_kg")
        primaryGoal = columns.column("primary_goal")
        targetDate = columns.column("target_date")
        activityLevel = columns.column("activity_level")
        dietaryPreferences = columns.column("dietary_preferences")
        allergies = columns.column("allergies")
        mealsPerDay = columns.column("meals_per_day")
        timezone = columns.column("timezone")
        onboardingCompleted = columns.column("onboarding_completed")
        updatedAt = columns.column("updated_at")
        locale = columns.column("locale")
        unitSystem = columns.column("unit_system")
        hasState = columns.column("has_state")
        snapshot = columns.column("snapshot")
        historyRowsOnPlanDate = columns.column("history_rows_on_plan_date")
        lastEvaluatedDate = columns.column("last_evaluated_date")
        seenUpdatedAt = columns.column("seen_updated_at")
        judgedUpdatedAt = columns.column("judged_updated_at")
        judgedRulesVersion = columns.column("judged_rules_version")
        scheduledUpdatedAt = columns.column("scheduled_updated_at")
        nextCheckAt = columns.column("next_check_at")
        rulesVersion = columns.column("rules_version")
    }
}
