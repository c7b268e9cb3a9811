import PlanRules
import Postgres

/// All SQL the job needs, over one connection. Not shared between threads: each worker
/// has its own `PlanStore`.
///
/// The store keeps no session state on the server (no session `SET`, no temporary table,
/// no session lock, no named prepared statement), so every command works the same
/// directly, behind PgBouncer in session or transaction mode, and — for reading — on a hot
/// standby. What its SQL relies on (UTC, ISO dates, timeouts) is set in every transaction.
public final class PlanStore {
    public let connection: PostgresConnection
    /// Months (year × 12 + month) whose plan_history partition this store made sure of.
    var historyPartitionMonths: Set<Int> = []
    /// Whether `user_settings` has the optional `locale` and `unit_system` columns
    /// (UserLoading.swift), once asked.
    var optionalSettingsColumns: (locale: Bool, unitSystem: Bool)?

    /// What a command does with the database.
    public enum Access: Sendable {
        /// Reads only (`history`, `explain`, `run --dry-run`): works on a hot standby.
        case readOnly
        /// Writes plans, runs or deletions: needs the primary.
        case readWrite
    }

    /// Opens the store for a command: the one way every command starts. Checks, before
    /// anything else touches the job's tables, that a writing command is not on a read-only
    /// server and that the schema matches this binary (before `migrate`: "run plan-regen
    /// migrate"). Writes nothing.
    public static func open(_ connection: PostgresConnection, for access: Access,
                            timeouts: Timeouts = Timeouts()) throws -> PlanStore {
        let store = PlanStore(connection: connection, timeouts: timeouts)
        try store.readStartingFacts(requireWritable: access == .readWrite)
        return store
    }

    /// The server's clock when the store was opened (`clock_timestamp()`).
    public private(set) var openedAt: Instant?
    /// Whether `user_settings` lacks the index on `updated_at` (`UserSettingsIndex`), as
    /// found when the store was opened.
    public private(set) var userSettingsIndexMissing = false

    /// Checks the server and the schema and learns what the store needs later, in one
    /// round trip (a remote database charges each one): writable, the applied migrations,
    /// the optional `user_settings` columns and its index, the existing `plan_history`
    /// partitions and the server's clock. Before `migrate` the migrations table is missing:
    /// then the checks run one by one, so a standby is still reported as such first.
    private func readStartingFacts(requireWritable: Bool) throws {
        var results: PipelinedResults
        do {
            results = PipelinedResults(try connection.pipelined(
                (requireWritable ? [Self.writableCheck] : []) + [
                    Self.presentationColumnsQuery, Self.historyPartitionsQuery,
                    Self.clockQuery, UserSettingsIndex.presenceQuery,
                    Migrator.appliedMigrationsQuery,
                ]))
        } catch let error as PostgresError where error.sqlState == .undefinedTable {
            if requireWritable { try requireWritableServer() }
            try Migrator(connection: connection).checkUpToDate()
            throw error
        }
        if requireWritable { try refuseReadOnly(results.next(Self.writableCheck.purpose)) }
        optionalSettingsColumns = try Self.presentationColumns(from: results.next(Self.presentationColumnsQuery.purpose))
        historyPartitionMonths = Set(try results.next(Self.historyPartitionsQuery.purpose).map { try $0.int("month") })
        openedAt = try Self.databaseNow(from: results.next(Self.clockQuery.purpose))
        userSettingsIndexMissing = try UserSettingsIndex.isMissing(from: results.next(UserSettingsIndex.presenceQuery.purpose))
        try Migrator.checkUpToDate(applied: Migrator.appliedMigrations(from: results.next(Migrator.appliedMigrationsQuery.purpose)))
    }

    /// Wraps `connection` for a store whose database is already checked (a run's worker
    /// connections, `migrate`): sets the settings every transaction gets, without a round trip.
    public init(connection: PostgresConnection, timeouts: Timeouts = Timeouts()) {
        self.connection = connection
        connection.transactionSettings = timeouts.transactionSettings
    }

    /// Round trips made so far on the store's connection, and whether it still works.
    public var roundTrips: Int { connection.roundTrips }
    public var isUsable: Bool { connection.isUsable }
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    public func inTransaction<T>(_ body: () throws -> T) throws -> T { try connection.withTransaction { _ in try body() } }

    /// Throws `StoreError.readOnlyServer` when this server cannot take writes: a hot
    /// standby (in recovery), or one whose transactions are read-only by default.
    static var writableCheck: (query: SQLQuery, purpose: String) {
        ("SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') = 'on' AS read_only",
         "checking that the server accepts writes")
    }

    func requireWritableServer() throws {
        try refuseReadOnly(connection.pipelined([Self.writableCheck])[0])
    }

    private func refuseReadOnly(_ result: PostgresResult) throws {
        let row = try result.singleRow()
        let standby = try row.bool("standby")
        let readOnly = try row.bool("read_only")
        if standby || readOnly {
            throw StoreError.readOnlyServer(host: connection.host, port: connection.port, standby: standby)
        }
    }

    /// The server-side limits of every transaction of the job, defaults included: their one
    /// home. Ops tune the first two with `--statement-timeout` and `--lock-timeout`
    /// (docs/operations.md, "Timeouts"); `PostgresConnection.init` bounds connecting.
    public struct Timeouts: Sendable {
        public var statement: Duration
        public var lock: Duration
        public var idleInTransaction: Duration

        public init(statement: Duration = .seconds(300), lock: Duration = .seconds(30),
                    idleInTransaction: Duration = .seconds(600)) {
            self.statement = statement
            self.lock = lock
            self.idleInTransaction = idleInTransaction
        }

        /// What every transaction of the store sets: the timeouts, UTC with ISO dates,
        /// which the store's SQL reads and writes (whatever the server's or role's
        /// defaults), and no JIT compilation.
        ///
        /// JIT off: a batch's read of users with a plan passes `jit_above_cost` once
        /// `plan_history` has a few dozen monthly partitions, and compiling it costs far
        /// more than the read itself; no statement of the job runs long enough to win it back.
        var transactionSettings: TransactionSettings {
            var settings = TransactionSettings()
            settings.set("TimeZone", "UTC")
            settings.set("DateStyle", "ISO, YMD")
            settings.set("jit", "off")
            settings.set("statement_timeout", statement)
            settings.set("lock_timeout", lock)
            settings.set("idle_in_transaction_session_timeout", idleInTransaction)
            return settings
        }
    }
}
