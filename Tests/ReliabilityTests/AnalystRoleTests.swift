import Foundation
import PlanRules
import Postgres
import TestSupport
import Testing

/// The read-only role of sql/0012 (docs/analysts.md): a member of `plan_regen_analyst`
/// reads every view of the job's schema and nothing else — no table, no write, no
/// function that writes — and every view, view column and table a view reads carries a
/// comment for BI tools. Generic over the schema: a view added later must be granted and
/// commented too.
@Suite struct AnalystRoleTests {
    static let denied: PostgresError.SQLState = "42501"  // insufficient_privilege
    /// A view that is not automatically updatable refuses a write before privileges are checked.
    static let notUpdatable: PostgresError.SQLState = "55000"

    @Test func theAnalystRoleReadsEveryViewAndNothingElse() throws {
        try JobDatabase.withFresh { database in
            try database.seed(users: 40, writtenBefore: Instant(rfc3339: "2026-03-01T00:00:00Z")!)
            #expect(try database.run(["--as-of", "2026-03-01T12:00:00Z"]).status == 0)
            let owner = try database.owner()
            let role = "analyst_" + database.database.name.dropFirst(2)
            let admin = try TestDatabase.adminConnection()
            try admin.execute("CREATE ROLE \(identifier: role) LOGIN IN ROLE plan_regen_analyst", purpose: "test")
            defer { _ = try? TestDatabase.adminConnection().execute("DROP ROLE IF EXISTS \(identifier: role)", purpose: "test") }
            let analyst = try PostgresConnection(conninfo: "\(database.database.conninfo) user=\(role)")
            defer {
                _ = try? owner.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = \(bind: role)",
                                     purpose: "test")
            }

            let views = try owner.query(
                "SELECT viewname FROM pg_views WHERE schemaname = current_schema() ORDER BY 1", purpose: "test")
                .map { try $0.string("viewname") }
            #expect(Set(views).isSuperset(of: ["plan_history_flat", "plan_history_changes", "plan_current",
                                               "notification_outbox_lines"]))
            for view in views {
                let rows = try analyst.query("SELECT count(*) AS n FROM \(identifier: view)", purpose: "reading \(view)")
                    .singleRow().int("n")
                if view == "plan_history_flat" || view == "plan_current" { #expect(rows > 0, "\(view)") }
                try expectDenied("DELETE FROM \(identifier: view)", on: analyst, "deleting from \(view)",
                                 also: Self.notUpdatable)
                let writable = try owner.query("""
                    SELECT has_table_privilege(\(bind: role), \(bind: view), 'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
                        AS writable
                    """, purpose: "test").singleRow().bool("writable")
                #expect(!writable, "\(role) holds a write privilege on \(view)")
            }

            let tables = try owner.query("""
                SELECT relname FROM pg_class
                WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p') ORDER BY 1
                """, purpose: "test").map { try $0.string("relname") }
            #expect(tables.contains("plan_history") && tables.contains("user_settings"))
            for table in tables {
                try expectDenied("SELECT 1 FROM \(identifier: table) LIMIT 1", on: analyst, "reading \(table)")
            }
            try expectDenied("SELECT plan_history_partition_for('2031-01-01')", on: analyst, "making a partition")
            try expectDenied("CREATE TABLE analyst_scratch (x int)", on: analyst, "creating a table")

            let uncommented = try owner.query("""
                SELECT c.relname || coalesce('.' || a.attname, '') AS object
                FROM pg_class c LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'v'
                  AND (obj_description(c.oid, 'pg_class') IS NULL OR col_description(c.oid, a.attnum) IS NULL)
                UNION
                SELECT DISTINCT t.relname
                FROM pg_class v JOIN pg_rewrite r ON r.ev_class = v.oid
                JOIN pg_depend d ON d.objid = r.oid AND d.classid = 'pg_rewrite'::regclass
                JOIN pg_class t ON t.oid = d.refobjid AND t.relkind IN ('r', 'p') AND t.oid <> v.oid
                WHERE v.relnamespace = current_schema()::regnamespace AND v.relkind = 'v'
                  AND obj_description(t.oid, 'pg_class') IS NULL
                ORDER BY 1
                """, purpose: "test").map { try $0.string("object") }
            #expect(uncommented.isEmpty, "no comment on: \(uncommented)")
        }
    }

    private func expectDenied(_ statement: SQLQuery, on connection: PostgresConnection, _ what: String,
                              also other: PostgresError.SQLState? = nil) throws {
        do {
            _ = try connection.query(statement, purpose: what)
            Issue.record("\(what) was allowed")
        } catch let error as PostgresError {
            #expect(error.sqlState == Self.denied || (other != nil && error.sqlState == other), "\(what): \(error)")
        }
    }
}
