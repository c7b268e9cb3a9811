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

            // 0004-0007 are contract migrations: `migrate --contract`, the old binary gone.
            try migrator.apply(Self.from0004, contract: .apply(unlessOlderBinariesRanWithin: .zero))
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

    /// sql/0010: a row with a previous plan (about 2.3 kB) is compressed with lz4, which keeps
    /// it in the partition's own pages; with pglz it was compressed poorly and moved to the
    /// TOAST table. It holds for a partition made before the migration and for one made after.
    @Test func historyRowsWithAPreviousPlanAreCompressedWithLZ4AndStayInline() throws {
        try TestDatabase.withFresh { database in
            let connection = try database.connect()
            let migrator = Migrator(connection: connection)
            let before0010 = Migration.planRegen.filter { $0.name < "0010" }
            try migrator.apply(Migration.reference + before0010)
            try PlanStore(connection: connection).ensureHistoryPartitions(for: [LocalDate(year: 2026, month: 3, day: 2)])
            try migrator.apply(Migration.planRegen.filter { $0.name >= "0010" })
            try PlanStore(connection: connection).ensureHistoryPartitions(for: [LocalDate(year: 2026, month: 4, day: 2)])

            // The first example of the rule book, written as the job writes a rules-change row.
            let snapshot = #"""
                {"rules_version": "2026.1", "plan_date": "2026-03-02", "reasons": ["created"], "inputs": {"date_of_birth": "1993-06-15", "age": 32, "gender": "male", "height_cm": 178.0, "weight_kg_reported": 82.0, "weight_kg_basis": 82.0, "primary_goal": "lose_weight", "activity_level": "moderately_active", "target_weight_kg": 75.0, "target_date": "2026-09-01", "dietary_preferences": [], "allergies": [], "meals_per_day": 3, "timezone": "Europe/Berlin", "settings_updated_at": "2026-03-01T09:00:00.000000Z"}, "targets": {"bmr": 1778, "tdee": 2755, "calories": 2255, "protein_g": 164, "fat_g": 82, "carbs_g": 215, "water_ml": 2870}, "phase": {"phase": "deficit", "cycle_start_date": "2026-03-02", "phase_day": 0, "next_phase_switch_date": "2026-03-16"}, "projection": {"weekly_rate_kg": 0.227, "estimated_weeks": 31, "projected_date": "2026-10-05", "recommended_target_date": null}, "flags": []}
                """#
            try connection.execute(
                """
                INSERT INTO plan_history (user_id, plan_date, seq, generated_at, run_id, reasons, snapshot, previous, diff,
                                          rules_version)
                SELECT 7, day, 0, now(), 2, '{rules_changed}', \(bind: snapshot)::jsonb,
                       jsonb_set(\(bind: snapshot)::jsonb, '{rules_version}', '"2025.9"'),
                       '[{"path": "rules_version", "before": "2025.9", "after": "2026.1"}]', '2026.1'
                FROM unnest(ARRAY['2026-03-02', '2026-04-02']::date[]) AS day
                """, purpose: "test: two rows with a previous plan")
            let rows = try connection.query(
                """
                SELECT tableoid::regclass::text AS part, pg_column_compression(snapshot) AS snapshot,
                       pg_column_compression(previous) AS previous, pg_column_size(h.*) AS bytes,
                       (SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = h.tableoid) AS toast_bytes
                FROM plan_history h ORDER BY plan_date
                """, purpose: "test: how the rows are stored")
            #expect(rows.count == 2)
            for row in rows {
                let part = try row.string("part"), bytes = try row.int("bytes")
                #expect(try row.optionalString("previous") == "lz4", "\(part)")
                #expect(try [nil, "lz4"].contains(row.optionalString("snapshot")), "\(part)")
                #expect(bytes < 2032, "\(part): \(bytes) bytes")
                #expect(try row.int("toast_bytes") == 0, "\(part)")
            }
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
