import Foundation
import LineOutput
import Logging
import NightlyRun
import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing
import ZoneFiles

/// Drives the nightly run in-process against a fresh database: the app's writes to
/// `user_settings` (parameterized SQL), runs at chosen instants (`RunOptions.asOf`), and
/// what the run left behind in every table and in the notifications file.
///
/// Every non-dry run is checked on the spot: its summary must match the rows it wrote
/// and its `plan_runs` row (plan-rules.md section 2, issue 4: "the run summary's counts
/// match the tables").
final class RunDriver {
    let database: TestDatabase
    let connection: PostgresConnection
    let zones: ZoneDatabase
    /// The JSON-lines file every run appends its notifications to.
    let notificationsPath: String
    /// Where `--dry-run` writes its report lines.
    let reportPath: String
    /// A temp directory of this test, removed afterwards.
    let directory: String

    private init(database: TestDatabase, directory: String) throws {
        self.database = database
        self.directory = directory
        connection = try database.connect()
        zones = try ZoneDatabase.loadSystem()
        notificationsPath = directory + "/notifications.jsonl"
        reportPath = directory + "/dry-run.jsonl"
        try Migrator(connection: connection).apply(Migration.reference + Migration.planRegen)
        // Counting queries below read timestamps as UTC.
        try connection.execute("SET TimeZone = 'UTC'", purpose: "setting the test session's zone")
    }

    /// A migrated fresh database and an empty temp directory for `body`.
    static func withFresh<Result>(_ body: (RunDriver) throws -> Result) throws -> Result {
        try TestDatabase.withFresh { database in
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("nightly-run-\(database.name)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let driver = try RunDriver(database: database, directory: directory)
            let result = try body(driver)
            try driver.expectPublishedSchemas()
            return result
        }
    }

    /// Every notification line the test's runs emitted and every snapshot and diff they
    /// stored validate against the published schemas (docs/schemas, python3-jsonschema).
    func expectPublishedSchemas() throws {
        let lines = try NotificationLine.lines(of: notificationsPath)
        let documents = try PublishedSchema.planHistoryDocuments(connection)
        for (schema, batch) in [(PublishedSchema.notificationLine, lines), (.snapshot, documents.snapshots),
                                (.diff, documents.diffs)] where !batch.isEmpty {
            guard let check = try schema.validate(batch, what: "\(schema.rawValue) documents of a test's runs") else {
                return
            }
            #expect(check.isValid, "\(check)")
        }
    }

    // MARK: The app's writes

    func insert(_ user: TestUser) throws {
        try connection.execute(
            """
            INSERT INTO user_settings (user_id, date_of_birth, gender, height_cm, current_weight_kg,
                target_weight_kg, primary_goal, activity_level, meals_per_day, timezone,
                onboarding_completed, updated_at)
            VALUES (\(user.userID), \(bind: user.dateOfBirth)::date, \(bind: user.gender), \(bind: user.heightCm)::numeric,
                    \(bind: user.currentWeightKg)::numeric, \(bind: user.targetWeightKg)::numeric, \(bind: user.primaryGoal),
                    \(bind: user.activityLevel), \(user.mealsPerDay), \(bind: user.timezone), \(user.onboardingCompleted),
                    \(user.updatedAt))
            """,
            purpose: "inserting test user \(user.userID)")
    }

    /// The app changes the reported weight of `userID` at `at`.
    func setWeight(of userID: Int64, to kilograms: String, at: Instant) throws {
        try update(userID, column: "current_weight_kg", to: kilograms, cast: "numeric", at: at)
    }

    /// The app writes `value` into `column` (a literal column name) of `userID`'s row at `at`.
    func update(_ userID: Int64, column: String, to value: String?, cast: String = "text", at: Instant) throws {
        let updated = try connection.execute(
            """
            UPDATE user_settings SET \(identifier: column) = \(bind: value)::\(unescaped: cast), updated_at = \(at)
            WHERE user_id = \(userID)
            """, purpose: "updating \(column) of test user \(userID)")
        #expect(updated == 1, "user \(userID) has no row to update")
    }

    // MARK: Runs

    /// Runs the job as `plan-regen run --as-of asOf` would, appending notifications to
    /// `notificationsPath` (or `notifications`), and checks its summary against the tables
    /// (unless `checked` is false: runs at once on several threads share no connection).
    @discardableResult
    func run(at asOf: Instant, users: [Int64] = [], dryRun: Bool = false,
             notifications: NotificationSink? = nil, batchSize: Int = 2000, workers: Int = 1,
             shard: Shard? = nil, overlapLimit: Duration = .seconds(3600),
             lateRowSweep: LateRowSweep = LateRowSweep(), rulesAtOnce: Bool = false,
             rulesRollback: Bool = false, checked: Bool = true) throws -> RunSummary {
        let conninfo = database.conninfo
        let runner = NightlyRunner(
            stores: .postgres(connect: { try PostgresConnection(conninfo: conninfo) }), zones: zones,
            logger: Logger(label: "nightly-run-tests") { _ in SwiftLogNoOpLogHandler() },
            notifications: try notifications ?? NotificationSink.appending(toFile: notificationsPath),
            report: try LineWriter.appending(toFile: reportPath))
        var options = RunOptions(asOf: asOf)
        (options.manualUsers, options.dryRun, options.batchSize, options.workers) = (users, dryRun, batchSize, workers)
        options.selectionShares = workers  // whatever this machine's cores
        (options.shard, options.lateRowSweep, options.overlapLimit) = (shard, lateRowSweep, overlapLimit)
        (options.rulesAtOnce, options.rulesRollback) = (rulesAtOnce, rulesRollback)
        let summary = try runner.run(options)
        if checked, let runID = summary.runID { try expectSummaryMatchesTables(summary, runID: runID) }
        return summary
    }

    /// The counts a run reports are the rows it wrote, and what `plan_runs` recorded.
    private func expectSummaryMatchesTables(_ summary: RunSummary, runID: Int64) throws {
        let row = try connection.query(
            """
            SELECT status, due, created, changed, unchanged, skipped_incomplete, rejected, notifications,
                   unknown_users, found_late,
                   (SELECT count(*) FROM plan_history WHERE run_id = \(runID) AND previous IS NULL),
                   (SELECT count(*) FROM plan_history WHERE run_id = \(runID) AND previous IS NOT NULL),
                   (SELECT count(*) FROM notification_outbox WHERE run_id = \(runID)),
                   (SELECT count(DISTINCT user_id) FROM plan_rejections WHERE run_id = \(runID))
            FROM plan_runs WHERE run_id = \(runID)
            """, purpose: "reading run \(runID) and the rows it wrote").singleRow()
        let c = summary.counts
        #expect(try row.string(0) == summary.status.rawValue)
        let recorded = try (1...9).map { try row.int($0) }
        #expect(recorded == [c.due, c.created, c.changed, c.unchanged, c.skippedIncomplete, c.rejected,
                             c.notifications, c.unknownUsers, c.foundLate], "plan_runs row of run \(runID)")
        #expect(try row.int(10) == c.created, "first plans written by run \(runID)")
        #expect(try row.int(11) == c.changed, "changed plans written by run \(runID)")
        #expect(try row.int(12) == c.notifications, "outbox rows of run \(runID)")
        #expect(try row.int(13) == c.rejected, "users with rejections in run \(runID)")
    }

    // MARK: What the runs left behind

    /// Rows of the tables the job writes, by table name (`plan_runs` included).
    func tableCounts() throws -> [String: Int] {
        let row = try connection.query(
            """
            SELECT (SELECT count(*) FROM plan_history), (SELECT count(*) FROM plan_state),
                   (SELECT count(*) FROM notification_outbox), (SELECT count(*) FROM plan_rejections),
                   (SELECT count(*) FROM plan_runs), (SELECT count(*) FROM plan_watermarks)
            """, purpose: "counting the job's rows").singleRow()
        let names = ["plan_history", "plan_state", "notification_outbox", "plan_rejections", "plan_runs",
                     "plan_watermarks"]
        var counts: [String: Int] = [:]
        for (index, name) in names.enumerated() { counts[name] = try row.int(index) }
        return counts
    }

    /// Every history row of `userID` (or of everyone), oldest first.
    func history(of userID: Int64? = nil) throws -> [HistoryRow] {
        try connection.query(
            """
            SELECT user_id, plan_date::text, seq, array_to_string(reasons, ','), run_id,
                   (extract(epoch FROM generated_at) * 1000000)::int8,
                   snapshot->'phase'->>'phase', (snapshot->'inputs'->>'age')::int,
                   (snapshot->'targets'->>'bmr')::int, (snapshot->'targets'->>'calories')::int,
                   (snapshot->'targets')::text, snapshot->'inputs'->>'weight_kg_reported',
                   snapshot->'inputs'->>'weight_kg_basis', previous IS NULL,
                   coalesce((SELECT string_agg(e->>'path', ',' ORDER BY e->>'path')
                             FROM jsonb_array_elements(diff) e), '')
            FROM plan_history WHERE \(userID)::bigint IS NULL OR user_id = \(userID)
            ORDER BY user_id, plan_date, seq
            """, purpose: "reading plan_history"
        ).map { r in
            HistoryRow(
                userID: try r.int64(0), planDate: try #require(LocalDate(iso8601: try r.string(1))),
                seq: try r.int(2), reasons: try r.string(3).split(separator: ",").map(String.init),
                runID: try r.int64(4), generatedAt: Instant(microsecondsSinceEpoch: try r.int64(5)),
                phase: try r.string(6), age: try r.int(7), bmr: try r.int(8), calories: try r.int(9),
                targetsJSON: try r.string(10), weightReported: try r.string(11), weightBasis: try r.string(12),
                isFirstPlan: try r.bool(13),
                diffPaths: try r.string(14).split(separator: ",").map(String.init))
        }
    }

    /// What the job remembers about `userID`; nil when it has no `plan_state` row.
    func state(of userID: Int64) throws -> StateRow? {
        let result = try connection.query(
            """
            SELECT last_evaluated_date::text, (extract(epoch FROM next_check_at) * 1000000)::int8,
                   updated_by_run, history_rows_on_plan_date
            FROM plan_state WHERE user_id = \(userID)
            """, purpose: "reading plan_state of \(userID)")
        guard let r = result.first else { return nil }
        return StateRow(
            lastEvaluatedDate: try r.optionalString(0).flatMap { LocalDate(iso8601: $0) },
            nextCheckAt: try r.optionalInt64(1).map(Instant.init(microsecondsSinceEpoch:)),
            updatedByRun: try r.optionalInt64(2), historyRowsOnPlanDate: try r.int(3))
    }

    /// `plan_rejections` rows of `userID`, in the order written: (run, field, message).
    func rejections(of userID: Int64) throws -> [(runID: Int64, field: String, message: String)] {
        try connection.query(
            "SELECT run_id, field, message FROM plan_rejections WHERE user_id = \(userID) ORDER BY id",
            purpose: "reading plan_rejections"
        ).map { (try $0.int64(0), try $0.string(1), try $0.string(2)) }
    }

    /// Outbox rows: id, payload and whether they were emitted.
    func outbox() throws -> [(id: String, payload: String, emitted: Bool)] {
        try connection.query(
            "SELECT notification_id, payload, emitted_at IS NOT NULL FROM notification_outbox_lines ORDER BY notification_id",
            purpose: "reading the outbox"
        ).map { (try $0.string(0), try $0.string(1), try $0.bool(2)) }
    }

    /// The lines of the notifications file, each parsed as a notification.
    func emittedNotifications() throws -> [NotificationLine] {
        try NotificationLine.parseLines(of: notificationsPath)
    }

    /// The lines `--dry-run` printed.
    func dryRunReport() throws -> [String] {
        try NotificationLine.lines(of: reportPath)
    }
}

/// One `plan_history` row, with the snapshot fields the tests look at.
struct HistoryRow {
    var userID: Int64
    var planDate: LocalDate
    var seq: Int
    var reasons: [String]
    var runID: Int64
    var generatedAt: Instant
    var phase: String
    var age: Int
    var bmr: Int
    var calories: Int
    /// `snapshot.targets` as jsonb text (key order normalized by PostgreSQL).
    var targetsJSON: String
    var weightReported: String
    var weightBasis: String
    var isFirstPlan: Bool
    var diffPaths: [String]
}

/// One `plan_state` row, the parts the tests look at.
struct StateRow: Equatable {
    var lastEvaluatedDate: LocalDate?
    var nextCheckAt: Instant?
    var updatedByRun: Int64?
    var historyRowsOnPlanDate: Int
}

extension RunStores {
    /// A run's stores on connections made by `connect`, as `plan-regen run` makes them.
    static func postgres(connect: @escaping @Sendable () throws -> PostgresConnection) -> RunStores {
        RunStores(main: { try PlanStore.open(connect(), for: $0) }, worker: { PlanStore(connection: try connect()) },
                  delivery: { PlanStore(connection: try connect()) })
    }
}
