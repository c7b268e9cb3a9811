extension PostgresConnection {
    /// The isolation levels a transaction can ask for.
    public enum IsolationLevel: String, Sendable {
        case readCommitted = "READ COMMITTED"
        case repeatableRead = "REPEATABLE READ"
        case serializable = "SERIALIZABLE"
    }

    /// Runs `body` inside BEGIN … COMMIT, with `transactionSettings` applied at BEGIN. When `body` throws, the transaction is rolled
    /// back and the error is rethrown unchanged (a failing ROLLBACK, e.g. because the
    /// connection is gone, does not hide it).
    ///
    /// - Parameter isolation: nil keeps the session default (READ COMMITTED).
    public func withTransaction<Result>(
        isolation: IsolationLevel? = nil,
        _ body: (PostgresConnection) throws -> Result
    ) throws -> Result {
        let begin: SQLQuery = isolation.map { "BEGIN ISOLATION LEVEL \(unescaped: $0.rawValue)" } ?? "BEGIN"
        // BEGIN and the settings (which hold until COMMIT/ROLLBACK) wait for the
        // transaction's first statement and travel in its round trip.
        deferred = [PendingStatement(query: begin, purpose: "beginning a transaction")]
            + (transactionSettings.isEmpty ? [] : [transactionSettingsStatement])
        let value: Result
        do {
            value = try body(self)
        } catch {
            if !beginIsDeferred {
                _ = try? execute("ROLLBACK", purpose: "rolling back after an error")
            }
            deferred = []
            throw error
        }
        if beginIsDeferred {
            // Nothing reached the server: no transaction to commit.
            deferred = []
            return value
        }
        try execute("COMMIT", purpose: "committing a transaction")
        return value
    }
}
