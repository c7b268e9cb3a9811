import Foundation
import Postgres

/// Applies pending migrations and checks that the database suits this binary.
///
/// `apply` is safe to run twice and from several processes at once, also through a
/// pooler in transaction mode: each migration is applied in a transaction that first takes
/// a transaction-scoped advisory lock, then reads what is applied, applies the next pending
/// migration and records it in `plan_regen_migrations`. A second `migrate` waits for the
/// lock and then finds the migration applied. The lock ends with its transaction — on
/// commit, on error, or when the client dies — so none is ever left behind on a pooled
/// server connection (a session lock was: issue 13).
///
/// On a live database a migration's statements wait at most `statementLockWait` for each
/// lock (a DDL statement queued behind a long query holds up every later reader and writer
/// of the table while it waits); when one is not granted, the whole migration is rolled
/// back and tried again after a pause that doubles, `attempts` times in all.
///
/// Expand and contract (Migration.Kind, docs/upgrading.md): `apply` applies the pending
/// migrations in order up to the first contract one, which waits for `contract:` — except
/// on a database that has none of the job's migrations yet, where no older binary can run.
public struct Migrator {
    /// Advisory lock key (first half: "plan-regen" namespace, second: migrations).
    static let lockKey: (Int32, Int32) = (0x706C_616E, 1)

    public let connection: PostgresConnection
    /// How long a `migrate` waits for another one to finish its migration.
    public var lockWait: Duration
    /// The `lock_timeout` of each statement of a migration.
    public var statementLockWait: Duration = .seconds(2)
    /// How many times a migration is tried when one of its locks is not granted in time.
    public var attempts = 8
    /// The pause after the first attempt that did not get its locks; doubled after each
    /// further one, up to `longestPause` (8 attempts: 2 s of waiting each and 0.5+1+…+30 s
    /// of pauses, about 1.5 minutes in all).
    public var firstPause: Duration = .milliseconds(500)
    public var longestPause: Duration = .seconds(30)
    /// Told before each pause: the migration, the attempt that did not get its locks, the pause.
    public var onRetry: ((String, Int, Duration) -> Void)?

    public init(connection: PostgresConnection, lockWait: Duration = .seconds(600)) {
        self.connection = connection
        self.lockWait = lockWait
    }

    /// What `apply` does with pending contract migrations.
    public enum ContractStep: Sendable {
        /// They wait (plain `migrate`).
        case wait
        /// They are applied (`migrate --contract`), unless a binary that does not know one
        /// started a run within `window`: a binary that old may still be deployed.
        case apply(unlessOlderBinariesRanWithin: Duration)
    }

    /// Applies the pending migrations of `migrations` that `contract` allows, in order;
    /// returns the names applied.
    @discardableResult
    public func apply(_ migrations: [Migration], contract: ContractStep = .wait) throws -> [String] {
        let fresh = Self.isFresh(try appliedMigrations())
        var newlyApplied: [String] = []
        var attempt = 1
        while true {
            do {
                guard let name = try applyNext(of: migrations, fresh: fresh, contract: contract) else { break }
                newlyApplied.append(name)
                attempt = 1
            } catch let timeout as LockNotGranted {
                guard attempt < attempts else {
                    throw StoreError.migrationLockNotGranted(
                        migration: timeout.migration, attempts: attempts, lockWait: statementLockWait)
                }
                let pause = min(firstPause * (1 << min(attempt - 1, 20)), longestPause)
                onRetry?(timeout.migration, attempt, pause)
                sleep(pause)
                attempt += 1
            }
        }
        return newlyApplied
    }

    /// A statement of `migration` waited `statementLockWait` for a lock; its transaction
    /// is rolled back.
    struct LockNotGranted: Error {
        var migration: String
    }

    /// Applies the first migration `schedule` allows, in one transaction under the migration
    /// lock; returns its name, or nil when none is left to apply now.
    private func applyNext(of migrations: [Migration], fresh: Bool, contract: ContractStep) throws -> String? {
        try connection.withTransaction { conn -> String? in
            var longWait = TransactionSettings()
            longWait.set("lock_timeout", lockWait)
            try conn.setLocal(longWait, purpose: "allowing a long wait for the migration lock")
            try conn.execute(
                "SELECT pg_advisory_xact_lock(\(Self.lockKey.0), \(Self.lockKey.1))",
                purpose: "waiting for the migration lock (another plan-regen migrate is running)")
            // The migration's statements keep the connection's other timeouts and wait
            // briefly for each lock.
            var settings = conn.transactionSettings
            settings.set("lock_timeout", statementLockWait)
            try conn.setLocal(settings, purpose: "setting the migration's timeouts")
            try conn.execute(
                """
                CREATE TABLE IF NOT EXISTS plan_regen_migrations (
                    name        text PRIMARY KEY,
                    checksum    text NOT NULL,
                    applied_at  timestamptz NOT NULL DEFAULT clock_timestamp()
                )
                """, purpose: "creating the migrations table")
            let applied = try appliedMigrations()
            try Self.checkNoneEdited(migrations, applied: applied)
            let toApply = Self.schedule(migrations, applied: applied, fresh: fresh,
                                        contract: { if case .wait = contract { false } else { true } }()).apply
            guard let migration = toApply.first else { return nil }
            if case .apply(let window) = contract, !migration.isExpand, !fresh {
                try refuseWhileOlderBinariesRan(migration, within: window)
            }
            do {
                try conn.executeScript(migration.sql, purpose: "applying migration \(migration.name)")
                try record(migration)
            } catch let error as PostgresError where error.sqlState == .lockNotAvailable {
                throw LockNotGranted(migration: migration.name)
            }
            return migration.name
        }
    }

    /// Records `migration` as applied, with its kind once the table has that column (sql/0013;
    /// the migrations before it are recorded without one, then marked by it).
    private func record(_ migration: Migration) throws {
        try connection.execute(
            """
            INSERT INTO plan_regen_migrations
            SELECT * FROM jsonb_populate_record(NULL::plan_regen_migrations, jsonb_build_object(
                'name', \(bind: migration.name)::text, 'checksum', \(bind: migration.checksum)::text,
                'kind', \(bind: migration.kind?.rawValue)::text, 'applied_at', clock_timestamp()))
            """,
            purpose: "recording migration \(migration.name)")
    }

    /// Which pending migrations `migrate` applies now, in order, and which wait for
    /// `migrate --contract` (the first pending contract one and every one after it): the
    /// one decision `apply`, `--status` and `--dry-run` share.
    static func schedule(_ migrations: [Migration], applied: [String: AppliedMigration], fresh: Bool,
                         contract: Bool) -> (apply: [Migration], wait: [Migration]) {
        let pending = migrations.filter { applied[$0.name] == nil }
        let now = pending.prefix { $0.isExpand || fresh || contract }
        return (Array(now), Array(pending.dropFirst(now.count)))
    }

    /// A database that has none of the job's migrations: nothing older can be running on it.
    static func isFresh(_ applied: [String: AppliedMigration]) -> Bool {
        applied.keys.allSatisfy { $0.hasPrefix("reference/") }
    }

    static func checkNoneEdited(_ migrations: [Migration], applied: [String: AppliedMigration]) throws {
        for migration in migrations {
            if let record = applied[migration.name], record.checksum != migration.checksum {
                throw StoreError.migrationEdited(name: migration.name)
            }
        }
    }

    /// Throws `StoreError.contractWaitsForOlderBinaries` when a run started within `window`
    /// by a binary that does not know `migration` (its schema level is older; before 1.0.0
    /// no level was recorded).
    private func refuseWhileOlderBinariesRan(_ migration: Migration, within window: Duration) throws {
        guard window > .zero, let number = Migration.number(of: migration.name) else { return }
        let runs = try connection.query(
            """
            SELECT run_id, binary_version, to_jsonb(r)->>'schema_level' AS schema_level,
                   to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS started
            FROM plan_runs r
            WHERE started_at > clock_timestamp() - \(window.components.seconds)::bigint * interval '1 second'
            ORDER BY started_at DESC
            """, purpose: "looking for recent runs of binaries that do not know \(migration.name)")
        for row in runs {
            let level = try row.optionalString("schema_level")
            if (level.flatMap(Migration.number(of:)) ?? 0) < number {
                throw StoreError.contractWaitsForOlderBinaries(
                    migration: migration.name, runID: try row.int64("run_id"),
                    binaryVersion: try row.string("binary_version"), schemaLevel: level,
                    startedAt: try row.string("started"), window: window)
            }
        }
    }

    /// Throws unless this binary can run on the database: every migration it knows is
    /// applied (but its own contract migrations at the end, which may wait for
    /// `migrate --contract`), and every migration it does not know is an expand one.
    public func checkUpToDate(_ expected: [Migration] = Migration.planRegen) throws {
        try Self.checkUpToDate(applied: appliedMigrations(), expected: expected)
    }

    static func checkUpToDate(applied: [String: AppliedMigration], expected: [Migration] = Migration.planRegen) throws {
        let known = Set(expected.map(\.name))
        let unknown = applied.values.filter { !$0.name.hasPrefix("reference/") && !known.contains($0.name) }
        let refusing = unknown.filter { $0.kind != .expand }.map(\.name).sorted()
        if !refusing.isEmpty {
            throw StoreError.schemaAhead(unknownMigrations: refusing, schemaLevel: expected.last?.name ?? "none")
        }
        let waiting = expected.reversed().prefix { applied[$0.name] == nil && !$0.isExpand }.map(\.name)
        let missing = expected.map(\.name).filter { applied[$0] == nil && !waiting.contains($0) }
        if !missing.isEmpty {
            throw StoreError.schemaBehind(pendingMigrations: missing)
        }
    }

    /// The applied migrations, by name; empty before the first `migrate` (no table yet).
    func appliedMigrations() throws -> [String: AppliedMigration] {
        let result: PostgresResult
        do {
            result = try connection.query(Self.appliedMigrationsQuery.query, purpose: Self.appliedMigrationsQuery.purpose)
        } catch let error as PostgresError where error.sqlState == .undefinedTable {
            return [:]  // undefined_table: nothing applied yet (one round trip instead of a lookup first)
        }
        return try Self.appliedMigrations(from: result)
    }

    /// The kind is read through `to_jsonb` so that the query also works on a database from
    /// before sql/0013 (no such column: every row without a kind).
    static var appliedMigrationsQuery: (query: SQLQuery, purpose: String) {
        ("""
         SELECT name, checksum, to_jsonb(m)->>'kind' AS kind,
                to_char(applied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS applied_at
         FROM plan_regen_migrations m
         """, "reading applied migrations")
    }

    static func appliedMigrations(from result: PostgresResult) throws -> [String: AppliedMigration] {
        var applied: [String: AppliedMigration] = [:]
        for row in result {
            let record = AppliedMigration(
                name: try row.string("name"), checksum: try row.string("checksum"),
                kind: try row.optionalString("kind").flatMap(Migration.Kind.init(rawValue:)),
                appliedAt: try row.string("applied_at"))
            applied[record.name] = record
        }
        return applied
    }

    private func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
    }
}

/// A row of `plan_regen_migrations`.
public struct AppliedMigration: Sendable, Hashable {
    public var name: String
    public var checksum: String
    /// nil: recorded without a kind (before sql/0013, or by hand): counts as contract.
    public var kind: Migration.Kind?
    /// When, in UTC (RFC 3339).
    public var appliedAt: String
}
