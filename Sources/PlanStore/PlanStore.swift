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
        if access == .readWrite { try store.requireWritableServer() }
        try Migrator(connection: connection).checkUpToDate()
        return store
    }

    /// Wraps `connection` for a store whose database is already checked (a run's worker
    /// connections, `migrate`): sets the settings every transaction gets, without a round trip.
    public init(connection: PostgresConnection, timeouts: Timeouts = Timeouts()) {
        self.connection = connection
        connection.transactionSettings = timeouts.transactionSettings
    }

    /// Throws `StoreError.readOnlyServer` when this server cannot take writes: a hot
    /// standby (in recovery), or one whose transactions are read-only by default.
    func requireWritableServer() throws {
        let row = try connection.query(
            "SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') = 'on' AS read_only",
            purpose: "checking that the server accepts writes").singleRow()
        let standby = try row.bool("standby")
        let readOnly = try row.bool("read_only")
        if standby || readOnly {
            throw StoreError.readOnlyServer(host: connection.host, port: connection.port, standby: standby)
        }
    }

    /// The server-side limits of every transaction of the job, defaults included: their one
    /// home. Ops tune the first two with `--statement-timeout` and `--lock-timeout`
    /// (README, "Timeouts"); `PostgresConnection.init` bounds connecting.
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

        /// What every transaction of the store sets: the timeouts, and UTC with ISO dates,
        /// which the store's SQL reads and writes (whatever the server's or role's defaults).
        var transactionSettings: TransactionSettings {
            var settings = TransactionSettings()
            settings.set("TimeZone", "UTC")
            settings.set("DateStyle", "ISO, YMD")
            settings.set("statement_timeout", statement)
            settings.set("lock_timeout", lock)
            settings.set("idle_in_transaction_session_timeout", idleInTransaction)
            return settings
        }
    }
}
