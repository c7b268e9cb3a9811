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
    /// Reads the settings row and stored state of each of `userIDs` in one round trip, in
    /// the order given (so `--dry-run` output and evaluation order are repeatable); the
    /// current plan is the history row `plan_state` points at. With `partitionGuard`, the
    /// batch's fence or lock is checked first in the same round trip, and the users are
    /// read only if it holds.
    ///
    /// Rows come in binary format, whole (not single-row mode), so timestamps arrive as
    /// exact microseconds and nobody formats or parses them; settings' numbers and dates
    /// stay text, since reading them is a rule (PlanRules). Two shapes (`UserLookup`):
    /// - **dense ascending ids** (a first run, new rules): each table's id range in one
    ///   statement each, the batch's other users skipped here. The range bounds each scan
    ///   whatever the statistics say, and two range reads cost the server less than joining
    ///   them. The two statements' snapshots may differ harmlessly: a batch's states are
    ///   written only under its fence.
    /// - **sparse or given ids** (a nightly run, `--user`): one `LATERAL … LIMIT 1` probe
    ///   per table and user, so stale statistics cannot turn the lookups into a join over the
    ///   whole table; the current plan is a subquery of the state's probe, which keeps the
    ///   planner from caching every snapshot in a Memoize node.
    public func loadUsers(_ userIDs: [Int64], after partitionGuard: PartitionGuard? = nil) throws -> [LoadedUser] {
        try loadUsers(userIDs, after: partitionGuard, lookup: UserLookup(userIDs))
    }

    func loadUsers(_ userIDs: [Int64], after partitionGuard: PartitionGuard? = nil, lookup: UserLookup) throws
        -> [LoadedUser] {
        var users: [LoadedUser] = []
        users.reserveCapacity(userIDs.count)
        let settings = settingsColumns(try presentationColumns())
        let fence = partitionGuard.map { (partitionGuard: $0, statement: $0.statement(connection)) }
        let guardStatements = fence.map { [$0.statement] } ?? []
        guard let range = lookup.range else {
            let purpose = "reading settings and plan state of \(userIDs.count) users"
            var results = PipelinedResults(try connection.pipelined(guardStatements + [(
                ("""
                SELECT u.user_id, s.user_id IS NOT NULL AS has_settings, \(sql: settings),
                       p.user_id IS NOT NULL AS has_state, \(sql: Self.stateColumns(snapshot: "p.snapshot::text"))
                FROM unnest(\(userIDs)::bigint[]) WITH ORDINALITY AS u(user_id, position)
                LEFT JOIN LATERAL (SELECT * FROM user_settings WHERE user_id = u.user_id LIMIT 1) s ON true
                LEFT JOIN LATERAL (
                    SELECT plan_state.*, \(sql: Self.currentPlan(of: "plan_state")) AS snapshot
                    FROM plan_state WHERE user_id = u.user_id LIMIT 1) p ON true
                ORDER BY u.position
                """ as SQLQuery).binaryResults(), purpose)]))
            if let fence { try fence.partitionGuard.check(results.next(fence.statement.purpose)) }
            // One row per id, in the ids' order.
            let rows = try results.next(purpose)
            let column = LoadedUserColumns(rows.columns)
            for row in rows {
                let userID = try row.int64(column.userID)
                users.append(try loadedUser(
                    userID: userID, settings: try row.bool(column.hasSettings) ? row : nil, column,
                    state: try row.bool(column.hasState) ? row : nil, column))
            }
            return users
        }
        let settingsPurpose = "reading the settings of \(userIDs.count) users"
        let statePurpose = "reading the plan state of \(userIDs.count) users"
        var results = PipelinedResults(try connection.pipelined(guardStatements + [
            (("""
             SELECT s.user_id, \(sql: settings) FROM user_settings s
             WHERE s.user_id BETWEEN \(range.lowerBound) AND \(range.upperBound)
             """ as SQLQuery).binaryResults(), settingsPurpose),
            (("""
             SELECT p.user_id, \(sql: Self.stateColumns(snapshot: "\(sql: Self.currentPlan(of: "p"))::text"))
             FROM plan_state p WHERE p.user_id BETWEEN \(range.lowerBound) AND \(range.upperBound)
             """ as SQLQuery).binaryResults(), statePurpose),
        ]))
        if let fence { try fence.partitionGuard.check(results.next(fence.statement.purpose)) }
        var settingsRows = try RowsInIDOrder(results.next(settingsPurpose))
        var stateRows = try RowsInIDOrder(results.next(statePurpose))
        // The batch's ids ascend, so one pass over each table's rows pairs them.
        for userID in userIDs {
            users.append(try loadedUser(userID: userID, settings: settingsRows.row(for: userID), settingsRows.columns,
                                        state: stateRows.row(for: userID), stateRows.columns))
        }
        return users
    }

    /// The `user_settings` columns as `loadUsers` reads them (`s`): every one as text,
    /// whatever type the app gave it (the rules read the text, and the text of a binary
    /// result is the same bytes), arrays flattened, except `updated_at`, a `timestamptz`
    /// (exact microseconds); the optional columns only if the table has them.
    private func settingsColumns(_ presentation: (locale: Bool, unitSystem: Bool)) -> SQLQuery {
        """
        s.date_of_birth::text, s.gender::text, s.height_cm::text, s.current_weight_kg::text,
        s.target_weight_kg::text, s.primary_goal::text, s.target_date::text, s.activity_level::text,
        \(sql: oneDimensional("s.dietary_preferences")) AS dietary_preferences,
        \(sql: oneDimensional("s.allergies")) AS allergies, s.meals_per_day::text, s.timezone::text,
        s.onboarding_completed::text, s.updated_at::timestamptz,
        \(unescaped: presentation.locale ? "s.locale::text" : "NULL::text") AS locale,
        \(unescaped: presentation.unitSystem ? "s.unit_system::text" : "NULL::text") AS unit_system
        """
    }

    /// The `plan_state` columns as `loadUsers` reads them (`p`), with `snapshot`, the
    /// current plan's text; the job's own table, so its types are known.
    private static func stateColumns(snapshot: SQLQuery) -> SQLQuery {
        """
        \(sql: snapshot) AS snapshot, p.history_rows_on_plan_date, p.last_evaluated_date::text,
        p.seen_updated_at, p.judged_updated_at, p.judged_rules_version, p.scheduled_updated_at,
        p.next_check_at, p.rules_version
        """
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

    /// One user of `loadUsers`: `settings`, the row holding their settings columns (nil
    /// when they have none), `state` the row holding their state columns (nil before the
    /// job first saw them); the same row in the probe form.
    private func loadedUser(userID: Int64, settings s: PostgresRow?, _ sc: LoadedUserColumns,
                            state p: PostgresRow?, _ pc: LoadedUserColumns) throws -> LoadedUser {
        // Each part is made in a local and the user once, at the end: filling in a
        // `LoadedUser` variable copied its row and state (a retain of every string).
        let row: UserSettingsRow? = try s.map { r in
            UserSettingsRow(
                userID: userID,
                dateOfBirth: try r.optionalString(sc.dateOfBirth), gender: try r.optionalString(sc.gender),
                heightCm: try r.optionalString(sc.heightCm), currentWeightKg: try r.optionalString(sc.currentWeightKg),
                targetWeightKg: try r.optionalString(sc.targetWeightKg),
                primaryGoal: try r.optionalString(sc.primaryGoal),
                targetDate: try r.optionalString(sc.targetDate), activityLevel: try r.optionalString(sc.activityLevel),
                dietaryPreferences: try r.optionalStringArray(sc.dietaryPreferences),
                allergies: try r.optionalStringArray(sc.allergies),
                mealsPerDay: try r.optionalInt(sc.mealsPerDay),
                timezone: try r.optionalString(sc.timezone),
                onboardingCompleted: try r.optionalBool(sc.onboardingCompleted),
                updatedAt: try instant(r, sc.updatedAt),
                locale: try r.optionalString(sc.locale), unitSystem: try r.optionalString(sc.unitSystem))
        }
        guard let r = p else {
            return LoadedUser(userID: userID, row: row, state: nil, storedNextCheck: nil, storedRulesVersion: nil)
        }
        var state = UserPlanState()
        let currentPlanJSON = try r.optionalBytes(pc.snapshot)
        if let currentPlanJSON {
            state.currentPlan = try currentPlan(json: currentPlanJSON, userID: userID)
        }
        state.historyRowsOnCurrentPlanDate = try r.int(pc.historyRowsOnPlanDate)
        state.lastEvaluatedDate = try r.optionalString(pc.lastEvaluatedDate).flatMap { LocalDate(iso8601: $0) }
        state.seenUpdatedAt = try instant(r, pc.seenUpdatedAt)
        state.judgedUpdatedAt = try instant(r, pc.judgedUpdatedAt)
        state.judgedRulesVersion = try r.optionalString(pc.judgedRulesVersion)
        state.scheduledUpdatedAt = try instant(r, pc.scheduledUpdatedAt)
        return LoadedUser(userID: userID, row: row, state: state, storedNextCheck: try instant(r, pc.nextCheckAt),
                          storedRulesVersion: try r.optionalString(pc.rulesVersion), currentPlanJSON: currentPlanJSON)
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
        try row.optionalMicrosecondsSinceEpoch(column).map(Instant.init(microsecondsSinceEpoch:))
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
}

/// The rows of one table's id range (`loadUsers`' dense form), found by user id in
/// ascending order: the rows come in scan order, nearly always already by id, and are
/// sorted only when they are not.
private struct RowsInIDOrder {
    let result: PostgresResult
    let columns: LoadedUserColumns
    private let ids: [Int64]
    private let order: [Int]
    private var next = 0

    init(_ result: PostgresResult) throws {
        self.result = result
        columns = LoadedUserColumns(result.columns)
        let ids = try result.map { [column = columns.userID] row in try row.int64(column) }
        var order = Array(ids.indices)
        if ids.indices.dropFirst().contains(where: { ids[$0 - 1] > ids[$0] }) {
            order.sort { ids[$0] < ids[$1] }
        }
        (self.ids, self.order) = (ids, order)
    }

    /// The row of `userID`, nil when the range has none; ids must be asked for in
    /// ascending order (the rows of ids skipped meanwhile are passed over).
    mutating func row(for userID: Int64) -> PostgresRow? {
        while next < order.count, ids[order[next]] < userID { next += 1 }
        guard next < order.count, ids[order[next]] == userID else { return nil }
        defer { next += 1 }
        return result[order[next]]
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
