import Postgres

/// Applies pending migrations and checks that the database matches this binary.
///
/// `apply` is safe to run twice and from several processes at once: it holds a
/// session advisory lock while it reads what is applied and applies the rest, and each
/// migration commits together with its record in `plan_regen_migrations`.
public struct Migrator {
    /// Advisory lock key (first half: "plan-regen" namespace, second: migrations).
    static let lockKey: (Int32, Int32) = (0x706C_616E, 1)

    public let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Applies every pending migration of `migrations` in order; returns the names applied.
    @discardableResult
    public func apply(_ migrations: [Migration]) throws -> [String] {
        try connection.execute(
            "SELECT pg_advisory_lock($1, $2)", [Self.lockKey.0, Self.lockKey.1],
            purpose: "waiting for the migration lock")
        defer {
            _ = try? connection.execute(
                "SELECT pg_advisory_unlock($1, $2)", [Self.lockKey.0, Self.lockKey.1],
                purpose: "releasing the migration lock")
        }
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS plan_regen_migrations (
                name        text PRIMARY KEY,
                checksum    text NOT NULL,
                applied_at  timestamptz NOT NULL DEFAULT clock_timestamp()
            )
            """, purpose: "creating the migrations table")
        let applied = try appliedChecksums()
        var newlyApplied: [String] = []
        for migration in migrations {
            if let checksum = applied[migration.name] {
                guard checksum == migration.checksum else {
                    throw StoreError.migrationEdited(name: migration.name)
                }
                continue
            }
            try connection.withTransaction { conn in
                try conn.executeScript(migration.sql, purpose: "applying migration \(migration.name)")
                try conn.execute(
                    "INSERT INTO plan_regen_migrations (name, checksum) VALUES ($1, $2)",
                    [migration.name, migration.checksum],
                    purpose: "recording migration \(migration.name)")
            }
            newlyApplied.append(migration.name)
        }
        return newlyApplied
    }

    /// Throws unless the job's migrations applied in the database are exactly `expected`
    /// (schema drift: a database behind or ahead of this binary must not be written to).
    public func checkUpToDate(_ expected: [Migration] = Migration.planRegen) throws {
        let applied = try appliedChecksums().keys.filter { !$0.hasPrefix("reference/") }
        let known = Set(expected.map(\.name))
        let missing = expected.map(\.name).filter { !applied.contains($0) }
        let unknown = applied.filter { !known.contains($0) }.sorted()
        if !unknown.isEmpty {
            throw StoreError.schemaAhead(unknownMigrations: unknown)
        }
        if !missing.isEmpty {
            throw StoreError.schemaBehind(pendingMigrations: missing)
        }
    }

    private func appliedChecksums() throws -> [String: String] {
        let exists = try connection.query(
            "SELECT to_regclass('plan_regen_migrations') IS NOT NULL",
            purpose: "looking for the migrations table")
        guard try exists.singleRow().bool(0) else { return [:] }
        let result = try connection.query(
            "SELECT name, checksum FROM plan_regen_migrations", purpose: "reading applied migrations")
        var applied: [String: String] = [:]
        for row in result {
            applied[try row.string(0)] = try row.string(1)
        }
        return applied
    }
}
