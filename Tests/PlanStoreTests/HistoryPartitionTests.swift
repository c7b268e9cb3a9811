import Dispatch
import PlanRules
import PlanStore
import Postgres
import TestSupport
import Testing

/// plan_history is partitioned by month (sql/0006, issue 5); 0004–0006 carry an existing
/// database's rows over.
@Suite struct HistoryPartitionTests {
    /// Migrations up to 0003, as a database deployed before issue 5 has them.
    static let before0004 = Array(Migration.planRegen.prefix { $0.name < "0004" })
    static let from0004 = Array(Migration.planRegen.drop { $0.name < "0004" })

    @Test func upgradingKeepsHistoryIdsStatePlansAndPendingLines() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            let migrator = Migrator(connection: connection)
            try migrator.apply(Migration.reference + Self.before0004)
            #expect(Self.from0004.map(\.name).first == "0004_notification_batches")
            // Two runs' plans in February and March; one line emitted, one pending.
            try connection.executeScript(
                """
                INSERT INTO plan_runs (as_of, binary_version, rules_version, tzdata_version)
                VALUES ('2026-02-27T12:00:00Z', 'old', '2026.1', 'x'), ('2026-03-02T12:00:00Z', 'old', '2026.1', 'x');
                INSERT INTO plan_history (user_id, plan_date, seq, generated_at, run_id, reasons, snapshot, diff, rules_version)
                VALUES (7, '2026-02-27', 0, now(), 1, '{created}', '{"plan_date":"2026-02-27"}', '[]', '2026.1'),
                       (7, '2026-03-02', 0, now(), 2, '{settings_changed}', '{"plan_date":"2026-03-02"}', '[]', '2026.1'),
                       (8, '2026-03-02', 0, now(), 2, '{created}', '{"plan_date":"2026-03-02"}', '[]', '2026.1');
                INSERT INTO plan_state (user_id, snapshot, plan_date, rules_version, history_rows_on_plan_date)
                VALUES (7, '{}', '2026-03-02', '2026.1', 1), (8, '{}', '2026-03-02', '2026.1', 1);
                INSERT INTO notification_outbox (notification_id, user_id, run_id, created_at, payload, emitted_at)
                VALUES ('7:2026-02-27:plan_created:0', 7, 1, now(), '{"a":1}', now()),
                       ('8:2026-03-02:plan_created:0', 8, 2, now(), '{"b":2}', NULL);
                """, purpose: "test: a database written before 0004")

            try migrator.apply(Self.from0004)
            try migrator.checkUpToDate()
            let partitions = try connection.query(
                """
                SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                WHERE i.inhparent = 'plan_history'::regclass ORDER BY 1
                """, purpose: "listing partitions").map { try $0.string(0) }
            #expect(partitions == ["plan_history_2026_02", "plan_history_2026_03"])
            let rows = try connection.query(
                "SELECT id || ':' || user_id || ':' || plan_date FROM plan_history ORDER BY id",
                purpose: "reading history").map { try $0.string(0) }
            #expect(rows == ["1:7:2026-02-27", "2:7:2026-03-02", "3:8:2026-03-02"])
            // New rows continue the ids; the current plans are the rows plan_state points at.
            let next = try connection.query(
                """
                INSERT INTO plan_history (user_id, plan_date, seq, generated_at, run_id, reasons, snapshot, diff, rules_version)
                VALUES (9, '2026-03-03', 0, now(), 2, '{created}', '{}', '[]', '2026.1') RETURNING id
                """, purpose: "inserting after the upgrade").singleRow().int(0)
            #expect(next == 4)
            #expect(try connection.query("SELECT count(*) FROM plan_current", purpose: "current plans")
                .singleRow().int(0) == 2)
            let lines = try connection.query(
                "SELECT notification_id, emitted_at IS NULL FROM notification_outbox_lines ORDER BY 1",
                purpose: "reading the outbox").map { "\(try $0.string(0)) \(try $0.bool(1) ? "pending" : "emitted")" }
            #expect(lines == ["7:2026-02-27:plan_created:0 emitted", "8:2026-03-02:plan_created:0 pending"])
            let pending = try PlanStore(connection: connection).pendingNotifications(
                partitions: Array(0..<UserPartitions.count), limit: 10)
            #expect(pending.map(\.payload) == [#"{"b":2}"#])
        }
    }

    /// The job's role has no DDL rights, yet a run creates the partition of a new month.
    @Test func theJobsRoleCreatesANewMonthsPartitionOnce() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            try Migrator(connection: connection).apply(Migration.reference + Migration.planRegen)
            try connection.execute("SET ROLE plan_regen_job", purpose: "test: become the job")
            #expect(throws: PostgresError.self) {
                try connection.execute("CREATE TABLE plan_history_2031_07 (x int)", purpose: "test: DDL as the job")
            }
            let store = PlanStore(connection: connection)
            let days = [LocalDate(year: 2031, month: 7, day: 31), LocalDate(year: 2031, month: 7, day: 1),
                        LocalDate(year: 2031, month: 8, day: 1)]
            try store.ensureHistoryPartitions(for: days)
            try store.ensureHistoryPartitions(for: days)  // known now: no second call needed
            let owned = try connection.query(
                """
                SELECT c.relname || ' ' || pg_get_userbyid(c.relowner) FROM pg_inherits i
                JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'plan_history'::regclass ORDER BY 1
                """, purpose: "listing partitions").map { try $0.string(0) }
            #expect(owned == ["plan_history_2031_07 postgres", "plan_history_2031_08 postgres"])
            // A second session (another worker) asks again: nothing new, no error.
            let other = try PlanStore(connection: database.connect())
            try other.ensureHistoryPartitions(for: [LocalDate(year: 2031, month: 7, day: 15)])
            try connection.execute(
                """
                INSERT INTO plan_history (user_id, plan_date, seq, generated_at, run_id, reasons, snapshot, diff, rules_version)
                VALUES (1, '2031-07-31', 0, now(), 1, '{created}', '{}', '[]', '2026.1')
                """, purpose: "test: a row in the new month as the job")
        }
    }

    /// Workers and overlapping runs may ask for the same new month at the same moment:
    /// every call succeeds and the month has one partition.
    @Test func sessionsAskingForTheSameNewMonthAtOnceAllSucceed() throws {
        try TestDatabase.withFresh { database in
            try Migrator(connection: database.connect()).apply(Migration.reference + Migration.planRegen)
            let conninfo = database.conninfo
            let failures = ConcurrentResults()
            for month in 1...6 {
                DispatchQueue.concurrentPerform(iterations: 4) { _ in
                    do {
                        let store = try PlanStore(connection: PostgresConnection(conninfo: conninfo))
                        try store.ensureHistoryPartitions(for: [LocalDate(year: 2032, month: month, day: 10)])
                    } catch {
                        failures.append(.failure(error))
                    }
                }
            }
            #expect(failures.values.isEmpty, "\(failures.values)")
            let partitions = try database.connect().query(
                """
                SELECT count(*) FROM pg_inherits WHERE inhparent = 'plan_history'::regclass
                """, purpose: "counting partitions").singleRow().int(0)
            #expect(partitions == 6)
        }
    }
}
