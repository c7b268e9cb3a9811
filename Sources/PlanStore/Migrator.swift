import Postgres

/// Applies pending migrations and checks that the database matches this binary.
///
/// `apply` is safe to run twice and from several processes at once, also through a
/// pooler in transaction mode: each migration is applied in a transaction that first takes
/// a transaction-scoped advisory lock, then reads what is applied, applies the next pending
/// migration and records it in `plan_regen_migrations`. A second `migrate` waits for the
/// lock and then finds the migration applied. The lock ends with its transaction — on
/// commit, on error, or when the client dies — so none is ever left behind on a pooled
/// server connection (a session lock was: issue 13).
public struct Migrator {
    /// Advisory lock key (first half: "plan-regen" namespace, second: migrations).
    static let lockKey: (Int32, Int32) = (0x706C_616E, 1)

    public let connection: PostgresConnection
    /// How long a `migrate` waits for another one to finish its migration.
    public var lockWait: Duration

    public init(connection: PostgresConnection, lockWait: Duration = .seconds(600)) {
        self.connection = connection
        self.lockWait = lockWait
    }

    /// Applies every pending migration of `migrations` in order; returns the names applied.
    @discardableResult
    public func apply(_ migrations: [Migration]) throws -> [String] {
        var newlyApplied: [String] = []
        while let name = try applyNext(of: migrations) {
            newlyApplied.append(name)
        }
        return newlyApplied
    }

    /// Applies the first pending migration of `migrations` in one transaction under the
    /// migration lock; returns its name, or nil when none is pending.
    private func applyNext(of migrations: [Migration]) throws -> String? {
        try connection.withTransaction { conn -> String? in
            var longWait = TransactionSettings()
            longWait.set("lock_timeout", lockWait)
            try conn.setLocal(longWait, purpose: "allowing a long wait for the migration lock")
            try conn.execute(
                "SELECT pg_advisory_xact_lock(\(Self.lockKey.0), \(Self.lockKey.1))",
                purpose: "waiting for the migration lock (another plan-regen migrate is running)")
            // The migration's own statements keep the connection's lock timeout.
            try conn.setLocal(conn.transactionSettings, purpose: "setting the migration's timeouts")
            try conn.execute(
                """
                CREATE TABLE IF NOT EXISTS plan_regen_migrations (
                    name        text PRIMARY KEY,
                    checksum    text NOT NULL,
                    applied_at  timestamptz NOT NULL DEFAULT clock_timestamp()
                )
                """, purpose: "creating the migrations table")
            let applied = try appliedChecksums()
            for migration in migrations {
                if let checksum = applied[migration.name] {
                    guard checksum == migration.checksum else {
                        throw StoreError.migrationEdited(name: migration.name)
                    }
                    continue
                }
                try conn.executeScript(migration.sql, purpose: "applying migration \(migration.name)")
                try conn.execute(
                    "INSERT INTO plan_regen_migrations (name, checksum) VALUES (\(bind: migration.name), \(bind: migration.checksum))",
                    purpose: "recording migration \(migration.name)")
                return migration.name
            }
            return nil
        }
    }

    /// Throws unless the job's migrations applied in the database are exactly `expected`
    /// (schema drift: a database behind or ahead of this binary must not be written to).
    public func checkUpToDate(_ expected: [Migration] = Migration.planRegen) throws {
        try Self.checkUpToDate(applied: appliedChecksums(), expected: expected)
    }

    static func checkUpToDate(applied checksums: [String: String], expected: [Migration] = Migration.planRegen) throws {
        let applied = checksums.keys.filter { !$0.hasPrefix("reference/") }
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

    /// The applied migrations, by name; empty before the first `migrate` (no table yet).
    private func appliedChecksums() throws -> [String: String] {
        let result: PostgresResult
        do {
            result = try connection.query(Self.appliedMigrationsQuery.query, purpose: Self.appliedMigrationsQuery.purpose)
        } catch let error as PostgresError where error.sqlState == .undefinedTable {
            return [:]  // undefined_table: nothing applied yet (one round trip instead of a lookup first)
        }
        return try Self.appliedChecksums(from: result)
    }

    static var appliedMigrationsQuery: (query: SQLQuery, purpose: String) {
        ("SELECT name, checksum FROM plan_regen_migrations", "reading applied migrations")
    }

    static func appliedChecksums(from result: PostgresResult) throws -> [String: String] {
        var applied: [String: String] = [:]
        for row in result {
            applied[try row.string("name")] = try row.string("checksum")
        }
        return applied
    }
}
