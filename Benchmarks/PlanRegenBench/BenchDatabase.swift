import DemoData
import Foundation
import PlanRules
import PlanStore
import Postgres

/// One throwaway database of the benchmark, on the server the PG* environment names
/// (`Benchmarks/run.sh` starts one). Needs a superuser: it creates databases and has the
/// server write and read COPY files for the floor.
struct BenchDatabase {
    let name: String
    let connection: PostgresConnection

    /// The conninfo a `plan-regen` process gets: the PG* environment supplies the rest.
    var conninfo: String { "dbname=\(name)" }

    /// Drops and creates database `name`, applies every migration and inserts `users`
    /// demo users of every UTC offset, last written 1–30 days before `writtenBefore`.
    static func create(_ name: String, users: Int, writtenBefore: Instant) throws -> BenchDatabase {
        let admin = try PostgresConnection.connectFromEnvironment()
        // `name` is made by this program from a number, never from input; identifiers
        // cannot be parameters.
        try admin.execute("DROP DATABASE IF EXISTS \(identifier: name)", purpose: "dropping benchmark database \(name)")
        try admin.execute("CREATE DATABASE \(identifier: name)", purpose: "creating benchmark database \(name)")
        let connection = try PostgresConnection(conninfo: "dbname=\(name)")
        _ = try Migrator(connection: connection).apply(Migration.reference + Migration.planRegen)
        try DemoUsers.insert(count: users, writtenBefore: writtenBefore, zones: DemoUsers.zonesOfEveryOffset,
                             into: connection)
        try connection.executeScript("VACUUM ANALYZE user_settings", purpose: "analyzing user_settings")
        return BenchDatabase(name: name, connection: connection)
    }

    /// Empties the job's tables, as before the job first ran.
    func resetJobTables() throws {
        try connection.executeScript(
            """
            TRUNCATE plan_history, plan_state, notification_outbox, notification_batches, plan_rejections,
                     plan_watermarks, plan_runs RESTART IDENTITY CASCADE;
            """, purpose: "emptying the job's tables")
        try settle()
    }

    /// Writes dirty pages out and updates statistics, so that one measurement does not
    /// pay for the previous one's checkpoint.
    func settle() throws {
        // Separate statements: VACUUM cannot run inside the implicit transaction of a script.
        try connection.executeScript("VACUUM ANALYZE", purpose: "vacuuming the database")
        try connection.executeScript("CHECKPOINT", purpose: "checkpointing the database")
    }

    /// Makes every plan look as if an older rules version wrote it: the next scheduled
    /// run regenerates every user with reason rules_changed and a filled `previous`.
    func pretendOlderRulesVersion() throws {
        try DemoUsers.makeCurrentPlansLookOlder(in: connection)
        try settle()
    }

    /// Forgets every recorded rules rollout start, as before a new version's first run.
    func forgetRollouts() throws {
        try connection.execute("DELETE FROM plan_rules_rollouts", purpose: "forgetting the rollout starts")
    }

    /// Gives `plan_history` the `months` monthly partitions before its first one, as a
    /// database in service has them, each with the latest plans of users 1…`usersPerMonth`
    /// dated in the middle of that month; then analyzes it. The job plans its current-plan
    /// lookup against every partition (docs/architecture.md, "Claims, poolers, standbys and failover":
    /// with 35 of them PostgreSQL JIT-compiled every batch's read).
    func addOlderHistory(months: Int, usersPerMonth: Int) throws {
        // Both numbers are this program's, never input: a DO block takes no parameters.
        try connection.executeScript(
            """
            DO $$
            DECLARE
                first date := (SELECT date_trunc('month', min(plan_date))::date FROM plan_history);
                month date;
            BEGIN
                FOR i IN 1..\(months) LOOP
                    month := (first - make_interval(months => i))::date;
                    EXECUTE format('CREATE TABLE %I PARTITION OF plan_history FOR VALUES FROM (%L) TO (%L)',
                                   'plan_history_' || to_char(month, 'YYYY_MM'), month, (month + interval '1 month')::date);
                    INSERT INTO plan_history (user_id, plan_date, seq, generated_at, run_id, reasons, snapshot,
                                              previous, diff, rules_version)
                    SELECT DISTINCT ON (user_id) user_id, month + 14, 0, generated_at, run_id, reasons, snapshot,
                           previous, diff, rules_version
                    FROM plan_history WHERE plan_date >= first AND user_id <= \(usersPerMonth)
                    ORDER BY user_id, plan_date DESC, seq DESC;
                END LOOP;
            END $$;
            """, purpose: "adding \(months) older months of history")
        try settle()
    }

    /// Drops the partitions `addOlderHistory` made: those before the month of the oldest
    /// `plan_state` plan, whose rows no state points at.
    func dropOlderHistory() throws {
        try connection.executeScript(
            """
            DO $$
            DECLARE partition text;
            BEGIN
                FOR partition IN
                    SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                    WHERE i.inhparent = 'plan_history'::regclass
                      AND c.relname < 'plan_history_' || (SELECT to_char(min(plan_date), 'YYYY_MM') FROM plan_state)
                LOOP
                    EXECUTE format('DROP TABLE %I', partition);
                END LOOP;
            END $$;
            """, purpose: "dropping the older months of history")
        try settle()
    }

    /// The app changes the weight of every 33rd user (≈3%) during the day before `night`:
    /// at instants spread over the 23 hours from 24 h to 1 h before it, as users do (and
    /// as the runs every 15 minutes see them). The look-back after a run's watermark then
    /// re-reads an hour's changes, not the whole day's.
    func changeWeights(before night: Instant) throws -> Int {
        let changed = try connection.execute(
            """
            UPDATE user_settings SET current_weight_kg = current_weight_kg + 2.5,
                   updated_at = \(night.adding(seconds: -24 * 3600))::timestamptz
                                + make_interval(secs => (user_id * 7919) % (23 * 3600))
            WHERE user_id % 33 = 0
            """, purpose: "changing 3% of the users' weights")
        try settle()
        return changed
    }

    /// The server's socket folder and port, from the PG* environment `run.sh` sets.
    var socketDirectory: String { ProcessInfo.processInfo.environment["PGHOST"] ?? "/var/run/postgresql" }
    var port: Int { ProcessInfo.processInfo.environment["PGPORT"].flatMap(Int.init) ?? 5432 }

    /// Drops the database (the next size needs the disk: ten million users take tens of GB).
    func drop() throws {
        let admin = try PostgresConnection.connectFromEnvironment()
        try admin.execute("DROP DATABASE IF EXISTS \(identifier: name) WITH (FORCE)", purpose: "dropping benchmark database \(name)")
    }

    /// Bytes of each table of the job and of `user_settings`, indexes and partitions included.
    func tableSizes() throws -> TableSizes {
        let rows = try connection.query(
            """
            SELECT t::text AS name, coalesce((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree(t) WHERE isleaf),
                               pg_total_relation_size(t))::bigint AS total,
                      coalesce((SELECT sum(pg_indexes_size(relid)) FROM pg_partition_tree(t) WHERE isleaf),
                               pg_indexes_size(t))::bigint AS indexes
            FROM unnest(ARRAY['user_settings', 'plan_history', 'plan_state', 'notification_outbox',
                              'notification_batches', 'plan_rejections']::regclass[]) AS t
            """, purpose: "measuring the tables")
        return TableSizes(tables: try rows.map { (try $0.string("name"), try $0.int("total"), try $0.int("indexes")) })
    }

    /// The one value of `sql`, a query of one integer column named `n`.
    func count(_ sql: SQLQuery) throws -> Int {
        try connection.query(sql, purpose: "counting").singleRow().int("n")
    }
}

/// What the database takes on disk, per table (indexes included, and apart).
struct TableSizes {
    var tables: [(name: String, totalBytes: Int, indexBytes: Int)]

    func description(perMillion users: Int) -> String {
        let total = tables.reduce(0) { $0 + $1.totalBytes }
        let perMillion = { (bytes: Int) in mebibytes(Int(Double(bytes) * 1_000_000 / Double(users))) }
        return "\(mebibytes(total)) in all, \(perMillion(total)) per million users ("
            + tables.map { "\($0.name) \(perMillion($0.totalBytes)), of which indexes \(perMillion($0.indexBytes))" }
                .joined(separator: "; ") + ")"
    }
}
