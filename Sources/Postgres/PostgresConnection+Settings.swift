import CLibPQ

/// Server settings a connection applies to every transaction it runs.
///
/// They are set with `set_config(name, value, true)`, i.e. transaction-local, never for
/// the session: behind a pooler in transaction mode (PgBouncer `pool_mode = transaction`)
/// consecutive transactions of one client may run on different server connections, so a
/// session `SET` would be lost for the next statement and left behind for another client.
/// PgBouncer 1.18 also refuses the `options` startup parameter, the other usual way.
public struct TransactionSettings: Sendable, Equatable {
    /// `(name, value)` pairs in the order they are applied.
    public private(set) var values: [Setting] = []

    public struct Setting: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public init() {}

    public var isEmpty: Bool { values.isEmpty }

    /// Sets `name` to `value`, replacing an earlier value of the same name.
    public mutating func set(_ name: String, _ value: String) {
        values.removeAll { $0.name == name }
        values.append(Setting(name: name, value: value))
    }

    /// Sets a duration setting (`statement_timeout`, `lock_timeout`, …) in whole
    /// milliseconds, rounded up so a tiny positive limit never becomes "no limit".
    /// Zero disables the limit, as in PostgreSQL.
    public mutating func set(_ name: String, _ duration: Duration) {
        set(name, "\(Self.milliseconds(duration))ms")
    }

    public static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        let fraction = (attoseconds + attosecondsPerMillisecond - 1) / attosecondsPerMillisecond
        return seconds * 1000 + fraction
    }

    /// One statement applying every setting: `SELECT set_config($1, $2, true), …`. The
    /// SQL text depends only on how many settings there are; names and values are
    /// parameters.
    var statement: SQLQuery {
        var statement: SQLQuery = "SELECT "
        for (position, setting) in values.enumerated() {
            if position > 0 { statement += ", " }
            statement += "set_config(\(bind: setting.name), \(bind: setting.value), true)"
        }
        return statement
    }
}

extension PostgresConnection {
    /// Applies `settings` to the transaction in progress only (e.g. a longer lock wait for
    /// one statement of it); the next transaction starts from `transactionSettings` again.
    public func setLocal(_ settings: TransactionSettings, purpose: String) throws {
        precondition(isInTransaction, "setLocal applies to the transaction in progress")
        guard !settings.isEmpty else { return }
        try execute(settings.statement, purpose: purpose)
    }

    /// True when a statement sent now runs in a transaction of its own (no BEGIN is open),
    /// so the transaction settings must travel with it.
    var needsSettingsWithStatement: Bool {
        !transactionSettings.isEmpty && !beginIsDeferred && PQtransactionStatus(handle) == PQTRANS_IDLE
    }
}
