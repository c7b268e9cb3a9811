import PlanRules
import Postgres

/// All SQL the nightly run needs, over one connection. Not shared between threads:
/// each worker opens its own `PlanStore`.
public final class PlanStore {
    public let connection: PostgresConnection
    /// Months (year × 12 + month) whose plan_history partition this session made sure of.
    var historyPartitionMonths: Set<Int> = []

    /// Opens the store on `connection`: fixes the session settings every query here
    /// relies on (UTC, ISO dates) and the timeouts that keep a run from hanging.
    public init(connection: PostgresConnection, timeouts: Timeouts = Timeouts()) throws {
        self.connection = connection
        try connection.execute(
            """
            SELECT set_config('TimeZone', 'UTC', false), set_config('DateStyle', 'ISO, YMD', false),
                   set_config('statement_timeout', $1, false), set_config('lock_timeout', $2, false),
                   set_config('idle_in_transaction_session_timeout', $3, false)
            """,
            ["\(timeouts.statementTimeoutMs)", "\(timeouts.lockTimeoutMs)", "\(timeouts.idleInTransactionTimeoutMs)"],
            purpose: "setting session parameters")
        try connection.executeScript(
            """
            CREATE TEMP TABLE IF NOT EXISTS plan_state_stage (LIKE plan_state) ON COMMIT DELETE ROWS
            """, purpose: "creating the plan_state staging table")
    }

    /// Server-side limits, in milliseconds. Ops tune them with `--statement-timeout` and
    /// `--lock-timeout` (README, "Timeouts").
    public struct Timeouts: Sendable {
        public var statementTimeoutMs: Int
        public var lockTimeoutMs: Int
        public var idleInTransactionTimeoutMs: Int

        public init(statementTimeoutMs: Int = 300_000, lockTimeoutMs: Int = 30_000,
                    idleInTransactionTimeoutMs: Int = 600_000) {
            self.statementTimeoutMs = statementTimeoutMs
            self.lockTimeoutMs = lockTimeoutMs
            self.idleInTransactionTimeoutMs = idleInTransactionTimeoutMs
        }
    }
}
